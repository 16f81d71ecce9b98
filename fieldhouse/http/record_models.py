"""Request and response models of the record, reference and activity endpoints."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import Field, field_validator

from fieldhouse.http.models import (
    MAX_INT64,
    QUERY_INT,
    NonBlank,
    Open,
    Strict,
    Timestamp,
    Uuid,
)
from fieldhouse.model.activity import KIND_NAMES


class RecordCreateBody(Strict):
    displayName: NonBlank = Field(min_length=1, max_length=500)
    fields: dict[str, Any] = Field(default_factory=dict)
    ownerUserId: UUID | None = None


class RecordUpdateBody(Strict):
    displayName: NonBlank | None = Field(default=None, min_length=1, max_length=500)
    fields: dict[str, Any] | None = None

    @field_validator("displayName", "fields", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        """Omitting a property leaves it unchanged; an explicit null is not a value for it."""
        if value is None:
            raise ValueError("must not be null; omit the property to leave it unchanged")
        return value


class BulkUpdateBody(Strict):
    recordIds: list[UUID] = Field(min_length=1, max_length=100)
    addLabelIds: list[UUID] = Field(default_factory=list, max_length=100)
    removeLabelIds: list[UUID] = Field(default_factory=list, max_length=100)
    addTypeIds: list[UUID] = Field(default_factory=list, max_length=100)
    removeTypeIds: list[UUID] = Field(default_factory=list, max_length=100)


class BulkDeleteBody(Strict):
    recordIds: list[UUID] = Field(min_length=1, max_length=100)


class Record(Open):
    recordId: Uuid
    moduleId: Uuid
    moduleSlug: str
    displayName: str
    fields: dict[str, Any]
    labelIds: list[Uuid]
    typeIds: list[Uuid]
    privacyLevel: str
    descriptionHtml: str | None = None
    createdDateTime: Timestamp
    updatedDateTime: Timestamp
    createdByUserId: Uuid | None = None
    createdByDisplayName: str | None = None
    updatedByUserId: Uuid | None = None
    updatedByDisplayName: str | None = None


class RecordEnvelope(Open):
    record: Record


class RecordPage(Open):
    records: list[Record]
    page: int
    pageSize: int
    total: int


class RecordList(Open):
    records: list[Record]


class DeletedCount(Open):
    deletedCount: int


class LinkedIds(Open):
    targetRecordIds: list[Uuid]


class PickerItem(Open):
    recordId: Uuid
    displayName: str
    fields: dict[str, Any]


class PickerResponse(Open):
    referenceSlug: str
    targetType: str
    targetModuleSlug: str | None
    items: list[PickerItem]


class PickerQuery(Open):
    search: str | None = Field(default=None, max_length=200)
    limit: Annotated[int, Field(ge=1, le=100), QUERY_INT] = 20


class ActivityQuery(Open):
    limit: Annotated[int, Field(ge=1, le=50), QUERY_INT] = 20
    activityTypes: str | None = Field(
        default=None,
        max_length=1000,
        description="comma-separated activity types, each one of: " + ", ".join(KIND_NAMES),
    )
    #: the change feed: entries with a sequence number above this one, oldest first
    afterSeq: Annotated[int, Field(ge=0, le=MAX_INT64), QUERY_INT] | None = None


class RecordActivityQuery(Open):
    limit: Annotated[int, Field(ge=1, le=200), QUERY_INT] = 50
    groupWithinMinutes: Annotated[int, Field(ge=1, le=60), QUERY_INT] | None = None


class ActivityEntry(Open):
    id: Uuid
    seq: int = Field(description="the workspace's change sequence number (afterSeq)")
    activityType: str
    moduleId: Uuid | None
    recordId: Uuid | None
    userId: Uuid | None
    createdDateTime: Timestamp
    data: dict[str, Any]


class ActivityGroup(Open):
    """Consecutive entries of one user and type (one entry each without
    groupWithinMinutes)."""

    activityType: str
    userId: Uuid | None
    recordId: Uuid | None
    startedDateTime: Timestamp
    endedDateTime: Timestamp
    count: int
    activities: list[ActivityEntry]


class GroupedActivityList(Open):
    activities: list[ActivityGroup]


class ActivityList(Open):
    activities: list[ActivityEntry]
    #: with afterSeq: the value to send as afterSeq next (the last entry's seq)
    nextAfterSeq: int | None = None
