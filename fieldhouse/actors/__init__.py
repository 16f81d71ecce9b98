"""Per-workspace actors: the only writers of their workspace."""

from __future__ import annotations

# importing the operation modules registers their message handlers
from fieldhouse.actors import admin_ops, agent_ops, record_ops, run_ops, template_ops
from fieldhouse.actors.messages import Message, Reply
from fieldhouse.actors.schemas import SchemaRegistry, WorkspaceSchemas
from fieldhouse.actors.system import ActorSystem, open_actor_system

__all__ = [
    "ActorSystem",
    "Message",
    "Reply",
    "SchemaRegistry",
    "WorkspaceSchemas",
    "admin_ops",
    "agent_ops",
    "open_actor_system",
    "record_ops",
    "run_ops",
    "template_ops",
]
