"""Per-workspace actors: the only writers of their workspace."""

from __future__ import annotations

from fieldhouse.actors.messages import Message, Reply
from fieldhouse.actors.schemas import SchemaRegistry, WorkspaceSchemas
from fieldhouse.actors.system import ActorSystem, open_actor_system

__all__ = [
    "ActorSystem",
    "Message",
    "Reply",
    "SchemaRegistry",
    "WorkspaceSchemas",
    "open_actor_system",
]
