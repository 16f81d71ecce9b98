"""Authentication: API keys (``sk_live_…``, stored as hashes) and session JWTs (HS256)."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trio

from fieldhouse.actors.rights import key_principal, role_of, session_principal
from fieldhouse.config import Settings
from fieldhouse.coordination import EpochMemo
from fieldhouse.model.errors import Unauthorized
from fieldhouse.model.keys import KEY_PREFIX, hash_api_key, hashes_match, looks_like_key
from fieldhouse.model.principal import Principal, Role
from fieldhouse.storage.backend import Backend
from fieldhouse.storage.base import ApiKeyRow, UserRow
from fieldhouse.storage.store import Store

INVALID_KEY = "Invalid API key: it is unknown, revoked, or malformed"
JWT_ISSUER = "fieldhouse"
#: the secret's file in the data directory (SQLite), and its old place in the meta table
SECRET_FILE = "jwt-secret"
META_KEY = "jwt_secret"


async def jwt_secret(store: Store, settings: Settings, backend: Backend) -> str:
    """The secret that signs session tokens, the same for the CLI's `fieldhouse token` and
    every server process: FIELDHOUSE_JWT_SECRET when set; with SQLite, the ``jwt-secret`` file
    (mode 0600) in the data directory, made on first use, so a copy of the database file
    holds no secret (one an older version kept in the database moves there); on a
    distributed backend (PostgreSQL), whose servers may share nothing but the database, a
    row in it."""
    if settings.jwt_secret:
        return settings.jwt_secret
    if backend.distributed:
        stored = await store.get_meta(META_KEY)
        if stored is not None:
            return stored
        return await store.set_meta_if_absent(META_KEY, secrets.token_urlsafe(48))
    path = settings.data_dir / SECRET_FILE
    legacy = await store.get_meta(META_KEY)
    secret = await trio.to_thread.run_sync(_secret_file, path, legacy)
    if legacy is not None:
        await store.delete_meta(META_KEY)
    return secret


def _secret_file(path: Path, initial: str | None) -> str:
    """The secret in ``path``; made (from ``initial`` or at random) when absent, atomically,
    readable by the owner only, so concurrent starts agree on one."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".jwt-secret-")  # mode 0600
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write((initial or secrets.token_urlsafe(48)) + "\n")
        with contextlib.suppress(FileExistsError):  # another process made it first: theirs wins
            os.link(tmp, path)
    finally:
        os.unlink(tmp)
    return path.read_text().strip()


def issue_token(secret: str, account_id: str, user_id: str, ttl_seconds: int) -> str:
    now = int(time.time())
    claims = {
        "iss": JWT_ISSUER,
        "sub": user_id,
        "acct": account_id,
        "iat": now,
        "exp": now + ttl_seconds,
    }
    import jwt  # (PyJWT loads with the first session, not with every worker: 0.06 s of its start)

    return jwt.encode(claims, secret, algorithm="HS256")


class Authenticator:
    """Turns an Authorization header into a Principal.

    What the store said about a key or a session's user is remembered, so a request costs no
    database round trip. The memory is dropped as soon as the store's change epoch moves
    (``epoch()``): revoking a key, deleting a user or changing a schema moves it, in this
    process and in every other process on the same database. ``ttl`` bounds how long any
    entry lives in any case.
    """

    def __init__(
        self,
        store: Store,
        secret: str,
        *,
        epoch: Callable[[], int],
        ttl: float = 60.0,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._secret = secret
        #: what the store said of a credential: its principal and the workspace's schema version
        self._known: EpochMemo[str, tuple[Principal, int]] = EpochMemo(
            epoch, ttl=ttl, max_entries=max_entries, clock=clock
        )
        # custom roles never change once created, so they can be remembered
        self._roles: dict[tuple[str, str], Role] = {}

    async def authenticate(self, header: str | None) -> tuple[Principal, int]:
        """The principal for an Authorization header, and the workspace's schema version."""
        if not header:
            raise Unauthorized("Missing API key: send Authorization: Bearer <API_KEY>")
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("Invalid Authorization header: expected Bearer <API_KEY>")
        if token.startswith(KEY_PREFIX):
            return await self._by_key(token)
        return await self._by_jwt(token)

    async def _by_key(self, token: str) -> tuple[Principal, int]:
        if not looks_like_key(token):
            raise Unauthorized(INVALID_KEY)
        presented = hash_api_key(token)
        known = self._known.recall(presented)
        if known is not None:
            return known.value
        epoch = self._known.epoch()  # read before the store: a change meanwhile drops it
        found = await self._store.lookup_key(presented)
        if found is None or not hashes_match(found.key.key_hash, presented):
            raise Unauthorized(INVALID_KEY)
        if found.key.revoked or found.user.deleted:
            raise Unauthorized(INVALID_KEY)
        principal = await self._key_principal(found.key, found.user)
        self._known.remember(presented, (principal, found.schema_version), epoch)
        return principal, found.schema_version

    async def _key_principal(self, key: ApiKeyRow, user: UserRow) -> Principal:
        return key_principal(key, user, await self._role(user))

    async def _by_jwt(self, token: str) -> tuple[Principal, int]:
        import jwt  # (see issue_token)

        try:
            claims = jwt.decode(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=JWT_ISSUER,
                options={"require": ["exp", "sub", "acct", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthorized("Session token has expired") from None
        except jwt.PyJWTError:
            raise Unauthorized("Invalid API key or session token") from None
        account_id, user_id = str(claims["acct"]), str(claims["sub"])
        # the signature and expiry were checked above for this very token; what is remembered
        # is only what the store said about its user
        memo = f"user:{account_id}:{user_id}"
        known = self._known.recall(memo)
        if known is not None:
            return known.value
        epoch = self._known.epoch()
        user = await self._store.get_user(account_id, user_id)
        if user is None or user.deleted:
            raise Unauthorized("Session token names a user that no longer exists")
        principal = session_principal(user, await self._role(user))
        schema_version = await self._store.schema_version(account_id)
        self._known.remember(memo, (principal, schema_version), epoch)
        return principal, schema_version

    async def _role(self, user: UserRow) -> Role:
        return await role_of(self._store, user, self._roles)
