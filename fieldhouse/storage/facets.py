"""Exact list totals without counting: counts kept per module and per value, on both engines.

``count(*)`` over 100,000 records costs PostgreSQL tens of milliseconds (an expression index
cannot answer it from the index alone), far more than the page itself; SQLite counts from an
expression index, still a walk over every matching entry (40 us for 350 of 1,000 records, a
tenth of a small list's own cost, and milliseconds at 100,000). The common list
queries (no filter, or ``filter[field]=value`` on a single-choice field) are answered instead
from ``record_counts``, which a row trigger on ``records`` keeps exact in the same transaction
as every write, whatever path wrote it (the actors, an import, a COPY). A facet is counted once
some list asked for it: the first such list registers it and backfills its counts under the
workspace's write lock, so no write slips between the backfill and the trigger taking over.

A facet is ``""`` (every live record of the module, counted under the value ``""``) or a field
slug (live records counted by the field's JSON text value; records without one are not
counted, and no query asks for them this way).
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldhouse.model.listquery import ListQuery
from fieldhouse.model.listquery_kinds import resolve_key
from fieldhouse.model.schema import ModuleSchema
from fieldhouse.storage.base import Op, execute, row, value
from fieldhouse.storage.sqldialect import Dialect

#: the kept counts and the facets counted (the same on both engines: SQLite reads ``bigint`` as
#: an integer column)
_TABLES = """
CREATE TABLE counted_facets (
    account_id text NOT NULL, module_id text NOT NULL, facet text NOT NULL,
    PRIMARY KEY (account_id, module_id, facet));
CREATE TABLE record_counts (
    account_id text NOT NULL, module_id text NOT NULL, facet text NOT NULL,
    value text NOT NULL, n bigint NOT NULL,
    PRIMARY KEY (account_id, module_id, facet, value));
"""
MIGRATION = (
    _TABLES
    + """CREATE FUNCTION fh_facet_value(doc jsonb, facet text) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN facet = '' THEN '' ELSE doc ->> facet END $$;
CREATE FUNCTION fh_count_records() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    f text;
    v text;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.fields = NEW.fields AND OLD.module_id = NEW.module_id
            AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        FOR f IN SELECT facet FROM counted_facets
                WHERE account_id = OLD.account_id AND module_id = OLD.module_id LOOP
            v := fh_facet_value(OLD.fields, f);
            IF v IS NOT NULL THEN
                UPDATE record_counts SET n = n - 1
                    WHERE account_id = OLD.account_id AND module_id = OLD.module_id
                    AND facet = f AND value = v;
            END IF;
        END LOOP;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        FOR f IN SELECT facet FROM counted_facets
                WHERE account_id = NEW.account_id AND module_id = NEW.module_id LOOP
            v := fh_facet_value(NEW.fields, f);
            IF v IS NOT NULL THEN
                INSERT INTO record_counts (account_id, module_id, facet, value, n)
                    VALUES (NEW.account_id, NEW.module_id, f, v, 1)
                    ON CONFLICT (account_id, module_id, facet, value)
                    DO UPDATE SET n = record_counts.n + 1;
            END IF;
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER records_counted AFTER INSERT OR UPDATE OR DELETE ON records
    FOR EACH ROW EXECUTE FUNCTION fh_count_records();
"""
)


def _sqlite_value(doc: str) -> str:
    """A record's value for the facet ``facet`` of ``counted_facets`` (SQLite): the text the
    list filter compares (``SQLiteDialect.json_text`` with the path built from the slug)."""
    path = "'$.\"' || facet || '\"'"
    return (
        f"CASE WHEN facet = '' THEN '' ELSE CASE json_type({doc}.fields, {path})"
        " WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
        f" ELSE CAST(json_extract({doc}.fields, {path}) AS TEXT) END END"
    )


def _sqlite_count(doc: str, step: str) -> str:
    """The statement that moves the counts of ``doc`` (NEW or OLD) by ``step`` (+1 or -1)."""
    if step == "+1":
        return (
            "INSERT INTO record_counts (account_id, module_id, facet, value, n)"
            f" SELECT {doc}.account_id, {doc}.module_id, facet, v, 1 FROM"
            f" (SELECT facet, {_sqlite_value(doc)} AS v FROM counted_facets"
            f" WHERE account_id = {doc}.account_id AND module_id = {doc}.module_id)"
            f" WHERE v IS NOT NULL AND {doc}.deleted_at IS NULL"
            " ON CONFLICT (account_id, module_id, facet, value) DO UPDATE SET n = n + 1"
        )
    return (
        "UPDATE record_counts SET n = n - 1"
        f" WHERE {doc}.deleted_at IS NULL"
        f" AND account_id = {doc}.account_id AND module_id = {doc}.module_id"
        f" AND (facet, value) IN (SELECT facet, {_sqlite_value(doc)} FROM counted_facets"
        f" WHERE account_id = {doc}.account_id AND module_id = {doc}.module_id)"
    )


#: the same tables on SQLite, kept by three triggers (SQLite has no function a trigger could
#: loop in; one statement per direction covers every counted facet of the module)
SQLITE_MIGRATION = (
    _TABLES
    + f"""CREATE TRIGGER records_counted_insert AFTER INSERT ON records BEGIN
    {_sqlite_count("NEW", "+1")};
END;
CREATE TRIGGER records_counted_delete AFTER DELETE ON records BEGIN
    {_sqlite_count("OLD", "-1")};
END;
CREATE TRIGGER records_counted_update AFTER UPDATE OF fields, module_id, deleted_at ON records
WHEN NOT (OLD.fields IS NEW.fields AND OLD.module_id IS NEW.module_id
          AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL)) BEGIN
    {_sqlite_count("OLD", "-1")};
    {_sqlite_count("NEW", "+1")};
END
"""
)


@dataclass(frozen=True)
class Facet:
    """A list query whose total is a sum of kept counts."""

    account_id: str
    module_id: str
    facet: str
    values: tuple[str, ...]


def countable(query: ListQuery, schema: ModuleSchema, account_id: str) -> Facet | None:
    """The facet that answers ``query``'s total, or None when it must be counted."""
    if query.search or query.advanced is not None or query.label_ids or query.type_ids:
        return None
    module_id = schema.module.module_id
    if not query.simple_filters:
        return Facet(account_id, module_id, "", ("",))
    if len(query.simple_filters) != 1:
        return None
    slug, values = query.simple_filters[0]
    kind = resolve_key(slug, schema, system=False)
    # single-choice fields compare their exact JSON text with the operand (sqlquery.simple)
    if kind is None or kind.base != "exact" or kind.multi or kind.value_key or kind.column:
        return None
    return Facet(account_id, module_id, slug, tuple(sorted(set(values))))


def kept_total(facet: Facet) -> Op[int | None]:
    """The kept total, or None while the facet is not counted yet."""
    found = yield row(
        "SELECT EXISTS (SELECT 1 FROM counted_facets WHERE account_id = ? AND module_id = ?"
        " AND facet = ?) AS counted,"
        " (SELECT coalesce(sum(n), 0) FROM record_counts WHERE account_id = ?"
        " AND module_id = ? AND facet = ? AND value = ANY(?)) AS total",
        (
            facet.account_id,
            facet.module_id,
            facet.facet,
            facet.account_id,
            facet.module_id,
            facet.facet,
            list(facet.values),
        ),
    )
    return int(found["total"]) if found and found["counted"] else None


def start_counting(d: Dialect, facet: Facet) -> Op[None]:
    """Register the facet and backfill its counts; run inside the workspace's write
    transaction (its lock keeps every write out until the trigger counts them)."""
    inserted = yield value(
        "INSERT INTO counted_facets (account_id, module_id, facet) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING RETURNING 1",
        (facet.account_id, facet.module_id, facet.facet),
    )
    if inserted is None:
        return  # another process got there first
    # the value each engine's trigger counts under (PostgreSQL's ``->>``, SQLite's json_text)
    of_record = "''" if facet.facet == "" else d.json_text("fields", (facet.facet,))
    yield execute(
        "INSERT INTO record_counts (account_id, module_id, facet, value, n)"
        f" SELECT ?, ?, ?, v, count(*) FROM (SELECT {of_record} AS v FROM records"
        " WHERE account_id = ? AND module_id = ? AND deleted_at IS NULL) AS live"
        " WHERE v IS NOT NULL GROUP BY v",
        (
            facet.account_id,
            facet.module_id,
            facet.facet,
            facet.account_id,
            facet.module_id,
        ),
    )
