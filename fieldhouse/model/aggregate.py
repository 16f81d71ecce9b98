"""The ``groupBy`` and ``metrics`` parameters of ``GET /v1/modules/{slug}/aggregate``.

``groupBy`` (optional; without it every matching record is one group):

===========================  =================================================================
``<select field>``           the option value
``<boolean field>``          ``true`` / ``false``
``<reference field>``        the referenced record's id (its ``displayName`` beside it)
``<person field>``           the user id (its ``displayName`` beside it)
``<date field>:<bucket>``    ``day``, ``week`` or ``month``: the bucket's first day as
                             ``YYYY-MM-DD`` (weeks start on Monday, ISO 8601; UTC). Date fields
                             are ``date``, ``date_range`` (its start), ``created_at`` and
                             ``updated_at``
===========================  =================================================================

Records without a value form the group whose key is ``null``. Multi-valued fields (multi-select,
references or people allowing several) are refused: a record would count in several groups.

``metrics`` is a comma-separated list of ``count``, ``sum:<f>``, ``avg:<f>``, ``min:<f>`` and
``max:<f>`` where ``<f>`` is a number, currency (its amount), rating, progress or duration
field; ``count`` alone by default. Every problem is a 400 ``validation_error`` whose issue path
names the parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fieldhouse.model.errors import Issue, ValidationFailed
from fieldhouse.model.fields import FIELD_TYPES, type_of
from fieldhouse.model.fields.base import Grouping
from fieldhouse.model.fields.numeric import NumberType
from fieldhouse.model.listquery_kinds import FilterKind, resolve_key
from fieldhouse.model.schema import ModuleSchema

Bucket = Literal["day", "week", "month"]
Op = Literal["count", "sum", "avg", "min", "max"]
BUCKETS: tuple[Bucket, ...] = ("day", "week", "month")
OPS: tuple[Op, ...] = ("count", "sum", "avg", "min", "max")
#: most metrics one request may ask for
MAX_METRICS = 20


@dataclass(frozen=True)
class GroupBy:
    slug: str
    kind: FilterKind
    grouping: Grouping
    bucket: Bucket | None = None


@dataclass(frozen=True)
class Metric:
    op: Op
    kind: FilterKind | None = None  # None for count

    @property
    def name(self) -> str:
        """As asked: ``count`` or ``<op>:<field slug>``."""
        return self.op if self.kind is None else f"{self.op}:{self.kind.slug}"


@dataclass(frozen=True)
class AggregateSpec:
    group_by: GroupBy | None
    metrics: tuple[Metric, ...]


def parse_aggregate(
    group_by: str | None, metrics: str | None, schema: ModuleSchema
) -> AggregateSpec:
    """Validate both parameters against ``schema``; all problems are reported together."""
    issues: list[Issue] = []
    group = _group_by(group_by, schema, issues) if group_by is not None else None
    parsed = _metrics(metrics, schema, issues)
    if issues:
        raise ValidationFailed(issues)
    return AggregateSpec(group, parsed)


def _group_by(raw: str, schema: ModuleSchema, issues: list[Issue]) -> GroupBy | None:
    slug, _, bucket = raw.partition(":")
    kind = resolve_key(slug, schema, system=True)
    if kind is None or kind.column == "display_name":
        issues.append(Issue("custom", ("groupBy",), f"Unknown field {slug!r}"))
        return None
    if kind.column is not None:
        grouping: Grouping | None = "date"
        data_type = "datetime"
    else:
        f = schema.field(slug)
        data_type = f.data_type if f is not None else ""
        field_kind = type_of(f) if f is not None else None
        grouping = field_kind.grouping if field_kind is not None else None
    if grouping is None:
        groupable = [name for name, t in FIELD_TYPES.items() if t.grouping is not None]
        issues.append(
            Issue(
                "custom",
                ("groupBy",),
                f"Field {slug!r} is a {data_type} field: groupBy takes a "
                f"{', '.join(groupable[:-1])} or {groupable[-1]} field",
            )
        )
        return None
    if kind.multi:
        issues.append(
            Issue(
                "custom",
                ("groupBy",),
                f"Field {slug!r} holds several values: groupBy takes a single-valued field",
            )
        )
        return None
    if grouping == "date":
        if bucket not in BUCKETS:
            issues.append(
                Issue(
                    "custom",
                    ("groupBy",),
                    f"Date field {slug!r} is grouped as {slug}:day, {slug}:week or {slug}:month",
                )
            )
            return None
        return GroupBy(slug, kind, grouping, bucket)  # type: ignore[arg-type]
    if bucket:
        issues.append(
            Issue("custom", ("groupBy",), f"Only date fields take a bucket; {slug!r} is not one")
        )
        return None
    return GroupBy(slug, kind, grouping)


def _metrics(raw: str | None, schema: ModuleSchema, issues: list[Issue]) -> tuple[Metric, ...]:
    if raw is None:
        return (Metric("count"),)
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) > MAX_METRICS:
        issues.append(Issue("custom", ("metrics",), f"At most {MAX_METRICS} metrics"))
        return ()
    out: list[Metric] = []
    for i, part in enumerate(parts):
        op, colon, slug = part.partition(":")
        if op == "count" and not colon:
            metric = Metric("count")
        elif op in OPS and op != "count" and slug:
            kind = _numeric(slug, schema)
            if kind is None:
                issues.append(
                    Issue(
                        "custom",
                        ("metrics", i),
                        f"{op}:{slug}: {slug!r} is not a number, currency, rating, progress or "
                        "duration field of this module",
                    )
                )
                continue
            metric = Metric(op, kind)  # type: ignore[arg-type]
        else:
            issues.append(
                Issue(
                    "custom",
                    ("metrics", i),
                    f"Unknown metric {part!r}: expected count, sum:<field>, avg:<field>, "
                    "min:<field> or max:<field>",
                )
            )
            continue
        if metric not in out:
            out.append(metric)
    return tuple(out)


def _numeric(slug: str, schema: ModuleSchema) -> FilterKind | None:
    kind = resolve_key(slug, schema, system=False)
    f = schema.field(slug) if kind is not None else None
    if f is None or kind is None or kind.multi or not isinstance(type_of(f), NumberType):
        return None
    return kind
