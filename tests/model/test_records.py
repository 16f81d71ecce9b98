"""A stored record's SPEC JSON shape."""

from __future__ import annotations

from fieldhouse.model.records import RecordRow


def row() -> RecordRow:
    return RecordRow(
        record_id="r1",
        account_id="acct",
        module_id="m1",
        display_name="Ada",
        fields={"name": "Ada", "email": "ada@example.com"},
        created_at="2026-01-01T00:00:00.000000Z",
        updated_at="2026-01-02T00:00:00.000000Z",
        created_by="u1",
        updated_by="u2",
        created_by_name="Ada",
        label_ids=["l1"],
    )


def test_the_json_names_every_spec_property() -> None:
    assert row().to_json("contacts") == {
        "recordId": "r1",
        "moduleId": "m1",
        "moduleSlug": "contacts",
        "displayName": "Ada",
        "fields": {"name": "Ada", "email": "ada@example.com"},
        "labelIds": ["l1"],
        "typeIds": [],
        "privacyLevel": "account",
        "descriptionHtml": None,
        "ownerUserId": None,
        "createdDateTime": "2026-01-01T00:00:00.000000Z",
        "updatedDateTime": "2026-01-02T00:00:00.000000Z",
        "createdByUserId": "u1",
        "createdByDisplayName": "Ada",
        "updatedByUserId": "u2",
        "updatedByDisplayName": None,
    }


def test_keep_limits_the_fields_and_never_the_account() -> None:
    stored = row()
    shown = stored.to_json("contacts", keep={"email", "missing"})
    assert shown["fields"] == {"email": "ada@example.com"}
    assert "accountId" not in shown
    # the label list in the JSON is a copy: changing it leaves the row as it was
    shown["labelIds"].append("l2")
    assert stored.label_ids == ["l1"]
