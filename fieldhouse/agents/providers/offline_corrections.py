"""A message that corrects itself, read as the person meant it: the value after the
correction replaces the one before ("due Friday, no, Thursday", "10 January 2027, sorry,
17 January 2027", "tomasz@wrobel.pl, no scratch that, tomasz.wrobel@halberd.io").

The planner read such a message with both values in it and wrote the withdrawn one (blind5's
tuning half: three of its four wrong writes). Here the correction marker and the value it
withdraws are taken out before anything else reads the message. The withdrawn value is the
words right before the marker with the same shapes as the new value's (a number for a number,
a weekday for a weekday, an e-mail address for an address; plain words only when the new
value is one word); failing that, for a one-word new
value, the last word before the marker of its shape, whatever follows it ("80 percent, or
let's say 75" -> "75 percent"; "the 20th of next month, er, the 25th" -> "the 25th of next
month"). A correction that cannot be placed that way is not guessed at: :func:`settle`
answers None, and the planner asks for the value once more (a wrong write is worse than none).
"""

from __future__ import annotations

import re

#: a marker between commas ("..., no, ...", "..., er, ...") or one that says it in words
_MARKER = re.compile(
    r",\s*(?:no\s+wait|no|nope|wait|er|erm|um|uh|sorry|actually|i\s+mean|correction)"
    r"\s*,\s*(?:make\s+that\s+|scratch\s+that\s*,?\s*)?"
    r"|,?\s*\b(?:no\s+scratch\s+that|scratch\s+that|actually\s+make\s+that|make\s+that|"
    r"or\s+let'?s\s+say|or\s+rather|no\s+wait|no\s+sorry)\b\s*,?\s*",
    re.I,
)
#: the most words a new value may have
_LONGEST = 4
_WEEKDAYS = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_SHAPES = (
    ("email", re.compile(r"[^@\s]+@[^@\s]+\.\w+")),
    ("ordinal", re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.I)),
    ("number", re.compile(r"[£$€]?\d[\d,.:]*(?:k|m|%|am|pm|h)?", re.I)),
    ("weekday", re.compile(_WEEKDAYS, re.I)),
    ("month", re.compile(_MONTHS, re.I)),
)
_ARTICLES = {"the", "a", "an", "on", "to", "at"}


def _shape(word: str) -> str:
    for name, pattern in _SHAPES:
        if pattern.fullmatch(word):
            return name
    return "word"


def _word(token: str) -> str:
    return token.rstrip(".,;:!?").strip("'\"")


def _new_value(rest: str) -> tuple[list[str], int] | None:
    """The new value's words after a marker and where the value ends in ``rest`` (None when
    it runs past :data:`_LONGEST` words)."""
    words: list[str] = []
    for match in re.finditer(r"\S+", rest):
        token = match.group()
        words.append(_word(token))
        ends = token[-1] in ",;!?" or (token.endswith(".") and _shape(_word(token)) != "email")
        if ends or len(words) > _LONGEST:
            return (words, match.end() - (1 if ends else 0)) if len(words) <= _LONGEST else None
    return (words, len(rest)) if 0 < len(words) <= _LONGEST else None


def _settle_one(text: str, marker: re.Match[str]) -> str | None:
    before, rest = text[: marker.start()], text[marker.end() :]
    found = _new_value(rest)
    if found is None:
        return None
    new, end = found
    while len(new) > 1 and new[0].lower() in _ARTICLES:
        new = new[1:]
    tokens = list(re.finditer(r"\S+", before))
    shapes = [_shape(w) for w in new]
    old = tokens[-len(new) :] if len(tokens) >= len(new) else []
    tail = rest[end:]
    plain = all(shape == "word" for shape in shapes)  # several plain words: too loose
    if old and [_shape(_word(t.group())) for t in old] == shapes and (len(new) == 1 or not plain):
        return before[: old[0].start()] + " ".join(new) + tail
    if len(new) == 1 and shapes[0] != "word":
        for token in reversed(tokens):
            if _shape(_word(token.group())) == shapes[0]:
                kept = before[token.end() :]
                return before[: token.start()] + new[0] + kept + tail
    return None


def settle(text: str) -> str | None:
    """``text`` with each self-correction settled to the value it ends with; ``text`` itself
    when it corrects nothing; None when a correction cannot be placed."""
    for _ in range(3):  # a message rarely corrects itself more than twice
        marker = _MARKER.search(text)
        if marker is None:
            return text
        settled = _settle_one(text, marker)
        if settled is None:
            return None
        text = settled
    return None if _MARKER.search(text) else text
