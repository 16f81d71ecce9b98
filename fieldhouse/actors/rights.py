"""Who may act, decided in one place: the workspace actor, as it writes.

A message's ``by`` is a principal as its credential was checked when it asked (by the HTTP
layer, or, for an agent run's requester, just before the tool call, however long ago an
approver approved it). A handler that needs a right asks here what that principal may do at
the moment of the write: their user still there, their key not revoked, the role and scopes
they have now, read once per batch. Then it applies the rule of
:class:`~fieldhouse.model.principal.Principal` (``check_edit``, ``check_admin``): the same
refusal, with the same envelope, that a route gives before it reads a body. The server acting
on its own (:class:`~fieldhouse.model.principal.SystemActor`) may do everything.
"""

from __future__ import annotations

from collections.abc import Callable

from fieldhouse.actors.context import WriteContext
from fieldhouse.coordination import EpochMemo
from fieldhouse.model.errors import Forbidden
from fieldhouse.model.principal import Acting, Principal, Role, SystemActor, builtin_role, key_role
from fieldhouse.storage.base import ApiKeyRow, UserRow
from fieldhouse.storage.store import Store

API_KEY = "api_key"
SESSION = "jwt"
GONE = (
    "The API key this was asked with has been revoked, or its user deleted: nothing is "
    "written on their behalf"
)


async def rights_now(
    store: Store, account_id: str, user_id: str | None, api_key_id: str | None, auth: str
) -> Principal | None:
    """What a user (with their key, or in a session) may do now: the key's scopes and role,
    the user's role; None once the key is revoked, the user deleted, or either belongs to
    another workspace."""
    if user_id is None:
        return None
    user, key = await store.user_and_key(account_id, user_id, api_key_id)
    if user is None or user.deleted:
        return None
    role = await role_of(store, user)
    if auth != API_KEY and api_key_id is None:
        return session_principal(user, role)
    if key is None or key.revoked or key.account_id != account_id or key.user_id != user_id:
        return None
    return key_principal(key, user, role)


class RightsMemo:
    """What :func:`rights_now` read, kept while the change epoch stays where it was.

    Revoking a key or deleting a user moves the epoch (``WorkspaceActor``'s ``on_change``)
    before the revoke is answered; given an ``epoch`` whose move every process sees the moment
    it is made (the embedded store's shared word: ``Coordination.immediate``), a principal
    remembered at the current epoch is what the store would say. That spares each write
    batch a read of its user and key: 3-4% of a create's CPU at one connection. Without an
    ``epoch`` (PostgreSQL: notices reach other servers later) every call reads. Entries live
    as the authenticator's do (:class:`~fieldhouse.coordination.EpochMemo`)."""

    def __init__(self, store: Store, epoch: Callable[[], int] | None) -> None:
        self._store = store
        self._known: EpochMemo[tuple[str, str, str | None, str], Principal | None] | None = (
            None if epoch is None else EpochMemo(epoch)
        )

    async def rights(self, account_id: str, p: Principal) -> Principal | None:
        """``rights_now`` of principal ``p`` in ``account_id``."""
        if self._known is None:
            return await self._read(account_id, p)
        key = (account_id, p.user_id, p.api_key_id, p.auth_method)
        known = self._known.recall(key)
        if known is not None:
            return known.value
        epoch = self._known.epoch()  # read before the store: a change meanwhile drops it
        principal = await self._read(account_id, p)
        self._known.remember(key, principal, epoch)
        return principal

    async def _read(self, account_id: str, p: Principal) -> Principal | None:
        return await rights_now(self._store, account_id, p.user_id, p.api_key_id, p.auth_method)


def session_principal(user: UserRow, role: Role) -> Principal:
    """A user signed in with a session token, with the user's ``role``."""
    return Principal(
        user.account_id, user.user_id, user.display_name, role, None, SESSION, None,
        f"user:{user.user_id}",
    )  # fmt: skip


def key_principal(key: ApiKeyRow, user: UserRow, role: Role) -> Principal:
    """``user`` (whose role is ``role``) asking with ``key``: its scopes, and its own role
    where that is lower (``key_role``)."""
    scopes = None if key.scopes is None else frozenset(key.scopes)
    return Principal(
        key.account_id, user.user_id, user.display_name, key_role(role, key.role_slug), scopes,
        API_KEY, key.key_id, f"key:{key.key_id}",
    )  # fmt: skip


async def role_of(
    store: Store, user: UserRow, remembered: dict[tuple[str, str], Role] | None = None
) -> Role:
    """The user's role; a role that vanished allows nothing. Custom roles never change once
    created, so a caller may pass ``remembered`` to keep those found (the authenticator)."""
    role = builtin_role(user.role_slug)
    if role is not None:
        return role
    key = (user.account_id, user.role_slug)
    if remembered is not None and key in remembered:
        return remembered[key]
    custom = await store.get_role(user.account_id, user.role_slug)
    if custom is None:
        return Role(user.role_slug, frozenset(), frozenset())
    if remembered is not None:
        remembered[key] = custom
    return custom


async def acting_now(ctx: WriteContext, by: Acting) -> Acting:
    """``by`` with its rights as they are now (403 when its key was revoked or its user
    deleted meanwhile); ``by`` itself when the context reads no rights (the server acts)."""
    if isinstance(by, SystemActor) or ctx.rights is None:
        return by
    now = await ctx.rights(by)
    if now is None:
        raise Forbidden(GONE)
    return now


async def may_edit(ctx: WriteContext, by: Acting, module_slug: str) -> None:
    """403/404 unless ``by`` may now change records of the module (``Principal.check_edit``)."""
    (await acting_now(ctx, by)).check_edit(module_slug)


async def may_administer(ctx: WriteContext, by: Acting) -> Acting:
    """403 unless ``by`` is now an owner or admin of the workspace; their rights now."""
    now = await acting_now(ctx, by)
    now.check_admin()
    return now
