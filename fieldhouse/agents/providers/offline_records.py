"""The offline planner's record requests: create, update, find and list records, read from the
message with the workspace's schema rather than fixed sentences.

* the intent comes from small classes of verbs ("add", "log", "new" create; "move", "bump",
  "mark", "set" update; "show", "find", "which" read; "delete", "get rid of" are refused: the
  agent has no delete tool);
* the module from its name, slug and everyday words ("organisation", "opportunity", "to-do"),
  or from a field or choice value only one module has ("urgent" is a task priority);
* field values from the fields' labels, slugs, types and choice options: a choice field's
  options, dates relative to today, amounts ("50k", "$1.2m"), e-mails, phones;
* the record an update names through the store's search: one record whose display name is the
  name given (or contains all its words) is changed by its id; none or several, and the planner
  asks instead of writing. So does anything else it is unsure of.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.base import REQUESTER
from fieldhouse.agents.providers.offline_schema import (
    Field,
    Module,
    Workspace,
    singular,
    words,
)
from fieldhouse.agents.providers.offline_slots import Said, read_value
from fieldhouse.agents.providers.offline_units import unit_values
from fieldhouse.agents.providers.offline_values import (
    Found,
    find_amounts,
    find_date,
    find_email,
    find_phone,
    find_range,
    find_time,
    find_url,
    spelled_numbers,
)
from fieldhouse.model.fields.base import Spoken

Call = tuple[str, dict[str, Any]]
#: a later stage: the calls to make, or (a string) the reply that ends the run
Stage = Callable[[Sequence[ToolOutcome]], "list[Call] | str"]
Planned = tuple[Stage, ...] | str

NO_DELETE = (
    "I can't delete records: I can search, create and update them. Delete it yourself in the "
    "app, or tell me what to change instead."
)
_POLITE = re.compile(
    r"^(?:(?:hi|hello|hey)\b(?:\s+there)?\s*[,!.]?\s*|please\s+|pls\s+|plz\s+|kindly\s+|"
    r"(?:could|can|would|will)\s+(?:you|u)\s+(?:please\s+|kindly\s+|be\s+so\s+kind\s+as\s+to\s+|"
    r"be\s+(?:kind|good)\s+enough\s+to\s+|be\s+so\s+good\s+as\s+to\s+)?(?:mind\s+)?"
    r"|(?:is|would)\s+it\s+be\s+(?:ok|okay|alright|all\s+right|possible)\s+to\s+|is\s+it\s+possible\s+to\s+"
    r"|is\s+there\s+(?:any|a)\s+way\s+(?:to|you\s+(?:could|can))\s+|(?:would|could|will)\s+you\s+be\s+able\s+to\s+"
    # a message that adds to an earlier one: "oh and ...", "btw ...", "also, ..."
    r"|(?:oh\s+and|and\s+also|also|btw|by\s+the\s+way)\s*,?\s+"
    r"|when\s+you\s+have\s+a\s+moment\s*,?\s+|might\s+i\s+ask\s+you\s+to\s+|i(?:'d|\s+would)\s+be\s+grateful\s+if\s+you\s+(?:could|would)\s+|"
    r"i(?:'d|\s+would)\s+(?:like|love)\s+(?:you\s+)?to\s+|i\s+want\s+you\s+to\s+|"
    r"i(?:'d|\s+would)\s+appreciate\s+it\s+if\s+you(?:'d|\s+would|\s+could)?\s+|"
    r"i\s+need\s+you\s+to\s+|i'?m\s+trying\s+to\s+|help\s+me\s+|go\s+ahead\s+and\s+|"
    r"just\s+|quickly\s+|ok(?:ay)?\s*,?\s+|so\s+)+",
    re.I,
)
_TAIL = re.compile(
    r"(?:\s*,?\s*(?:please|pls|for\s+me|thanks?(?:\s+you)?|thx|could\s+you\s+help|"
    r"if\s+you\s+can|asap|right\s+now|right\s+away|immediately|straight\s+away|at\s+once|"
    # "... title to CEO now": when it is to happen, no part of the value
    r"(?<=\S\s)now))+\s*[?.!]*\s*$|\s*[?.!]+\s*$",
    re.I,
)
_GERUND = {
    "creating": "create", "adding": "add", "making": "make", "marking": "mark",
    "moving": "move", "updating": "update", "setting": "set", "changing": "change",
    "logging": "log", "finding": "find", "showing": "show", "listing": "list",
    "deleting": "delete", "removing": "remove",
}  # fmt: skip
_DELETE = re.compile(
    r"\b(?:delete|del|remove|erase|wipe|purge|destroy|trash|get\s+rid\s+of|archive|"
    # "drop it to 1", "drop the probability down to 20": a lower value, not a delete; "the loot
    # drop is 140k": a noun
    r"(?<!\w\s)(?<!\w\s\s)drop(?![^,.;]*\b(?:to|by)\s+[$€£]?\d)(?!\s+(?:is|was|of)\b))\b",
    re.I,
)
_CREATE = re.compile(
    r"^(?:\+\s*|create|creat|crate|add|new|log|make\s+(?=a\b|an\b|new\b)|register|set\s+up|"
    r"spin\s+up|enter|insert|save|"
    r"schedule|(?:put|record|open)\s+(?=(?:in\s+)?(?:a|an)\s|a\s+new\b))\b"
    r"|^(?:i|we)\s+(?:need|want)\s+(?:a|an)\s+(?!list\b|listing\b|rundown\b|overview\b|report\b|"
    r"summary\b|count\b|look\b)(?:new\s+)?"
    r"|^(?:i'?d\s+like|let'?s\s+have|let'?s\s+add|give\s+me)\s+(?:a|an)\s+(?:new\s+)?"
    r"|^(?:todo|to-do|to\s+do|task)\s*:",
    re.I,
)
_UPDATE_VERB = (
    r"(?:update|change|set|move|bump|mark|rename|reassign|assign|upgrade|downgrade|switch|convert|"
    r"record|"
    r"put|push|promote|demote|flag|tag|make|edit|modify|record\s+that|note\s+that|log\s+that|"
    r"lower|raise|drop|increase|decrease|reduce)"
)
_FIND = re.compile(
    r"^(?:find|search(?:\s+for)?|look\s+up|lookup|look\s+for|pull\s+up|bring\s+up|show|list|"
    r"get|give\s+me|display|fetch|open|who\s+is|who'?s|who\s+are|who\s+works|which|what|"
    r"whats|what'?s|"
    r"do\s+we\s+have|is\s+there|are\s+there|how\s+many|how\s+much|when|where|all|every|any)\b",
    re.I,
)
_STOP = {
    "the", "a", "an", "all", "any", "every", "my", "our", "me", "us", "of", "in", "on", "at",
    "for", "to", "with", "that", "which", "who", "whose", "are", "is", "be", "have", "has",
    "we", "i", "you", "it", "its", "and", "or", "please", "show", "list", "find", "search",
    "get", "give", "display", "what", "whats", "what's", "do", "does", "there", "record",
    "records", "entry", "entries", "one", "ones", "so", "far", "yet", "still", "currently",
    "now", "up", "pull", "look", "called", "named", "about", "by", "from", "into", "this",
}  # fmt: skip
_PRONOUNS = {"it", "him", "her", "them", "this", "that", "these", "those", "everything", "all"}
_PRONOUNS |= {"everyone", "everybody", "he", "she", "they", "one", "same"}
_NEGATION = re.compile(
    r"(?:\bnot|n't|\bno\b|\bexcept|\bexcluding|\bother\s+than)\s+(?:just\s+)?(?:\w+\s+)?$"
)


#: a sentence that only greets, thanks or signs off ("Hi, I trust all is well.", "Many
#: thanks.", "Kind regards."): no request in it
_PLEASANTRY = re.compile(
    r"^(?:(?:hi|hello|hey|good\s+(?:morning|afternoon|evening|day)|dear\s+[\w ]{1,30}?)"
    r"(?:\s+again|\s+there)?\s*[,!.]?\s*)?"
    r"(?:(?:i\s+(?:hope|trust)|hope)\b[^.!?]*|(?:many\s+|a\s+lot\s+of\s+)?thanks?\b[^.!?]*|"
    r"thank\s+you\b[^.!?]*|much\s+appreciated|(?:best|kind|warm|warmest|kindest)\s+"
    r"(?:wishes|regards)|with\s+thanks|cheers|(?:sorry|apologies)\b[^.!?]*)?\s*[.!]*$",
    re.I,
)
_ASKS = re.compile(
    r"\b(?:add|create|new|log|record|put|set|update|change|mark|move|make|remind|send|email|"
    r"e-mail|draft|find|show|list|delete|remove)\b",
    re.I,
)


def sentences(text: str, most: int = 0) -> list[str]:
    """The sentences of ``text`` (split after ".", "!" or "?"; at most ``most`` splits)."""
    return re.split(r"(?<=[.!?])\s+", text, maxsplit=most)


def without_pleasantries(text: str) -> str:
    """The message without sentences that only greet, thank or sign off."""
    said = sentences(text)
    kept = [s for s in said if not (_PLEASANTRY.match(s.strip()) and not _ASKS.search(s))]
    return " ".join(kept) if kept else text


def plain_symbols(message: str) -> str:
    """The message without pictographs ("🚀", "✅", "⭐") and the "@" of a mention ("@Radia
    Perlman"), with backquotes as quotes: they say no value, and a name quoted with backquotes
    is quoted."""
    kept = "".join(
        " " if unicodedata.category(ch) in ("So", "Sk", "Cs", "Co") and ch != "`" else ch
        for ch in message
        if ch not in "\ufe0f\u200d"
    )
    kept = re.sub(r"(?<![\w.])@(?=[A-Z])", "", kept)  # "@Radia Perlman": a mention, not an address
    for symbol, said in _SYMBOL_WORDS:
        kept = symbol.sub(said, kept)
    return " ".join(kept.replace("`", "'").split())


#: shorthand with symbols, in words: "health ≥ 4" is at least 4, "f/u" a follow-up; a change sign
#: ("Δ stage", "prob ↑ 50 → 75") says no value itself (the arrow between the values stays)
_SYMBOL_WORDS = (
    (re.compile(r"\s*(?:≥|>=)\s*"), " at least "),
    (re.compile(r"\s*(?:≤|<=)\s*"), " at most "),
    (re.compile(r"(?<![\w/])f/u(?![\w/])", re.I), "follow-up"),
    (re.compile(r"(?<!\w)[\u0394\u2206](?!\w)|[\u2191\u2193\u21d1\u21d3]"), " "),
)


def clean(message: str) -> str:
    text = without_pleasantries(" ".join(message.replace("\u2019", "'").split()))
    for _ in range(3):
        text = _POLITE.sub("", text).strip()
        text = _TAIL.sub("", text).strip()
    return spelled_numbers(" ".join(_GERUND.get(w.lower(), w) for w in text.split(" ")))


#: an aside that only makes sure ("not Software, a third one", "yes, a different Ada", "that
#: exact task", "nothing else"): it says no value
_SURE = re.compile(
    r"\b(?:not|n't|yes|yeah|different|another|second|third|exact|only|else|really|parent|"
    r"brand\s+new|new\s+one|same|don'?t\s+touch|keep\s+it)\b",
    re.I,
)
_ASIDES = (
    re.compile(r"\s*\((?P<a>[^()]{2,120})\)"),
    re.compile(r"\s+--?\s+(?P<a>[^-]{2,120}?)\s+--?(?=\s)"),
    re.compile(r"\s*(?:--|\s-)\s*(?P<a>[^-]{2,120})$"),
    re.compile(r"(?<=[.!])\s+(?P<a>[^.!?]{2,160})[.!]?\s*$"),
    re.compile(r"[.,;]\s+(?P<a>nothing\s+else)\s*[.!]?\s*$", re.I),
)


#: small talk at the end of a request: "... oh and lunch is here", "... btw nice shirt"
_CHATTER = re.compile(
    r"(?:[.,;!?]\s*|\s+)(?P<a>(?:ugh|btw|oh\s+and|anyway|by\s+the\s+way|fyi)\b(?P<rest>[^.!?]*))"
    r"[.!?]*\s*$",
    re.I,
)


def without_asides(text: str, ws: Workspace) -> str:
    """The text without asides that only make sure (in brackets, between dashes, a last
    sentence) or chat ("oh and lunch is here"): they name no field or choice value, no
    number, address or date (and chat names no one)."""
    chat = _CHATTER.search(text)
    if (
        chat
        and chat.start() > 0
        and not re.search(r"\d|@|\$|€|£|\b(?-i:[A-Z])[a-z]", chat["rest"])
        and not any(_says_value(chat["a"], x) for x in _mentions(chat["a"], ws))
        and not re.search(
            _UPDATE_VERB + r"\b|\b(?:her|his|their|its)\s+\w+\s+(?:is|are)\b", chat["a"], re.I
        )
    ):
        text = text[: chat.start()].strip()
    for aside in _ASIDES:
        m = aside.search(text)
        said = m["a"] if m else ""
        if (
            m
            and _SURE.search(said)
            and not re.match(_UPDATE_VERB + r"\b", said.strip(), re.I)  # "Mark her as ...": asked
            and not re.search(r"\d|@|\$|€|£", said)
            and not any(_says_value(said, x) for x in _mentions(said, ws))
        ):
            text = (text[: m.start()] + text[m.end() :]).strip()
    return text


def _says_value(text: str, m: Mention) -> bool:
    """Whether a mention gives a value: a choice not said with "not"."""
    if m.field is None or m.option is None:
        return False  # a field's word alone ("the name of our module") gives no value
    return not re.search(r"(?:\bnot|n't)\s+$", text[: m.start], re.I)


@dataclass
class Mention:
    """A phrase of the message that names a module, a field or a choice option."""

    start: int
    end: int
    module: Module
    field: Field | None = None
    option: str | None = None


def _spans(text: str, phrase: str) -> list[tuple[int, int]]:
    pattern = r"(?<![\w-])" + re.escape(phrase).replace(r"\ ", r"[\s-]+") + r"(?![\w-])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, re.I)]


def _mentions(text: str, ws: Workspace) -> list[Mention]:
    """Every module, field and option phrase in the text (longest first, none overlapping)."""
    found: list[tuple[int, Mention]] = []
    kinds = ws.module_words
    for module in ws.modules:
        for phrase in module.phrases():
            for s, e in _spans(text, phrase):
                found.append((e - s, Mention(s, e, module)))
        for f in module.fields:
            if f.computed:
                continue
            for phrase in f.phrases():
                if phrase in kinds and phrase not in (words(f.label), words(f.slug)):
                    continue  # "contact" says the Contacts module, not "Do not contact"
                for s, e in _spans(text, phrase):
                    found.append((e - s, Mention(s, e, module, f)))
            for option in f.options:
                for phrase in option.phrases():
                    for s, e in _spans(text, phrase):
                        found.append((e - s + 1, Mention(s, e, module, f, option.value)))
    found.sort(key=lambda x: -x[0])
    taken: list[Mention] = []
    for _, m in found:
        overlaps = [t for t in taken if t.start < m.end and m.start < t.end]
        if all(t.start == m.start and t.end == m.end for t in overlaps):
            taken.append(m)
    return sorted(taken, key=lambda m: m.start)


def _modules_named(mentions: Iterable[Mention]) -> list[Module]:
    out: list[Module] = []
    for m in mentions:
        if m.field is None and m.module not in out:
            out.append(m.module)
    return out


# --- the entry point ---------------------------------------------------------------------


def plan_records(message: str, now: datetime, ws: Workspace) -> Planned | None:
    """Stages (or a reply) for a record request, or None when the message is not one."""
    text = without_asides(clean(message), ws)
    if not text:
        return None
    today = now.date()
    routed, terse = _route(text, ws, today)
    if routed == "delete":
        return NO_DELETE
    if routed == "create":
        return _create(text, today, ws)
    if routed == "update":
        return _update(text, today, ws, terse)
    if routed == "find":
        return _find(text, today, ws)
    if routed == "name":
        return _search_everywhere(text.strip(" .,"), ws)  # a bare name
    return None


def route_of(message: str, ws: Workspace, today: date) -> str | None:
    """:func:`route` of a message as it was said."""
    text = without_asides(clean(message), ws)
    return route(text, ws, today) if text else None


def _says_a_value(text: str, ws: Workspace, modules: set[str] | None = None) -> bool:
    """Whether some words give a value: a number, an address, or a field named (of one of
    ``modules`` when given: "on the phone" says nothing about a deal)."""
    if re.search(r"\d|@|\$|€|£", text):
        return True
    return any(
        m.field is not None and m.option is None and (not modules or m.module.slug in modules)
        for m in _mentions(text, ws)
    )


def route(text: str, ws: Workspace, today: date) -> str | None:
    """What the words of a cleaned request say it is: delete, create, update, find, name (a
    bare name), or None."""
    return _route(text, ws, today)[0]


def _route(text: str, ws: Workspace, today: date) -> tuple[str | None, Change | None]:
    """:func:`route`, with the change an update says without a verb ("Wide World Importers
    employees = 780"), read on the way."""
    lower = text.lower()
    unquoted = _QUOTED.sub(" ", lower)  # a record named 'Contoso imaging archive'
    if _DELETE.search(unquoted) and not re.match(r"^(?:remind|e-?mail|send|draft)\b", lower):
        return "delete", None
    if _CREATE.search(lower) or _module_first(text, ws) or _new_one_asked(text, ws):
        return "create", None
    if re.match(_UPDATE_VERB + r"\b", lower):
        return "update", None
    terse = None if _FIND.search(lower) else _terse_change(text, today, ws)
    if terse is not None or _statement(lower):
        return "update", terse
    if _FIND.search(lower) or _mentions_module(text, ws):
        return "find", None
    said = re.findall(r"[\w'&-]+", lower)
    plain = not any(w in _STOP or w in _PRONOUNS or w in _VERBS for w in said)
    if len(said) <= 4 and plain and re.fullmatch(r"[\w .,'&-]+", text) and not _chat(lower):
        return "name", None
    return None, None


def _new_one_asked(text: str, ws: Workspace) -> bool:
    """ "Could you pop a new company in for me: X": a new record of a module asked for
    anywhere in a request (not a question about new ones: "any new deals?"), whatever choice
    values or dates the rest says."""
    if _QUESTION.search(text):
        return False
    return any(
        m.field is None and re.search(r"\b(?:a|an)\s+new\s+$", text[: m.start], re.I)
        for m in _mentions(text, ws)
    )


_QUESTION = re.compile(
    r"\?\s*$|^\W*(?:which|what|who|whose|how|when|where|why|any|did|do|does|is|are|were|was|"
    r"have|has)\b",
    re.I,
)


def _module_first(text: str, ws: Workspace) -> bool:
    """ "Deal: 'X', 45k", "task 'Y' due friday", "deal new: Z": a module word first, then a
    colon or a quoted name, is a new record of it."""
    first = next(iter(_mentions(text, ws)), None)
    if first is None or first.start != 0 or first.field is not None:
        return False
    rest = text[first.end :]
    if not re.match(r"\s*(?:new\s*)?(?::|-+\s*['\"]|['\"])", rest):
        return False
    # "task 'intro call'" alone names a record (to find), with nothing said to make it new
    quoted = _QUOTED.match(rest.strip())
    return not (quoted and quoted.end() == len(rest.strip()))


def _chat(lower: str) -> bool:
    return bool(
        re.search(
            r"\b(?:hi|hello|hey|thanks?|thx|ok|okay|lol|haha|cool|nice|great|good|bye|yes|no|"
            r"you|your|joke|weather|morning|evening|sorry|help)\b",
            lower,
        )
    )


def _mentions_module(text: str, ws: Workspace) -> bool:
    return any(m.field is None or m.option for m in _mentions(text, ws))


def _statement(lower: str) -> bool:
    """A change said as a fact: "X is now Y", "X should be tagged Y", "we won X"."""
    return bool(
        re.search(
            r"^[\w' .-]+?\s+(?:has|have)\s+(?:now\s+)?\d[\d,.]*\s*k?\s+[a-z]|"
            r"\b(?:is|are)\s+now\b|\bshould\s+be\b|\bhas\s+moved\s+to\b|^we\s+(?:won|lost)\b|"
            r"\bnow\s+(?:works|is)\b|^(?!(?:which|what|who|how|show|list|find|any|all)\b)"
            r"[\w' .-]+?\s+is\s+(?:now\s+)?in\s+|"
            r"^(?!(?:what|who|which|how)\b)[\w .-]+'s?\s+[\w -]+?\s+is\s+|"
            r"^[\w' .-]+?\s*(?:->|=>|\u2192)\s*\S|^(?!(?:which|what|show|list|find|any|all)\b)"
            r"[\w' .-]+?\s+(?:closes|is\s+due)\s+(?:on\s+|by\s+)?\S|"
            r"^(?!(?:which|what|who|whose|how|show|list|find|any|all|is|are)\b)[\w' .-]+?\s+is\s+"
            r"(?:now\s+)?(?:worth\s+)?[\w$€£.,%-]+(?:\s+[\w$€£.,%-]+)?(?:\s+now)?$",
            lower,
        )
        or re.search(
            r"^(?!(?:find|search|look|show|list|get|pull|who)\b)[a-z][\w' .-]+\s+"
            r"(?:phone|email|e-mail|mobile)\s+\S+$",
            lower,
        )
    )


# --- search everywhere (a bare name) ---------------------------------------------------------


def _search_everywhere(query: str, ws: Workspace) -> Planned:
    calls = [
        ("records.search", {"module": m.slug, "query": query, "limit": 10}) for m in ws.modules
    ]

    nothing = f"Sorry, I did not understand that: no record matches {query!r}, so I did nothing."
    said = [w.lower() for w in re.findall(r"[^\W\d_][\w'&.-]*", query) if len(w) >= 4]
    # the list search matches words as stored: a word's first letters find it whatever a
    # slip or an accent later in the word ("Northwnd Traders", "Zoe Angstrom")
    starts = list(dict.fromkeys(_accentless(w)[:3] for w in said))[:_LOOKUPS]
    again = [
        ("records.search", {"module": m.slug, "query": w, "limit": 10})
        for m in ws.modules
        for w in starts
    ]
    order = [m for m in ws.modules for _ in starts]

    def report(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        if any(_records(o) for o in outcomes):
            return []
        return list(again) if again else nothing

    def spelled(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        if len(outcomes) != len(again):
            return []  # found at the stage before
        found: dict[str, tuple[Module, str]] = {}
        for module, outcome in zip(order, outcomes, strict=False):
            for record in _records(outcome):
                name = str(record.get("displayName") or "")
                if _named_in(name, said):
                    found[str(record.get("recordId"))] = (module, name)
        if len(found) != 1:
            return nothing
        module, name = next(iter(found.values()))
        return [("records.search", {"module": module.slug, "query": name, "limit": 10})]

    return (lambda _: list(calls), report, spelled)


#: a name said with capitals, two words or more ("Margaret Hamilton", "Trey Research")
_CAPITAL_NAME = re.compile(r"\b[A-Z][\w'&-]+(?:\s+(?:&\s+)?[A-Z][\w'&-]+)+")


def name_search(message: str, ws: Workspace) -> Planned | None:
    """A message the planner did not understand that says a name with capitals ("where I
    find Margaret Hamilton?", "anything at all on Trey Research?"): look the name up in every
    module (a read, so nothing is changed); None when it says no such name."""
    for m in _CAPITAL_NAME.finditer(message):
        said = m.group().split()
        if any(w.lower() in _STOP | _PRONOUNS | _VERBS for w in said) or _mentions(m.group(), ws):
            continue
        return _search_everywhere(m.group(), ws)
    return None


def _records(outcome: ToolOutcome) -> list[Mapping[str, Any]]:
    records = outcome.result.get("records") if outcome.status == "ok" else None
    return [r for r in records if isinstance(r, Mapping)] if isinstance(records, list) else []


# --- create ----------------------------------------------------------------------------------

#: a quoted phrase (not the apostrophe of "O'Brien" or "it's")
_QUOTED = re.compile(
    r"(?<!\w)['\"\u2018\u201c](?P<q>[^'\"\u2019\u201d]{2,}?)['\"\u2019\u201d](?!\w)"
)
_NAME_INTRO = re.compile(r"(?:named|called|titled|for|to)\s+", re.I)
_CLAUSE = re.compile(
    r"\s*(?:[,;(]|:\s+(?=(?-i:[a-z0-9$€£]))|\s->|\s-\s|\s/\s|\.\s|\?\s|!\s|\s+with\s+(?:an?\s+|the\s+)?(?=FIELD)|"
    # "Jane Doe without email", "... with no phone": a field said to be empty
    r"\s+(?:with\s+no|without)\s+(?:an?\s+|the\s+)?(?=FIELD)|"
    # "Acme with 12 employees": a number of the field follows
    r"\s+with\s+(?=(?:about\s+|around\s+|some\s+|over\s+)?[$€£]?\d[\d,.]*\s*(?:k|m)?\s*FIELD)|"
    r"\s+(?:worth|valued\s+at|due|by|in\s+stage|closing|closes|"
    r"whose|who|which|that|he'?s|she'?s|they'?re|his|her|their|its|at\s+a|amount|priority|"
    r"stage)\b)",
    re.I,
)


#: words that say which person is meant without naming them ("the booth lead")
_DESCRIBING = ("the", "our", "my", "their", "his", "her", "this", "that")
#: words a person's description starts with, never a name's ("the new CFO")
_DETERMINERS = frozenset({*_DESCRIBING, "a", "an"})


def _described(text: str, name: str) -> bool:
    """Whether ``name`` (in lower case) describes a person rather than names one: "the booth
    lead", "our new sponsor"."""
    said = r"\b(?:" + "|".join(_DESCRIBING) + r")\s+" + re.escape(name)
    return bool(re.search(said, text, re.I))


_KIND_FIRST = re.compile(
    r"^(?P<verb>add|create|new|schedule|set\s+up|log|make|spin\s+up|raise)\s+(?:an?\s+|new\s+)*",
    re.I,
)
#: a person's name after a record's kind and a colon ("a lead: Tomas Brennan, ...")
_A_PERSON = re.compile(r"\s*:\s*(?-i:[A-Z][\w'-]+\s+[A-Z][\w'-]+)\b")
_PERSON_AT = re.compile(
    r"^(?P<verb>add|create|new)\s+(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){1,2})"
    # "add Marcus Webb, head of growth at Litware Labs": the role stays to be read
    r"(?P<role>\s*,\s*[^,;]{2,60}?)?\s+(?:at|from)\s+"
    r"(?P<org>.+)$",
    re.I,
)
#: the words that introduce a new record's name
_NAMING = r"\b(?:named|called|titled|entitled)"
#: a name given further on, after what the new record is for ("for Contoso named X")
_NAMED_LATER = re.compile(_NAMING + r"\s+", re.I)
#: the naming word just before a name (read as the name, not as one of the details)
_NAMING_AT_END = re.compile(_NAMING + r"\s*$", re.I)
_NAME_BEFORE = re.compile(
    r"^\W*\w+\s+(?P<name>.+?)\s+(?:as\s+(?:a|an|the)?|to\s+(?:the\s+|my\s+|our\s+)?)\s*"
    r"(?:new\s+)?$",
    re.I,
)


def _create(text: str, today: date, ws: Workspace) -> Planned:
    text, mentions = _create_kind(text, ws)
    if not _modules_named(mentions):
        return "What kind of record should I create (a contact, company, deal or task)?"
    first = _module_word(mentions)
    module = first.module
    kind = singular(words(module.name))
    rest = text[first.end :]
    name, name_span, text, first = _create_name(text, first, today, ws)
    if not _QUOTED.search(rest):  # "the deal Northwind app on stage proposal": not "... on"
        name = re.sub(r"(?:\s+(?:on|at|for|in|with|to|of|the|a|an|and|by))+$", "", name, flags=re.I)
    if not _names_a_record(name, rest, ws) or _field_part(name, module):
        return f"What should the new {kind} be called?"
    if _NO_NAME_YET.fullmatch(name):  # "name TK", "name: tbd": to come
        return f"What should the new {kind} be called? I created nothing yet."
    described = name == name.lower() and _described(text, name)
    described = described or bool(re.search(r"['\u2019]s\s+\w", name))  # "Grace's assistant"
    if _person_like(module) and (described or name.split()[0].lower() in _DETERMINERS):
        return f"What should the new {kind} be called?"  # "add the booth lead": who is it?
    # the name's own words out: a date or amount said inside it ("call hedy tmrw") stays
    said = rest[name_span[0] : name_span[1]]
    at = said.lower().find(name.lower())
    # a name read around a value said inside it: all of it stays to be read (and asked about)
    inside = said[:at] + " " + said[at + len(name) :] if at >= 0 else said
    head = re.sub(r"^\W*[\w']+\s*", "", text[: first.start])  # without the verb
    lead = _NAMING_AT_END.sub(" ", rest[: name_span[0]])
    details = " ".join((head, lead, inside, rest[name_span[1] :]))
    # the quotes a quoted name leaves behind ("for Contoso Health: 'X', 45k"), and the colon
    # that led to it, are no part of the details
    details = _EMPTY_QUOTES.sub(" ", details)
    mine = _MINE_NEW.search(details)
    people = module.fields_of("user")
    me: str | None = None
    if mine is not None and len(people) == 1:
        me = REQUESTER.get()
        if me is None:
            return f"Who should be the {people[0].label.lower()} of the new {kind}?"
        details = details[: mine.start()] + " " + details[mine.end() :]
    # "He's qualified.": he is (a value of the record, read as "she is a lead" is)
    details = _PRONOUN_IS.sub(r"\g<p> is ", details)
    labelled, asked, details = _labelled_parts(details, module, today, ws)
    fields, pending = _details(details, module, today, ws, creating=True)
    fields |= labelled
    fields |= _kind_said(text, first, module, ws)
    pending += asked
    loose = _loose_numbers(details, fields, today)
    money = module.fields_of("money")
    # "..., 24000" is the amount; "~120 ppl" counts something else: asked about, not guessed;
    # so is a bare number that another number field could hold (a company's 1,200: its
    # employees or its revenue), but for a percentage it is too big for
    if (
        len(loose) == 1
        and len(money) == 1
        and money[0].slug not in fields
        and not _a_count(details, loose[0])
        and all(
            f.slug in fields or ("percent" in f.units() and loose[0] > 100)
            for f in module.fields_of("number")
        )
    ):
        fields[money[0].slug] = {"amount": loose.pop(), "currency": "USD"}
    unread = " ".join(str(n) for n in loose) or _unread(details, module, today, ws, fields)
    looked = {w for _, (_, args) in pending for w in words(str(args.get("query"))).split()}
    if unread and set(unread.split()) <= looked:
        unread = ""  # the name of a record looked up ("for Tailspin Finance")
    linked = None if loose else _unread_reference(unread, module, ws, fields, pending)
    if linked is not None:
        pending.append(linked)
        unread = ""
    if unread:
        return (
            f"I would create the {kind} {name!r}, but I did not understand {unread!r}; say it "
            "again with the field it is for, and I will add it."
        )
    if _person_like(module):
        name = _HONORIFIC.sub("", name)  # "Mr. Fergus Abernethy": Fergus Abernethy
        if _TITLE_ONLY.fullmatch(name):  # "Ms. Smith": "Ms" is no first name
            return f"What is {name}'s full name? I created nothing yet."
        if name == name.lower():  # "add jane doe": Jane Doe
            name = name.title()
    fields |= _name_fields(module, name)
    if me is not None:
        fields[people[0].slug] = me
    return _create_plan(module, name, fields, pending, ws)


_PRONOUN_IS = re.compile(r"\b(?P<p>he|she)['\u2019]s\s+(?=(?:an?\s+)?[\w-]+\s*(?:[.!]|$))", re.I)
_EMPTY_QUOTES = re.compile(r"\s*:?\s*(['\"\u2018\u201c])\s*['\"\u2019\u201d]")


def _kind_said(text: str, first: Mention, module: Module, ws: Workspace) -> dict[str, Any]:
    """ "create a to-do", "log a follow-up": the word that names the module is also, exactly,
    a value of one of its choice fields (task type "to-do"): that value."""
    said = text[first.start : first.end].lower()
    kinds = [
        m
        for m in _mentions(said, ws)
        if m.module is module and m.field is not None and m.option == said
    ]
    if len(kinds) != 1 or kinds[0].field is None or kinds[0].field.reads == "choices":
        return {}
    return {kinds[0].field.slug: said}


def _unread_reference(
    unread: str, module: Module, ws: Workspace, fields: Mapping[str, Any], pending: list[Any]
) -> tuple[str, Call] | None:
    """Words no field took may name a record a reference field points to ("for Tailspin
    Finance at stage lead", "on the Wide World import portal deal"): the look-up of that record
    by name, for the one reference field still unset (the one whose module the words name, else
    a company before a contact). The plan creates only when one record is found."""
    if not unread:
        return None
    taken = set(fields) | {slug for slug, _ in pending}
    free = [f for f in module.fields_of("record") if f.target and f.slug not in taken]
    phrase, mentions = _strip_target(unread, ws)
    named = [f for f in free if f.target in {m.module.slug for m in mentions if m.field is None}]
    order = sorted(free, key=lambda f: (f.target not in _FOR_TARGETS, f.target != "companies"))
    slots = named or order
    if not slots or not slots[0].target or not phrase or _mentions(phrase, ws):
        return None
    slot = slots[0]
    return slot.slug, ("records.search", {"module": slot.target, "query": phrase, "limit": 10})


def _name_from_parts(rest: str, module: Module, today: date, ws: Workspace) -> str:
    """A new record's name said as its name fields ("first name Ivan, last name Petrov"), or
    ""."""
    fields = _labelled_parts(rest, module, today, ws)[0]
    first = next((f for f in module.fields if words(f.label) == "first name"), None)
    last = next((f for f in module.fields if words(f.label) == "last name"), None)
    if first and last and isinstance(fields.get(first.slug), str):
        return f"{fields[first.slug]} {fields.get(last.slug) or ''}".strip()
    shown = module.display_fields
    said = fields.get(shown[0].slug) if len(shown) == 1 else None
    return said if isinstance(said, str) else ""


#: words that may follow a sum of money without saying what it counts ("24000 for 12 months")
_NOT_A_UNIT = frozenset({
    "for", "in", "on", "by", "at", "to", "and", "with", "from", "per", "a", "an", "the", "or",
    "but", "as", "of", "so", "please", "pls", "thx",
})  # fmt: skip


def _a_count(text: str, number: float) -> bool:
    """Whether a number without a currency is said as a count of something ("~120 ppl",
    "40 seats"): a word other than a small one follows it."""
    for a in find_amounts(text):
        if a.value[0] == number and not a.value[1]:
            # from the number's last digit: "28,000, qualified" is no count of "qualified"
            end = a.start + len(text[a.start : a.end].rstrip(",.; "))
            after = re.match(r"\s*([a-z]+)\b", text[end:].lower())
            if after is not None and after[1] not in _NOT_A_UNIT:
                return True
    return False


def _loose_numbers(text: str, fields: Mapping[str, Any], today: date) -> list[int | float]:
    """Numbers said that no field took (not in a date, time, phone, address): asked about.
    Once an amount of money was taken, other sums of money were what it replaces ("2.5k a
    month -> put 30000 as amount")."""
    taken: set[Any] = {v for v in fields.values() if isinstance(v, int | float)}
    sums = {v.get("amount") for v in fields.values() if isinstance(v, Mapping)}
    found = (find_date(text, today), find_time(text), find_phone(text), find_email(text))
    spans = [f for f in (*found, find_url(text)) if f is not None]
    money = {(a.start, a.end) for a in find_amounts(text, money_only=True)} if sums else set()
    return [
        a.value[0]
        for a in find_amounts(text)
        if a.value[0] not in taken | sums
        and (a.start, a.end) not in money
        and not any(f.start < a.end and a.start < f.end for f in spans)  # (any overlap)
    ]


def _labelled_parts(
    text: str, module: Module, today: date, ws: Workspace
) -> tuple[dict[str, Any], list[tuple[str, Call]], str]:
    """Details said as "field value" or "field=value" parts ("company=Contoso Health, amount
    $1.2M, close-date 2027-03-31"): each value read as its field's type (a record by name is
    looked up); the fields, the look-ups and the text without the parts read."""
    fields: dict[str, Any] = {}
    pending: list[tuple[str, Call]] = []
    kept: list[str] = []
    for part in _PARTS.split(text):
        m = _field_part(part, module)
        if m is None:
            kept.append(part)
            continue
        slot, value = m
        if slot.reads == "record" and slot.target:
            look = {"module": slot.target, "query": value, "limit": 10}
            pending.append((slot.slug, ("records.search", look)))
        else:
            read = read_value(slot, value, Said(today, {}))
            if read is None:
                kept.append(part)
                continue
            fields[slot.slug] = read
        kept.append(" " * len(part))
    return fields, pending, "".join(kept)


#: where details part: after a comma or a semicolon, but not inside a number ("15,000")
#: where a labelled part ends: a semicolon, a comma (not a thousands one), a sentence's end
_PARTS = re.compile(r"(?<=;)|(?<=,)(?<!\d,)|(?<=\d,)(?!\d{3}(?!\d))|(?<=[.!?])(?=\s+(?-i:[A-Z]))")
_PART_VALUE = r"(?![\w-])\s*(?:=|:|\bis\b)?\s*(?P<v>\S.*)"


def _field_part(part: str, module: Module) -> tuple[Field, str] | None:
    """A part that is a field of the module (its label or slug) then its value."""
    said = re.sub(r"^[\W_]+", "", part).strip(" ,;.:")
    for f in sorted(module.fields, key=lambda f: -max(len(p) for p in f.phrases())):
        if f.computed or f.reads is None:
            continue
        for phrase in sorted(f.phrases(), key=len, reverse=True):
            p = re.escape(phrase).replace(r"\ ", r"[\s-]+")
            m = re.fullmatch(r"(?:and\s+|with\s+)?" + p + _PART_VALUE, said, re.I)
            if m and not _mentions_any_field(m["v"], module):
                return f, m["v"].strip(" '\"")
    return None


def _mentions_any_field(value: str, module: Module) -> bool:
    """Whether a value holds another field's label ("amount 5k stage lead"): not one part."""
    lower = words(value)
    labels = {words(f.label) for f in module.fields} | {words(f.slug) for f in module.fields}
    return any(re.search(r"(?<!\S)" + re.escape(label) + r"(?!\S)", lower) for label in labels)


def _create_name(
    text: str, first: Mention, today: date, ws: Workspace
) -> tuple[str, tuple[int, int], str, Mention]:
    """The new record's name and its span after the module word; said before it ("add Linus
    Torvalds as a contact": the text without it and the module word again); or said as its
    name fields ("first name Ivan, last name Petrov")."""
    module = first.module
    rest = text[first.end :]
    name, name_span = _new_name(rest, module, today)
    before = _NAME_BEFORE.match(text[: first.start])
    # "add Kestrel Lane as a company, retail": after the comma come details, not its name
    # ("register X as a contact; he is ..."): the name was said before the module word
    listed = rest.lstrip()[:1] in (",", ";", ":") and (
        before is not None or not _names_a_record(name, rest, ws)
    )
    if (not name or listed) and before and (not rest.strip(" .!?") or listed):
        name, name_span = before["name"].strip(" '\""), (0, 0)
        text = text[: before.start("name")] + text[before.end("name") :]
        first = next(m for m in _mentions(text, ws) if m.field is None and m.module is module)
    if not name or _field_part(name, module):
        name, name_span = _name_from_parts(rest, module, today, ws), (0, 0)
    return _introduced(name), name_span, text, first


#: what comes before a new record's name and is not part of it: a lead ending in a colon
#: before a capital ("please: Tom Becker", "from a business card: Siobhán O'Connell"),
#: "name is", "called"
_NAME_LEAD = re.compile(
    r"^(?:[^:'\"]*:\s+(?=(?-i:[A-Z]))|(?:(?:uh|um|er)\s+)*(?:(?:the\s+|his\s+|her\s+)?name\s+is|"
    r"called|named)\s+)",
    re.I,
)


def _introduced(name: str) -> str:
    """The name without the words that introduce it."""
    if _QUOTED.fullmatch(name.strip()):
        return name
    return _NAME_LEAD.sub("", name).strip()


def _create_kind(text: str, ws: Workspace) -> tuple[str, list[Mention]]:
    """The text with its module said: "add Jane Doe at Contoso" is a person at a company; "add a
    meeting with Barbara" a record of the one module with that choice value."""
    mentions = _mentions(text, ws)
    if _modules_named(mentions):
        return text, mentions
    people = [m for m in ws.modules if _person_like(m)]
    person = _PERSON_AT.match(text)
    if person and people:
        word = singular(words(people[0].name))
        role = person["role"] or ""
        text = f"{person['verb']} {word} {person['name']}{role} at {person['org']}"
        mentions = _mentions(text, ws)
        if _modules_named(mentions):
            return text, mentions
    kind = _KIND_FIRST.match(text)
    first_said = [m for m in mentions if m.option and kind and m.start == kind.end()]
    if kind and len({m.module.slug for m in first_said}) > 1:
        # "add a lead: Tomas Brennan, ...": a value of several modules (a contact's lifecycle,
        # a deal's stage), then a person's name: the record of the one person-like module
        after = text[max(m.end for m in first_said) :]
        personal = [m for m in first_said if _person_like(m.module)]
        if len({m.module.slug for m in personal}) == 1 and _A_PERSON.match(after):
            first_said = personal
    if kind and len({m.module.slug for m in first_said}) == 1:
        word = singular(words(first_said[0].module.name))
        text = f"{kind['verb']} {word} {text[kind.end() :]}"
        mentions = _mentions(text, ws)
    return text, mentions


#: a moment left in a name ("review w barbara next month"): part of a date not read
_WHEN_SAID = re.compile(
    r"\b(?:next|last|this|coming)\s+(?:week|month|year|quarter)\b|\b(?:today|tomorrow|tmrw|"
    r"yesterday)\b|\b\d{1,2}(?:st|nd|rd|th)\b",
    re.I,
)


#: a new record's "name" that starts with one of these is the rest of a sentence ("the new
#: person from the Northwind meeting")
_NOT_A_NAME_START = _PRONOUNS | {"for", "to", "about", "on", "with", "from", "as", "at", "of", "by"}
#: a subject after the module word starts a clause about it ("create the task I asked for")
_NOT_A_NAME_START |= {"i", "we", "you", "i'd", "we'd", "i've", "we've", "you'd"}


def _names_a_record(name: str, rest: str, ws: Workspace) -> bool:
    """Whether a new record's name was read: not empty, not only a value ("add urgent"), not a
    pronoun or a preposition first, not the rest of a sentence (unless quoted)."""
    if not name or not _leftover(name, _mentions(name, ws), ws, every=True):
        return False
    if name.lower().split()[0] in _NOT_A_NAME_START:
        return False
    if _QUOTED.search(rest):
        return True
    return not _reads_like_a_sentence(name) and not _WHEN_SAID.search(name)


#: last words of a company's name, not of a person's
_ORG_WORDS = frozenset({
    "inc", "ltd", "llc", "plc", "gmbh", "corp", "corporation", "labs", "health", "traders",
    "importers", "works", "cloud", "software", "finance", "group", "holdings", "systems",
    "solutions", "technologies", "industries", "partners", "trading", "logistics", "freight",
    "ventures", "studios", "services", "consulting",
})  # fmt: skip


def _create_plan(
    module: Module,
    name: str,
    fields: dict[str, Any],
    pending: list[tuple[str, Call]],
    ws: Workspace,
) -> Planned:
    """Look for a record of the same name and each referenced record; then create, or ask."""
    kind = singular(words(module.name))
    create_args = {"module": module.slug, "displayName": name, "fields": fields}
    look = ("records.search", {"module": module.slug, "query": name, "limit": 10})
    lookups = [look] + [call for _, call in pending]

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        if outcomes and any(
            _same(str(r.get("displayName", "")), name) for r in _records(outcomes[0])
        ):
            return (
                f"There is already a {kind} named {name}; I did not add another. Say so if you "
                "want a second one, or what to change on it."
            )
        found = [str(r.get("displayName", "")) for r in _records(outcomes[0])] if outcomes else []
        # a person said by one name ("Add Grace as a contact") that starts a known person's
        # full name: most likely that person, not a new one
        known = found if _person_like(module) and len(name.split()) == 1 else []
        same_first = [n for n in known if n.split()[:1] and _same(n.split()[0], name)]
        if same_first:
            return (
                f"Do you mean {same_first[0]}, who is already a {kind}, or a new {kind} named "
                f"just {name}? Give me the full name; I created nothing yet."
            )
        # a company said by the first words of a known one's name ("New company Contoso" with
        # Contoso Health known): most likely that one
        count = len(name.split())
        started = [
            n
            for n in found
            if module.slug in _FOR_TARGETS
            and len(n.split()) > count
            and _same(" ".join(n.split()[:count]), name)
        ]
        if started:
            return (
                f"Do you mean {started[0]}, which is already a {kind}, or a new {kind} named "
                f"just {name}? Give me the full name; I created nothing yet."
            )
        # a person's name that reads as a company's ("Add Litware Labs as a contact"); a deal
        # named so with no company said ("Add a deal: Contoso Health, 50k")
        org_like = name.split()[-1].lower().strip(".,") in _ORG_WORDS
        if org_like and _person_like(module):
            return (
                f"{name} reads like a company's name, not a person's; should it be a company, "
                f"or is it the {kind}'s name after all? I created nothing yet."
            )
        company = next((f for f in module.fields if f.target == "companies"), None)
        looked_up = {slug for slug, _ in pending}
        if org_like and company is not None and company.slug not in {*fields, *looked_up}:
            return (
                f"Is {name} the new {kind}'s name, or the company it is for? Give me the "
                f"{kind}'s name and its company; I created nothing yet."
            )
        for (slug, (_, look)), outcome in zip(pending, outcomes[1:], strict=False):
            if slug.startswith(_MAYBE):  # the company, if one has exactly that name
                said, ref, *of = slug[len(_MAYBE) :].split(">")
                named = [
                    r
                    for r in _records(outcome)
                    if _same(str(r.get("displayName", "")), look["query"])
                ]
                if len(named) == 1:
                    said_whole = str(fields.pop(said))
                    role = _ROLE_OF.match(said_whole) if of else None
                    if role:  # the part before "of" is the title
                        fields[said] = role["role"]
                    fields[ref] = str(named[0].get("recordId"))
                continue
            hits = _matching(
                str(look["query"]), [ws.module(str(look["module"])) or module], [outcome]
            )
            if len(hits) != 1:  # no such record, or several: ask rather than leave it out
                said = "several" if hits else "no"
                return (
                    f"I found {said} {look['module']} matching {look['query']!r}; which one is "
                    f"the new {kind} {name!r} for? I created nothing yet."
                )
            fields[slug] = str(hits[0][1].get("recordId"))
        return [("records.create", create_args)]

    return (lambda _: list(lookups), then)


def _module_word(mentions: Sequence[Mention]) -> Mention:
    """The word that names the new record's module: the first, unless it is also a choice value
    of the module and another of its words follows ("a to-do task": a task of type to-do)."""
    named = sorted((m for m in mentions if m.field is None), key=lambda m: m.start)
    same = [m for m in named if m.module is named[0].module]
    valued = any(m.option and (m.start, m.end) == (named[0].start, named[0].end) for m in mentions)
    return same[1] if valued and len(same) > 1 else named[0]


_CLAUSES: dict[int, re.Pattern[str]] = {}
#: "a deal for <company>": the modules a "for ..." names a record of
_FOR_TARGETS = {"companies", "contacts"}


def _clause(module: Module) -> re.Pattern[str]:
    """Where a new record's name ends: a comma, "worth", "due", or "with" before a field of
    the module ("with email ...", but "follow up with Grace" is a name)."""
    made = _CLAUSES.get(id(module))
    if made is None:
        said = sorted({p for f in module.fields for p in f.phrases()}, key=len, reverse=True)
        fields = "(?:" + "|".join(re.escape(p) for p in said) + r")\b"
        typed = module.fields_of("url", "email", "phone", "choice", "number", "money")
        labels = sorted({p for f in typed for p in f.phrases()}, key=len, reverse=True)
        pattern = _CLAUSE.pattern.replace("FIELD", fields)
        if labels:  # "Woodgrove Bank website woodgrovebank.com": a field and its value follow
            # (not a capitalised word before another: "Kilimani Health Clinics" is a name)
            label = "(?:" + "|".join(re.escape(p) for p in labels) + ")"
            pattern = pattern[:-1] + (
                r"|\s+(?!(?-i:[A-Z])[\w-]*\s+(?-i:[A-Z]))(?=" + label + r"\s*[:=]?\s*\S))"
            )
        values = sorted({p for f in typed for o in f.options for p in o.phrases()}, key=len)
        if values:  # "Proseware Inc in the financial services industry": a choice value
            value = "(?:" + "|".join(re.escape(p) for p in reversed(values)) + r")\b"
            pattern = pattern[:-1] + r"|\s+in\s+(?:the\s+)?(?=" + value + "))"
        if _person_like(module):  # "Jane Doe at Contoso": where she works
            pattern = pattern[:-1] + r"|\s+(?:at|from)\s+)"
        elif _FOR_TARGETS.intersection(f.target or "" for f in module.fields_of("record")):
            pattern = pattern[:-1] + r"|\s+for\s+(?!(?:the|a|an|my|our|this|that|next)\b))"
        made = re.compile(pattern, re.I)
        _CLAUSES[id(module)] = made
    return made


#: words no record's name has: fillers, "called", pronouns and verbs of a sentence
_NOT_IN_NAMES = frozenset(
    [
        "uh",
        "um",
        "er",
        "erm",
        "like",
        "called",
        "named",
        "record",
        "they",
        "it's",
        "its",
        "he",
        "she",
        "him",
        "her",
        "their",
        "have",
        "has",
        "is",
        "are",
        "was",
        "were",
    ]
)


def _reads_like_a_sentence(name: str) -> bool:
    """A name read from unquoted text that is more likely the rest of the sentence (a colon
    or comma in it, more than eight words, or words no name has): asking is better than a
    record named "uh called blue yonder airlines they have like two hundred employees"."""
    said = name.lower().split()
    return bool(re.search(r"[:;,]", name)) or len(said) > 8 or bool(_NOT_IN_NAMES & set(said))


#: "(a new company) to enter", "to add": what to do with it, where its name would be
_TO_DO_IT = re.compile(
    r"\s*to\s+(?:enter|add|create|log|record|put\s+in|make|open|register|file|set\s+up)\b"
    r"(?!\s+(?-i:[A-Z]))",
    re.I,
)


#: "for Contoso Health: " or "for Fabrikam Software, " before a capitalised name: whose
_WHOSE_THEN_NAME = re.compile(
    r"(?-i:[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,4})\s*[:,]\s*(?=(?-i:[A-Z])[\w'-]+\s+\w)"
)


def _new_name(rest: str, module: Module, today: date) -> tuple[str, tuple[int, int]]:
    """The new record's name in what follows the module word, and its span there."""
    quoted = _QUOTED.search(rest)
    if quoted and not _field_part(rest[: quoted.start()].rsplit(",", 1)[-1] + " x", module):
        return quoted["q"].strip(), (quoted.start(), quoted.end())
    lead = re.match(r"\s*(?:new\b)?\s*(?:for\s+(?:myself|me|us)\b)?\s*[:,-]?\s*", rest)
    start = lead.end() if lead else 0
    told = re.match(r"\s*(?:for|due|by|on)\s+[^:]{1,30}:\s*", rest)
    if told and find_date(told.group(), today):
        start = told.end()  # "new task for tmrw: call linus"
    if _TO_DO_IT.match(rest, start):
        return "", (start, start)  # "New company to enter.": what to do, no name
    intro = _NAME_INTRO.match(rest, start)
    if intro:
        start = intro.end()
        if re.match(r"(?:the|a|an|our|my|this|that)\b", rest[start:], re.I):
            return "", (start, start)  # "a task for the renewal": what it is for, no name
        if intro.group().lower().startswith("for") and not _person_like(module):
            named = _NAMED_LATER.search(rest, start) or _WHOSE_THEN_NAME.match(rest, start)
            if named is None:
                return "", (start, start)  # "a deal for contoso": whose, not its name
            # "a deal for Contoso named Contoso renewal", "a deal for Contoso Health:
            # Contoso analytics, 88,000": its name
            start = named.end()
    body = rest[start:]
    cut = _clause(module).search(body)
    if cut and cut.group().lstrip().startswith(":") and not re.match(r"\s*[A-Z0-9'\"]", body):
        cut = None  # "Heron Labs: software" ends at the colon; "signup from the form: x" asks
    name = body[: cut.start()] if cut else body
    end = start + len(name)
    # dates and amounts said inside the name are details, not part of it
    for s, e in _typed_spans(name, today):
        name = name[:s] + " " * (e - s) + name[e:]
    name = re.sub(r"^\s*(?:a|an|the|new)\s+", "", " ".join(name.split())).strip(" :,.-'\"")
    return name, (start, end)


def _typed_spans(text: str, today: date) -> list[tuple[int, int]]:
    """Where the text says a date, an amount or an e-mail (last first)."""
    spans: list[tuple[int, int]] = []
    found = find_date(text, today)
    if found:
        spans.append((found.start, found.end))
    spans += [(a.start, a.end) for a in find_amounts(text, money_only=True)]
    time = find_time(text)
    if time:
        spans.append((time.start, time.end))
    for typed in (find_email(text), find_url(text)):
        if typed:
            spans.append((typed.start, typed.end))
    return sorted(spans, reverse=True)


#: titles said before a person's name, which are neither their first name nor part of it;
#: those written shortened, with a dot, first
_SHORT_TITLES = ("Mr", "Mrs", "Ms", "Mx", "Dr", "Prof")
_TITLES = (*_SHORT_TITLES, "Miss", "Sir", "Dame")
_HONORIFIC = re.compile(rf"^(?:{'|'.join(_TITLES)})\.?\s+(?=\S+\s+\S)", re.I)
_TITLE_DOT = re.compile(rf"\b({'|'.join(_SHORT_TITLES)})\.(?=\s+[A-Z])")
_TITLE_ONLY = re.compile(rf"(?:{'|'.join(_TITLES)})\.?\s+\S+", re.I)


def without_title_dots(text: str) -> str:
    """``text`` without the dot of a shortened title before a name: "Mr. Abernethy" is not a
    sentence's end."""
    return _TITLE_DOT.sub(r"\1", text)


def _person_like(module: Module) -> bool:
    """A module of people: a first and a last name field."""
    labels = {words(f.label) for f in module.fields}
    return "first name" in labels and "last name" in labels


def _name_fields(module: Module, name: str) -> dict[str, Any]:
    """The display field(s) from the name (a first and last name split when the module has
    both)."""
    first = next((f for f in module.fields if words(f.label) == "first name"), None)
    last = next((f for f in module.fields if words(f.label) == "last name"), None)
    if first and last:
        given, _, family = name.partition(" ")
        return {first.slug: given, **({last.slug: family} if family else {})}
    shown = module.display_fields
    return {shown[0].slug: name} if shown else {}


def _details(
    text: str, module: Module, today: date, ws: Workspace, *, creating: bool
) -> tuple[dict[str, Any], list[tuple[str, Call]]]:
    """Field values said beside a new record's name; references to look up by name."""
    fields: dict[str, Any] = {}
    text = _typed_values(text, module, fields)
    _choice_values(text, module, ws, fields)
    _amounts(text, module, fields)
    dates = module.fields_of("date")
    when = find_date(text, today)
    if when and dates and isinstance(when.value, date):
        fields[_date_field(text, dates).slug] = when.value.isoformat()
    title = next((f for f in module.fields if f.reads == "text" and "title" in f.slug), None)
    pending = _reference(text, module, ws, title, fields)
    if title and creating and title.slug not in fields and not title.display:
        role = _bare_title(text, ws, module)
        # ("Procurement Manager in Contoso Health", a title and a company, is left unread)
        if role and not _ROLE_IN.match(role) and module.field("emails") is not None:
            fields[title.slug] = role
            # "New contact - Odette Marchand, odette@x, Contoso Health": a bare part may be the
            # company; looked up, and the company's if one is named exactly so
            org = next((f for f in module.fields if f.target == "companies"), None)
            if org is not None and org.slug not in fields:
                # "CTO of Litware Labs": the title and the company, if one is named so
                of = _ROLE_OF.match(role)
                look = {"module": "companies", "query": of["org"] if of else role, "limit": 10}
                marker = f"{_MAYBE}{title.slug}>{org.slug}" + (">of" if of else "")
                pending.append((marker, ("records.search", look)))
    return fields, pending


#: a role at a company said in one part ("Procurement Manager in Contoso Health")
_ROLE_IN = re.compile(r"^.+?\s+(?:in|at|with|from)\s+(?-i:[A-Z])", re.I)
#: a role of a company said in one part ("CTO of Litware Labs"; "Head of Engineering" is a
#: title unless a company is named "Engineering")
_ROLE_OF = re.compile(r"^(?P<role>.+?)\s+of\s+(?P<org>(?-i:[A-Z])[\w&'. -]+)$")
#: a title said with its company in an update ("COO of Adventure Works", "CFO at Contoso
#: Health"): capitalised words after "of" or "at" ("Head of Engineering" is one word: a title)
_ROLE_OF_AT = re.compile(
    r"^(?P<role>.+?)\s+(?:of|at)\s+(?P<org>(?-i:[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)+))\s*$"
)


#: words of a department, not of a company ("VP of Sales Operations" is a title)
_DEPARTMENTS = frozenset({
    "sales", "marketing", "operations", "engineering", "finance", "product", "products",
    "design", "research", "development", "it", "hr", "people", "data", "security", "legal",
    "procurement", "purchasing", "support", "customer", "success", "services", "strategy",
    "technology", "digital", "analytics", "quality", "supply", "chain", "logistics", "growth",
    "partnerships", "business", "and", "&", "communications", "infrastructure", "platform",
    "revenue", "accounts", "compliance", "risk", "talent", "learning", "innovation",
})  # fmt: skip


def _companies_of(record: Mapping[str, Any]) -> list[str]:
    """The names of the records a record's reference fields point to, as its search shows them."""
    out = []
    for value in (record.get("fields") or {}).values():
        for ref in value if isinstance(value, list) else [value]:
            if isinstance(ref, Mapping) and ref.get("displayName"):
                out.append(str(ref["displayName"]))
    return out


#: a look-up whose record, when found by its exact name, takes a value's place (see _details)
_MAYBE = "?"


#: values found by their shape wherever they are said, by how their field is spoken
_SHAPED: tuple[tuple[Spoken, Callable[[str], Found[str] | None]], ...] = (
    ("email", find_email),
    ("url", find_url),
    ("phone", find_phone),
)


def _typed_values(text: str, module: Module, fields: dict[str, Any]) -> str:
    """E-mails, web addresses and phones into the module's first field of their kind; the text
    without them."""
    for spoken, finder in _SHAPED:
        found = finder(text)
        if found is None:
            continue
        slot = next(iter(module.fields_of(spoken)), None)
        if slot:
            fields[slot.slug] = read_value(slot, found.value, Said(date.min, {}))
        text = text[: found.start] + " " + text[found.end :]
    return text


#: capitalised words right before a word, in the same part of a list ("..., QA lead")
_IN_A_PHRASE = re.compile(r"(?:^|[,;:|(-])\s*(?:[A-Z][\w&'-]*\s+)+$")


def _choice_values(text: str, module: Module, ws: Workspace, fields: dict[str, Any]) -> None:
    for m in _mentions(text, ws):
        if m.module is not module or m.field is None or m.option is None:
            continue
        if _IN_A_PHRASE.search(text[: m.start]) and not text[m.start].isupper():
            continue  # "Sam Okafor, QA lead": a title that ends with a choice's word
        if m.field.reads == "choices":
            fields.setdefault(m.field.slug, []).append(m.option)
        else:
            fields.setdefault(m.field.slug, m.option)


def _amounts(text: str, module: Module, fields: dict[str, Any]) -> None:
    """Money (an amount said with its field, "amount 30000", beats a bare "30k") and numbers
    said with their field ("85 employees")."""
    money = module.fields_of("money")
    if money:
        labelled = _labelled_number(text, money[0])
        # (not a count of a number field: "with 1.2k employees" had been revenue too)
        counted = [w for f in module.fields_of("number") for w in (*f.units(), *f.phrases())]
        amounts = [
            a
            for a in find_amounts(text, money_only=True)
            if not any(
                re.match(r"\s*" + re.escape(w) + r"\b", text[a.end :], re.I) for w in counted
            )
        ]
        value = labelled if labelled is not None else (amounts[0].value if amounts else None)
        if value is not None:
            number, currency = value
            fields[money[0].slug] = {"amount": number, "currency": currency or "USD"}
    for f in module.fields_of("number"):
        labelled = _labelled_number(text, f)
        if labelled is not None:
            fields[f.slug] = labelled[0]


def _reference(
    text: str, module: Module, ws: Workspace, title: Field | None, fields: dict[str, Any]
) -> list[tuple[str, Call]]:
    """ "VP Sales at Northwind Traders" (a role at a record of a referenced module), "a deal
    for Contoso Health": the look-up of the record by name, and the role as the title."""
    at = _ROLE_AT.search(text) if _person_like(module) else None
    reference = next((f for f in module.fields_of("record") if f.target), None)
    owner = _FOR.search(text)
    if not at and owner and reference and reference.target in _FOR_TARGETS:
        at = owner
    if not (at and reference and reference.target):
        return []
    org = at["org"]
    said = [m for m in _mentions(org, ws) if m.module is module and m.field is not None]
    if said:  # "for Tailspin Finance at stage lead": the name ends where a value begins
        org = re.sub(r"\s+(?:at|in|on|with|and|,)\s*$", "", org[: said[0].start], flags=re.I)
    if not org.strip():
        return []
    look = {"module": reference.target, "query": org.strip(), "limit": 10}
    # ("..., x@y. She is the Facilities Manager at Y": the role is of the last sentence)
    role = re.sub(r"^.*[.!?:](?:\s+|$)", "", (at["role"] or "").strip())
    role = re.sub(_PRONOUN_LEAD, "", role, flags=re.I)
    if title and role and not _mentions(role, ws):
        fields[title.slug] = role.strip()
    return [(reference.slug, ("records.search", look))]


def _bare_title(text: str, ws: Workspace, module: Module | None = None) -> str | None:
    """A bare trailing phrase beside a person's name and e-mail: their job title (or the
    company, when one has that name: see :func:`_details`). Only the words of ``module`` (when
    given) make a part a value of its own: "Contoso Health" says no contact's field."""
    parts = [s.strip(" .()") for s in re.split(r"[,;]", text)[1:]]
    leftovers = [re.sub(_PRONOUN_LEAD, "", s, flags=re.I) for s in parts]
    plain = [s for s in leftovers if s and re.fullmatch(r"[A-Za-z][A-Za-z &/-]{2,60}", s)]
    plain = [s for s in plain if len(s.split()) <= 5 and not _values_in(s, ws, module)]
    return plain[0] if len(plain) == 1 else None


def _values_in(part: str, ws: Workspace, module: Module | None = None) -> bool:
    """Whether a part of a list names a module, a field or a choice on its own (a choice's
    word after capitalised words, "QA lead", is part of a title); of ``module`` when given."""
    return any(
        (module is None or m.module is module)
        and (m.option is None or not _IN_A_PHRASE.search(part[: m.start]))
        for m in _mentions(part, ws)
    )


_ROLE_AT = re.compile(
    r"(?:^|[,;]|\bis\s+(?:the\s+)?|'s\s+(?:the\s+)?)\s*(?:(?P<role>[^,;]{2,60}?)\s+)?"
    r"(?:at\s+|in\s+(?=[A-Z]))(?P<org>[A-Za-z0-9][^,;?.!]{1,80})"
)
_FOR = re.compile(
    r"(?:^|\s)for\s+(?P<role>)(?!(?:the|a|an|my|our|this|that|next)\b)(?P<org>[A-Za-z0-9][^,;?.!]{1,80}?)"
    r"(?=\s*(?:[,;:?.!](?!\d)|\s+(?:worth|valued|due|with|in\s+stage)\b|\s+at\s+[$€£]?\d|$))",
    re.I,
)
_PRONOUN_LEAD = (
    r"^(?:(?:he'?s|she'?s|they'?re|he\s+is|she\s+is|they\s+are|the|a|an|their|his|her|our|new)\s+)+"
)


#: words beside a new record's details that carry nothing of their own
_FILLER = {
    "due", "with", "worth", "his", "her", "their", "its", "is", "are", "was", "a", "an", "the",
    "new", "put", "as", "set", "and", "also", "he's", "she's", "they're", "it's", "for",
    "myself", "me", "pls", "please", "thanks", "valued", "at", "to", "of", "in", "on", "by",
    "month", "year", "week", "per", "each", "i'd", "like", "need", "want", "we", "i", "mind",
    "be", "should", "has", "have", "works", "from", "stage", "can", "you", "would", "could",
    "kindly", "so", "that", "this", "it", "some", "maybe", "about", "around", "roughly",
}  # fmt: skip


def _unread(
    text: str, module: Module, today: date, ws: Workspace, fields: Mapping[str, Any]
) -> str:
    """What a create's details say that no field took (3+ words): asked about, not dropped. A
    later sentence that only tells what someone does ("she signs off the orders") is none."""
    first, *later = sentences(text)
    text = " ".join([first, *(s for s in later if not _story(s, ws))])
    # a field of the new record named but given no value it holds ("website acme", "employees:
    # lots") is not read: its words stay, to be asked about, not dropped ("no email yet" is read;
    # the name's own fields are filled from the name)
    named = set(_name_fields(module, "given family")) | {f.slug for f in module.display_fields}
    unset = {
        (m.start, m.end): m.option is not None
        for m in _mentions(text, ws)
        if m.module is module and m.field is not None
        if m.field.slug not in {*fields, *named} and m.field.reads not in (None, "record")
        if not re.search(r"\b(?:no|without)\s+$", text[: m.start], re.I)
        if not _NO_VALUE_YET.match(text, m.end)
        # (a value with a digit or an "@" the field refused is answered later, more precisely)
        if not re.match(r"\s*[:=]?\s*[^\s,;]*[@\d]", text[m.end :])
    }
    spans = [s for s in _read_spans(text, today, ws, module) if s not in unset]
    at = _ROLE_AT.search(text)
    if at and any(
        (f.reads == "record" and f.slug in fields) or "title" in f.slug for f in module.fields
    ):
        spans.append((at.start(), at.end()))
    role = [s for s in re.split(r"[,;]", text)[1:] if s.strip(" .()") in fields.values()]
    keep = list(text)
    for s, e in spans:
        keep[s:e] = " " * (e - s)
    rest = "".join(keep)
    for said in role:
        rest = rest.replace(said.strip(" .()"), " ")
    address = find_email(rest)
    if address is not None:  # one word, but of weight: an address no field of the module takes
        return address.value
    # a value of the record's own said alone ("He's qualified.") is of weight too
    options = [text[s:e] for (s, e), option in sorted(unset.items()) if option]
    return _weighty(rest) or " ".join(options)


#: the words that say a value is still to come ("TK", "TBD", "to follow")
_TO_COME = r"(?:tbd|tbc|tk|n/?a|unknown|to\s+(?:come|follow))"
#: a name said to come later ("name TK", "Name: TBD")
_NO_NAME_YET = re.compile(r"(?:(?:the\s+)?name\s*(?:is\s+|:\s*)?)?" + _TO_COME, re.I)
#: a field's value said to come later ("revenue TK", "email: to follow"): the field is left out
_NO_VALUE_YET = re.compile(r"\s*[:=-]?\s*(?:" + _TO_COME + r"|pending|later)\b", re.I)


def _read_spans(
    text: str, today: date, ws: Workspace, module: Module | None = None
) -> list[tuple[int, int]]:
    """Where the text names a module, field or choice, or says a typed value. With ``module``:
    an address, a phone number or a web address counts as read only where the module has a
    field for it (a deal's "for the company of x@y" says something no field of a deal took)."""
    spans: list[tuple[int, int]] = [(m.start, m.end) for m in _mentions(text, ws)]
    spans += [(f.start, f.end) for f in find_amounts(text)]
    units = {u for m in ws.modules for f in m.fields for u in f.units()}
    for unit in units:  # "150 ppl": the unit of a number is read with it
        spans += [
            (u.start(), u.end())
            for u in re.finditer(r"\d\s*" + re.escape(unit) + r"(?!\w)", text, re.I)
        ]

    def taken(spoken: Spoken) -> bool:
        return module is None or bool(module.fields_of(spoken))

    found_all = (
        find_date(text, today),
        find_time(text),
        find_email(text) if taken("email") else None,
        find_phone(text) if taken("phone") else None,
        find_url(text) if taken("url") else None,
    )
    for found in found_all:
        if found is not None:
            spans.append((found.start, found.end))
    return spans


def _weighty(rest: str) -> str:
    """The words of weight left (two or more), or "" when there are fewer."""
    said = [w.strip(".'-") for w in re.findall(r"[\w'@.-]+", rest)]
    # a filler word inside a capitalised name is the name's ("Adventure Works")
    named = {i for i in range(1, len(said)) if said[i][:1].isupper() and said[i - 1][:1].isupper()}
    left = [
        w.lower()
        for i, w in enumerate(said)
        if re.search(r"[a-z]", w.lower()) and (w.lower() not in _FILLER or i in named)
    ]
    left = [w for w in left if w not in _STOP and w not in _VERBS and not w.isdigit()]
    return " ".join(left) if len(left) >= 2 else ""


def _labelled_number(text: str, f: Field) -> tuple[int | float, str | None] | None:
    for unit in sorted(f.units(), key=len, reverse=True):  # "~120 ppl", "about 900 staff"
        m = re.search(r"(?P<b>\d[\d,.]*\s?k?)\s*" + re.escape(unit) + r"(?!\w)", text, re.I)
        found = find_amounts(m["b"]) if m else None
        if found and isinstance(found[0].value, tuple):
            return found[0].value[0], None
    for phrase in sorted(f.phrases(), key=len, reverse=True):
        p = re.escape(phrase).replace(r"\ ", r"[\s-]+")
        # (a word multiplier is part of the number: "worth 1.5 million" had been 1.5)
        number = r"[$€£]?\s?\d[\d,.]*\s?(?:[km]|mm|bn|thousand|grand|million|billion)?\b%?"
        m = re.search(
            r"(?:\b" + p + r"\b\s*(?:of|is|=|:|to|at)?\s*(?P<a>" + number + r"))"
            r"|(?:(?P<b>" + number + r")\s*(?:as\s+(?:the\s+)?)?\b" + p + r"\b)",
            text,
            re.I,
        )
        if m:
            found = find_amounts((m["a"] or m["b"]).rstrip("%"))
            if found:
                value = found[0].value
                assert isinstance(value, tuple)
                return value[0], value[1]
    return None


def _date_field(text: str, dates: list[Field]) -> Field:
    lower = text.lower()
    for f in dates:
        if any(re.search(r"\b" + re.escape(p) + r"\b", lower) for p in f.phrases()):
            return f
    return dates[0]


def _same(a: str, b: str) -> bool:
    return words(a) == words(b)


# --- update ----------------------------------------------------------------------------------

_TO = r"(?:\s+(?:to|as|into|=|->)|\s*:)\s+(?:the\s+|be\s+)?"
_UPDATE_SHAPES = [
    # set the stage of X to Y / bump the stage on X to Y
    _UPDATE_VERB + r"\s+(?:the\s+)?(?P<field>[\w -]+?)\s+(?:of|on|for)\s+(?P<target>.+?)"
    + _TO + r"(?P<value>.+)",
    # update X's job title to Y
    _UPDATE_VERB + r"\s+(?:the\s+)?(?P<target>.+?)'s?\s+(?:new\s+)?(?P<field>[\w -]+?)"
    + _TO + r"(?P<value>.+)",
    # X's title is now Y
    r"(?P<target>.+?)'s?\s+(?P<field>[\w -]+?)\s+(?:is\s+now|is|should\s+be|=)\s+(?P<value>.+)",
    # mark X as Y / move X to Y / upgrade X to Y
    _UPDATE_VERB + r"\s+(?:the\s+)?(?P<target>.+?)" + _TO + r"(?P<value>.+)",
    # X should be tagged Y / X is now in proposal stage
    r"(?P<target>.+?)\s+(?:should\s+be|is\s+now|are\s+now|has\s+moved\s+to)\s+(?:in\s+)?(?P<value>.+)",
    r"(?P<target>.+?)\s+is\s+in\s+(?:the\s+)?(?P<value>.+?)(?:\s+now)?",
    r"(?P<target>.+?)\s+is\s+(?:now\s+)?(?P<value>.+?)(?:\s+now)?",
    r"(?P<target>.+?)\s*(?:->|=>|\u2192)\s*(?P<value>.+)",
    r"(?P<target>.+?)\s+(?:is\s+)?(?P<field>closes|(?<=is\s)due)\s+(?:on\s+|by\s+)?(?P<value>.+)",
    # Wide World Importers has 800 employees now / Northwind have now 500 employees
    r"(?P<target>.+?)\s+(?:has|have)\s+(?:now\s+)?(?:grown\s+to\s+)?(?P<value>\d[\d,.]*\s*k?)\s+"
    r"(?P<field>[a-z][\w -]*?)(?:\s+now)?(?:\s*,?\s*update(?:\s+that|\s+it)?)?",
    # we won the X deal / record that X was lost because ...
    r"we\s+(?P<value>won|lost)\s+(?:the\s+)?(?P<target>.+)",
    r"(?:record|note|log)\s+that\s+(?:the\s+)?(?P<target>.+?)\s+(?:was|is|has\s+been|got)\s+(?P<value>.+)",
    # hedy lamarr phone +1415...
    # (a name alone before it: "X: title CTO, ..., phone +1..." had kept only the phone)
    r"(?P<target>[^:,;]+?)\s+(?P<field>phone|mobile|email|e-mail)\s+(?P<value>\S+)",
    # mark X done
    r"(?:mark|flag|set|make)\s+(?:the\s+)?(?P<target>.+?)\s+(?P<value>\S+)",
]  # fmt: skip
_UPDATE_RES = [re.compile("^" + s + "$", re.I) for s in _UPDATE_SHAPES]


#: where a change's value ends and more changes (or the reason) begin
_MORE = re.compile(
    r"\s*(?:,(?!\d)|;|\band\s+also\b)\s*|\s+(?=because\s)|\s+and\s+(?=" + _UPDATE_VERB + r"\b)"
    r"|\s+and\s+(?=(?:its|his|her|their|the)\s)",
    re.I,
)


@dataclass
class Change:
    target: str
    field: str | None
    value: str
    extra: str = ""


def _parse_change(text: str) -> Change | None:
    for pattern in _UPDATE_RES:
        m = pattern.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        target = (groups.get("target") or "").strip(" '\"")
        value = (groups.get("value") or "").strip()
        extra = ""
        quoted = _QUOTED.match(value)
        if quoted:  # "to 'Wide World Importers Ltd' (legal name)": the quoted words
            value, extra = quoted["q"], value[quoted.end() :].strip(" ,;")
        else:
            split = re.split(_MORE, value, maxsplit=1)
            if len(split) > 1:
                value, extra = split[0], value[len(split[0]) :].strip(" ,;")
        field = groups.get("field")
        if field and field.lower().strip() in ("the", "a", ""):
            field = None
        if field is None and re.match(r"rename\b", text, re.I):
            field = "name"  # "rename X to Y"
        return Change(target, field.strip() if field else None, value.strip(" '\"."), extra)
    return None


_VERB_SAID = re.compile(r"\b(?:should|be|is|are|was|were|has|have|will|got|gets)\b", re.I)
_YES_NO = r"yes|no|true|false|on|off|y|n|checked|unchecked"
_TERSE_VALUE = re.compile(
    r"\s*(?:->|=>|=|:|\u2192|\bto\b|\b(?:should|must|needs\s+to)\s+(?:now\s+)?be\b|\bis\b)?"
    r"\s*(?P<v>\S.*)$",
    re.I,
)


def _terse_change(text: str, today: date, ws: Workspace) -> Change | None:
    """ "tailspin finance health 3", "Wide World Importers employees = 780": a record's name,
    then a field, then a value that reads as the field's (no verb said)."""
    # words inside a quoted name are the name's ("'Sensor site visit' status done")
    masked = _QUOTED.sub(lambda q: " " * len(q[0]), text)
    fields = [m for m in _mentions(masked, ws) if m.field is not None and m.option is None]
    if not fields:
        return None
    first = fields[0]
    head = _NEW_BEFORE_FIELD.sub("", text[: first.start].strip(" ,:-"))
    said = _TERSE_VALUE.match(text, first.end)
    if said is None or not _names_only(head, ws):
        return None
    value, extra = _split_more(said["v"])
    value = _newest(value)
    readable = [
        m.field
        for m in fields
        if (m.start, m.end) == (first.start, first.end)
        and m.field is not None
        and _reads_tersely(m.field, value, today, ws)
    ]
    if not readable:  # several fields of that name: the record found says whose it is
        return None
    return Change(head, text[first.start : first.end], value.strip(" '\"."), extra)


#: a word that says a field's value is new ("Radia Perlman new title: ..."), not part of a name
_NEW_BEFORE_FIELD = re.compile(r"(?:\s*[-,:]?\s+(?:new|current|updated|latest|correct))+$", re.I)


_ARROW = r"->|=>|\u2192"


def _newest(value: str) -> str:
    """ "6k -> 9.5k", "5→3": the value after the last arrow (the one before was the old one)."""
    return re.split(_ARROW, value)[-1].strip() if re.search(_ARROW, value) else value


def _names_only(head: str, ws: Workspace) -> bool:
    """Whether the words before a field can be a record's name alone: some words, no verb, no
    field or choice, not a module word first ("tasks that aren't done" is a list)."""
    if _QUOTED.fullmatch(head.strip()):
        return True  # "'Sensor site visit' status done": a name, quoted
    target, _ = _strip_target(head, ws)
    plain = [w for w in target.lower().split() if w not in _STOP | _PRONOUNS]
    if not plain or re.search(r"[,;:?]", head) or len(head.split()) > 6 or _VERB_SAID.search(head):
        return False
    return not any(x.option or x.field or x.start == 0 for x in _mentions(head, ws))


def _reads_tersely(f: Field, value: str, today: date, ws: Workspace) -> bool:
    if f.reads == "flag" and not re.fullmatch(_YES_NO, value.strip(" .!"), re.I):
        return False
    return _read_value(f, value, {}, today, ws) is not None


def _split_more(value: str) -> tuple[str, str]:
    split = re.split(_MORE, value, maxsplit=1)
    if len(split) > 1:
        return split[0], value[len(split[0]) :].strip(" ,;")
    return value, ""


def _update(text: str, today: date, ws: Workspace, change: Change | None = None) -> Planned:
    change = change or _field_first(text, ws) or _parse_change(text)
    if change is None:
        return "What should I change, on which record, and to what?"
    change = _without_old_value(change, ws)
    if change.field is None and not re.search(r"->|=>|\u2192", text):  # "X -> Y": all of X
        change = _field_at_end(change, ws)
    target, mentions = _strip_target(change.target, ws)
    if (
        not target
        or target.lower() in _PRONOUNS
        or all(w in _STOP | _PRONOUNS for w in target.lower().split())
    ):
        return "Which record do you mean? Give me its name."
    named = _modules_named(mentions)
    wanted = words(change.field or "")
    candidates = (
        named
        or [
            m
            for m in ws.modules
            if (wanted and any(words(p) == wanted for f in m.fields for p in f.phrases()))
            or (not wanted and _reads_value(m, change.value, today, ws))
        ]
        or list(ws.modules)
    )
    searches = [
        ("records.search", {"module": m.slug, "query": target, "limit": 10}) for m in candidates
    ]

    said = [w for w in re.findall(r"[^\W\d_][\w'&.-]*", target) if len(w) >= 3]
    lookups = sorted({w.lower() for w in said}, key=lambda w: (-len(w), w))[:_LOOKUPS]
    # the list search matches letters as stored ("jose" misses "José"): a word's first
    # letters find it whatever its accents
    lookups += [w[:3] for w in lookups[:2] if len(w) > 3]
    again = [
        ("records.search", {"module": m.slug, "query": w, "limit": 10})
        for m in candidates
        for w in lookups
    ]
    order = [m for m in candidates for _ in lookups]

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        hits = _matching(target, candidates, outcomes)
        if not hits and any(o.status != "ok" for o in outcomes):
            return []  # the look-up failed: the reply says why
        if not hits and again:  # "Jose Nunez", "Grace Hoper": each word, then the spelling
            return list(again)
        if not hits:
            return f"I found no record named {target!r}, so I changed nothing. Which record is it?"
        return change_it(hits)

    def spelled(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        if len(outcomes) != len(again) or any("records" not in o.result for o in outcomes):
            return []  # the update ran at the stage before
        found: dict[str, tuple[Module, Mapping[str, Any]]] = {}
        for module, outcome in zip(order, outcomes, strict=False):
            for record in _records(outcome):
                name = str(record.get("displayName") or "")
                if _named_in(name, said) and _named_in(target, words(name).split()):
                    found[str(record.get("recordId"))] = (module, record)
        if not found:  # "the Acme rollout deal up to ...": a record's whole name inside it
            found = _longest_named(_said_inside(target, order, outcomes))
        if not found:
            return f"I found no record named {target!r}, so I changed nothing. Which record is it?"
        return change_it(list(found.values()))

    def change_it(hits: list[tuple[Module, Mapping[str, Any]]]) -> list[Call] | str:
        if len(hits) > 1:
            names = ", ".join(f"{r.get('displayName')!s} ({m.slug})" for m, r in hits[:5])
            return f"Which one do you mean: {names}? I changed nothing yet."
        module, record = hits[0]
        fields = _change_fields(change, module, record, today, ws, whole=text)
        if isinstance(fields, str):
            return fields
        args: dict[str, Any] = {"module": module.slug, "recordId": record.get("recordId")}
        if "__rename__" in fields:
            args["displayName"] = fields.pop("__rename__")
        if fields:
            args["fields"] = fields
        return [("records.update", args)]

    return (lambda _: list(searches), then, spelled)


_FIELD_FIRST = re.compile(
    r"^(?:the\s+)?(?P<field>[\w -]+?)\s+(?:of|on|for)\s+(?P<target>.+?)\s+"
    r"(?:should\s+(?:now\s+)?be|must\s+be|needs\s+to\s+be|is\s+now|is)\s+(?P<value>.+)$",
    re.I,
)


def _field_first(text: str, ws: Workspace) -> Change | None:
    """ "The amount of the Northwind design system deal should be 25,000", "Probability on
    the Contoso records migration is 75 percent": a field named first, then its record, then
    the value; only when the words before "of" are exactly a field's name."""
    m = _FIELD_FIRST.match(text.strip())
    if m is None:
        return None
    said = [x for x in _mentions(m["field"], ws) if x.field is not None and x.option is None]
    if not any((x.start, x.end) == (0, len(m["field"])) for x in said):
        return None
    value, extra = _split_more(m["value"])
    return Change(m["target"].strip(" '\""), m["field"], value.strip(" '\"."), extra)


def _without_old_value(change: Change, ws: Workspace) -> Change:
    """ "Move Shafi Goldwasser from lead to qualified": the value it had is no part of the
    record's name (a choice option or a number after "from")."""
    m = re.search(r"\s+from\s+(?P<old>[^,;]+)$", change.target, re.I)
    if m is None:
        return change
    old = m["old"]
    options = [x for x in _mentions(old, ws) if x.option is not None]
    if re.fullmatch(r"[$€£]?\s?\d[\d,.]*\s?[km%]?", old.strip(), re.I) or (
        options and not _leftover(old, options, ws)
    ):
        return Change(change.target[: m.start()], change.field, change.value, change.extra)
    return change


def _field_at_end(change: Change, ws: Workspace) -> Change:
    """ "update deal Big One stage to won": the target's last words name a field."""
    mentions = _mentions(change.target, ws)
    modules = {(m.start, m.end) for m in mentions if m.field is None}
    said = [m for m in mentions if m.field is not None and m.option is None]
    last = [m for m in said if not change.target[m.end :].strip()]
    last = [m for m in last if (m.start, m.end) not in modules]  # "the X deal": a module
    if last and last[0].start > 0:
        head = _NEW_BEFORE_FIELD.sub("", change.target[: last[0].start].strip())
        return Change(head, change.target[last[0].start :], change.value, change.extra)
    return change


def _strip_target(target: str, ws: Workspace) -> tuple[str, list[Mention]]:
    """The record's name without articles and module words ("the Litware pilot opportunity")."""
    mentions = [m for m in _mentions(target, ws) if m.field is None]
    for m in sorted(mentions, key=lambda m: -m.start):
        before, after = target[: m.start], target[m.end :]
        if not before.strip() or not after.strip() or re.search(r"\b(?:the|a)\s*$", before.lower()):
            target = before + " " + after
    target = re.sub(r"^\s*(?:the|a|an|my|our)\s+", "", " ".join(target.split()), flags=re.I)
    target = re.sub(r"'s$", "", target).strip(" '\"")
    # "Mr Wirth", "Ms Adele Goldberg": the name without the honorific
    target = re.sub(rf"^(?:{'|'.join(_TITLES)})\.?\s+(?=\S)", "", target, flags=re.I)
    return target, mentions


def _matching(
    target: str, modules: Sequence[Module], outcomes: Sequence[ToolOutcome]
) -> list[tuple[Module, Mapping[str, Any]]]:
    """The records the name names: exact display names, else those holding all its words."""
    want = words(target).split()
    exact: list[tuple[Module, Mapping[str, Any]]] = []
    partial: list[tuple[Module, Mapping[str, Any]]] = []
    for module, outcome in zip(modules, outcomes, strict=False):
        for record in _records(outcome):
            have = words(str(record.get("displayName", ""))).split()
            if have == want:
                exact.append((module, record))
            elif want and _holds(have, want):
                partial.append((module, record))
    return exact or partial


def _holds(have: list[str], want: list[str]) -> bool:
    """Every word said is a word of the name (a surname alone, "northwind design system")."""
    plain = {singular(_accentless(re.sub(r"[^\w]", "", w))) for w in have}
    return all(singular(_accentless(re.sub(r"[^\w]", "", w))) in plain for w in want)


def _accentless(word: str) -> str:
    plain = unicodedata.normalize("NFKD", word)
    return "".join(c for c in plain if not unicodedata.combining(c)).lower()


def _reads_value(module: Module, value: str, today: date, ws: Workspace) -> bool:
    """Whether a value said without its field fits one of the module's fields."""
    if any(m.module is module and m.option for m in _mentions(value, ws)):
        return True
    if find_date(value, today) and module.fields_of("date"):
        return True
    if find_amounts(value, money_only=True) and len(module.fields_of("money")) == 1:
        return True
    return any(words(f.label) == words(value) for f in module.fields_of("flag"))


def _change_fields(
    change: Change,
    module: Module,
    record: Mapping[str, Any],
    today: date,
    ws: Workspace,
    whole: str = "",
) -> dict[str, Any] | str:
    """The fields a change sets (``__rename__`` for a new name), or the question to ask.
    ``whole``: the message, where a choice's option said outside the change is looked for."""
    name = record.get("displayName")
    found = _change_slot(change, module, today, ws)
    if not isinstance(found, tuple):
        return found if found is not None else f"Which field of {name} should be {change.value!r}?"
    slot, value = found
    shown = module.display_fields
    if len(shown) == 1 and slot is shown[0] and not _name_fields(module, "a b").get("last-name"):
        return {"__rename__": value}  # the field that is the record's name: a rename
    read = _read_value(slot, value, record, today, ws)
    head, *more = sentences(value, most=1)
    rest = more[0] if more else ""
    if read is None and rest and _idle(rest, ws):
        # "negotiation now. Please update it": the value is of the first sentence
        read = _read_value(slot, head.rstrip(".!? "), record, today, ws)
    told = _IT_TO.search(whole) if read is None else None
    if told:  # "Tailspin's health is tanking, drop it to 1": the value told
        read = _read_value(slot, told["v"], record, today, ws)
        told = told if read is not None else None
    if read is None and not _says_option(slot, module, value, ws):
        # (an option said in the value with words beside it that were not read: asked about)
        read = _option_anywhere(slot, module, whole, record, ws)
    if read is None:
        return f"What should {slot.label.lower()} of {name} be?"
    if "title" in slot.slug and isinstance(read, str):
        # "is now COO of Adventure Works": the title, when that is the record's company; a
        # company of another name is a move too, asked about (the title had been written whole)
        role = _ROLE_OF_AT.match(read)
        if role and not set(role["org"].lower().split()) <= _DEPARTMENTS:
            if any(_same(org, role["org"]) for org in _companies_of(record)):
                read = role["role"]
            else:
                return (
                    f"Is {role['org']} {name}'s company now, with the title {role['role']!r}? "
                    "Say the title and the company as two changes; I changed nothing yet."
                )
    fields: dict[str, Any] = {slot.slug: read}
    for part in re.split(r"\s*[,;]\s*|\s+and\s+", change.extra):
        if told and part.strip(" .!") == told[0]:
            continue  # the part that told the value
        asked = _more_change(part, slot, module, record, today, ws, fields) if part else None
        if asked:
            return asked
    return {k: v for k, v in fields.items() if v is not None}


#: "..., drop it to 1", "set it to lead": the value a change tells after a pronoun
_IT_TO = re.compile(
    r"\b(?:drop|set|move|put|change|bump|raise|lower|make|update|knock|push|take)\s+it\s+"
    r"(?:down\s+|up\s+|back\s+)?(?:to|at)\s+(?P<v>[^,;.!?]+)",
    re.I,
)
#: a sentence that leaves a field as it is ("Amount unchanged.", "The rest stays the same.")
_UNCHANGED = re.compile(
    r"(?:the\s+)?[\w -]{1,40}?\s+(?:unchanged|untouched|as\s+is|stays?(?:\s+the\s+same)?|"
    r"(?:is|are)\s+the\s+same)\s*[.!]?",
    re.I,
)


#: a sentence that only asks for the change said before it ("Please update its phase.")
_ASKS_IT = re.compile(
    r"(?!.*\b(?:to|as|at)\b)(?:please\s+)?(?:update|change|fix|amend|correct|set)\s+(?:it|that|"
    r"this|the\s+record|(?:(?:its|his|her|their|the)\s+)?[\w -]{1,30}?)"
    r"(?:\s+(?:please|accordingly))?\s*[.!]?",
    re.I,
)


def _idle(text: str, ws: Workspace) -> bool:
    """Sentences after a change that ask for nothing more: no number, address or quote, and no
    field or option named, unless to say it stays as it is."""
    for sentence in sentences(text.strip()):
        if _VALUE_MARK.search(sentence):
            return False
        said = sentence.strip()
        if _mentions(said, ws) and not (_UNCHANGED.fullmatch(said) or _ASKS_IT.fullmatch(said)):
            return False
    return True


def _options_said(slot: Field, module: Module, text: str, ws: Workspace) -> list[Mention]:
    """Where ``text`` says an option of ``slot``, in order."""
    return [m for m in _mentions(text, ws) if m.module is module and m.field is slot and m.option]


def _says_option(slot: Field, module: Module, text: str, ws: Workspace) -> bool:
    """Whether ``text`` says one option of ``slot`` (several: "from discovery to launched")."""
    return len({m.option for m in _options_said(slot, module, text, ws)}) == 1


def _option_anywhere(
    slot: Field, module: Module, text: str, record: Mapping[str, Any], ws: Workspace
) -> str | None:
    """The option of choice field ``slot`` that the message says outside the change ("The
    Acme deal is in negotiation now. Please update its stage."): the only one said, or of
    several the first after the last arrow or "to" ("qualified -> proposal", "from lead to
    won"); none when the record has it already."""
    if slot.reads != "choice" or not text:
        return None
    said = _options_said(slot, module, text, ws)
    if len({m.option for m in said}) > 1:  # "from discovery to build", "lead -> won"
        arrows = [a.end() for a in re.finditer(_ARROW + r"|\bto\b", text)]
        said = [m for m in said if arrows and m.start >= arrows[-1]][:1]
    options = {m.option for m in said}
    if len(options) != 1:
        return None
    option = options.pop()
    current = record.get("fields")
    if isinstance(current, Mapping) and current.get(slot.slug) == option:
        return None
    return option


def _change_slot(
    change: Change, module: Module, today: date, ws: Workspace
) -> tuple[Field, str] | dict[str, Any] | str | None:
    """The field a change is for and the words of its value: the field named, else the one the
    value says (a choice option, a field named in it, a date, an amount); a flag set or a
    rename as the fields; a question; None when nothing says which."""
    value = change.value
    if change.field:
        slot = _field_named(module, change.field)
        if slot is not None:
            return slot, value
        if words(change.field) in ("name", "title") and module.display_fields:
            return {"__rename__": value}
        return f"I don't know a {change.field!r} field on {module.slug}; which field do you mean?"
    return _slot_from_value(change, module, today, ws)


def _slot_from_value(
    change: Change, module: Module, today: date, ws: Workspace
) -> tuple[Field, str] | dict[str, Any] | None:
    """The field a value said alone is for: a choice option, a field named in it, a date, an
    amount of money, a yes/no field's label."""
    value = change.value
    said = [m for m in _mentions(value, ws) if m.module is module and m.field is not None]
    options = [m for m in said if m.option is not None]
    named = [m for m in said if m.option is None]
    dates = module.fields_of("date")
    money = module.fields_of("money")
    if options and options[0].field:
        return options[0].field, value
    if named and named[0].field:
        return named[0].field, (value[: named[0].start] + " " + value[named[0].end :]).strip()
    if find_date(value, today) and dates:
        return _date_field(change.target + " " + value, dates), value
    if find_amounts(value, money_only=True) and len(money) == 1:
        return money[0], value
    counted = [f for f in module.fields_of("number") if _labelled_number(value, f) is not None]
    if len(counted) == 1:  # "to 40 percent": the field that counts in percent
        number = _labelled_number(value, counted[0])
        assert number is not None
        return counted[0], str(number[0])
    flags = [f for f in module.fields_of("flag") if words(f.label) == words(value)]
    return {flags[0].slug: True} if flags else None


def _more_change(
    part: str,
    slot: Field,
    module: Module,
    record: Mapping[str, Any],
    today: date,
    ws: Workspace,
    fields: dict[str, Any],
) -> str | None:
    """One more part of a change ("and its amount to 8000", "because of budget cuts") into
    ``fields``; the question to ask when it is not understood."""
    named = [m for m in _mentions(part, ws) if m.module is module and m.field is not None]
    if named and named[0].field:
        extra_slot = named[0].field
        rest = _newest((part[: named[0].start] + " " + part[named[0].end :]).strip())
        if re.search(_ARROW, part):  # "stage lead -> qualified": the value after the arrow
            extra = _read_value(extra_slot, rest, record, today, ws)
        else:
            extra = _read_value(extra_slot, part if named[0].option else rest, record, today, ws)
        if extra is None:
            return f"What should {extra_slot.label.lower()} of {record.get('displayName')} be?"
        fields[extra_slot.slug] = extra
        return None
    reason = next((f for f in module.fields if "reason" in f.slug), None)
    because = re.match(r"because\s+(?:of\s+)?(?:the\s+)?", part, re.I)
    if because and reason and slot.reads == "choice":
        fields[reason.slug] = part[because.end() :]  # "was lost because of budget cuts"
        return None
    said = [w for w in re.findall(r"[\w'-]+", part.lower()) if w not in _STOP | _FILLER]
    if len(said) >= 2 and _only_context(part, ws):
        return None  # "..., Maria wants to attend it": why, not what
    if len(said) >= 2:
        return (
            f"I would set {', '.join(fields)} of {record.get('displayName')}, but I did not "
            f"understand {part!r}; I changed nothing yet."
        )
    return None


#: a mark of a value: a digit, an address, a quote (not an apostrophe inside a word), money
_VALUE_MARK = re.compile(r"\d|@|(?<!\w)'|'(?!\w)|\"|\$|€|£")
#: someone, then what they do: "Maria wants ...", "they complain ...", "they're hosed on
#: budget"; what happened to someone ("the supplier has delivered", "the prospect asked for
#: more time", "saw it on LinkedIn"): why, said after the change ("the client wants ..." is
#: asked about: whose wish it is, and whether it changes anything, is not said)
_SOMEONE_DOES = re.compile(
    r"(?:[A-Z][\w'-]+|he|she|they|we|i)\s+\w+"
    r"|(?:he|she|they|we|i)'(?:re|s|m|ve|d)\s+\w+"
    r"|the\s+[a-z]+\s+(?:has|have|had|keeps|kept|was|were|[a-z]+ed)\b"
    r"|(?:saw|heard|read|found|got)\s+(?:it|this|that)\b"
)


def _only_context(part: str, ws: Workspace) -> bool:
    """A part that says why rather than what: someone does something ("Maria wants to attend
    it"), with no field, choice, number, quote or address, and no verb that changes a
    value."""
    if _VALUE_MARK.search(part) or _mentions(part, ws):
        return False
    if re.search(r"\b" + _UPDATE_VERB + r"\b|\b(?:to|as)\s*$", part, re.I):
        return False
    return bool(_SOMEONE_DOES.match(part.strip()))


#: verbs that say what someone is or holds (a title, a company): never mere story
_IS_OR_HOLDS = re.compile(
    r"'s\b|\b(?:is|are|was|were|has|have|had|works?|worked|heads?|leads?|runs?|manages?|owns?|"
    r"joined|moved|became|becomes)\b",
    re.I,
)


def _story(sentence: str, ws: Workspace) -> bool:
    """A sentence that tells what someone does and says nothing a record holds."""
    return _only_context(sentence.rstrip(".!? "), ws) and not _IS_OR_HOLDS.search(sentence)


def _field_named(module: Module, said: str) -> Field | None:
    want = words(said)
    want = re.sub(r"^(?:the|its|his|her|their)\s+", "", want)
    live = [f for f in module.fields if not f.computed]
    named = module.field_said(want, live)
    if named is not None:
        return named
    # "health rating", "probability field": the one field one of whose names is said in it
    inside = [f for f in live if any(re.search(rf"\b{re.escape(p)}\b", want) for p in f.phrases())]
    return inside[0] if len(inside) == 1 else None


def _read_value(f: Field, value: str, record: Mapping[str, Any], today: date, ws: Workspace) -> Any:
    """A field's value from what was said, as the field's type is spoken (None: not understood)."""
    current = record.get("fields")
    return read_value(f, value, Said(today, current if isinstance(current, Mapping) else {}))


# --- find and list ---------------------------------------------------------------------------

_COMPARE = (
    (r"(?:at\s+least|no\s+(?:less|fewer)\s+than|>=)", "gte"),
    (r"(?:at\s+most|no\s+more\s+than|<=)", "lte"),
    (r"(?<!no\s)(?:over|above|more\s+than|greater\s+than|bigger\s+than|larger\s+than|"
     r"higher\s+than|>(?!=)|exceeding)", "gt"),
    (r"(?<!no\s)(?:under|below|less\s+than|fewer\s+than|smaller\s+than|lower\s+than|<(?!=))",
     "lt"),
)  # fmt: skip
#: "2 stars or below", "50 or more": the number, then which side of it (itself included)
#: what multiplies a number said in a comparison ("over 50k", "above $50 million")
_MULTIPLIER = r"(?:k|m|mm|bn|grand|thousand|million|billion)"
_OR_SIDE = re.compile(
    r"(?P<n>[$€£]?\s?\d[\d,.]*\s?" + _MULTIPLIER + r"?%?)(?:\s+[a-z]+)?\s+or\s+"
    r"(?:(?P<up>more|above|higher|greater|over|better)|less|below|lower|fewer|under|worse)\b"
)
#: "before" / "after" a date (find_date's span starts with "before", "until", ...)
_SIDE = re.compile(r"\b(?P<w>before|until|till|after|since)\b[^,;]{0,30}$")
#: a date said as when something is ("tasks for friday"), for a module with one date field
_DATE_LEAD = re.compile(r"(?:due|on|by|for|before|until|till|after|since)\b")
_EMPTY = re.compile(r"\b(?:without|with\s+no|missing|no)\s+(?:an?\s+|the\s+)?$")
_NUMBER = r"[$€£]?\s?\d[\d,.]*\s?(?:k|m|grand|thousand)?"
_BETWEEN = re.compile(r"between\s+(?P<a>" + _NUMBER + r")\s+and\s+(?P<b>" + _NUMBER + r")\b")
_SORT = (
    (r"\b(?:biggest|largest|highest|top|most\s+valuable)\b", "desc"),
    (r"\b(?:smallest|lowest|cheapest|least\s+valuable)\b", "asc"),
)


_ASKS_FIELD = re.compile(r"^(?:what'?s|what\s+is|whats|how\s+much|when|where)\b")
_SEARCH_VERB = re.compile(
    r"^(?:find|search|look\s+up|lookup|look\s+for|pull\s+up|bring\s+up|show|fetch)\b", re.I
)


@dataclass
class _Query:
    """A records.search being read from a list request: its arguments, the conditions of its
    filter and the spans of the text they were read from."""

    text: str
    today: date
    ws: Workspace
    module: Module
    mentions: list[Mention]
    args: dict[str, Any]
    conditions: list[dict[str, Any]]
    used: list[tuple[int, int]]

    @property
    def lower(self) -> str:
        return self.text.lower()

    def add(self, slug: str, op: str, span: tuple[int, int] | None = None, **value: Any) -> None:
        self.conditions.append(_cond(len(self.conditions), slug, op, **value))
        if span is not None:
            self.used.append(span)


#: a part of a question that says why it is asked: "I want to know who was there", "for
#: Maria's visit", "before her call", "Before I reply to Contoso, ..."
_WHY_TAIL = re.compile(
    r"(?:[,.?;!]\s*(?P<i>(?:i|i'd|i'm|i'll|we|we'd|we're)\s+\w.*)|"
    r"\s+(?P<for>(?:for|before|after)\s+(?:[A-Z][\w-]*'s|her|his|their|my|our)\s+\w+.*))$",
    re.I,
)
_WHY_LEAD = re.compile(r"^(?:before|after|since)\s+(?:i|we)\b[^,]{2,60},\s+", re.I)


def _without_why(text: str, ws: Workspace) -> str:
    """A question without the parts that say why it is asked, when they name no value."""
    lead = _WHY_LEAD.match(text)
    if lead and not _says_a_value(lead[0], ws):
        text = text[lead.end() :]
    tail = _WHY_TAIL.search(text)
    why = (tail["i"] or tail["for"]) if tail else ""
    head = text[: tail.start()] if tail else ""
    asks = _FIND.search(head.lower()) and _modules_named(_mentions(head, ws))
    named = _says_a_value(why, ws) or any(m.option for m in _mentions(why, ws))
    if tail and asks and not named and not _MINE_FIND.search(why):
        text = head
    return text.strip()


def _find(text: str, today: date, ws: Workspace) -> Planned | None:
    text = _without_why(text, ws) or text
    mine = _MINE_FIND.search(text)
    me = REQUESTER.get()
    if mine is None or me is None:
        return _find_quoted(text, today, ws)
    # "my tasks", "deals I own": the requester on the module's one person field
    planned = _find_quoted((text[: mine.start()] + " " + text[mine.end() :]).strip(), today, ws)
    call = _one_search(planned)
    if call is None:
        return planned
    module = ws.module(str(call.get("module")))
    people = module.fields_of("user") if module else []
    if len(people) != 1:
        return planned
    args = dict(call)
    args["filters"] = {**(args.get("filters") or {}), people[0].slug: me}
    return (lambda _: [("records.search", args)],)


def _one_search(planned: Planned | None) -> dict[str, Any] | None:
    """The arguments of a plan that is one search and nothing else."""
    if not isinstance(planned, tuple) or len(planned) != 1:
        return None
    calls = planned[0]([])
    if isinstance(calls, str) or len(calls) != 1 or calls[0][0] != "records.search":
        return None
    return dict(calls[0][1])


#: the requester said as whose records to list ("my tasks", "deals I own", "on my plate")
_MINE_FIND = re.compile(
    r"\b(?:assigned\s+to\s+me|owned\s+by\s+me|(?:that\s+)?i\s+own|mine|for\s+me|"
    r"on\s+my\s+plate|my)\b",
    re.I,
)
#: the requester said as a new record's person ("for me", "i own it", "assign it to me")
_MINE_NEW = re.compile(
    r"\b(?:for\s+me|for\s+myself|(?:and\s+)?i\s+own\s+it|(?:and\s+)?(?:assign(?:ed)?|give)\s+"
    r"(?:it\s+)?to\s+me|owned\s+by\s+me|assigned\s+to\s+me)\b",
    re.I,
)


def _find_quoted(text: str, today: date, ws: Workspace) -> Planned | None:
    quoted = _QUOTED.search(text)
    if quoted is None:
        return _find_said(text, today, ws)
    # "task 'intro call w/ josé'": the quoted words are a name to look for, not values
    outside = (text[: quoted.start()] + " " + text[quoted.end() :]).strip()
    if not _modules_named(_mentions(outside, ws)):
        return _find_said(text, today, ws)
    planned = _find_said(outside, today, ws)
    if not isinstance(planned, tuple) or len(planned) != 1:
        return planned
    (stage,) = planned
    calls = stage([])
    if isinstance(calls, str) or len(calls) != 1 or calls[0][0] != "records.search":
        return planned
    args = {k: v for k, v in calls[0][1].items() if k != "query"} | {"query": quoted["q"]}
    return (lambda _: [("records.search", args)],)


def _find_said(text: str, today: date, ws: Workspace) -> Planned | None:
    mentions = _mentions(text, ws)
    modules = _list_modules(text, mentions, ws)
    if not modules:
        return _find_anywhere(text, mentions, ws)
    module = modules[0]
    q = _Query(text, today, ws, module, mentions, {"module": module.slug, "limit": 20}, [], [])
    who = _WHO.match(text)
    if who and _leftover(who["role"], _mentions(who["role"], ws), ws, every=True):
        q.args["query"] = who["role"]
    else:  # "who are our champions": a choice value, not a role to search for
        _choice_conditions(q)
    _flag_conditions(q)
    _compare_conditions(q)
    _date_conditions(q)
    _sort(q)
    _empty_conditions(q)
    if q.conditions:
        q.args["advancedFilter"] = {
            "root": {"id": "root", "conjunction": "AND", "conditions": q.conditions}
        }
    # a related record ("the people at Fabrikam Software", "tasks on the X deal")
    related = _related(text, module, ws)
    if related is not None:
        return _related_search(q.args, related)
    said = [m for m in mentions if m.module is module or m.field is None]
    query = _leftover(text, said, ws, q.used, every=True)
    asked = re.match(r"^(?:who|find|search|look|pull|bring)", q.lower)
    if query and (asked or (not q.conditions and "sortField" not in q.args)):
        q.args["query"] = query
    args = q.args
    return (lambda _: [("records.search", args)],)


def _list_modules(text: str, mentions: Sequence[Mention], ws: Workspace) -> list[Module]:
    """The modules a list request names; "who ..." means people; else the module of a choice
    value said ("urgent tasks") when only one module has it."""
    modules = _modules_named(mentions)
    if re.match(r"^who\b", text.lower()) and not modules:
        modules = [m for m in ws.modules if m.field("emails") is not None][:1]
    if not modules:
        owners = {m.module.slug: m.module for m in mentions if m.option}
        modules = list(owners.values()) if len(owners) == 1 else []
    return modules


def _find_anywhere(text: str, mentions: Sequence[Mention], ws: Workspace) -> Planned | None:
    """A look-up that names no module: in every module, or not a records request at all."""
    lower = text.lower()
    if _ASKS_FIELD.match(lower) and any(m.field for m in mentions):
        query = _leftover(text, mentions, ws, every=True)  # "what's the stage of X?"
        return _search_everywhere(query, ws) if query else None
    if not _SEARCH_VERB.match(lower):
        return None  # "what can you do?": not about records
    query = _leftover(text, mentions, ws)
    return _search_everywhere(query, ws) if query else "What should I look for?"


def _choice_conditions(q: _Query) -> None:
    """Choice values ("won deals", "tasks that aren't done", "in proposal or negotiation")."""
    by_field: dict[str, tuple[Field, list[str], bool]] = {}
    for m in q.mentions:
        if m.module is not q.module or m.option is None or m.field is None:
            continue
        negated = bool(_NEGATION.search(q.lower[: m.start]))
        f, values, neg = by_field.get(m.field.slug, (m.field, [], negated))
        if m.option not in values:
            values.append(m.option)
        by_field[m.field.slug] = (f, values, neg or negated)
        q.used.append((m.start, m.end))
    for f, values, negated in by_field.values():
        if negated:
            q.add(f.slug, "notIn", values=values)
        elif len(values) == 1:
            q.add(f.slug, "eq", value=values[0])
        else:
            q.add(f.slug, "in", values=values)


#: a yes/no field said as not wanted, a few words before it ("except anyone marked do not
#: contact", "who aren't flagged urgent")
_FLAG_NEGATION = re.compile(
    r"(?:\bnot|n't|\bno\b|\bexcept|\bexcluding|\bwithout|\bother\s+than)\s+(?:[\w-]+\s+){0,3}$"
)


def _flag_conditions(q: _Query) -> None:
    """Yes/no fields ("contacts marked do not contact": true; "..., except anyone marked do
    not contact": false)."""
    for m in q.mentions:
        f = m.field
        if m.module is not q.module or f is None or m.option is not None or f.reads != "flag":
            continue
        said = q.lower[m.start : m.end].split()
        if len(said) < min(2, len(f.label.split())):  # one word of a longer label ("out")
            continue
        negated = bool(_FLAG_NEGATION.search(q.lower[: m.start]))
        q.add(f.slug, "eq", (m.start, m.end), value=not negated)


def _compare_conditions(q: _Query) -> None:
    """Comparisons ("over 50k", "probability above 50%", "between 10k and 20k")."""
    numeric = q.module.fields_of("money", "number")
    if not numeric:
        return
    lower = q.lower

    def compared(c: re.Match[str], op: str, after: int) -> None:
        """The condition of a number said with its side (the field read around it)."""
        amounts = find_amounts(c["n"].rstrip("%"))
        if amounts:
            f = _numeric_field(lower[: c.start()], q.module, numeric, lower[after:])
            q.add(f.slug, op, (c.start(), c.end()), value=amounts[0].value[0])

    for pattern, op in _COMPARE:
        said = pattern + r"\s+(?P<n>[$€£]?\s?\d[\d,.]*\s?" + _MULTIPLIER + r"?\b%?)"
        for c in re.finditer(said, lower):
            compared(c, op, c.end())
    for c in _OR_SIDE.finditer(lower):  # "80 employees or more": the field between
        compared(c, "gte" if c["up"] else "lte", c.end("n"))
    for c in _BETWEEN.finditer(lower):
        low, high = find_amounts(c["a"]), find_amounts(c["b"])
        if low and high:
            f = _numeric_field(lower[: c.start()], q.module, numeric, lower[c.end() :])
            q.add(f.slug, "gte", value=low[0].value[0])
            q.add(f.slug, "lte", (c.start(), c.end()), value=high[0].value[0])
    # last, where none of the above read the number: "the one worth 76,500", "amount 12k"
    exact = r"\b(?:worth|valued\s+at|amount(?:\s+of|\s+is)?|amounting\s+to)\s+"
    for c in re.finditer(exact + r"(?P<n>[$€£]?\s?\d[\d,.]*\s?" + _MULTIPLIER + r"?\b)", lower):
        if not any(s <= c.start("n") < e for s, e in q.used):
            compared(c, "eq", c.end())


_SIDES = {"before": "lt", "until": "lte", "till": "lte", "after": "gt", "since": "gte"}


def _date_conditions(q: _Query) -> None:
    """Dates ("due today", "closing in the next 30 days", "closed last month", "overdue")."""
    dates = q.module.fields_of("date")
    if not dates:
        return
    lower = q.lower
    period = find_range(lower, q.today)
    when = find_date(lower, q.today)
    if period and when is not None and isinstance(when.value, date):
        # "before the 5th of next month": a day inside the period, after a bound, is the bound
        where = period[1]
        within = when.start <= where.start and where.end <= when.end
        longer = when.end - when.start > where.end - where.start
        if within and longer and _SIDE.search(lower[: when.end]):
            period = None
    if period:
        span, where = period
        f = _date_field(lower, dates)
        q.add(f.slug, "gte", value=span.first.isoformat())
        q.add(f.slug, "lte", (where.start, where.end), value=span.last.isoformat())
        return
    lone = len(dates) == 1 and when is not None and _DATE_LEAD.match(lower, when.start)
    if when and isinstance(when.value, date) and (_date_said(lower, dates) or lone):
        word = _SIDE.search(lower[: when.end])
        op = _SIDES.get(word["w"], "eq") if word else "eq"
        q.add(
            _date_field(lower, dates).slug, op, (when.start, when.end), value=when.value.isoformat()
        )
    elif re.search(r"\b(?:overdue|past\s+due)\b", lower):
        q.add(_date_field(lower, dates).slug, "lt", value=q.today.isoformat())


_SORT_BY = re.compile(
    r"\b(?:(?:sort(?:ed)?|order(?:ed)?)\s+(?:by\s+)?|by\s+)(?:the\s+)?(?P<f>[\w -]+?)"
    r"(?:,?\s+(?P<d>asc|desc|ascending|descending|highest\s+first|lowest\s+first|"
    r"newest\s+first|oldest\s+first|latest\s+first|furthest\s+first|soonest\s+first|"
    r"earliest\s+first|nearest\s+first|first|last))?\s*$"
)
#: ", soonest first" after a date condition: sorted by the date it filters on
_SOONEST_FIRST = re.compile(
    r"[,;]?\s+(?P<d>soonest|earliest|nearest|latest|furthest|newest|oldest)\s+first\s*\??$"
)
#: "soonest close date first", "the earliest close date", "latest due date"
_SORT_WORD = re.compile(
    r"\b(?P<d>soonest|earliest|oldest|latest|newest|furthest)\s+(?P<f>[\w -]+?)"
    r"(?:\s+first)?\s*\??$"
)


#: "largest headcount first", "lowest health first": a superlative before a field's name
_MOST_OF = re.compile(
    r"\b(?:(?P<up>biggest|largest|highest|most|greatest)|smallest|lowest|fewest|least)\s+"
    r"(?P<f>[a-z][\w -]*?)\s+first\b"
)


def _sort(q: _Query) -> None:
    """ "biggest deals" (by money), "sorted by close date descending", "sort employees desc",
    "soonest close date first"."""
    numeric = {f.slug for f in q.module.fields_of("money", "number")}
    # "companies with more than 1000 employees, biggest first": the number compared on
    compared = {c["fieldSlug"] for c in q.conditions} & numeric
    for pattern, direction in _SORT:
        money = q.module.fields_of("money") or q.module.fields_of("money", "number")
        if re.search(pattern, q.lower) and money:
            slug = compared.pop() if len(compared) == 1 else money[0].slug
            q.args["sortField"], q.args["sortDirection"] = slug, direction
    by = _SORT_BY.search(q.lower) or _SORT_WORD.search(q.lower)
    sorted_by = _field_named(q.module, by["f"]) if by else None
    most = _MOST_OF.search(q.lower)
    named = _field_named(q.module, most["f"]) if most else None
    if most and named and sorted_by is None:  # "largest headcount first": that field, not money
        q.args["sortField"] = named.slug
        q.args["sortDirection"] = "desc" if most["up"] else "asc"
        q.used.append((most.start(), most.end()))
    soonest = _SOONEST_FIRST.search(q.lower)
    if soonest and not (by and sorted_by) and "sortField" not in q.args:
        _sort_by_dated(q, soonest)
    if by and sorted_by:
        q.args["sortField"] = sorted_by.slug
        said = by["d"] or ""
        down = said.startswith(("desc", "highest", "newest", "latest", "furthest"))
        q.args["sortDirection"] = "desc" if down else "asc"
        q.used.append((by.start(), by.end()))


def _sort_by_dated(q: _Query, soonest: re.Match[str]) -> None:
    """ ", soonest first": sorted by the one date field the query filters on, or the module's
    one date field when the query filters on none."""
    dates = {f.slug for f in q.module.fields_of("date")}
    dated = {c["fieldSlug"] for c in q.conditions} & dates
    if not dated and len(dates) == 1:  # "my tasks not done yet, soonest first": its one date
        dated = set(dates)
    if len(dated) == 1:
        q.args["sortField"] = dated.pop()
        later = soonest["d"] in ("latest", "furthest", "newest")
        q.args["sortDirection"] = "desc" if later else "asc"
        q.used.append((soonest.start(), soonest.end()))


def _empty_conditions(q: _Query) -> None:
    """ "tasks without a due date": the field is empty (a yes/no field is said false instead:
    "contacts without do not contact" are those where it is not set, see _flag_conditions)."""
    for m in q.mentions:
        empty = _EMPTY.search(q.lower[: m.start])
        if (
            empty
            and m.module is q.module
            and m.field is not None
            and m.option is None
            and m.field.reads != "flag"
        ):
            q.add(m.field.slug, "isNull", (m.start, m.end))


def _related_search(args: dict[str, Any], related: tuple[Field, Module, str]) -> Planned:
    """Look the related record up by name, then list the records that refer to it."""
    ref, target, name = related
    look = ("records.search", {"module": target.slug, "query": name, "limit": 10})

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        hits = _matching(name, [target], outcomes[-1:])
        if any(o.status != "ok" for o in outcomes):
            return []
        if len(hits) != 1:
            return _fallback(args, name)
        filters = dict(args.get("filters") or {})
        filters[ref.slug] = str(hits[0][1].get("recordId"))
        return [("records.search", {**args, "filters": filters})]

    return (lambda _: [look], then)


_WHO = re.compile(
    r"^(?:who\s+is|who'?s|who\s+are)\s+(?:the\s+|our\s+|their\s+|a\s+|an\s+)?(?P<role>.+?)"
    r"(?:\s+(?:at|from|for|of|in|with)\s+.+)?$",
    re.I,
)


def _fallback(args: dict[str, Any], name: str) -> list[Call]:
    return [("records.search", {**args, "query": name})]


def _cond(index: int, slug: str, op: str, **value: Any) -> dict[str, Any]:
    return {"id": f"c{index + 1}", "fieldSlug": slug, "operator": op, **value}


def _numeric_field(before: str, module: Module, numeric: list[Field], after: str = "") -> Field:
    """The numeric field a comparison is about: the one named right after the number ("more
    than 500 employees"), else the one named before it, else the money."""
    head = " ".join(after.split()[:2])
    for f in numeric:
        if any(re.match(re.escape(p) + r"\b", head) for p in f.phrases()):
            return f
    best: tuple[int, Field] | None = None
    for f in numeric:
        for p in f.phrases():
            for m in re.finditer(r"\b" + re.escape(p) + r"\b", before):
                if best is None or m.end() > best[0]:
                    best = (m.end(), f)
    if best:
        return best[1]
    return (module.fields_of("money") or numeric)[0]


def _date_said(lower: str, dates: list[Field]) -> bool:
    return any(re.search(r"\b" + re.escape(p) + r"\b", lower) for f in dates for p in f.phrases())


_PREPOSITION = re.compile(r"\b(?:at|from|for|of|on|with|in)\s+(?:the\s+)?", re.I)
_KIND_TAIL = re.compile(r"\s+(?P<kind>[a-z]+)\s*$", re.I)
_CLAUSE_AFTER = re.compile(r"\s+(?:who|that|which|whose|where|with)\s", re.I)
_WHEN_WORDS = re.compile(r"\d|\b(?:next|last|this|today|tomorrow|week|month|day|year)s?\b", re.I)


def _related(text: str, module: Module, ws: Workspace) -> tuple[Field, Module, str] | None:
    """A record of another module the list is about ("the people at Fabrikam Software"): the
    reference field, its module and the name said, read from the last "at/for/on ..." part."""
    refs = [f for f in module.fields_of("record") if f.target]
    if not refs:
        return None
    for m in reversed(list(_PREPOSITION.finditer(text))):
        if m.group().lower().startswith("for") and _SEARCH_VERB.match(text):
            continue  # "search contacts for lamport": the name searched for
        named = text[m.end() :]
        clause = _CLAUSE_AFTER.search(named)  # "at X who are tagged Y": the name ends there
        said = _related_name((named[: clause.start()] if clause else named).strip(" ?.!"), ws)
        if said is None:
            continue
        name, kinds = said
        for f in refs:
            target = ws.module(f.target or "")
            if target is not None and (not kinds or target in kinds):
                return f, target, name
        return None
    return None


def _related_name(name: str, ws: Workspace) -> tuple[str, list[Module]] | None:
    """The record's name said after a preposition and the modules a kind word after it names
    ("Contoso deal"); None when it is a date, a time or names a module or field."""
    kind = _KIND_TAIL.search(name)
    kinds = [x for x in ws.modules if kind and words(kind["kind"]) in x.phrases()]
    if kind and kinds:
        name = name[: kind.start()].strip()
    # a field's word after a name's first word is part of the name ("Contoso Health")
    said = [x for x in _mentions(name, ws) if not (x.option is None and x.field and x.start > 0)]
    dated = find_date(name, date.today()) is not None
    if not name or dated or _WHEN_WORDS.search(name) or any(x.option is None for x in said):
        return None
    return (name, kinds) if _leftover(name, said, ws) else None


def _leftover(
    text: str,
    mentions: Sequence[Mention],
    ws: Workspace,
    used: Sequence[tuple[int, int]] = (),
    *,
    every: bool = False,
) -> str:
    """What the message says beside its module, fields and values: a name to search for."""
    quoted = _QUOTED.search(text)
    if quoted:
        return quoted["q"].strip()
    keep = list(text)
    spans = [(m.start, m.end) for m in mentions if every or m.field is None or m.option]
    for s, e in (*spans, *used):
        keep[s:e] = " " * len(keep[s:e])
    rest = "".join(keep)
    rest = re.sub(r"^\s*(?:who\s+is|who'?s|who\s+are)\s+", " ", rest, flags=re.I)
    if every:  # a name keeps its inner small words ("contoso records migration")
        chunks = [_trimmed(chunk) for chunk in re.split(r"\s{2,}|[,;:?!]", rest)]
        return " ".join(c for c in chunks if c).strip(" .")
    if re.match(r"(?i)\s*who", text):
        rest = re.sub(r"\s+\bat\b\s+.*$", " ", rest, flags=re.I)
    kept = [w for w in re.findall(r"[\w'@.-]+", rest) if not _filler(w)]
    return " ".join(kept).strip(" .")


def _filler(word: str) -> bool:
    return word.lower() in _STOP or word.lower() in _VERBS


def _trimmed(chunk: str) -> str:
    """A chunk's words without the small words and verbs at either end."""
    said = re.findall(r"[\w'@.&-]+", chunk)
    while said and _filler(said[0]):
        said.pop(0)
    while said and _filler(said[-1]):
        said.pop()
    return " ".join(said)


_VERBS = {
    "find", "search", "lookup", "look", "pull", "bring", "show", "list", "get", "display",
    "fetch", "open", "who", "which", "what", "whats", "how", "many", "help", "trying",
    "person", "people", "for", "me", "up", "tell", "about", "is", "are", "there", "much",
    "worth", "when", "where",
}  # fmt: skip


# --- a change said loosely: the record by the names the search index knows --------------------

#: words that say a value changes (anywhere in the message)
_CHANGE_CUE = re.compile(
    r"\b(?:set|change|changed|update|updated|mark|flag|raise|lower|amend|correct|move|moved|"
    r"bump|push|now|must\s+be|should\s+be|grown|grew|promoted|make|fix|reflect)\b",
    re.I,
)
#: what comes right before a choice value that is set ("to", "is now", "mark her as")
_SET_TO = re.compile(
    r"(?:\bto|\bas|\bis|\bare|\bnow|->|=|:|\bbe|\bmark|\bmarked|\bflag|\btag|\btagged|\w's|"
    r"\bnot|n't|\bno(?:\s+wait)?)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+)?$",
    re.I,
)
#: at most this many words of the message are looked up as record names
_LOOKUPS = 4


def loose_update(message: str, now: datetime, ws: Workspace) -> Planned | None:
    """A change said in no shape the update reads ("Niklaus Wirth wrote in, so set
    do-not-contact to false for him", "the headcount of Litware Labs ... grown to 55
    employees"): the fields and values from the schema, the record from the search index (its
    words looked up one by one, the one record whose whole name the message says); None when
    no field and value are read for sure, so the caller asks or says it did not understand."""
    text = without_asides(clean(message), ws)
    if not text or not _CHANGE_CUE.search(text) or _QUOTED.search(text):
        return None
    today = now.date()
    read = _loose_pairs(text, today, ws)
    pairs = [p for p in read if p[2] is not None]
    if not pairs:
        return None
    if any(isinstance(v, tuple) for _, _, v, _ in pairs):
        if len({f.slug for _, f, _, _ in pairs}) < len(pairs):
            return None  # "to proposal no wait negotiation": which one?
        pairs = [p for p in pairs if not isinstance(p[2], tuple)]
        if not pairs:
            return None
    modules = list(dict.fromkeys(m for m, _, _, _ in pairs))
    said_for: dict[tuple[str, str], set[str]] = {}
    for m, f, v, _ in pairs:
        said_for.setdefault((m.slug, f.slug), set()).add(repr(v))
    if any(len(v) > 1 for v in said_for.values()):
        return None  # two values for one field ("proposal no wait negotiation"): not sure
    used = [(s, e) for _, _, _, (s, e) in read]
    used += [(x.start, x.end) for x in _mentions(text, ws)]
    said = _name_words(text, used)
    if not said:
        return None
    # a capital inside a sentence marks a name; one that starts a sentence may not ("Good")
    inside = {w.lower() for w in re.findall(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'&-]*", text)}
    capital = {w.lower() for w in re.findall(r"\b[A-Z][\w'&-]*", text)}
    lookups = sorted(
        dict.fromkeys(said), key=lambda w: (w not in inside, w not in capital, -len(w))
    )
    lookups = lookups[:_LOOKUPS]
    calls: list[Call] = [
        ("records.search", {"module": m.slug, "query": w, "limit": 10})
        for m in modules
        for w in lookups
    ]
    order = [m for m in modules for _ in lookups]
    # a record's whole name said anywhere, small words too ("the Contoso records migration")
    every = [w.strip(".'").lower() for w in re.findall(r"[^\W\d_][\w'&.-]*", text)]

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        found: dict[str, tuple[Module, Mapping[str, Any]]] = {}
        for module, outcome in zip(order, outcomes, strict=False):
            for record in _records(outcome):
                if _named_in(str(record.get("displayName") or ""), every):
                    found[str(record.get("recordId"))] = (module, record)
        if not found:
            found = _first_name_only(order, outcomes, capital)
        found = _longest_named(found)
        if len(found) != 1:
            return "Which record should I change? Give me its full name; I changed nothing yet."
        module, record = next(iter(found.values()))
        spans = {span for _, _, _, span in pairs}
        mine = [p for p in pairs if p[0] is module]
        if {span for _, _, _, span in mine} != spans:
            return "Which record should I change, and which of its fields? I changed nothing yet."
        fields = {
            f.slug: v
            for m, f, v, _ in mine
            for v in [_read_value(f, v, record, today, ws) if isinstance(v, str) else v]
        }
        if not fields or any(v is None for v in fields.values()):
            return f"What should I change on {record.get('displayName')}? I changed nothing yet."
        return [("records.update", {"module": module.slug, "recordId": record.get("recordId"),
                                    "fields": fields})]  # fmt: skip

    return (lambda _: list(calls), then)


def _said_inside(
    target: str, order: Sequence[Module], outcomes: Sequence[ToolOutcome]
) -> dict[str, tuple[Module, Mapping[str, Any]]]:
    """The records whose whole name (two words or more) is said, in order, inside a target
    read too long ("Acme rollout deal up"), when the words left over name nothing else (none
    has a capital: "Acme Berlin rollout" may be another record)."""
    plain = _accentless(words(target))
    capitals = {_accentless(w.lower()) for w in re.findall(r"\b[A-Z][\w'&-]*", target)}
    found: dict[str, tuple[Module, Mapping[str, Any]]] = {}
    for module, outcome in zip(order, outcomes, strict=False):
        for record in _records(outcome):
            name = _accentless(words(str(record.get("displayName") or "")))
            at = re.search(rf"(?<!\S){re.escape(name)}(?!\S)", plain) if name else None
            if at is None or len(name.split()) < 2:
                continue
            rest = (plain[: at.start()] + " " + plain[at.end() :]).split()
            if not any(w in capitals for w in rest):
                found[str(record.get("recordId"))] = (module, record)
    return found


def _longest_named(
    found: dict[str, tuple[Module, Mapping[str, Any]]],
) -> dict[str, tuple[Module, Mapping[str, Any]]]:
    """The records whose name is not a part of another named record's name: "the Adventure
    Works factory sensors deal" names the deal, not the company its name starts with."""
    names = {k: words(str(r.get("displayName") or "")) for k, (_, r) in found.items()}
    return {
        k: v
        for k, v in found.items()
        if not any(
            o != k and names[k] != names[o] and re.search(rf"(?<!\S){re.escape(names[k])}(?!\S)", n)
            for o, n in names.items()
        )
    }


def _first_name_only(
    order: Sequence[Module], outcomes: Sequence[ToolOutcome], capital: set[str]
) -> dict[str, tuple[Module, Mapping[str, Any]]]:
    """The people whose first name was said with a capital ("Customer Ada says ..."): used
    only when the message says no record's whole name, and only when one person fits."""
    found: dict[str, tuple[Module, Mapping[str, Any]]] = {}
    said = {_accentless(w) for w in capital}
    for module, outcome in zip(order, outcomes, strict=False):
        if not _person_like(module):
            continue
        for record in _records(outcome):
            name = words(str(record.get("displayName") or "")).split()
            if len(name) > 1 and _accentless(name[0]) in said:
                found[str(record.get("recordId"))] = (module, record)
    return found


def _loose_pairs(
    text: str, today: date, ws: Workspace
) -> list[tuple[Module, Field, Any, tuple[int, int]]]:
    """(module, field, value or its words, span) for each field the message gives a value: a
    choice option named; a field named, with a value its type reads right after it (or a
    number right before it: "55 employees"); a yes/no field named alone is yes."""
    out: list[tuple[Module, Field, Any, tuple[int, int]]] = []
    mentions = [m for m in _mentions(text, ws) if m.field is not None]
    for i, m in enumerate(mentions):
        f = m.field
        assert f is not None
        if m.option is not None:
            value: Any = m.option if f.reads != "choices" else [m.option]
            option = next((o for o in f.options if o.value == m.option), None)
            if option and words(text[m.start : m.end]) not in (words(option.label), option.value):
                continue  # "now leads research": a verb, not the value "lead"
            if not _SET_TO.search(text[max(0, m.start - 40) : m.start]) and not re.match(
                r"\s+now\b", text[m.end :], re.I
            ):
                continue  # "phoned about the newsletter": said in passing, not set
            negated = _NEGATION.search(text[: m.start].lower())
            if negated and re.match(r"no\b", negated[0]):
                value = ("no", m.option)  # "proposal no wait negotiation": a correction
            elif negated:
                continue  # "customer now, not qualified": not the value
            out.append((m.module, f, value, (m.start, m.end)))
            continue
        stop = next((x.start for x in mentions[i + 1 :] if x.start >= m.end), len(text))
        after = re.split(r"[,.](?!\d)|[;!?]|\s(?:for|and|because|as|so)\s", text[m.end : stop])[0]
        to = list(re.finditer(r"(?:^|\s)(?:to|=|->|:|is|as)\s+", after, re.I))
        value = after[to[-1].end() :] if to else after
        if f.reads == "text" and not (to and re.search(r"to|=|->", to[-1][0], re.I)):
            value = ""  # any words read as text: only when said to be the value ("title to X")
        end = m.end + len(after)
        before = re.search(r"([$€£]?\d[\d,.]*\s*(?:k|m|%)?)\s*$", text[: m.start], re.I)
        named_whole = words(text[m.start : m.end]) == words(f.label)
        if f.reads == "flag" and not after.strip(" '\"") and named_whole:
            out.append((m.module, f, True, (m.start, m.end)))
        elif value.strip() and read_value(f, value, Said(today, {})) is not None:
            out.append((m.module, f, value, (m.start, m.end)))
            out.append((m.module, f, None, (end - len(value), end)))  # only its span
        elif before and f.reads in ("number", "money"):
            out.append((m.module, f, before[1], (before.start(), m.end)))
    taken = [span for _, _, _, span in out]
    out += [
        u
        for u in unit_values(text, ws)
        if not any(s < u[3][1] and u[3][0] < e for s, e in taken)
        and read_value(u[1], u[2], Said(today, {})) is not None
    ]
    return out


def _name_words(text: str, used: Sequence[tuple[int, int]]) -> list[str]:
    """The words outside what was read that could be part of a record's name."""
    kept = text
    for s, e in used:
        kept = kept[:s] + " " * (e - s) + kept[e:]
    said = re.findall(r"[^\W\d_][\w'&.-]*", kept)
    skip = _STOP | _PRONOUNS | _FILLER | _VERBS
    return [
        w.strip(".'").lower()
        for w in said
        if len(w) >= 3 and w.lower() not in skip and not _CHANGE_CUE.fullmatch(w)
    ]


def _named_in(name: str, said: Sequence[str]) -> bool:
    """Whether every word of a record's name is a word of the message (accents, plurals and
    one slip in a long word aside)."""
    have = [_accentless(re.sub(r"[^\w]", "", w)) for w in words(name).split()]
    plain = {singular(_accentless(w)) for w in said}
    return bool(have) and all(
        singular(w) in plain or (len(w) >= 5 and any(_one_slip(w, p) for p in plain))
        for w in have
        if w
    )


def _one_slip(a: str, b: str) -> bool:
    """One letter added, dropped or changed."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return a == b
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
