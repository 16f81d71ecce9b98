"""A field's value from what a message says for it, read the way the field's type is spoken.

Each field type says how the planner reads a value of it (``FieldType.spoken``, carried on the
planner's :class:`~fieldhouse.agents.providers.offline_schema.Field` as ``reads``): one reader
per way, here, instead of a switch on type names. A reader returns None when the words do not
give a value it is sure of; the planner then asks instead of writing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from fieldhouse.agents.providers.offline_schema import Field, Option, words
from fieldhouse.agents.providers.offline_values import (
    find_amounts,
    find_date,
    find_email,
    find_phone,
    find_url,
)
from fieldhouse.model.fields.base import Spoken

#: words beside a choice value that say nothing more ("the", "stage", "now")
_SPARE = {
    "the", "a", "an", "to", "as", "be", "is", "now", "in", "at", "of", "it", "its", "set",
    "stage", "status", "please", "again", "back", "into", "one", "level", "phase",
}  # fmt: skip
_NEGATIVE = re.compile(r"\b(?:no|not|false|off|unset|n)\b")
_PRONOUNS = {"it", "him", "her", "them", "this", "that", "these", "those", "same"}


@dataclass(frozen=True)
class Said:
    """What a value is read against: today (relative dates), the record's current values."""

    today: date
    current: Mapping[str, Any]


def read_value(f: Field, value: str, said: Said) -> Any:
    """The value of ``f`` the words give, or None when they give none for sure."""
    reader = _READERS.get(f.reads) if f.reads else None
    return reader(f, value.strip(" '\"."), said) if reader else None


def _option(f: Field, value: str) -> Option | None:
    """The one option the words name, with nothing else of weight beside it."""
    wanted = words(value)
    exact = [o for o in f.options if wanted in o.phrases()]
    if exact:
        return exact[0] if len(exact) == 1 else None
    inside = [o for o in f.options if any(_contains(wanted, p) for p in o.phrases())]
    if len(inside) != 1:
        return None
    rest = wanted
    for phrase in sorted(inside[0].phrases() | f.phrases(), key=len, reverse=True):
        rest = re.sub(r"(?<!\S)" + re.escape(phrase) + r"(?!\S)", " ", rest)
    extra = [w for w in rest.split() if w not in _SPARE]
    return None if extra else inside[0]


def _contains(text: str, phrase: str) -> bool:
    return bool(re.search(r"(?<!\S)" + re.escape(phrase) + r"(?!\S)", text))


def _choice(f: Field, value: str, said: Said) -> Any:
    option = _option(f, value)
    return option.value if option else None


def _choices(f: Field, value: str, said: Said) -> Any:
    option = _option(f, value)
    if option is None:
        return None
    current = said.current.get(f.slug) or []
    kept = [v for v in current if isinstance(v, str)] if isinstance(current, list) else []
    return kept if option.value in kept else [*kept, option.value]


def _email(f: Field, value: str, said: Said) -> Any:
    email = find_email(value)
    return [email.value] if email else None


def _phone(f: Field, value: str, said: Said) -> Any:
    phone = find_phone(value)
    if phone is None:
        return None
    return [phone.value] if f.many else phone.value


def _url(f: Field, value: str, said: Said) -> Any:
    url = find_url(value)
    if url is None:
        return None
    # a bare domain ("initech.com") is the site at it: the field stores a full address
    return (
        url.value if re.match(r"[a-z][a-z0-9+.-]*://", url.value, re.I) else f"https://{url.value}"
    )


def _money(f: Field, value: str, said: Said) -> Any:
    amounts = find_amounts(value)
    if len(amounts) != 1:
        return None
    number, currency = amounts[0].value
    return {"amount": number, "currency": currency or "USD"}


def _number(f: Field, value: str, said: Said) -> Any:
    amounts = find_amounts(value.replace("%", ""))
    return amounts[0].value[0] if len(amounts) == 1 else None


def _date(f: Field, value: str, said: Said) -> Any:
    when = find_date(value, said.today)
    return when.value.isoformat() if when and isinstance(when.value, date) else None


def _flag(f: Field, value: str, said: Said) -> Any:
    return not _NEGATIVE.search(value.lower())


#: words that ask for no value at all: a field emptied, not set to the word ("set the lost
#: reason to empty" had written "empty"); the planner asks instead
_EMPTINESS = frozenset({"empty", "blank", "nothing", "none", "null", "n/a", "na", "nil", "-"})


def _text(f: Field, value: str, said: Said) -> Any:
    if not value or value.lower() in _PRONOUNS or value.lower() in _EMPTINESS:
        return None
    if any(m[1].lower() not in _ABBREVIATIONS for m in _SENTENCE_BREAK.finditer(value)):
        return None  # "Head of Platform. Over": more than the value was taken; ask
    return value


#: a sentence ending inside a value, and the word before it
_SENTENCE_BREAK = re.compile(r"\b(\w+)[.!?]\s+[A-Za-z]")
#: words a full stop shortens, not ends: "Sr. Engineer", "Acme Inc. Europe"
_ABBREVIATIONS = frozenset(
    {"sr", "jr", "dr", "mr", "mrs", "ms", "st", "inc", "co", "ltd", "vs", "no", "corp", "dept"}
)


_READERS: Mapping[Spoken, Callable[[Field, str, Said], Any]] = {
    "choice": _choice,
    "choices": _choices,
    "email": _email,
    "phone": _phone,
    "url": _url,
    "money": _money,
    "number": _number,
    "date": _date,
    "flag": _flag,
    "text": _text,
}
