"""Who is asking: the authenticated principal, scopes and role permissions, and the rules
that refuse what they may not do (the same 403 wherever it is asked: a route before it
parses a body, the workspace actor in the write's transaction)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from fieldhouse.model.errors import Forbidden, NotFound

SCOPES: tuple[str, ...] = ("workspace:read", "records:read", "records:write", "agents:write")
ADMIN_ROLES: frozenset[str] = frozenset({"owner", "admin"})
#: the roles a key may be given, most rights first: a key acts with its own role or its
#: user's, whichever is lower (a user moved to a lower role takes their keys with them)
KEY_ROLES: tuple[str, ...] = ("owner", "admin", "member", "viewer")


@dataclass(frozen=True)
class Role:
    """What a role may do. ``None`` for a module set means every module."""

    slug: str
    can_view: frozenset[str] | None
    can_edit: frozenset[str] | None

    @property
    def implied_scopes(self) -> frozenset[str]:
        if self.slug == "viewer":
            return frozenset({"workspace:read", "records:read"})
        if self.can_edit is not None and not self.can_edit:
            return frozenset({"workspace:read", "records:read", "agents:write"})
        return frozenset(SCOPES)


def builtin_role(slug: str) -> Role | None:
    if slug in ("owner", "admin", "member"):
        return Role(slug, None, None)
    if slug == "viewer":
        return Role(slug, None, frozenset())
    return None


def role_rank(role: Role) -> int:
    """How many rights a role has among KEY_ROLES (higher: more); a custom role, whose
    modules are a subset of a member's, counts as a member."""
    slug = role.slug if role.slug in KEY_ROLES else "member"
    return len(KEY_ROLES) - KEY_ROLES.index(slug)


def key_role(user_role: Role, key_role_slug: str | None) -> Role:
    """The role a key acts with: its user's, lowered to the key's own role if it has one."""
    own = None if key_role_slug is None else builtin_role(key_role_slug)
    if own is None or role_rank(own) >= role_rank(user_role):
        return user_role
    if user_role.slug in KEY_ROLES:
        return own
    # a viewer key of a user with a custom role: that role's modules, read only
    return Role(own.slug, user_role.can_view, frozenset())


@dataclass(frozen=True)
class Principal:
    account_id: str
    user_id: str
    display_name: str
    role: Role
    scopes: frozenset[str] | None
    auth_method: str
    api_key_id: str | None
    #: the bucket the rate limiter counts in: the key id, or the user for session tokens
    rate_key: str

    @property
    def role_slugs(self) -> list[str]:
        return [self.role.slug]

    def has_scope(self, scope: str) -> bool:
        if self.scopes is not None and scope not in self.scopes:
            return False
        return scope in self.role.implied_scopes

    @property
    def is_admin(self) -> bool:
        return self.role.slug in ADMIN_ROLES

    def can_view(self, module_slug: str) -> bool:
        return self.role.can_view is None or module_slug in self.role.can_view

    def can_edit(self, module_slug: str) -> bool:
        if not self.can_view(module_slug):
            return False
        return self.role.can_edit is None or module_slug in self.role.can_edit

    def visible(self, module_slugs: Collection[str]) -> list[str]:
        return [s for s in module_slugs if self.can_view(s)]

    def check_scope(self, scope: str) -> None:
        """403 unless the credential carries ``scope``."""
        if not self.has_scope(scope):
            raise Forbidden(
                f"This credential lacks the {scope!r} scope", data={"requiredScope": scope}
            )

    def check_admin(self) -> None:
        """403 unless the principal is a workspace owner or admin."""
        if not self.is_admin:
            raise Forbidden("Only workspace owners and admins may do this")

    def check_edit(self, module_slug: str) -> None:
        """What changing records of a module needs: the records:write scope (403), a role that
        sees the module (404, as if it were absent) and may change its records (403)."""
        self.check_scope("records:write")
        if not self.can_view(module_slug):
            raise NotFound(f"Module {module_slug!r} not found")
        if not self.can_edit(module_slug):
            raise Forbidden(f"Your role may not change records of module {module_slug!r}")

    def check_may_grant(self, role: str | None, scopes: tuple[str, ...] | None) -> None:
        """403 when a key this principal creates (with ``role`` and ``scopes``) would have a
        right they lack: a key acts with at most its maker's rights."""
        wanted = None if role is None else builtin_role(role)
        if wanted is not None and role_rank(wanted) > role_rank(self.role):
            raise Forbidden(
                f"Your role ({self.role.slug}) may not create a key with role {role!r}: a "
                "key's role is at most its maker's",
                data={"role": role, "yourRole": self.role.slug},
            )
        if self.scopes is None or set(SCOPES) <= self.scopes:
            return
        if scopes is None:
            raise Forbidden(
                "A key limited to scopes "
                f"{', '.join(sorted(self.scopes))} may only create keys with scopes among "
                "those: name them in scopes",
                data={"yourScopes": sorted(self.scopes)},
            )
        lacking = [s for s in scopes if s not in self.scopes]
        if lacking:
            raise Forbidden(
                f"This key lacks the scopes {', '.join(lacking)}: a key it creates may only "
                f"have scopes among {', '.join(sorted(self.scopes))}",
                data={"lackingScopes": lacking, "yourScopes": sorted(self.scopes)},
            )


@dataclass(frozen=True)
class SystemActor:
    """The server acting on its own: the CLI, the demo, a workspace's bootstrap, the scheduler,
    the webhook dispatcher, recovery after a crash. It may do everything in its workspace;
    ``user_id`` is whom what it writes is attributed to in the activity (the owner the CLI
    acts for), None for nobody."""

    account_id: str
    name: str
    user_id: str | None = None

    @property
    def display_name(self) -> str:
        """The name its writes show as their author's (``createdByName``)."""
        return self.name

    def check_scope(self, scope: str) -> None:
        return None

    def check_admin(self) -> None:
        return None

    def check_edit(self, module_slug: str) -> None:
        return None

    def check_may_grant(self, role: str | None, scopes: tuple[str, ...] | None) -> None:
        return None


#: who acts in a workspace: a person (with their credential's rights) or the server itself
Acting = Principal | SystemActor
