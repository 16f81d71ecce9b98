"""Typed values in everyday text for the offline planner: dates relative to today ("tmrw",
"friday", "next week", "in 3 days", "the 15th of next month", "last month"), times ("at 3pm"),
amounts ("50k", "$1.2m", "$85,000"), e-mail addresses and phone numbers.

Each finder returns the value and the span of the text it was read from, so the caller can
take the words out of a name ("call hedy tmrw" is a task "call hedy" due tomorrow).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Generic, TypeVar

T = TypeVar("T")
Amount = tuple[int | float, str | None]

EMAIL = r"[^@\s<>\"',;()]+@[^@\s<>\"',;()]+\.[A-Za-z]{2,}"
#: (a full stop right after it ends the sentence: "... it's +1 408 555 0199.")
PHONE = r"(?<![\w.])\+?\d[\d\s().-]{6,}\d(?!\w|\.\d)"
WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
    "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
    "sat": 5, "sunday": 6, "sun": 6,
}  # fmt: skip
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2,
    "a couple of": 2, "few": 3, "a few": 3,
}  # fmt: skip
_COUNT = r"(?P<n>\d+|a couple of|a few|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
#: days in a unit said as days or weeks
_DAYS_IN = {"day": 1, "week": 7, "fortnight": 14}
_DAY = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))


@dataclass(frozen=True)
class Found(Generic[T]):
    value: T
    start: int
    end: int


@dataclass(frozen=True)
class Span:
    """A date range a phrase names (``first`` and ``last`` inclusive)."""

    first: date
    last: date


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def _shift_months(day: date, months: int, wanted: int | None = None) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(wanted or day.day, last))


def _next_weekday(today: date, weekday: int) -> date:
    """The first such day after today (a week on when it is today)."""
    return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


#: ordinals people spell out ("the fifteenth of next month")
ORDINALS = {
    word: n
    for n, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
        ],
        start=1,
    )
}
_FIRST_NINE = list(ORDINALS.items())[:9]
ORDINALS |= {f"twenty{sep}{w}": 20 + n for sep in "- " for w, n in _FIRST_NINE}
ORDINALS |= {"thirtieth": 30} | {f"thirty{sep}first": 31 for sep in "- "}
_ORDINAL_WORD = "|".join(sorted(ORDINALS, key=len, reverse=True))


def _ordinal(word: str) -> int:
    if word in ORDINALS:
        return ORDINALS[word]
    return int(re.sub(r"(st|nd|rd|th)$", "", word))


DateRule = Callable[[re.Match[str], date], date]


def _rules() -> list[tuple[str, DateRule]]:
    """(pattern, the date from the match and today), on lower-case text."""

    def in_n(m: re.Match[str], today: date) -> date:
        n, unit = _count(m["n"]), m["unit"]
        if unit in _DAYS_IN:
            return today + timedelta(days=n * _DAYS_IN[unit])
        if unit == "month":
            return _shift_months(today, n)
        return _shift_months(today, 12 * n)

    def nth_of(m: re.Match[str], today: date) -> date:
        shift = {"next": 1, "this": 0, "last": -1}[m["rel"]]
        return _shift_months(today.replace(day=1), shift, _ordinal(m["d"]))

    def end_of(m: re.Match[str], today: date) -> date:
        shift = {"next": 1, "this": 0, "the": 0, "last": -1}[m["rel"] or "this"]
        first = _shift_months(today.replace(day=1), shift)
        return first.replace(day=calendar.monthrange(first.year, first.month)[1])

    def month_day(m: re.Match[str], today: date) -> date:
        month, day = MONTHS[m["m"]], _ordinal(m["d"])
        if m["y"]:  # "31 March 2028": the year said
            return date(int(m["y"]), month, day)
        found = date(today.year, month, min(day, calendar.monthrange(today.year, month)[1]))
        return found if found >= today else date(today.year + 1, month, day)

    def bare_nth(m: re.Match[str], today: date) -> date:
        """The next such day of a month, today included: "the 31st" in November is
        December's, not the 30th."""
        day = _ordinal(m["d"])
        found = _shift_months(today.replace(day=1), 0 if day >= today.day else 1, day)
        while found.day != day and day <= 31:  # that month is too short: the next one
            found = _shift_months(found.replace(day=1), 1, day)
        return found

    return [
        (r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b", lambda m, t: date.fromisoformat(m["iso"])),
        # "EOD", "COB": today, unless a day follows ("EOD tomorrow", "COB Friday")
        (
            r"\b(?:today|tonight|this evening|this afternoon|"
            r"(?:eod|cob)(?!\s+(?:on\s+)?(?:tomorrow|tmrw|tmr|next|mon|tue|wed|thu|fri|sat|sun)))\b",
            lambda m, t: t,
        ),
        # "EOW": the end of the working week, Friday (today on a Friday)
        (r"\beow\b", lambda m, t: t + timedelta((4 - t.weekday()) % 7)),
        (r"\b(?:the\s+)?day\s+after\s+(?:tomorrow|tmrw|tmr)\b", lambda m, t: t + timedelta(2)),
        (r"\b(?:the\s+)?day\s+before\s+yesterday\b", lambda m, t: t - timedelta(2)),
        (
            r"\b(?:tomorrow|tmrw|tmr|tomorow|tommorow|tommorrow|2moro)\b",
            lambda m, t: t + timedelta(1),
        ),
        (r"\byesterday\b", lambda m, t: t - timedelta(1)),
        (r"\b(?:in|within)\s+" + _COUNT + r"\s+" + _UNIT + r"\b", in_n),
        (_COUNT + r"\s+" + _UNIT + r"\s+from\s+(?:now|today)\b", in_n),
        # "a week today", "two weeks today" (from today, in British English)
        (r"\b" + _COUNT + r"\s+(?P<unit>week|fortnight)s?\s+today\b", in_n),
        (r"\bnext\s+week\b", lambda m, t: t + timedelta(7)),
        (r"\bnext\s+month\b(?!\s*'s)", lambda m, t: _shift_months(t, 1)),
        (
            r"\b(?:the\s+)?(?P<d>\d{1,2}(?:st|nd|rd|th)?|"
            + _ORDINAL_WORD
            + r")\s+(?:day\s+)?of\s+(?P<rel>next|this|last)\s+month\b",
            nth_of,
        ),
        (
            r"\b(?:the\s+)?(?:end|last\s+day)\s+of\s+(?:the\s+)?(?P<rel>next|this|last)?\s*month\b",
            end_of,
        ),
        (
            r"\b(?P<m>"
            + _MONTH
            + r")\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>20\d\d)\b)?",
            month_day,
        ),
        (
            r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>" + _MONTH + r")\b"
            r"(?:,?\s+(?P<y>20\d\d)\b)?",
            month_day,
        ),
        (
            r"\b(?:(?:next|this|on|by|until|till|for|coming)\s+)*(?P<dow>" + _DAY + r")\b",
            lambda m, t: _next_weekday(t, WEEKDAYS[m["dow"]]),
        ),
        (r"\bthe\s+(?P<d>\d{1,2}(?:st|nd|rd|th))\b", bare_nth),
    ]


def find_date(text: str, today: date) -> Found[date] | None:
    """The first date the text names (its span includes a leading "on", "by", "due" or "for")."""
    lower = text.lower()
    best: Found[date] | None = None
    for pattern, make in _compiled():
        for m in pattern.finditer(lower):
            try:
                value = make(m, today)
            except (ValueError, KeyError):
                continue
            start, end = m.start(), m.end()
            lead = re.search(r"(?:\b(?:due|on|by|for|before|until|till|at)\s+)+$", lower[:start])
            if lead:
                start = lead.start()
            if best is None or start < best.start:
                best = Found(value, start, end)
            break
    return best


_COMPILED: list[tuple[re.Pattern[str], DateRule]] = []


def _compiled() -> list[tuple[re.Pattern[str], DateRule]]:
    if not _COMPILED:
        _COMPILED.extend((re.compile(p), make) for p, make in _rules())
    return _COMPILED


_RANGE_NEXT = re.compile(
    r"\b(?:in|within|over)\s+(?:the\s+)?(?:next|coming)\s+" + _COUNT + r"\s+" + _UNIT
)
_RANGE_MONTH = re.compile(r"\b(?P<rel>this|last|next|previous)\s+(?P<unit>month|week)\b")


def find_range(text: str, today: date) -> tuple[Span, Found[None]] | None:
    """A period ("in the next 7 days", "last month", "this week") the text names."""
    lower = text.lower()
    m = _RANGE_NEXT.search(lower)
    if m:
        n, unit = _count(m["n"]), m["unit"]
        last = today + timedelta(days=n * ({"month": 30, "year": 365} | _DAYS_IN)[unit])
        return Span(today, last), Found(None, m.start(), m.end())
    m = _RANGE_MONTH.search(lower)
    if m:
        shift = {"this": 0, "last": -1, "previous": -1, "next": 1}[m["rel"]]
        if m["unit"] == "month":
            first = _shift_months(today.replace(day=1), shift)
            last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
        else:
            first = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
            last = first + timedelta(days=6)
        return Span(first, last), Found(None, m.start(), m.end())
    return None


#: hours said as words ("at eight am", "three o'clock")
HOURS = {w: n for w, n in NUMBERS.items() if " " not in w and w not in ("a", "an", "few", "couple")}
_HOUR = r"(?:\d{1,2}|" + "|".join(sorted(HOURS, key=len, reverse=True)) + r")"
_TIME = re.compile(
    r"\b(?:at\s+)?(?P<h>" + _HOUR + r")(?::(?P<min>\d{2}))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.|"
    r"o'?clock)(?!\w)"
    # "at 9" is a time, "at 18,000" or "at 9.5k" an amount
    r"|\bat\s+(?P<h2>\d{1,2})(?::(?P<min2>\d{2}))?\b(?![,.]\d)(?!\s*(?:%|k\b|m\b|days?|weeks?))"
    r"|(?<![\d:])(?:at\s+)?(?P<h3>[01]?\d|2[0-3]):(?P<min3>[0-5]\d)\b"
    r"|\b(?P<noon>noon|midday|midnight)\b"
)


def find_time(text: str) -> Found[tuple[int, int]] | None:
    """A time of day ("at 3pm", "at 9", "15:30", "noon") as (hour, minute)."""
    m = _TIME.search(text.lower())
    if m is None:
        return None
    if m["noon"]:
        return Found((0 if m["noon"] == "midnight" else 12, 0), m.start(), m.end())
    said = m["h"] or m["h2"] or m["h3"]
    hour = int(said) if said.isdigit() else HOURS[said]
    minute = int(m["min"] or m["min2"] or m["min3"] or 0)
    ampm = (m["ampm"] or "").replace(".", "")
    if ampm == "pm" and hour < 12:
        hour += 12
    if ampm == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return Found((hour, minute), m.start(), m.end())


#: currency codes people write before or after an amount ("KSh 900 million", "2m NGN")
_ISO = (
    r"usd|eur|gbp|kes|ksh|ngn|ghs|jmd|zar|php|inr|jpy|chf|cad|aud|nzd|sgd|cny|aed|sar|qar|sek|"
    r"nok|dkk|brl|mxn|ars|clp|cop|pen|hkd|twd|krw|thb|myr|idr|vnd|pln|czk|huf|ils|egp|mad|rub|"
    r"uah|ron|try"
)
_AMOUNT = re.compile(
    r"(?:\b(?P<pre>" + _ISO + r")\s?)?(?P<cur>(?:\b(?:GH|J|A|C|NZ|US|R))?[$₵¢]|[€£₦₱₹¥])?\s?"
    r"(?P<num>\d[\d,]*(?:\.\d+)*)\s?"
    r"(?P<mult>k|m|mm|bn|b|thousand|grand|million|billion|milh(?:ões|oes|ão|ao)|millones|"
    r"mill[oó]n)?\b(?!\s*%)(?:\s*(?P<code>"
    + _ISO
    + r"|dollars?|euros?|pounds?|bucks|quid|shillings?|naira|rand|rupees?|yen|dirhams?|"
    r"riyals?|reais)\b|\s?(?P<after>[€£₦₱₹¥]))?",
    re.I,
)
_MULT = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6}
_MULT |= dict.fromkeys(
    ("milhões", "milhoes", "milhão", "milhao", "millones", "millón", "millon"), 1e6
)
_MULT |= {"b": 1e9, "bn": 1e9, "billion": 1e9}
_CODES = {"$": "USD", "€": "EUR", "£": "GBP", "dollars": "USD", "euros": "EUR", "pounds": "GBP"}
_CODES |= {"dollar": "USD", "euro": "EUR", "pound": "GBP", "bucks": "USD", "quid": "GBP"}
_CODES |= {"ksh": "KES", "shilling": "KES", "shillings": "KES", "naira": "NGN", "₦": "NGN"}
_CODES |= {"rand": "ZAR", "₱": "PHP", "₹": "INR", "rupee": "INR", "rupees": "INR", "¥": "JPY"}
_CODES |= {"yen": "JPY", "j$": "JMD", "gh₵": "GHS", "gh¢": "GHS", "₵": "GHS", "a$": "AUD"}
_CODES |= {"c$": "CAD", "nz$": "NZD", "us$": "USD", "dirham": "AED", "dirhams": "AED"}
_CODES |= {"riyal": "SAR", "riyals": "SAR", "r$": "BRL", "reais": "BRL"}


#: a number whose dots group its thousands ("31.000", "1.250.000"): three digits after each
#: dot, which no amount of money has as its cents
_DOTTED_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")


def find_amounts(text: str, *, money_only: bool = False) -> list[Found[Amount]]:
    """Numbers, with "k"/"m" multipliers and currency marks read: value (int | float, currency
    code or None). ``money_only``: only numbers marked as money (a sign, a code, k/m)."""
    found = []
    for m in _AMOUNT.finditer(text):
        raw = m["num"]
        if _DOTTED_THOUSANDS.fullmatch(raw):  # "31.000", "1.250.000": thousands, as in German
            raw = raw.replace(".", "")
        if re.fullmatch(r"\d+,\d{1,2}", raw):  # "1,5 million", "12,50 €": a decimal comma (a
            raw = raw.replace(",", ".")  # comma that groups thousands has three digits after it)
        raw = raw.replace(",", "")
        try:
            value = float(raw)
        except ValueError:
            continue
        mult = (m["mult"] or "").lower()
        value *= _MULT.get(mult, 1)
        code = m["code"] or m["cur"] or m["pre"] or m["after"]  # ("12 000 €": after it)
        currency = _CODES.get((code or "").lower(), (code or "").upper() or None)
        if money_only and not (code or mult):
            continue
        number: int | float = int(value) if value.is_integer() else round(value, 2)
        found.append(Found((number, currency), m.start(), m.end()))
    return found


def find_email(text: str) -> Found[str] | None:
    m = re.search(EMAIL, text)
    return Found(m[0].rstrip("."), m.start(), m.end()) if m else None


_URL = re.compile(
    r"(?<![\w@.-])(?:https?://)?(?:www\.)?[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,}"
    r"(?:/[^\s,;]*)?(?![\w@-])",
    re.I,
)


_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_WORD = r"(?:" + "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True)) + r")"
_SPELLED = re.compile(
    r"(?<![\w-])(?:(?P<a>a|an)\s+(?=hundred\b))?(?P<n>(?:" + _WORD + r"|hundred)"
    r"(?:[\s-]+(?:and\s+)?(?:" + _WORD + r"|hundred))*)(?![\w-])",
    re.I,
)
#: what makes a spelled number worth reading as digits when it is one small word alone
_COUNTED = re.compile(
    r"\s*(?:k\b|thousand|million|billion|percent|per\s+cent|%|dollars|euros|pounds|"
    r"employees|people|staff|stars?)",
    re.I,
)


def spelled_numbers(text: str) -> str:
    """The text with numbers said in words written in digits ("thirty five k" -> "35 k", "a
    hundred k" -> "100 k", "ninety percent" -> "90 percent"); a lone small word ("one", "a
    third one") only before a unit or a multiplier."""

    def digits(m: re.Match[str]) -> str:
        said = re.split(r"[\s-]+(?:and\s+)?", m["n"].lower())
        total, current = 0, 1 if m["a"] else 0
        for word in said:
            if word == "hundred":
                current = max(current, 1) * 100
            else:
                current += _UNITS.get(word) or _TENS.get(word, 0)
        total += current
        lone = len(said) == 1 and said[0] in _UNITS and not m["a"]
        if lone and not _COUNTED.match(text, m.end()):
            return m.group()
        return str(total)

    return _SPELLED.sub(digits, text)


def find_url(text: str) -> Found[str] | None:
    """A web address ("acme.example", "https://acme.com/about"), not an e-mail's domain."""
    for m in _URL.finditer(text):
        if not re.match(r"[a-z]\.[a-z]\.?$", m[0], re.I):  # "e.g", "i.e"
            return Found(m[0].rstrip("."), m.start(), m.end())
    return None


def find_phone(text: str) -> Found[str] | None:
    m = re.search(PHONE, text)
    if m is None:
        return None
    digits = re.sub(r"[^\d+]", "", m[0])
    if len(digits.lstrip("+")) < 7 or re.fullmatch(r"\d{4}-\d{2}-\d{2}", m[0].strip()):
        return None
    return Found(digits, m.start(), m.end())
