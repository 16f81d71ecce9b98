"""What of a record search reads: the schema decides which values are words, the title and
labels are kept apart, and the raw text holds every value for substring candidates."""

from __future__ import annotations

from fieldhouse.model.records import RecordRow
from fieldhouse.model.schema import ModuleDef, ModuleSchema
from fieldhouse.model.search_doc import EMBED_BODY_CHARS, MAX_BODY_CHARS, Doc, record_doc
from tests.model.fields.support import fd

SCHEMA = ModuleSchema(
    ModuleDef("m", "a", "Deals", "deals"),
    (
        fd("text", "name"),
        fd("number", "amount"),
        fd("rich_text", "notes"),
        fd("person", "owner"),
        fd("select", "stage", options=["open", "won"]),
        fd("boolean", "hot"),
    ),
    (),
    (),
)


def row(fields: dict[str, object], **extra: object) -> RecordRow:
    return RecordRow("r", "a", "m", "Acme", fields, "t1", "t2", None, None, **extra)  # type: ignore[arg-type]


FIELDS = {
    "amount": 1200,
    "name": "Acme",
    "notes": "<p>Big &amp; <b>bold</b></p>",
    "owner": {"userId": "u1", "displayName": "Ann"},
    "stage": "won",
    "hot": False,
    "stray": "not in the schema",
}


def test_the_schema_decides_what_is_searchable() -> None:
    doc = record_doc(
        row(FIELDS, label_ids=["l1", "gone"], description_html="<p>Desc  here</p>"),
        SCHEMA,
        {"l1": "Urgent", "l2": "Unused"},
    )
    # schema order, HTML stripped, the title not repeated, numbers, booleans, ids and
    # values of no field of the module left out; the description last
    assert doc.body == "Big & bold Ann won Desc here"
    assert (doc.record_id, doc.module_id, doc.title, doc.stamp) == ("r", "m", "Acme", "t2")
    assert doc.labels == "Urgent"  # a label since deleted is skipped
    assert doc.embed_text == "Acme. Urgent. Big & bold Ann won Desc here"


def test_without_a_schema_every_string_counts() -> None:
    doc = record_doc(row(FIELDS), None, {})
    assert doc.body == "<p>Big &amp; <b>bold</b></p> Ann won not in the schema"
    assert doc.labels == ""


def test_raw_holds_every_value_as_text() -> None:
    doc = record_doc(row(FIELDS), SCHEMA, {})
    assert doc.raw.split("\n") == [
        "Acme",
        "1200",
        "Acme",
        "<p>Big &amp; <b>bold</b></p>",
        "u1",
        "Ann",
        "won",
        "false",
        "not in the schema",
    ]


def test_long_text_is_bounded() -> None:
    doc = record_doc(row({"name": "word " * 10_000}), SCHEMA, {})
    assert len(doc.body) == MAX_BODY_CHARS
    assert len(doc.embed_text) == len("Acme. ") + EMBED_BODY_CHARS
    assert Doc("r", "m", "Only a title", "", "", "t").embed_text == "Only a title"


def test_a_changed_schema_changes_what_is_searchable() -> None:
    record = row({"name": "Acme", "code": "ZX-81", "stage": "won"})
    before = record_doc(record, SCHEMA, {})
    assert before.body == "won"  # "code" is no field of the module: not a word
    # the schema cache hands out a new object when a field is added (and text becomes words)
    wider = ModuleSchema(SCHEMA.module, (*SCHEMA.fields, fd("text", "code")), (), ())
    assert record_doc(record, wider, {}).body == "won ZX-81"
    assert record_doc(record, SCHEMA, {}).body == "won"  # the older schema still reads as it did
