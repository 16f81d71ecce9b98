"""Who an agent run acts for, decided in one place.

A run, and every approval it asks for, stores its requester's identity: the workspace, the
user, the API key (None for a session) and how they authenticated. Whoever resumes the run or
approves one of its calls, what runs is done with the requester's rights as they are at that
moment, read again from the store before each tool call: the key's scopes and the user's role
now, and nothing at all once the key is revoked or the user deleted.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldhouse.actors.rights import API_KEY, SESSION, rights_now
from fieldhouse.model.errors import Conflict
from fieldhouse.model.principal import Principal
from fieldhouse.storage.store import Store


@dataclass(frozen=True)
class Requester:
    """The identity a run acts for (never their rights: those are read when a tool runs)."""

    account_id: str
    user_id: str | None
    api_key_id: str | None
    auth_method: str

    @classmethod
    def of(cls, principal: Principal) -> Requester:
        return cls(
            principal.account_id, principal.user_id, principal.api_key_id, principal.auth_method
        )

    @classmethod
    def stored(
        cls, account_id: str, user_id: str | None, api_key_id: str | None, auth: str | None
    ) -> Requester:
        """From what a run or approval stored; one stored before the method was kept is a
        key's when it names a key, else a session's."""
        method = auth or (API_KEY if api_key_id is not None else SESSION)
        return cls(account_id, user_id, api_key_id, method)


def requester_gone(what: str) -> Conflict:
    """409: the requester's key was revoked or their user deleted, so nothing more runs for
    them (``what``: "Run <id>", "Approval <id>")."""
    return Conflict(
        f"{what} was asked for with an API key that has since been revoked, or by a user who "
        "has been deleted: nothing more runs on their behalf",
        data={"requesterGone": True},
    )


async def current_rights(store: Store, requester: Requester) -> Principal | None:
    """What the requester may do now (their key's scopes, their user's role); None once the
    key is revoked, the user deleted, or either belongs to another workspace."""
    return await rights_now(
        store,
        requester.account_id,
        requester.user_id,
        requester.api_key_id,
        requester.auth_method,
    )


async def rights_or_gone(store: Store, requester: Requester, what: str) -> Principal:
    """The requester's rights now, or 409 (:func:`requester_gone`) naming ``what``."""
    rights = await current_rights(store, requester)
    if rights is None:
        raise requester_gone(what)
    return rights
