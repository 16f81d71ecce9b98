"""The request of a message that says some context first (issue 32, item 6): people write
"Notes from the QBR: ... Please open a deal for it called X, 60k" or "I hope all is well. Would
it be possible to rename the deal 'A' to 'B'?". The request clause is read alone, from its verb,
when the context adds nothing to it: no value for the request's module, no fuller form of a name
the request says, and no record the request points back to with a pronoun (unless the context
quoted exactly one name, which the pronoun then stands for). Otherwise the whole message is read,
as before: a value dropped with the context would make a wrong write.
"""

from __future__ import annotations

import re
from datetime import date

from fieldhouse.agents.providers.offline_records import (
    _FILLER,
    _PRONOUNS,
    _QUOTED,
    _STOP,
    _UPDATE_VERB,
    _VERBS,
    _YES_NO,
    _accentless,
    _mentions,
    _says_a_value,
    clean,
    route,
)
from fieldhouse.agents.providers.offline_schema import Workspace

#: where a request may begin after some context: a new sentence, or a clause after a comma
#: the polite frame of a request ("if you could", "might you be so kind as to")
_ASKED = (
    r"(?:if\s+(?:you|we)\s+(?:could|would|can|might)|(?:could|can|would|will|might)\s+you|"
    r"(?:you|we)\s+(?:could|would|can|might)|please|kindly|"
    r"(?:would|will|is)\s+it\s+be\s+possible\s+to|(?:you|we)\s+to)\s+"
    r"(?:please\s+|kindly\s+)?(?:be\s+so\s+(?:kind|good)\s+as\s+to\s+)?(?=\w)"
)
_CLAUSE_START = re.compile(
    r"(?<=[.!?;:])\s+|,\s+(?:so\s+|and\s+|but\s+)?|\s+so\s+"
    # a request asked politely inside a sentence: "... I would be grateful if you could add"
    r"|(?:^|\s)" + _ASKED,
    re.I,
)
_ASKED_START = re.compile(_ASKED, re.I)


def request_first(text: str, ws: Workspace, today: date) -> str:
    """The request of a message that says some context first ("The review is stuck with
    legal. Set 'Review the contract' to blocked"): read from its verb on when the context says
    no value for the request's module (no number, address or its field named) and names nothing
    the request names in fewer words; else the whole message, as before."""
    if route(text, ws, today) in ("create", "update") or _QUOTED_START.match(text):
        return text
    for m in _CLAUSE_START.finditer(text):
        rest = clean(text[m.end() :])
        asked = _ASKED_START.match(rest)
        rest = clean(rest[asked.end() :]) if asked else rest
        lower = rest.lower()
        creates = bool(_CREATE_VERB.match(lower))
        if re.match(r"remind\s+me\b", lower) and not _points_back(lower):
            return rest  # "..., so remind me on the 10th to check in with Adele"
        if _LIST_VERB.match(lower) and not _points_back(lower):
            # "..., so give me all the tasks that are overdue": a list asked for after the
            # reason, naming what it lists itself
            listed = _modules_of(rest, ws)
            if listed and not _says_a_value(text[: m.start()], ws, listed):
                return _without_after(rest, ws)
            continue
        if not (creates or re.match(_UPDATE_VERB + r"\b", lower)):
            continue
        context = text[: m.start()]
        if _points_back(lower) and not (creates and _QUOTED.search(rest)):
            quoted = _QUOTED.findall(context)
            if len(quoted) != 1 or creates:
                return text  # "..., so flag her": the name is in the context
            rest = _named_back(rest, quoted[0])  # "Regarding 'X', ... set its status"
        if _names_nothing(rest, ws) or _shares_a_name(context, rest):
            return text  # "..., so update the lifecycle to customer": the name is before
        if _says_a_value(context, ws, _modules_of(rest, ws)):
            return text  # the context may name the record or give its values: all of it
        return _without_after(rest, ws)
    return text


#: a list or a search asked for by its verb
_LIST_VERB = re.compile(
    r"(?:list|show(?:\s+me)?|give\s+me|pull\s+up|pull|find|get\s+me|fetch|bring\s+up)\s", re.I
)
#: a sentence after the request that says what the person will do next ("I'll send the
#: paperwork Monday.", "Thanks!")
_AFTER = re.compile(
    r"(?<=[.!?])\s+(?:i'?ll|i\s+will|i'?m|i\s+am|we'?ll|we\s+will|thanks|thank\s+you|cheers|ta)"
    r"\b[^.!?]*[.!?]?\s*$",
    re.I,
)


def _without_after(request: str, ws: Workspace) -> str:
    """The request without a last sentence that only says what comes next, when it gives no
    value for the request's modules."""
    after = _AFTER.search(request)
    if after and not _says_a_value(after[0], ws, _modules_of(request[: after.start()], ws)):
        return request[: after.start()].rstrip(" .")
    return request


_QUOTED_START = re.compile(r"^\s*['\"]")
_CREATE_VERB = re.compile(
    r"(?:create|add|log|register|set\s+up|enter|insert|open|book|make\s+(?:a|an|new)\b|"
    r"put\s+in)\b",
    re.I,
)
_PRONOUN_SAID = re.compile(r"\b(?:it|its|him|his|her|them|their|this|that|these|those)\b")


def _points_back(request: str) -> bool:
    """Whether a request's object is a pronoun: one of its three words after the verb ("mark
    it as won", "update his title", "add her as a contact"), in its first sentence."""
    first = re.split(r"[.!?]\s", request, maxsplit=1)[0]
    return bool(_PRONOUN_SAID.search(" ".join(first.split()[1:4])))


def _named_back(request: str, name: str) -> str:
    """The request with its pronoun replaced by the one name the context quoted ("set its
    status to blocked" -> "set 'X' status to blocked")."""
    return _PRONOUN_SAID.sub(f"'{name}'", request, count=1)


def _names_nothing(request: str, ws: Workspace) -> bool:
    """Whether a request says no name: only its verb, small words, and modules, fields and
    values of the schema."""
    if _QUOTED.search(request):
        return False
    kept = request
    for m in _mentions(request, ws):
        kept = kept[: m.start] + " " * (m.end - m.start) + kept[m.end :]
    said = [w.lower() for w in re.findall(r"[^\W\d_][\w'&-]*", kept)[1:]]
    small = _STOP | _PRONOUNS | _FILLER | _VERBS
    return not [w for w in said if w not in small and not re.fullmatch(_YES_NO, w)]


def _modules_of(text: str, ws: Workspace) -> set[str]:
    """The modules some words name, by a module word, a field or a choice option."""
    return {m.module.slug for m in _mentions(text, ws)}


def _shares_a_name(context: str, request: str) -> bool:
    """Whether the context says more of a name the request says ("Priya Raman joined Fabrikam
    ... add Priya"): a capitalised run of the context longer than the request's run of that
    word. A quoted name is whole as said."""
    request = _QUOTED.sub(" ", request)
    said = {_accentless(w): len(run.split()) for run in _RUN.findall(request) for w in run.split()}
    for run in _RUN.findall(context):
        for w in run.split():
            key = _accentless(w)
            if key in said and key not in _CALENDAR and len(run.split()) > said[key]:
                return True
    return False


#: a run of capitalised words (a name)
_RUN = re.compile(r"\b[A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+)*")
#: capitalised words that name a day or a month, not a record
_CALENDAR = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
}  # fmt: skip
