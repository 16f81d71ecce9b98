"""A record described instead of named (issue 32, item 6): "the deal where Adele Goldberg is
the contact", "the task that's currently blocked", "the Northwind contact who's churned", "the
18k Wide World deal". The planner looks the record up by what is said of it (a search of the
module filtered on those values, a referred-to record looked up by its name first), and when
exactly one record fits, reads the message again with that record's name, quoted, in place of
the description. When none fits, or several do, it asks and writes nothing.

What is read is only the workspace's schema: a module's words ("deal", "task"), a choice
field's options ("blocked", "churned"), a reference field's words ("contact") and its money
field; a capitalised name before the module's word ("the Northwind contact") is a record of a
module it refers to, a company say.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_records import Call, Planned, Stage, _matching, _records
from fieldhouse.agents.providers.offline_schema import Field, Module, Workspace, singular, words
from fieldhouse.agents.providers.offline_values import find_amounts

#: how a description joins its module's word: "the task that's ...", "the deal where ..."
_JOIN = (
    r"(?P<join>where|in\s+which|on\s+which|for\s+which|that'?s|that\s+is|which\s+is|who'?s|"
    r"who\s+is|that|which|who|whose)"
)
#: a name said before the module's word: capitalised words ("the Wide World deal")
_QUALIFIER = r"(?P<qual>[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,3})"
_AMOUNT = r"(?P<amount>\$?\d[\d,.]*\s*(?:k|m|K|M|thousand|million)?)"
#: "is (the|a|an) contact (on|for)": the reference field's word after "is"
_REFERENCE_TAIL = re.compile(
    r"^(?P<name>.+?)\s+(?:is|was)\s+(?:the|a|an|our|their)\s+(?P<word>[a-z][a-z -]*?)"
    r"(?:\s+(?:on|for|of|in))?\s*$"
)
_NOW = re.compile(r"^(?:currently|now|still|right\s+now|at\s+the\s+moment)\s+", re.I)
#: where a description ends
_END = re.compile(r"\s*(?:[,:;!?]|\.(?:\s|$)|\s+(?:and|but|so|because|wants?|needs?)\s|$)")
#: how many stages the message read again may take after the look-up
_FOLLOWING = 6

#: the outcomes of each stage of the run so far (set by the provider before a stage runs): a
#: plan is made again from the message at every step, so the stages after the look-up find the
#: record it picked here, in the run's own outcomes, and nothing is kept between steps
EARLIER: ContextVar[tuple[tuple[ToolOutcome, ...], ...]] = ContextVar(
    "fieldhouse_offline_earlier", default=()
)


@dataclass
class Described:
    """A description of one record of ``module``: its span in the text and what it says."""

    start: int
    end: int
    module: Module
    #: field slug -> value the record holds (a choice's option, an amount)
    values: dict[str, Any] = field(default_factory=dict)
    #: reference field -> (the referred module, the name said): looked up first
    referred: dict[str, tuple[Module, str]] = field(default_factory=dict)
    #: the words said of it, for the question when nothing or several fit
    said: str = ""


@functools.lru_cache(maxsize=64)
def _shape(ws: Workspace) -> re.Pattern[str]:
    """The shape of a description, "the [amount] [Name] <module's word> [who/that/where
    ...]", with this workspace's module words (made once a schema)."""
    nouns = sorted(
        {p for m in ws.modules for p in m.phrases() if " " not in p and len(p) > 2},
        key=len,
        reverse=True,
    )
    noun = r"(?P<noun>" + "|".join(re.escape(n) for n in nouns) + r")"
    return re.compile(
        r"\bthe\s+(?:" + _AMOUNT + r"\s+)?(?:" + _QUALIFIER + r"\s+)?" + noun + r"\b"
        r"(?:\s+" + _JOIN + r"\s+(?P<rest>.+))?",
        re.I,
    )


def _module_of(noun: str, ws: Workspace) -> Module | None:
    said = words(noun)
    return next((m for m in ws.modules if said in m.phrases()), None)


def _option(text: str, module: Module) -> tuple[Field, str] | None:
    """The choice field and option ``text`` names, when exactly one field has it."""
    said = words(text)
    found = [(f, o.value) for f in module.fields for o in f.options if said in o.phrases()]
    return found[0] if len(found) == 1 else None


def _reference_by_company(module: Module, ws: Workspace) -> Field | None:
    """The reference field a qualifying name fills: the one to companies, else the only one."""
    refs = [f for f in module.fields if f.target and ws.module(f.target) is not None]
    chosen = [f for f in refs if f.target == "companies"] or refs
    return chosen[0] if len(chosen) == 1 else None


def described(text: str, ws: Workspace) -> Described | None:
    """The first description of a record in ``text`` this reads, or None."""
    for m in _shape(ws).finditer(text):
        module = _module_of(m["noun"], ws)
        if module is None:
            continue
        qual = m["qual"] if m["qual"] and m["qual"][0].isupper() else None
        if qual and _module_of(qual.split()[-1], ws) is not None:
            qual = None
        d = Described(m.start(), m.end("noun"), module, said=m.group(0))
        if m["rest"] is not None and m["join"]:
            end = _END.search(m["rest"])
            desc = m["rest"][: end.start()] if end else m["rest"]
            read = _describe(d, words(m["join"]).replace(" s", "'s"), desc.strip(), ws)
            if read is None:
                continue
            d.end = m.start("rest") + read
            d.said = text[d.start : d.end]
        if m["amount"]:
            money = module.fields_of("money")
            amounts = find_amounts(m["amount"], money_only=False)
            if not money or not amounts:
                continue
            d.values[money[0].slug] = amounts[0].value[0]
        if qual:
            ref = _reference_by_company(module, ws)
            target = ws.module(ref.target) if ref and ref.target else None
            if ref is None or target is None or ref.slug in d.referred:
                continue
            d.referred[ref.slug] = (target, qual)
        if d.values or (d.referred and (m["amount"] or m["join"])):
            return d
    return None


def _describe(d: Described, join: str, desc: str, ws: Workspace) -> int | None:
    """Read what the clause after the module's word says of the record into ``d``: how much
    of ``desc`` it read (None: nothing this reads)."""
    if not desc:
        return None
    if join not in ("where", "in which", "on which", "for which", "whose"):
        # "that's currently blocked", "who's churned": an option, in up to three words
        now = _NOW.match(desc)
        after = now.end() if now else 0
        said = desc[after:].split()
        for n in range(min(3, len(said)), 0, -1):
            option = _option(" ".join(said[:n]), d.module)
            if option is not None:
                d.values[option[0].slug] = option[1]
                return after + len(" ".join(said[:n]))
    if len(desc.split()) > 8:
        return None
    ref = _REFERENCE_TAIL.match(desc)
    if ref is None:
        return None
    f = d.module.field_said(words(ref["word"]), [x for x in d.module.fields if x.target])
    target = ws.module(f.target) if f and f.target else None
    if f is None or target is None:
        return None
    d.referred[f.slug] = (target, ref["name"].strip())
    return len(desc)


def plan_described(
    text: str, ws: Workspace, again: Callable[[str], Planned | None]
) -> Planned | None:
    """Look the described record up, then plan ``text`` with its name in place of the
    description (``again``); None when ``text`` describes no record this way."""
    d = described(text, ws)
    if d is None:
        return None
    refs = list(d.referred.items())
    lookups: list[Call] = [
        ("records.search", {"module": target.slug, "query": name, "limit": 10})
        for _, (target, name) in refs
    ]

    def search(filters: dict[str, Any]) -> list[Call]:
        return [("records.search", {"module": d.module.slug, "filters": filters, "limit": 10})]

    def resolved(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        if any(o.status != "ok" for o in outcomes):
            return []
        filters = dict(d.values)
        for (slug, (target, name)), outcome in zip(refs, outcomes, strict=True):
            hits = _matching(name, [target], [outcome])
            if len(hits) != 1:
                return _unsure(d, f"{len(hits)} {target.slug} named {name!r}")
            filters[slug] = str(hits[0][1].get("recordId"))
        return search(filters)

    def named(outcomes: Sequence[ToolOutcome]) -> Planned:
        """The plan for the message with the one record found in its place, or the reply."""
        if len(outcomes) != 1 or outcomes[0].status != "ok":
            return ()
        found = _records(outcomes[0])
        if len(found) != 1:
            return _unsure(d, f"{len(found)} {d.module.slug}")
        name = str(found[0].get("displayName") or "")
        if not name:
            return ()
        quoted = f'the {_singular_word(d)} "{name}"'
        planned = again(text[: d.start] + quoted + text[d.end :])
        if planned is None or planned == "":
            return f'The {_singular_word(d)} that fits is "{name}"; what should I do with it?'
        return planned

    def picked(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        planned = named(outcomes)
        return planned if isinstance(planned, str) else (planned[0]([]) if planned else [])

    looked_up = 2 if lookups else 1  # the stage that runs the filtered search

    def following(k: int) -> Stage:
        def stage(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
            earlier = EARLIER.get()
            if len(earlier) <= looked_up - 1:
                return []
            planned = named(earlier[looked_up - 1])
            if isinstance(planned, str) or len(planned) <= k:
                return []
            return planned[k](outcomes)

        return stage

    first: tuple[Stage, ...] = (
        (lambda _: list(lookups), resolved) if lookups else (lambda _: search(dict(d.values)),)
    )
    return (*first, picked, *(following(k) for k in range(1, _FOLLOWING + 1)))


def _singular_word(d: Described) -> str:
    """The module's word for one record ("deal", "task", "contact", "company")."""
    return singular(words(d.module.slug))


def _unsure(d: Described, what: str) -> str:
    return (
        f"I looked for {d.said.strip()!r} and found {what}, so I changed nothing. "
        f"Which {_singular_word(d)} do you mean? Give me its name."
    )
