"""Module metadata as immutable values: fields, views, references and templates.

The workspace actor keeps these as its schema snapshot; readers get the same frozen objects, so
no reader ever sees a half-changed schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FieldDef:
    """One field of a module, as stored."""

    field_id: str
    module_id: str
    name: str
    slug: str
    label: str
    #: a ``dataType`` identifier: a key of ``fieldhouse.model.fields.FIELD_TYPES``
    data_type: str
    config: Mapping[str, Any]
    is_required: bool = False
    is_system: bool = False
    privacy_level: str = "account"
    sort_order: int = 0
    vendor_managed: bool = False
    created_at: str = ""
    updated_at: str = ""
    #: when the field was archived (hidden from reads, refused on writes, its values kept);
    #: None while it is live
    archived_at: str | None = None


@dataclass(frozen=True)
class ViewDef:
    view_id: str
    module_id: str
    name: str
    slug: str
    config: Mapping[str, Any]
    vendor_managed: bool = False
    sort_order: int = 0


@dataclass(frozen=True)
class ReferenceDef:
    """A module reference: a link from a source module (usually through a field) to a target."""

    reference_id: str
    source_module_id: str
    slug: str
    source_field_id: str | None
    source_field_slug: str | None
    relationship_type: str
    target_type: str
    target_module_slug: str | None
    target_filters: Mapping[str, Any] | None = None
    is_required: bool = False
    cascade_delete: bool = False
    cascade_update: bool = False
    vendor_managed: bool = False


@dataclass(frozen=True)
class ModuleDef:
    module_id: str
    account_id: str
    name: str
    slug: str
    is_active: bool = True
    template_slug: str | None = None
    template_version: str | None = None
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True)
class ArchiveMove:
    """What an update's ``archived`` asks of a field or module: archive it, bring it back, or
    neither (None, or the state it is in already, moves nothing)."""

    archiving: bool = False
    unarchiving: bool = False

    @classmethod
    def asked(cls, archived: bool | None, *, is_archived: bool) -> ArchiveMove:
        return cls(
            archiving=archived is True and not is_archived,
            unarchiving=archived is False and is_archived,
        )

    @property
    def moves(self) -> bool:
        return self.archiving or self.unarchiving


@dataclass(frozen=True)
class ModuleSchema:
    """A module with everything that describes it; the unit the actor snapshots."""

    module: ModuleDef
    fields: tuple[FieldDef, ...]
    views: tuple[ViewDef, ...]
    references: tuple[ReferenceDef, ...]
    #: archived fields: in no read, write, filter or computation; their values stay stored.
    #: The references whose source field is archived are left out of ``references`` too.
    archived_fields: tuple[FieldDef, ...] = ()
    #: the references whose source field is archived (kept, and back with the field)
    hidden_references: tuple[ReferenceDef, ...] = ()

    def field(self, slug: str) -> FieldDef | None:
        for f in self.fields:
            if f.slug == slug:
                return f
        return None

    def archived_field(self, slug: str) -> FieldDef | None:
        for f in self.archived_fields:
            if f.slug == slug:
                return f
        return None

    @property
    def archived_slugs(self) -> frozenset[str]:
        return frozenset(f.slug for f in self.archived_fields)

    @property
    def live_keys(self) -> frozenset[str] | None:
        """The keys a stored record's ``fields`` may be shown with: None (all of them) while
        no field is archived, else the live fields' slugs (archived values stay stored)."""
        if not self.archived_fields:
            return None
        return frozenset(f.slug for f in self.fields)


# --- Templates: the built-in catalog is made of these (see templates.py) ---


@dataclass(frozen=True)
class TemplateField:
    slug: str
    name: str
    label: str
    #: a ``dataType`` identifier: a key of ``fieldhouse.model.fields.FIELD_TYPES``
    data_type: str
    config: Mapping[str, Any] = field(default_factory=dict)
    is_required: bool = False
    is_system: bool = False
    privacy_level: str = "account"


@dataclass(frozen=True)
class TemplateView:
    slug: str
    name: str
    config: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TemplateReference:
    slug: str
    source_field_slug: str | None
    relationship_type: str
    target_type: str
    target_module_slug: str | None
    target_filters: Mapping[str, Any] | None = None
    is_required: bool = False
    cascade_delete: bool = False
    cascade_update: bool = False


@dataclass(frozen=True)
class Template:
    slug: str
    name: str
    description: str
    version: str
    module_name: str
    module_slug: str
    fields: tuple[TemplateField, ...]
    views: tuple[TemplateView, ...] = ()
    references: tuple[TemplateReference, ...] = ()
