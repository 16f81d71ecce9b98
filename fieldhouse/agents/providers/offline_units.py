"""Field values said by their unit, anywhere in a message ("grown to 800 staff", "up to
£225,000"): the schema, not the words' positions, says which field a number belongs to.

Used by the loose update reader: a value is read only when its field is sure (a unit word of
one field, or a currency sign read as the one money field of the named record's module);
otherwise nothing is read and the planner asks.
"""

from __future__ import annotations

import re
from typing import Any

from fieldhouse.agents.providers.offline_schema import Field, Module, Workspace, singular, words

#: a number said with a currency sign (the sign makes it money)
_MONEY = re.compile(r"[$€£]\s?\d[\d,]*(?:\.\d+)?\s*(?:k|m)?\b", re.I)
#: a number (not a date's day, not part of a longer figure)
_NUMBER = r"(?<![\w.,/-])(\d[\d,]*(?:\.\d+)?)\s*"


def unit_values(text: str, ws: Workspace) -> list[tuple[Module, Field, Any, tuple[int, int]]]:
    """(module, field, value words, span) for each number said with a field's unit word
    right after it ("800 staff", "75 percent"), and each currency amount as the value of each
    module's only money field (the record named later picks the module)."""
    out: list[tuple[Module, Field, Any, tuple[int, int]]] = []
    units = {u for m in ws.modules for f in m.fields for u in f.units()}
    said = {singular(w) for w in words(text).split() if w not in units}  # "120 people"
    named = [m for m in ws.modules if said & _module_words(m)]
    modules = named or list(ws.modules)  # "the ... deal up to £40,000": a deal's field
    for module in modules:
        for f in module.fields:
            for unit in sorted(f.units(), key=len, reverse=True):
                pattern = _NUMBER + re.escape(unit) + r"(?!\w)"
                for m in re.finditer(pattern, text, re.I):
                    if not any(s <= m.start() < e for _, _, _, (s, e) in out):
                        out.append((module, f, m[1], (m.start(), m.end())))
    # a currency amount: one reading per money field (one a module); the record the message
    # names then decides which one is meant, and a second money field of its module is unsure
    money = [(m, f) for m in modules for f in m.fields if f.reads == "money"]
    per_module = [m for m, _ in money]
    for module, f in money:
        if per_module.count(module) == 1:
            out += [(module, f, m[0], (m.start(), m.end())) for m in _MONEY.finditer(text)]
    return out


def _module_words(module: Module) -> set[str]:
    """The one-word names of a module, singular ("deal", "company", "org")."""
    said = [module.slug, module.name, *module.synonyms]
    return {singular(w) for w in (words(x) for x in said) if w and " " not in w}
