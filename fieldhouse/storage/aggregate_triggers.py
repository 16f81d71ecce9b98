"""The triggers that keep aggregates exact as records are written, on both engines.

What they keep and how it is read: :mod:`~fieldhouse.storage.aggregate_kept`. Every
expression is the scan's (:mod:`~fieldhouse.storage.aggregate`) with the JSON paths read from
the registry row ``g`` of ``kept_aggregates``: SQLite's as ``$."slug"."key"`` paths, in two
statements per direction that cover every registered row (a SQLite trigger cannot loop);
PostgreSQL's as ``{slug,key}`` text arrays, in a function that loops over them.
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
CREATE FUNCTION fh_kept_facet(g kept_aggregates, r records) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN g.facet_path = '' THEN '' ELSE r.fields #>> g.facet_path::text[] END $$;
CREATE FUNCTION fh_kept_key(g kept_aggregates, r records) RETURNS text LANGUAGE sql AS $$
    SELECT CASE g.grouping WHEN '' THEN NULL WHEN 'text' THEN r.fields #>> g.key_path::text[]
        ELSE fh_kept_bucket(g.grouping, substr(CASE g.key_column
            WHEN 'created_at' THEN r.created_at WHEN 'updated_at' THEN r.updated_at
            ELSE r.fields #>> g.key_path::text[] END, 1, 10)) END $$;
CREATE FUNCTION fh_kept_number(g kept_aggregates, r records) RETURNS numeric LANGUAGE sql AS $$
    SELECT CASE WHEN g.value_path <> ''
        AND jsonb_typeof(r.fields #> g.value_path::text[]) = 'number'
        THEN (r.fields #>> g.value_path::text[])::numeric END $$;
CREATE FUNCTION fh_kept_one(g kept_aggregates, r records, sign integer) RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    f text := fh_kept_facet(g, r);
    k text;
    v numeric;
    t text := '';
BEGIN
    IF f IS NULL THEN
        RETURN 0;
    END IF;
    k := fh_kept_key(g, r);
    IF g.role = 'label' THEN
        t := r.fields #>> g.value_path::text[];
        v := 0;
    ELSE
        v := fh_kept_number(g, r);
    END IF;
    IF g.role = 'sum' THEN
        INSERT INTO kept_sums AS s VALUES (g.id, f, (k IS NULL)::integer, coalesce(k, ''),
            sign * CASE WHEN g.value_path = '' OR v IS NOT NULL THEN 1 ELSE 0 END,
            sign * coalesce(v, 0), 0)
        ON CONFLICT (aggregate_id, facet, key_null, key)
        DO UPDATE SET n = s.n + excluded.n, whole = s.whole + excluded.whole;
        RETURN 1;
    END IF;
    IF v IS NULL OR t IS NULL THEN
        RETURN 0;
    END IF;
    INSERT INTO kept_values AS x VALUES (g.id, f, (k IS NULL)::integer, coalesce(k, ''), v, t,
        sign)
    ON CONFLICT (aggregate_id, facet, key_null, key, value, label)
    DO UPDATE SET n = x.n + excluded.n;
    IF sign < 0 THEN
        DELETE FROM kept_values WHERE aggregate_id = g.id AND facet = f
            AND key_null = (k IS NULL)::integer AND key = coalesce(k, '') AND value = v
            AND label = t AND n = 0;
    END IF;
    RETURN 1;
END $$;
CREATE FUNCTION fh_kept_records() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    g kept_aggregates;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.fields = NEW.fields AND OLD.module_id = NEW.module_id
            AND OLD.created_at = NEW.created_at AND OLD.updated_at = NEW.updated_at
            AND (OLD.deleted_at IS NULL) = (NEW.deleted_at IS NULL) THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
        FOR g IN SELECT * FROM kept_aggregates
                WHERE account_id = OLD.account_id AND module_id = OLD.module_id LOOP
            PERFORM fh_kept_one(g, OLD, -1);
        END LOOP;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
        FOR g IN SELECT * FROM kept_aggregates
                WHERE account_id = NEW.account_id AND module_id = NEW.module_id LOOP
            PERFORM fh_kept_one(g, NEW, 1);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER records_kept AFTER INSERT OR UPDATE OR DELETE ON records
    FOR EACH ROW EXECUTE FUNCTION fh_kept_records();
"""


def postgres_backfill(role: str, source: str) -> str:
    """The statement that fills a registry row's kept rows from the records of ``source`` on
    PostgreSQL, grouped in one statement with the trigger's functions (one upsert a record
    would update the same few rows 100,000 times in one transaction, each time walking every
    earlier version of the row)."""
    of_record = "fh_kept_facet(g, r) AS f, fh_kept_key(g, r) AS k"
    if role == "sum":
        return (
            "INSERT INTO kept_sums (aggregate_id, facet, key_null, key, n, whole, fraction)"
            " SELECT id, f, (k IS NULL)::integer, coalesce(k, ''),"
            " sum(CASE WHEN value_path = '' OR v IS NOT NULL THEN 1 ELSE 0 END),"
            f" coalesce(sum(v), 0), 0 FROM (SELECT g.id, g.value_path, {of_record},"
            f" fh_kept_number(g, r) AS v {source}) AS x WHERE f IS NOT NULL GROUP BY id, f, k"
        )
    return (
        "INSERT INTO kept_values (aggregate_id, facet, key_null, key, value, label, n)"
        " SELECT id, f, (k IS NULL)::integer, coalesce(k, ''), v, t, count(*)"
        f" FROM (SELECT g.id, {of_record},"
        " CASE WHEN g.role = 'ext' THEN fh_kept_number(g, r) ELSE 0 END AS v,"
        " CASE WHEN g.role = 'ext' THEN '' ELSE r.fields #>> g.value_path::text[] END AS t"
        f" {source}) AS x WHERE f IS NOT NULL AND v IS NOT NULL AND t IS NOT NULL"
        " GROUP BY id, f, k, v, t"
    )
