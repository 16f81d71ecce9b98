"""API keys of a workspace (outside /v1): list, create (its secret shown once), revoke.

Owners and admins only. A key is made for the person asking and never has more rights than
the credential that made it: its role is at most the asker's, its scopes among the asker's.
Only the secret's hash is stored; the answer to the create is the one place the secret is
ever seen. Each change is one message to the workspace actor, with its entry in the activity
feed. A revoke moves the store's change epoch, so every worker and server drops what it
remembered of the key before its next request (``http/auth.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from fieldhouse.actors.admin_ops import CreateApiKey, CreatedKey, RevokeApiKey
from fieldhouse.http.endpoint import Routes
from fieldhouse.http.json import json_response
from fieldhouse.http.models import NonBlank, Open, Strict, Timestamp, Uuid
from fieldhouse.http.routes.common import check_uuid
from fieldhouse.model.errors import Conflict, NotFound
from fieldhouse.model.principal import Principal, Role, builtin_role, key_role
from fieldhouse.services import Services

routes = Routes()
BASE = "/api/keys"
KEY_NAME_MAX = 100
#: SCOPES and KEY_ROLES of fieldhouse.model.principal, as the document's enums
#: (tests/http/routes/test_key_admin.py keeps them equal)
ScopeName = Literal["workspace:read", "records:read", "records:write", "agents:write"]
RoleName = Literal["owner", "admin", "member", "viewer"]


class KeyCreateBody(Strict):
    name: NonBlank = Field(
        min_length=1,
        max_length=KEY_NAME_MAX,
        pattern=r"\S",
        description=f"to recognise the key by, 1-{KEY_NAME_MAX} characters",
    )
    role: RoleName | None = Field(
        default=None,
        description="the key's role, at most the asker's; omitted: the asker's role, "
        "whatever it becomes later (a key never acts above its user's role)",
    )
    scopes: list[ScopeName] | None = Field(
        default=None,
        min_length=1,
        max_length=4,
        description="what the key may call; omitted: everything its role may (only a "
        "credential without scopes may make such a key)",
    )


class KeyOut(Open):
    id: Uuid
    name: str | None
    prefix: str = Field(description="the secret's first characters, to recognise it by")
    role: str = Field(description="the role the key acts with")
    scopes: list[str] | None = Field(description="null: every scope its role implies")
    userId: Uuid = Field(description="the person who made it; it acts as them")
    createdAt: Timestamp
    revokedAt: Timestamp | None


class KeyList(Open):
    apiKeys: list[KeyOut]


class KeyCreated(Open):
    apiKey: KeyOut
    secret: str = Field(description="the key itself (sk_live_...), shown in this answer only")


@routes.endpoint(
    "GET",
    BASE,
    summary="The workspace's API keys, revoked ones too",
    description="Never a secret nor its hash: a key is recognised by its name and prefix. "
    "When a key was last used is not recorded.",
    scope="workspace:read",
    tag="keys",
    admin_only=True,
    responses={200: KeyList},
)
async def list_keys(svc: Services, principal: Principal) -> Any:
    return {"apiKeys": await _listed(svc, principal.account_id)}


@routes.endpoint(
    "POST",
    BASE,
    summary="Create an API key for yourself (its secret is shown once)",
    description="The key acts as the person asking, with at most their rights: a role above "
    "the asker's, scopes the asking key lacks, or no scopes (everything) from a key limited "
    "to some, are refused with 403. The answer's secret is shown this once; only its hash "
    "is kept.",
    scope="workspace:read",
    tag="keys",
    admin_only=True,
    body=KeyCreateBody,
    responses={201: KeyCreated},
)
async def create_key(svc: Services, principal: Principal, body: KeyCreateBody) -> Any:
    scopes = None if body.scopes is None else tuple(dict.fromkeys(body.scopes))
    made: CreatedKey = await svc.actors.ask(
        CreateApiKey(principal.user_id, scopes, body.name, body.role, by=principal),
    )
    keys = await _listed(svc, principal.account_id)
    key = next(k for k in keys if k["id"] == made.api_key_id)
    return {"apiKey": key, "secret": made.api_key}, 201


@routes.endpoint(
    "DELETE",
    BASE + "/{keyId}",
    summary="Revoke an API key",
    description="The key answers 401 from the next request on, on every worker and server. "
    "A key of another workspace is 404; revoking a revoked key is 409.",
    scope="workspace:read",
    tag="keys",
    admin_only=True,
    responses={204: None},
    conflicts={"conflict": "the key is revoked already (data: apiKeyId)"},
)
async def revoke_key(svc: Services, principal: Principal, keyId: str) -> Any:
    check_uuid(keyId, "keyId")
    key_id = keyId.lower()
    key = await svc.store.find_key(key_id)
    if key is None or key.account_id != principal.account_id:
        raise NotFound(f"API key {key_id} not found")
    if key.revoked:
        raise Conflict(f"API key {key_id} is revoked already", data={"apiKeyId": key_id})
    await svc.actors.ask(RevokeApiKey(key_id, by=principal))
    return json_response(None, 204)


async def _listed(svc: Services, account_id: str) -> list[dict[str, Any]]:
    """The workspace's keys as KeyOut, each with the role it acts with now."""
    roles = {u["userId"]: str(u["role"]) for u in await svc.store.list_users(account_id)}
    out = []
    for k in await svc.store.list_api_keys(account_id):
        slug = roles.get(k["userId"], "viewer")
        # only the slug is shown: a custom role's modules do not matter here
        role = key_role(builtin_role(slug) or Role(slug, frozenset(), frozenset()), k["role"])
        out.append(
            {
                "id": k["apiKeyId"],
                "name": k["name"],
                "prefix": k["prefix"],
                "role": role.slug,
                "scopes": k["scopes"],
                "userId": k["userId"],
                "createdAt": k["createdAt"],
                "revokedAt": k["revokedAt"],
            }
        )
    return out
