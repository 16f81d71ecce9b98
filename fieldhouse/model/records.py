"""A record as the store keeps it, and its SPEC JSON shape."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RecordRow:
    record_id: str
    account_id: str
    module_id: str
    display_name: str
    fields: dict[str, Any]
    created_at: str
    updated_at: str
    created_by: str | None
    updated_by: str | None
    created_by_name: str | None = None
    updated_by_name: str | None = None
    label_ids: list[str] = field(default_factory=list)
    type_ids: list[str] = field(default_factory=list)
    privacy_level: str = "account"
    description_html: str | None = None
    owner_user_id: str | None = None
    deleted_at: str | None = None

    def to_json(self, module_slug: str, keep: Collection[str] | None = None) -> dict[str, Any]:
        # a list page writes the same straight from the rows (storage.records.page_json);
        # tests/http/routes/test_records_list.py holds the two equal
        fields = (
            self.fields if keep is None else {k: v for k, v in self.fields.items() if k in keep}
        )
        return {
            "recordId": self.record_id,
            "moduleId": self.module_id,
            "moduleSlug": module_slug,
            "displayName": self.display_name,
            "fields": fields,
            "labelIds": list(self.label_ids),
            "typeIds": list(self.type_ids),
            "privacyLevel": self.privacy_level,
            "descriptionHtml": self.description_html,
            "ownerUserId": self.owner_user_id,
            "createdDateTime": self.created_at,
            "updatedDateTime": self.updated_at,
            "createdByUserId": self.created_by,
            "createdByDisplayName": self.created_by_name,
            "updatedByUserId": self.updated_by,
            "updatedByDisplayName": self.updated_by_name,
        }
