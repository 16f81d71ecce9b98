"""The triggers that keep aggregates exact as records are written, on both engines.

What they keep and how it is read: :mod:`~fieldhouse.storage.aggregate_kept`. Every
expression is the scan's (:mod:`~fieldhouse.storage.aggregate`) with the JSON paths read from
the registry row ``g`` of ``kept_aggregates``: SQLite's as ``$."slug"."key"`` paths, in two
statements per direction that cover every registered row (a SQLite trigger cannot loop);
PostgreSQL's as ``{slug,key}`` text arrays, in statement-level triggers over the transition
tables that group what a statement wrote, so each kept row moves once a statement (a row
trigger updating the same few rows for every record of a large transaction walks all their
earlier versions each time: minutes for 100,000 records).
"""

from __future__ import annotations

from fieldhouse.storage.aggregate import SCALE


def _text(doc: str, path: str) -> str:
    """``SQLiteDialect.json_text`` with the path read from a column."""
    return (
        f"CASE json_type({doc}.fields, {path}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
        f" ELSE CAST(json_extract({doc}.fields, {path}) AS TEXT) END"
    )


def _number(doc: str, path: str) -> str:
    """``SQLiteDialect.json_number`` with the path read from a column."""
    return (
        f"CASE WHEN json_type({doc}.fields, {path}) IN ('integer', 'real')"
        f" THEN json_extract({doc}.fields, {path}) END"
    )


def _key(doc: str) -> str:
    """A record's group key under the registry row ``g`` (as ``aggregate._key``)."""
    day = (
        f"substr(CASE g.key_column WHEN 'created_at' THEN {doc}.created_at"
        f" WHEN 'updated_at' THEN {doc}.updated_at ELSE {_text(doc, 'g.key_path')} END, 1, 10)"
    )
    back = f"((CAST(strftime('%w', {day}) AS INTEGER) + 6) % 7)"
    return (
        f"CASE g.grouping WHEN 'text' THEN {_text(doc, 'g.key_path')}"
        f" WHEN 'day' THEN {day} WHEN 'month' THEN (substr({day}, 1, 7) || '-01')"
        f" WHEN 'week' THEN date({day}, '-' || {back} || ' days') END"
    )


def _facet(doc: str) -> str:
    return f"CASE WHEN g.facet_path = '' THEN '' ELSE {_text(doc, 'g.facet_path')} END"


def sums_of(doc: str, source: str) -> str:
    """(id, facet, key_null, key, n, whole, fraction) of the records of ``source`` (a FROM
    clause and WHERE terms binding ``g`` and ``doc``) under their ``sum`` rows."""
    whole = "CAST(v AS INTEGER)"
    return (
        "SELECT id, facet, key IS NULL AS key_null, coalesce(key, '') AS key,"
        " CASE WHEN value_path = '' THEN 1 ELSE v IS NOT NULL END AS n,"
        f" coalesce({whole}, 0) AS whole,"
        f" coalesce(CAST(round((v - {whole}) * 1e{SCALE}) AS INTEGER), 0) AS fraction"
        f" FROM (SELECT g.id, g.value_path, {_facet(doc)} AS facet, {_key(doc)} AS key,"
        f" CASE WHEN g.value_path = '' THEN NULL ELSE {_number(doc, 'g.value_path')} END AS v"
        f" {source} AND g.role = 'sum') WHERE facet IS NOT NULL"
    )


def values_of(doc: str, source: str) -> str:
    """(id, facet, key_null, key, value) of the records of ``source`` under their ``ext`` and
    ``label`` rows."""
    return (
        "SELECT id, facet, key IS NULL AS key_null, coalesce(key, '') AS key, value"
        f" FROM (SELECT g.id, {_facet(doc)} AS facet, {_key(doc)} AS key,"
        f" CASE g.role WHEN 'ext' THEN {_number(doc, 'g.value_path')}"
        f" ELSE {_text(doc, 'g.value_path')} END AS value"
        f" {source} AND g.role <> 'sum') WHERE facet IS NOT NULL AND value IS NOT NULL"
    )


def _registered(doc: str) -> str:
    return (
        f"FROM kept_aggregates g WHERE g.account_id = {doc}.account_id"
        f" AND g.module_id = {doc}.module_id AND {doc}.deleted_at IS NULL"
    )


def _moved(doc: str, sign: str) -> str:
    """The statements of a trigger's body that count ``doc`` (NEW or OLD) in or out."""
    out = (
        "INSERT INTO kept_sums (aggregate_id, facet, key_null, key, n, whole, fraction)"
        f" SELECT id, facet, key_null, key, {sign}n, {sign}whole, {sign}fraction"
        f" FROM ({sums_of(doc, _registered(doc))}) WHERE true"
        " ON CONFLICT (aggregate_id, facet, key_null, key) DO UPDATE SET n = n + excluded.n,"
        " whole = whole + excluded.whole, fraction = fraction + excluded.fraction;\n"
        "INSERT INTO kept_values (aggregate_id, facet, key_null, key, value, n)"
        f" SELECT id, facet, key_null, key, value, {sign}1"
        f" FROM ({values_of(doc, _registered(doc))}) WHERE true"
        " ON CONFLICT (aggregate_id, facet, key_null, key, value)"
        " DO UPDATE SET n = n + excluded.n;\n"
    )
    if sign == "-":
        out += (
            "DELETE FROM kept_values WHERE n = 0"
            " AND (aggregate_id, facet, key_null, key, value) IN"
            f" ({values_of(doc, _registered(doc))});\n"
        )
    return out


def _kept(doc: str) -> str:
    return (
        f"{doc}.deleted_at IS NULL AND EXISTS (SELECT 1 FROM kept_aggregates"
        f" WHERE account_id = {doc}.account_id AND module_id = {doc}.module_id)"
    )


def _registry(id_column: str) -> str:
    """What is kept: one row per (grouping, facet, role, value) of a module."""
    return (
        f"CREATE TABLE kept_aggregates (id {id_column}, account_id text NOT NULL,"
        " module_id text NOT NULL, grouping text NOT NULL, key_path text NOT NULL,"
        " key_column text NOT NULL, facet_path text NOT NULL, role text NOT NULL,"
        " value_path text NOT NULL, UNIQUE (account_id, module_id, grouping, key_path,"
        " key_column, facet_path, role, value_path));"
    )


#: the registry, the kept tables and their triggers (migration SQLITE[9])
SQLITE_MIGRATION = f"""
{_registry("INTEGER PRIMARY KEY")}
CREATE TABLE kept_sums (
    aggregate_id INTEGER NOT NULL, facet TEXT NOT NULL, key_null INTEGER NOT NULL,
    key TEXT NOT NULL, n INTEGER NOT NULL, whole INTEGER NOT NULL, fraction INTEGER NOT NULL,
    PRIMARY KEY (aggregate_id, facet, key_null, key)) WITHOUT ROWID;
CREATE TABLE kept_values (
    aggregate_id INTEGER NOT NULL, facet TEXT NOT NULL, key_null INTEGER NOT NULL,
    key TEXT NOT NULL, value NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (aggregate_id, facet, key_null, key, value)) WITHOUT ROWID;
CREATE TRIGGER records_kept_insert AFTER INSERT ON records WHEN {_kept("NEW")} BEGIN
{_moved("NEW", "+")}END;
CREATE TRIGGER records_kept_delete AFTER DELETE ON records WHEN {_kept("OLD")} BEGIN
{_moved("OLD", "-")}END;
CREATE TRIGGER records_kept_update
AFTER UPDATE OF fields, module_id, deleted_at, created_at, updated_at ON records
WHEN NOT (OLD.fields IS NEW.fields AND OLD.module_id IS NEW.module_id
          AND OLD.created_at IS NEW.created_at AND OLD.updated_at IS NEW.updated_at
          AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL))
     AND ({_kept("OLD")} OR {_kept("NEW")}) BEGIN
{_moved("OLD", "-")}{_moved("NEW", "+")}END
"""


def _pg_facet() -> str:
    """PostgreSQL: the facet value of record ``r`` under registry row ``g``."""
    return "CASE WHEN g.facet_path = '' THEN '' ELSE r.fields #>> g.facet_path::text[] END"


def _pg_key() -> str:
    """PostgreSQL: the group key of record ``r`` under registry row ``g``."""
    return (
        "CASE g.grouping WHEN '' THEN NULL WHEN 'text' THEN r.fields #>> g.key_path::text[]"
        " ELSE fh_kept_bucket(g.grouping, substr(CASE g.key_column"
        " WHEN 'created_at' THEN r.created_at WHEN 'updated_at' THEN r.updated_at"
        " ELSE r.fields #>> g.key_path::text[] END, 1, 10)) END"
    )


def _pg_number() -> str:
    """PostgreSQL: the number at ``g.value_path`` in record ``r``, NULL when not a number."""
    return (
        "CASE WHEN g.value_path <> ''"
        " AND jsonb_typeof(r.fields #> g.value_path::text[]) = 'number'"
        " THEN (r.fields #>> g.value_path::text[])::numeric END"
    )


def _pg_rows(sources: tuple[tuple[str, str], ...], where: str, columns: str) -> str:
    """The live records of each (table, sign) of ``sources`` under the registry rows that
    count them, as ``columns`` (over ``g``, ``r`` and ``sign``)."""
    return " UNION ALL ".join(
        f"SELECT {columns}, {sign} AS sign FROM kept_aggregates g JOIN {table} r"
        " ON r.account_id = g.account_id AND r.module_id = g.module_id"
        f" WHERE r.deleted_at IS NULL{where}"
        for table, sign in sources
    )


def _pg_moved(sources: tuple[tuple[str, str], ...], where: str) -> str:
    """PostgreSQL: the statements that count the records of ``sources`` in (sign 1) or out
    (-1), grouped, so a statement writing many records moves each kept row once."""
    of_record = f"g.id, g.role, g.value_path, {_pg_facet()} AS f, {_pg_key()} AS k"
    sums = _pg_rows(sources, where + " AND g.role = 'sum'", f"{of_record}, {_pg_number()} AS v")
    values = _pg_rows(
        sources,
        where + " AND g.role <> 'sum'",
        f"{of_record}, CASE WHEN g.role = 'ext' THEN {_pg_number()} ELSE 0 END AS v,"
        " CASE WHEN g.role = 'ext' THEN '' ELSE r.fields #>> g.value_path::text[] END AS t",
    )
    out = (
        "INSERT INTO kept_sums AS s (aggregate_id, facet, key_null, key, n, whole, fraction)"
        " SELECT id, f, (k IS NULL)::integer, coalesce(k, ''),"
        " sum(sign * CASE WHEN value_path = '' OR v IS NOT NULL THEN 1 ELSE 0 END),"
        f" coalesce(sum(sign * v), 0), 0 FROM ({sums}) AS x WHERE f IS NOT NULL"
        " GROUP BY id, f, k ON CONFLICT (aggregate_id, facet, key_null, key)"
        " DO UPDATE SET n = s.n + excluded.n, whole = s.whole + excluded.whole;\n"
        "INSERT INTO kept_values AS x (aggregate_id, facet, key_null, key, value, label, n)"
        " SELECT id, f, (k IS NULL)::integer, coalesce(k, ''), v, t, sum(sign)"
        f" FROM ({values}) AS x WHERE f IS NOT NULL AND v IS NOT NULL AND t IS NOT NULL"
        " GROUP BY id, f, k, v, t ON CONFLICT (aggregate_id, facet, key_null, key, value, label)"
        " DO UPDATE SET n = x.n + excluded.n;\n"
    )
    if any(sign == "-1" for _, sign in sources):
        out += (
            "DELETE FROM kept_values WHERE n = 0"
            " AND (aggregate_id, facet, key_null, key, value, label) IN"
            " (SELECT id, f, (k IS NULL)::integer, coalesce(k, ''), v, t"
            f" FROM ({values}) AS x WHERE f IS NOT NULL AND v IS NOT NULL AND t IS NOT NULL);\n"
        )
    return out


def postgres_backfill() -> list[str]:
    """The statements that fill a registry row's kept rows from ``records`` on PostgreSQL
    (each takes the row's id as its one parameter): the triggers' own statements."""
    return [s for s in _pg_moved((("records", "1"),), " AND g.id = ?").split(";\n") if s]


#: the registry, the kept tables and the trigger on PostgreSQL (migration POSTGRES[8]); sums
#: are ``numeric`` totals in ``whole`` (``fraction`` stays 0), a label sits in ``label`` beside
#: a 0 ``value``, and keys sort by bytes (``COLLATE "C"``) as the scan's keys do
MIGRATION = f"""
{_registry("bigserial PRIMARY KEY")}
CREATE TABLE kept_sums (
    aggregate_id bigint NOT NULL, facet text COLLATE "C" NOT NULL, key_null integer NOT NULL,
    key text COLLATE "C" NOT NULL, n bigint NOT NULL, whole numeric NOT NULL,
    fraction bigint NOT NULL, PRIMARY KEY (aggregate_id, facet, key_null, key));
CREATE TABLE kept_values (
    aggregate_id bigint NOT NULL, facet text COLLATE "C" NOT NULL, key_null integer NOT NULL,
    key text COLLATE "C" NOT NULL, value numeric NOT NULL, label text COLLATE "C" NOT NULL,
    n bigint NOT NULL, PRIMARY KEY (aggregate_id, facet, key_null, key, value, label));
CREATE FUNCTION fh_kept_bucket(bucket text, day text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    IF bucket = 'day' OR day IS NULL THEN
        RETURN day;
    ELSIF bucket = 'month' THEN
        RETURN substr(day, 1, 7) || '-01';
    END IF;
    RETURN to_char(date_trunc('week', CAST(day AS date)), 'YYYY-MM-DD');
EXCEPTION WHEN others THEN
    RETURN NULL;  -- not a date: the scan could not bucket it either; a write never fails on it
END $$;
CREATE FUNCTION fh_kept_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_pg_moved((("new_rows", "1"),), "")}
    RETURN NULL;
END $$;
CREATE FUNCTION fh_kept_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_pg_moved((("old_rows", "-1"),), "")}
    RETURN NULL;
END $$;
CREATE FUNCTION fh_kept_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_pg_moved((("old_rows", "-1"), ("new_rows", "1")), "")}
    RETURN NULL;
END $$;
CREATE TRIGGER records_kept_insert AFTER INSERT ON records REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fh_kept_inserted();
CREATE TRIGGER records_kept_delete AFTER DELETE ON records REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fh_kept_deleted();
CREATE TRIGGER records_kept_update AFTER UPDATE ON records
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION fh_kept_updated();
"""
