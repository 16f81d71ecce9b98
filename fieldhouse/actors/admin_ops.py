"""Workspace administration through the actor: users, roles, API keys, templates, labels."""

from __future__ import annotations

from dataclasses import dataclass

from fieldhouse.actors.context import WriteContext
from fieldhouse.actors.messages import Message
from fieldhouse.actors.rights import may_administer
from fieldhouse.model.activity import ActivityKind
from fieldhouse.model.clock import new_id
from fieldhouse.model.errors import BadRequest, Conflict, NotFound
from fieldhouse.model.keys import generate_api_key
from fieldhouse.model.principal import KEY_ROLES, SCOPES, Role, builtin_role
from fieldhouse.model.schema import ModuleDef
from fieldhouse.model.template_diff import schema_from_template
from fieldhouse.model.templates import get_template
from fieldhouse.storage.base import ApiKeyRow, ConflictError, UserRow


@dataclass(frozen=True)
class CreateUser(Message[str]):
    email: str
    display_name: str
    role_slug: str

    async def apply(self, ctx: WriteContext) -> str:
        await may_administer(ctx, self.by)
        return await create_user(ctx, self)


@dataclass(frozen=True)
class CreateRole(Message[str]):
    slug: str
    can_view: frozenset[str]
    can_edit: frozenset[str]

    async def apply(self, ctx: WriteContext) -> str:
        await may_administer(ctx, self.by)
        return await create_role(ctx, self)


@dataclass(frozen=True)
class CreatedKey:
    api_key: str
    api_key_id: str


@dataclass(frozen=True)
class CreateApiKey(Message[CreatedKey]):
    user_id: str
    scopes: tuple[str, ...] | None
    name: str | None = None
    #: the key's own role, lower than its user's (None: the user's role)
    role: str | None = None

    async def apply(self, ctx: WriteContext) -> CreatedKey:
        (await may_administer(ctx, self.by)).check_may_grant(self.role, self.scopes)
        return await create_api_key(ctx, self)


@dataclass(frozen=True)
class RevokeApiKey(Message[bool]):
    key_id: str

    async def apply(self, ctx: WriteContext) -> bool:
        await may_administer(ctx, self.by)
        return await revoke_api_key(ctx, self)


@dataclass(frozen=True)
class DeleteUser(Message[bool]):
    """Soft-delete a user: their API keys and session tokens stop working at once."""

    user_id: str

    async def apply(self, ctx: WriteContext) -> bool:
        await may_administer(ctx, self.by)
        return await delete_user(ctx, self)


@dataclass(frozen=True)
class InstallTemplate(Message[ModuleDef]):
    template_slug: str

    async def apply(self, ctx: WriteContext) -> ModuleDef:
        await may_administer(ctx, self.by)
        return await install_template(ctx, self)


@dataclass(frozen=True)
class CreateLabel(Message[dict[str, str | None]]):
    name: str
    color: str | None = None

    async def apply(self, ctx: WriteContext) -> dict[str, str | None]:
        await may_administer(ctx, self.by)
        return await create_label(ctx, self)


@dataclass(frozen=True)
class CreateType(Message[dict[str, str | None]]):
    name: str
    color: str | None = None
    module_slug: str | None = None

    async def apply(self, ctx: WriteContext) -> dict[str, str | None]:
        await may_administer(ctx, self.by)
        return await create_type(ctx, self)


async def create_user(ctx: WriteContext, msg: CreateUser) -> str:
    if builtin_role(msg.role_slug) is None and await ctx.txn.get_role(msg.role_slug) is None:
        raise BadRequest(f"Unknown role {msg.role_slug!r}")
    user = UserRow(new_id(), ctx.account_id, msg.email, msg.display_name, msg.role_slug, False)
    try:
        await ctx.txn.insert_user(user, ctx.now)
    except ConflictError:
        raise Conflict(f"A user with e-mail {msg.email!r} already exists") from None
    await ctx.activity(
        ActivityKind.USER_CREATED, user_id=msg.by.user_id, data={"userId": user.user_id}
    )
    return user.user_id


async def create_role(ctx: WriteContext, msg: CreateRole) -> str:
    if builtin_role(msg.slug) is not None:
        raise Conflict(f"Role {msg.slug!r} is built in")
    try:
        await ctx.txn.insert_role(Role(msg.slug, msg.can_view, msg.can_edit), ctx.now)
    except ConflictError:
        raise Conflict(f"Role {msg.slug!r} already exists") from None
    return msg.slug


async def create_api_key(ctx: WriteContext, msg: CreateApiKey) -> CreatedKey:
    if msg.scopes is not None:
        unknown = sorted(set(msg.scopes) - set(SCOPES))
        if unknown:
            raise BadRequest(f"Unknown scopes: {', '.join(unknown)}; known: {', '.join(SCOPES)}")
    if msg.role is not None and msg.role not in KEY_ROLES:
        raise BadRequest(f"Unknown key role {msg.role!r}; known: {', '.join(KEY_ROLES)}")
    new = generate_api_key()
    row = ApiKeyRow(
        new_id(), ctx.account_id, msg.user_id, msg.name, new.key_hash, msg.scopes, False, msg.role
    )
    await ctx.txn.insert_api_key(row, new.display_prefix, ctx.now)
    await ctx.activity(
        ActivityKind.API_KEY_CREATED, user_id=msg.by.user_id, data={"apiKeyId": row.key_id}
    )
    return CreatedKey(new.secret, row.key_id)


async def revoke_api_key(ctx: WriteContext, msg: RevokeApiKey) -> bool:
    if not await ctx.txn.revoke_api_key(msg.key_id, ctx.now):
        raise NotFound(f"API key {msg.key_id} not found or already revoked")
    ctx.access_changed = True
    await ctx.activity(
        ActivityKind.API_KEY_REVOKED, user_id=msg.by.user_id, data={"apiKeyId": msg.key_id}
    )
    return True


async def delete_user(ctx: WriteContext, msg: DeleteUser) -> bool:
    if not await ctx.txn.delete_user(msg.user_id, ctx.now):
        raise NotFound(f"User {msg.user_id} not found or already deleted")
    ctx.access_changed = True
    await ctx.activity(
        ActivityKind.USER_DELETED, user_id=msg.by.user_id, data={"userId": msg.user_id}
    )
    return True


async def install_template(ctx: WriteContext, msg: InstallTemplate) -> ModuleDef:
    template = get_template(msg.template_slug)
    if template is None:
        raise NotFound(f"Template {msg.template_slug!r} not found")
    if template.module_slug in ctx.schemas:
        raise Conflict(f"Module {template.module_slug!r} is already installed")
    archived = next(
        (m for m in await ctx.txn.all_modules() if m.slug == template.module_slug), None
    )
    if archived is not None:
        raise Conflict(
            f"Module {template.module_slug!r} is installed and archived; bring it back with "
            f"PATCH /api/modules/{archived.module_id} {{archived: false}}",
            data={"moduleId": archived.module_id, "archived": True},
        )
    schema = schema_from_template(template, new_id(), account_id=ctx.account_id, now=ctx.now)
    module = schema.module
    await ctx.txn.insert_module(module)
    await ctx.txn.upsert_fields(schema.fields)
    await ctx.txn.upsert_views(schema.views)
    await ctx.txn.upsert_references(schema.references)
    await ctx.schema_edited()
    await ctx.activity(
        ActivityKind.TEMPLATE_INSTALLED,
        user_id=msg.by.user_id,
        module_id=module.module_id,
        data={"templateSlug": template.slug, "templateVersion": template.version},
    )
    return module


async def create_label(ctx: WriteContext, msg: CreateLabel) -> dict[str, str | None]:
    label_id = new_id()
    try:
        await ctx.txn.insert_label(label_id, msg.name, msg.color, ctx.now)
    except ConflictError:
        raise Conflict(f"A label named {msg.name!r} already exists") from None
    return {"id": label_id, "name": msg.name, "color": msg.color}


async def create_type(ctx: WriteContext, msg: CreateType) -> dict[str, str | None]:
    module_id = None
    if msg.module_slug is not None:
        schema = ctx.schemas.get(msg.module_slug)
        if schema is None:
            raise NotFound(f"Module {msg.module_slug!r} not found")
        module_id = schema.module.module_id
    type_id = new_id()
    try:
        await ctx.txn.insert_type(type_id, msg.name, msg.color, module_id, ctx.now)
    except ConflictError:
        raise Conflict(f"A type named {msg.name!r} already exists") from None
    return {"id": type_id, "name": msg.name, "color": msg.color, "moduleId": module_id}
