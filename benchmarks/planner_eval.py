"""Score the agent's planner on phrasings with expected tool calls (issue 32, item 6).

    python -m benchmarks.planner_eval tests/agents/data/blind/tuning.jsonl [--show-failures]

Each line of the file is ``{"id", "text", "category", "expect"}`` (the format is described in
tests/agents/data/blind/README.md). An in-process runtime (SQLite in a temporary directory,
search on, no upstream model: the offline provider) is seeded with the demo workspace as
``fieldhouse serve --demo`` seeds it; each phrasing is sent to POST /v1/agents/messages with
the owner's key, and the calls the run made or proposed are read back from
GET /v1/agents/runs/{runId} and GET /api/approvals?runId= (pending approvals with their
arguments). A phrasing whose run wrote or proposed anything is followed by a fresh demo
workspace, so writes never leak into the next phrasing.

Each phrasing is scored (:func:`score`):

* ``right``: for a ``call``, a call of the expected tool whose arguments match the expected
  ones (:func:`matches`) and no other write; for ``ask`` and ``answer``, no write at all
  (reads are allowed: looking before asking is fine);
* ``wrong_write``: any write (a non-read tool call that ran or waits for an approval) that
  does not match the expectation: a wrong write is worse than no write;
* ``miss``: anything else (no call, a read instead of a write, a call that failed).

A write call the tool refused (status ``error``: an unknown name, an invalid value) changed
nothing and proposed nothing, so it is not a write here; it shows up under ``--show-failures``.
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, Literal

#: tools that only read: every other tool writes (records, objects) or sends something
READS = frozenset({"records.search", "records.get", "reminders.list"})
MODULES = ("contacts", "companies", "deals", "tasks")
WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
#: operator classes of the expected ``where`` conditions -> the SPEC's advanced operators
OPERATORS = {
    ">": frozenset({"gt", "gte", "after"}),
    "<": frozenset({"lt", "lte", "before"}),
    "=": frozenset({"eq", "in"}),
    "!=": frozenset({"neq", "notIn"}),
    "null": frozenset({"isNull"}),
}

Outcome = Literal["right", "wrong_write", "miss"]


@dataclass(frozen=True)
class Call:
    """One tool call a run made or proposed."""

    tool: str
    arguments: Mapping[str, Any]
    #: ok | pending_approval | error (as the run record says)
    status: str = "ok"
    summary: str = ""

    @property
    def is_write(self) -> bool:
        return self.tool not in READS and self.status != "error"


@dataclass(frozen=True)
class Context:
    """What relative expectations resolve against."""

    today: date
    #: the requester's user id (``@me``)
    me: str = ""
    #: record id -> display name, for references and updates by id
    names: Mapping[str, str] = field(default_factory=dict)
    #: a text written to a record's field must equal the expected one (the format lets a
    #: longer text containing it count: "now Head of Quality" for "Head of Quality")
    strict: bool = False


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str


# --- scoring ------------------------------------------------------------------------------


def score(expect: Mapping[str, Any], calls: Sequence[Call], ctx: Context) -> Verdict:
    """How a run's calls measure up to a phrasing's expectation."""
    writes = [c for c in calls if c.is_write]
    kind = expect["kind"]
    if kind in ("ask", "answer"):
        if writes:
            return Verdict("wrong_write", f"expected no write ({kind}), got {_said(writes)}")
        return Verdict("right", f"no write ({kind})")
    tool, args = expect["tool"], expect.get("args", {})
    if tool in READS:
        if writes:
            return Verdict("wrong_write", f"expected a read, got {_said(writes)}")
        reads = [c for c in calls if c.tool == tool and c.status != "error"]
        if any(matches(tool, args, c.arguments, ctx) for c in reads):
            return Verdict("right", f"{tool} matched")
        return Verdict("miss", f"no matching {tool}; calls: {_said(calls) or 'none'}")
    good = [c for c in writes if c.tool == tool and matches(tool, args, c.arguments, ctx)]
    bad = [c for c in writes if c not in good]
    if bad:
        return Verdict("wrong_write", f"unexpected write {_said(bad)}")
    if good:
        return Verdict("right", f"{tool} matched")
    return Verdict("miss", f"no matching {tool}; calls: {_said(calls) or 'none'}")


def _said(calls: Iterable[Call]) -> str:
    return "; ".join(
        f"{c.tool}[{c.status}] {json.dumps(c.arguments, ensure_ascii=False, default=str)}"
        + (f" ({c.summary})" if c.status == "error" and c.summary else "")
        for c in calls
    )


def matches(
    tool: str, expected: Mapping[str, Any], actual: Mapping[str, Any], ctx: Context
) -> bool:
    """Whether a call's arguments carry every expected argument (extra ones are allowed)."""
    if "module" in expected and norm(str(actual.get("module", ""))) != norm(expected["module"]):
        return False
    if tool == "records.create":
        return _display(expected, actual) and _fields(expected, actual, ctx)
    if tool == "records.update":
        if not _target(expected["target"], actual, ctx):
            return False
        if "displayName" in expected and norm(str(actual.get("displayName") or "")) != norm(
            expected["displayName"]
        ):
            return False
        return _fields(expected, actual, ctx)
    if tool == "records.search":
        return _search(expected, actual, ctx)
    if tool == "reminders.create":
        text = str(actual.get("text") or "")
        return _contains(text, expected.get("text", "")) and _moment(
            expected.get("dueAt"), actual.get("dueAt"), ctx
        )
    if tool in ("email.draft", "email.send"):
        to = [norm(str(a)) for a in actual.get("to") or []]
        if "to" in expected and norm(expected["to"]) not in to:
            return False
        return all(
            _contains(str(actual.get(key) or ""), expected[key])
            for key in ("subject", "body")
            if key in expected
        )
    return all(value_match(v, actual.get(k), ctx) for k, v in expected.items())


def _display(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    want = norm(expected["displayName"])
    fields = actual.get("fields") or {}
    joined = " ".join(str(fields.get(k) or "") for k in ("first-name", "last-name"))
    named = [str(actual.get("displayName") or ""), joined]
    named += [str(fields[k]) for k in ("name", "title") if isinstance(fields.get(k), str)]
    # the format's rule for every string value: 4+ characters also match a longer one
    # containing them ("board slides" in "prep the board slides")
    return any(want == norm(n) or (len(want) >= 4 and want in norm(n)) for n in named)


def _fields(expected: Mapping[str, Any], actual: Mapping[str, Any], ctx: Context) -> bool:
    got = actual.get("fields") or {}
    return all(
        slug in got
        and value_match(value, got[slug], ctx)
        and not (ctx.strict and _longer_text(value, got[slug], ctx))
        for slug, value in (expected.get("fields") or {}).items()
    )


def _longer_text(expected: Any, actual: Any, ctx: Context) -> bool:
    """Whether a text was matched only by containing the expected one (a date, a name for an
    id and a choice are no such text)."""
    if not isinstance(expected, str) or not isinstance(actual, str) or expected.startswith("@"):
        return False
    if _as_date(expected, ctx) is not None:
        return False
    said = ctx.names.get(actual.lower(), actual)
    # a link is stored with its scheme ("https://quillink.example" for "quillink.example")
    return _unlinked(norm(said)) != _unlinked(norm(expected))


def _unlinked(text: str) -> str:
    return re.sub(r"^https?://(?:www\.)?", "", text).rstrip("/")


def _target(target: str, actual: Mapping[str, Any], ctx: Context) -> bool:
    if actual.get("name") is not None:
        return norm(str(actual["name"])) == norm(target)
    record_id = str(actual.get("recordId") or "").lower()
    return norm(ctx.names.get(record_id, "")) == norm(target)


def _search(expected: Mapping[str, Any], actual: Mapping[str, Any], ctx: Context) -> bool:
    filters = actual.get("filters") or {}
    conditions = list(_conditions(actual.get("advancedFilter")))
    for slug, value in (expected.get("filters") or {}).items():
        if not _filtered(slug, value, filters, conditions, ctx):
            return False
    for slug, op, value in expected.get("where") or []:
        if not _where(slug, op, value, filters, conditions, ctx):
            return False
    if "query" in expected:
        query = norm(str(actual.get("query") or ""))
        want = norm(expected["query"])
        if not query or not (want in query or (len(query) >= 3 and query in want)):
            return False
    for key in ("sortField", "sortDirection"):
        if key in expected and norm(str(actual.get(key) or "")) != norm(expected[key]):
            return False
    return True


def _conditions(node: Any) -> Iterable[Mapping[str, Any]]:
    """Every condition of an advanced filter (groups flattened)."""
    if isinstance(node, Mapping):
        if "root" in node:
            yield from _conditions(node["root"])
        elif "conditions" in node:
            for child in node["conditions"] or []:
                yield from _conditions(child)
        elif "fieldSlug" in node:
            yield node


def _filtered(
    slug: str,
    value: Any,
    filters: Mapping[str, Any],
    conditions: Sequence[Mapping[str, Any]],
    ctx: Context,
) -> bool:
    """An exact-value filter, as a simple filter or an eq / in condition."""
    wanted = value if isinstance(value, list) else [value]
    if slug in filters:
        got = filters[slug] if isinstance(filters[slug], list) else [filters[slug]]
        if _same_set(wanted, got, ctx):
            return True
    for c in conditions:
        if c.get("fieldSlug") != slug:
            continue
        op = c.get("operator")
        if op == "eq" and _same_set(wanted, [c.get("value")], ctx):
            return True
        if op == "in" and _same_set(wanted, list(c.get("values") or []), ctx):
            return True
        if op == "between" and len(wanted) == 1 and _as_date(wanted[0], ctx) is not None:
            lo, hi = _pair(c.get("values"))
            if value_match(wanted[0], lo, ctx) and value_match(wanted[0], hi, ctx):
                return True
    return False


def _pair(values: Any) -> tuple[Any, Any]:
    """The two bounds of a ``between`` condition (None where missing)."""
    got = [*(values if isinstance(values, list) else []), None, None]
    return got[0], got[1]


def _same_set(wanted: Sequence[Any], got: Sequence[Any], ctx: Context) -> bool:
    return len(wanted) == len(got) and all(any(value_match(w, g, ctx) for g in got) for w in wanted)


def _where(
    slug: str,
    op: str,
    value: Any,
    filters: Mapping[str, Any],
    conditions: Sequence[Mapping[str, Any]],
    ctx: Context,
) -> bool:
    """A comparison condition; dates within a day count (inclusive or exclusive bounds)."""
    for c in conditions:
        if c.get("fieldSlug") != slug:
            continue
        operator = c.get("operator")
        if op == "null":
            if operator == "isNull":
                return True
            continue
        if (
            op == "!="
            and operator == "notIn"
            and any(value_match(value, v, ctx) for v in c.get("values") or [])
        ):
            return True
        if operator in OPERATORS[op] and _near(value, c.get("value"), ctx):
            return True
        if operator == "between" and op in (">", "<"):
            lo, hi = _pair(c.get("values"))
            if _near(value, lo if op == ">" else hi, ctx):
                return True
    if op == "!=" and slug in filters:  # a simple filter listing every other value
        got = filters[slug] if isinstance(filters[slug], list) else [filters[slug]]
        return bool(got) and not any(value_match(value, g, ctx) for g in got)
    return False


def _near(expected: Any, actual: Any, ctx: Context) -> bool:
    want, got = _as_date(expected, ctx), _as_date(actual, ctx)
    if want is not None and got is not None:
        return abs((want - got).days) <= 1
    return value_match(expected, actual, ctx)


def value_match(expected: Any, actual: Any, ctx: Context) -> bool:
    """One expected value against what a call gave, modulo case, whitespace and accents; an
    e-mail, phone or tag inside a list, an amount inside a currency object, a record's name
    for its id, ``@me`` for the requester and ``@...`` dates for the date they name."""
    if isinstance(expected, list):
        got = actual if isinstance(actual, list) else [actual]
        return all(any(value_match(e, g, ctx) for g in got) for e in expected)
    if isinstance(actual, list):
        return any(value_match(expected, a, ctx) for a in actual)
    if isinstance(actual, Mapping):
        keys = ("value", "amount", "recordId", "userId", "id", "displayName", "name")
        return any(value_match(expected, actual[k], ctx) for k in keys if k in actual)
    if isinstance(expected, bool):
        return actual is expected or norm(str(actual)) == ("true" if expected else "false")
    if isinstance(expected, int | float):
        try:
            return abs(float(actual) - float(expected)) < 0.005
        except (TypeError, ValueError):
            return False
    if actual is None or isinstance(expected, dict):
        return False
    text = str(expected)
    if text == "@me":
        return str(actual) == ctx.me
    wanted_date = _as_date(text, ctx)
    if wanted_date is not None:
        return _as_date(actual, ctx) == wanted_date
    said = ctx.names.get(str(actual).lower(), str(actual))
    return norm(said) == norm(text) or (len(norm(text)) >= 4 and norm(text) in norm(said))


def _contains(actual: str, expected: str) -> bool:
    return norm(expected) in norm(actual)


def norm(text: str) -> str:
    """Lower case, accents off, runs of space (and quotes around) collapsed."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return " ".join(plain.casefold().replace("\u2019", "'").split()).strip("'\" ")


# --- relative dates ------------------------------------------------------------------------

_TOKEN = re.compile(
    r"@(?:(?P<today>today)(?P<delta>[+-]\d+)?"
    r"|next:(?P<dow>mon|tue|wed|thu|fri|sat|sun)"
    r"|(?P<month>nextmonth|lastmonth):(?P<day>\d+|end))"
    r"(?:T(?P<time>\d\d:\d\d))?$"
)


def resolve(token: str, today: date) -> tuple[date, str | None] | None:
    """The date (and HH:MM) a relative token names: ``@today``, ``@today+3``, ``@next:fri``
    (the first Friday after today), ``@nextmonth:15``, ``@lastmonth:end``, each with an
    optional ``T09:00``; None for anything else."""
    m = _TOKEN.match(token)
    if m is None:
        return None
    if m["today"]:
        day = today + timedelta(days=int(m["delta"] or 0))
    elif m["dow"]:
        ahead = (WEEKDAYS[m["dow"]] - today.weekday() - 1) % 7 + 1
        day = today + timedelta(days=ahead)
    else:
        year, month = today.year, today.month + (1 if m["month"] == "nextmonth" else -1)
        if month == 13:
            year, month = year + 1, 1
        elif month == 0:
            year, month = year - 1, 12
        last = calendar.monthrange(year, month)[1]
        day = date(year, month, last if m["day"] == "end" else min(int(m["day"]), last))
    return day, m["time"]


def _as_date(value: Any, ctx: Context) -> date | None:
    if not isinstance(value, str):
        return None
    if value.startswith("@"):
        resolved = resolve(value, ctx.today)
        return resolved[0] if resolved else None
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _moment(expected: Any, actual: Any, ctx: Context) -> bool:
    """A reminder's due time: the expected day, and the expected HH:MM when one is named."""
    if expected is None:
        return True
    if not isinstance(actual, str):
        return False
    resolved = resolve(expected, ctx.today) if expected.startswith("@") else None
    if resolved is None:
        return norm(actual).startswith(norm(expected))
    day, hhmm = resolved
    try:
        moment = datetime.fromisoformat(actual.replace("Z", "+00:00"))
    except ValueError:
        return False
    return moment.date() == day and (hhmm is None or moment.strftime("%H:%M") == hhmm)


# --- running the planner -----------------------------------------------------------------


@dataclass(frozen=True)
class Phrasing:
    id: str
    text: str
    category: str
    expect: Mapping[str, Any]


@dataclass(frozen=True)
class Result:
    phrasing: Phrasing
    verdict: Verdict
    calls: tuple[Call, ...]
    response: str


def load(path: Path) -> list[Phrasing]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            rows.append(Phrasing(d["id"], d["text"], d.get("category", "?"), d["expect"]))
        except (ValueError, KeyError) as exc:
            raise SystemExit(f"{path}:{number}: not a phrasing ({exc})") from None
    return rows


async def evaluate(
    phrasings: Sequence[Phrasing], provider: Any = None, *, strict: bool = False
) -> list[Result]:
    """Run each phrasing against a demo workspace (a fresh one after any write), with the
    offline provider, or ``provider`` (a stand-in model, to check the harness itself);
    ``strict``: see :attr:`Context.strict`."""
    import httpx

    from fieldhouse.config import Settings
    from fieldhouse.demo import create_demo
    from fieldhouse.runtime import open_runtime

    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="fh-planner-eval-") as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data",
            rate_limit=1_000_000,
            port=0,
            embedding_process=False,
            search_enabled=True,
            agent_provider="offline",
        )
        async with open_runtime(settings) as rt:
            if provider is not None:
                rt.services.agents.provider = provider
            transport = httpx.ASGITransport(app=rt.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://eval.test") as http:
                today = date.today()
                ctx: Context | None = None
                headers: dict[str, str] = {}
                for phrasing in phrasings:
                    if ctx is None:
                        demo = await create_demo(rt.actors, today)
                        headers = {"Authorization": f"Bearer {demo.api_key}"}
                        ctx = Context(today, "", await _names(http, headers), strict)
                    calls, response, me = await _run(http, headers, phrasing.text)
                    ctx = replace(ctx, me=me or ctx.me)
                    verdict = score(phrasing.expect, calls, ctx)
                    results.append(Result(phrasing, verdict, calls, response))
                    if any(c.is_write for c in calls):
                        ctx = None  # the next phrasing gets a workspace this one left alone
    return results


async def _names(http: Any, headers: Mapping[str, str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for module in MODULES:
        res = await http.get(
            f"/v1/modules/{module}/records", params={"pageSize": "100"}, headers=headers
        )
        res.raise_for_status()
        body = res.json()
        rows = body.get("records") or body.get("data") or []
        for row in rows:
            record_id = str(row.get("id") or row.get("recordId") or "").lower()
            names[record_id] = str(row.get("displayName") or "")
    return names


async def _run(
    http: Any, headers: Mapping[str, str], text: str
) -> tuple[tuple[Call, ...], str, str]:
    """The calls one chat message made or proposed, the reply, and the requester's id."""
    res = await http.post("/v1/agents/messages", json={"message": text}, headers=headers)
    if res.status_code != 200:
        return (), f"HTTP {res.status_code}: {res.text[:200]}", ""
    body = res.json()
    run_id = body.get("runId")
    if not run_id:
        return (), body.get("response") or body.get("error") or "", ""
    run = (await http.get(f"/v1/agents/runs/{run_id}", headers=headers)).json()
    approvals = (
        (
            await http.get(
                "/api/approvals", params={"runId": run_id, "limit": "100"}, headers=headers
            )
        )
        .json()
        .get("approvals", [])
    )
    by_approval = {a["id"]: a for a in approvals}
    calls = []
    for entry in run.get("toolCalls") or []:
        approval = by_approval.pop(entry.get("approvalId") or "", None)
        arguments = approval["arguments"] if approval else entry.get("arguments") or {}
        calls.append(
            Call(entry["tool"], arguments, str(entry.get("status")), entry.get("summary", ""))
        )
    for approval in by_approval.values():  # a pending approval the run record does not list
        if approval.get("status") == "pending":
            calls.append(Call(approval["tool"], approval["arguments"], "pending_approval"))
    reply = run.get("response") or body.get("response") or body.get("error") or ""
    return tuple(calls), str(reply), str(run.get("userId") or "")


# --- the report ----------------------------------------------------------------------------


def table(results: Sequence[Result]) -> str:
    """Right %, wrong writes and misses by category, and the totals."""
    by: dict[str, Counter[str]] = {}
    for r in results:
        by.setdefault(r.phrasing.category, Counter())[r.verdict.outcome] += 1
    lines = [f"{'category':<10} {'n':>4} {'right':>6} {'right%':>7} {'wrong':>6} {'miss':>5}"]
    total: Counter[str] = Counter()
    for category in sorted(by):
        counts = by[category]
        total += counts
        lines.append(_row(category, counts))
    lines.append("-" * len(lines[0]))
    lines.append(_row("total", total))
    return "\n".join(lines)


def _row(name: str, counts: Counter[str]) -> str:
    n = sum(counts.values())
    right = counts["right"]
    pct = 100.0 * right / n if n else 0.0
    return (
        f"{name:<10} {n:>4} {right:>6} {pct:>6.1f}% {counts['wrong_write']:>6} {counts['miss']:>5}"
    )


def failures(results: Sequence[Result]) -> str:
    out = []
    for r in results:
        if r.verdict.outcome == "right":
            continue
        p = r.phrasing
        out.append(f"[{r.verdict.outcome}] {p.id} ({p.category}) {p.text!r}")
        out.append(f"    expected: {json.dumps(p.expect, ensure_ascii=False)}")
        out.append(f"    got:      {r.verdict.reason}")
        out.append(f"    reply:    {r.response[:200]!r}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.planner_eval")
    parser.add_argument("file", type=Path, help="a phrasings .jsonl file")
    parser.add_argument("--show-failures", action="store_true", help="print each miss")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a text written to a field must equal the expected one, not contain it",
    )
    args = parser.parse_args(argv)
    phrasings = load(args.file)
    import trio

    began = time.perf_counter()
    results = trio.run(partial(evaluate, strict=args.strict), phrasings)
    if args.show_failures:
        print(failures(results))
        print()
    print(table(results))
    print(f"{len(results)} phrasings in {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
