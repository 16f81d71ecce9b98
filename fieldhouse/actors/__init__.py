"""Per-workspace actors: the only writers of their workspace.

Each message type (``record_ops.CreateRecord``, ``admin_ops.CreateUser``, ...) carries its own
handler, so nothing needs registering: ``ActorSystem.ask(message)`` runs it in the workspace of
whoever acts (the message's ``by``).
"""

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
