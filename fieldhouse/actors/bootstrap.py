"""Creating workspaces: the account row, its owner, and optionally templates and a key."""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from fieldhouse.actors.admin_ops import CreateApiKey, CreatedKey, CreateUser, InstallTemplate
from fieldhouse.actors.system import ActorSystem
from fieldhouse.model.clock import new_id, now_iso
from fieldhouse.model.errors import NotFound
from fieldhouse.model.principal import SCOPES, SystemActor
from fieldhouse.model.templates import BUILTIN_TEMPLATES, get_template
from fieldhouse.storage.base import ConflictError


@dataclass(frozen=True)
class NewWorkspace:
    account_id: str
    user_id: str


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:48] or "workspace"


async def create_workspace(
    system: ActorSystem, name: str, *, owner_email: str | None = None, owner_name: str = "Owner"
) -> NewWorkspace:
    account_id = new_id()
    base = slugify(name)
    slug = base
    for _ in range(20):
        try:
            await system.store.create_account(account_id, name, slug, now_iso())
            break
        except ConflictError:
            slug = f"{base}-{secrets.token_hex(3)}"
    else:  # pragma: no cover - twenty random collisions in a row
        raise RuntimeError("could not find a free workspace slug")
    email = owner_email or f"owner@{slug}.example"
    user_id = await system.ask(
        CreateUser(email, owner_name, "owner", by=SystemActor(account_id, "bootstrap"))
    )
    return NewWorkspace(account_id, user_id)


async def init_workspace(
    system: ActorSystem, name: str, templates: Sequence[str] | None
) -> tuple[NewWorkspace, CreatedKey]:
    """What `fieldhouse init` does: a workspace, its templates, and a key with every scope."""
    slugs = [t.slug for t in BUILTIN_TEMPLATES] if not templates else list(dict.fromkeys(templates))
    unknown = [s for s in slugs if get_template(s) is None]
    if unknown:
        known = ", ".join(t.slug for t in BUILTIN_TEMPLATES)
        raise NotFound(f"Unknown template(s): {', '.join(unknown)}; built in: {known}")
    workspace = await create_workspace(system, name)
    # what init installs and the key it makes are the owner's
    by = SystemActor(workspace.account_id, "bootstrap", workspace.user_id)
    for slug in slugs:
        await system.ask(InstallTemplate(slug, by=by))
    key = await system.ask(CreateApiKey(workspace.user_id, SCOPES, "init", by=by))
    return workspace, key
