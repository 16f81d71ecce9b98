"""Common phrasings for the offline planner: rewrites of everyday word orders into the sentence
shapes ``offline_plans`` reads, plus the plans that need more than one shape: questions over
records ("what deals closed this month?") and e-mails to a group or a person by name ("email
the contacts at Acme about ...").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_mail import purpose_body

Call = tuple[str, dict[str, Any]]
_WHEN = (
    r"(?P<when>(?:today|tomorrow|in\s+\d+\s+(?:minutes?|hours?|days?)|on\s+\d{4}-\d{2}-\d{2}|"
    r"on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"(?:\s+at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?)?)"
)
EMAIL = r"[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[A-Za-z]{2,}"

#: (pattern, replacement): tried in order, each at most once, on the whole message
REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.I), replacement)
    for pattern, replacement in (
        # reminders
        (r"^remind\s+me\s+" + _WHEN + r"\s+to\s+(?P<text>.+)$", r"remind me to \g<text> \g<when>"),
        (
            r"^" + _WHEN + r"\s*,?\s+remind\s+me\s+to\s+(?P<text>.+)$",
            r"remind me to \g<text> \g<when>",
        ),
        (
            r"^set\s+(?:a\s+|up\s+a\s+)?reminder\s+(?:for\s+)?" + _WHEN + r"\s+to\s+(?P<text>.+)$",
            r"remind me to \g<text> \g<when>",
        ),
        (r"^(?:don'?t|do\s+not)\s+let\s+me\s+forget\s+(?:to\s+)?(?P<text>.+)$", r"remind me to \1"),
        (
            r"^(?:what|which)\s+reminders\s+(?:do\s+i\s+have|are\s+there)\??$|"
            r"^do\s+i\s+have\s+any\s+reminders\??$",
            "show my reminders",
        ),
        # e-mail and social
        (
            r"^(?P<verb>send|write|draft)\s+(?P<who>(?!an?\b)[^@]+?)\s+an?\s+e-?mail\s+(?P<rest>.+)$",
            r"\g<verb> an email to \g<who> \g<rest>",
        ),
        (r"^e-?mail\s+(?P<to>" + EMAIL + r")\s+(?P<rest>.+)$", r"send an email to \1 \2"),
        (
            r"^write\s+to\s+(?P<to>" + EMAIL + r")\s*:\s*(?P<body>.+)$",
            r"draft an email to \1 saying \2",
        ),
        (r"^tweet\s*:?\s*(?P<text>.+)$", r"post on x: \1"),
        (
            r"^(?P<verb>post|draft\s+a\s+post|share)\s+(?:on|to|for)\s+(?P<network>\w+)\s+"
            r"saying\s+(?P<text>.+)$",
            r"\1 on \2: \3",
        ),
    )
)


def rewrite(text: str) -> str:
    """The message in a shape the planner's grammar reads (unchanged when none applies)."""
    for pattern, replacement in REWRITES:
        if pattern.search(text):
            text = pattern.sub(replacement, text, count=1)
            text = re.sub(r"\s+with\s*$", "", text)
    return text


_CLOSED = re.compile(
    r"^(?:what|which|show(?:\s+me)?)\s+deals\s+(?:closed|close|closing|are\s+closing)\s+"
    r"(?P<when>this|last|next)\s+month\??$",
    re.I,
)
_GROUP_MAIL = re.compile(
    r"^(?:(?P<verb>send|write|draft)\s+an?\s+e-?mail\s+to|e-?mail|write\s+to)\s+(?:all\s+)?"
    r"(?:(?:the\s+)?(?:contacts|people)\s+(?:at|from)\s+(?P<org>.+?)|"
    r"(?P<person>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+?))\s+"
    r"(?:about|re:?|with\s+(?:the\s+)?subject(?:\s+line)?|subject(?:\s+line)?:?)\s+(?P<subject>.+?)"
    r"(?:\s*(?:,?\s*saying|:)\s*(?P<body>.+)|\s*,\s*(?P<purpose>(?:asking|thanking|inviting|"
    r"reminding|telling)\b.+?))?\s*[.!?]?"
    # "Draft only.", "Don't send it yet.": how, said after what it asks
    r"(?:\s*(?:(?:as\s+a\s+)?draft\s+only|just\s+(?:a\s+)?draft|(?:don'?t|do\s+not)\s+send"
    r"(?:\s+it)?(?:\s+yet)?)\s*[.!]?)?$",
    re.I,
)


#: a quoted subject with more said after it
_QUOTED_SUBJECT = re.compile(
    r"(?P<q>['\"\u2018\u201c])(?P<subject>[^'\"\u2019\u201d]+)['\"\u2019\u201d](?=\s+\S)"
)
#: what comes between a quoted subject and the body's words ("and a short body", ", saying")
_BODY_AFTER = re.compile(
    r"^\s*(?:,|and|with)?\s*(?:an?\s+)?(?:short\s+|quick\s+|brief\s+)?"
    r"(?:(?:body|message|note|text)\b\s*(?:saying|that\s+says)?\s*:?|saying)?\s*",
    re.I,
)


def closed_deals(text: str, now: datetime) -> list[Call] | None:
    m = _CLOSED.match(text)
    if m is None:
        return None
    shift = {"this": 0, "last": -1, "next": 1}[m["when"].lower()]
    month = now.year * 12 + now.month - 1 + shift
    start = f"{month // 12:04d}-{month % 12 + 1:02d}-01"
    end = f"{(month + 1) // 12:04d}-{(month + 1) % 12 + 1:02d}-01"
    conditions = [
        {"id": "c1", "fieldSlug": "close-date", "operator": "gte", "value": start},
        {"id": "c2", "fieldSlug": "close-date", "operator": "lt", "value": end},
    ]
    root = {"id": "root", "conjunction": "AND", "conditions": conditions}
    return [("records.search", {"module": "deals", "limit": 50, "advancedFilter": {"root": root}})]


def group_mail(text: str) -> tuple[Callable[[Sequence[ToolOutcome]], list[Call]], ...] | None:
    """E-mail the contacts a search finds: first the search, then one e-mail to the addresses
    of what it found (a person by name must match exactly one contact)."""
    m = _GROUP_MAIL.match(text)
    if m is None:
        return None
    who = (m["org"] or m["person"]).strip(" '\"")
    subject = m["subject"].strip(" '\"")
    body = (m["body"] or "").strip(" '\"")
    if m["purpose"]:  # "about the renewal, asking if she has signed": what it asks is the body
        body = purpose_body(m["purpose"].strip(" '\""))
    quoted = _QUOTED_SUBJECT.match(m["subject"])
    if quoted:  # "subject 'Year in review' and a short body thanking her for ...": two slots
        subject = quoted["subject"].strip()
        body = body or _BODY_AFTER.sub("", m["subject"][quoted.end() :]).strip(" .'\"")
    body = body or subject
    draft = (m["verb"] or "").lower() in ("write", "draft")
    tool = "email.draft" if draft else "email.send"
    return mail_found(who, tool, subject, body, person=bool(m["person"]))


def mail_found(
    who: str, tool: str, subject: str, body: str, *, person: bool
) -> tuple[Callable[[Sequence[ToolOutcome]], list[Call]], ...]:
    """The stages that search the contacts for ``who``, then send one e-mail to the addresses
    found; nothing when none is found. A person must be exactly one contact: the one whose
    name is the name said; else each word said is looked up ("Linus at Northwind", "this to
    Margaret Hamilton") and it is the one whose whole name is among the words, else the one
    whose first name is."""
    search: Call = ("records.search", {"module": "contacts", "query": who, "limit": 50})
    said = [w.lower() for w in re.findall(r"[^\W\d_][\w'-]+", who) if w.lower() not in _NOT_NAMES]
    looked = list(dict.fromkeys(said))[:3]
    again: list[Call] = [
        ("records.search", {"module": "contacts", "query": w, "limit": 50}) for w in looked
    ]

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        found = _found(outcomes)
        if not person:
            return _mail_to(found, tool, subject, body)
        exact = [r for r in found if str(r.get("displayName", "")).casefold() == who.casefold()]
        if exact:
            return _mail_to(exact, tool, subject, body) if len(exact) == 1 else []
        return list(again) if len(outcomes) == 1 else []

    def spelled(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        if not person or len(outcomes) != len(again):
            return []  # the e-mail went at the stage before
        found = _found(outcomes)
        for fits in (_said_whole, _said_first):
            hits = [r for r in found if fits(str(r.get("displayName") or ""), said)]
            if hits:
                return _mail_to(hits, tool, subject, body) if len(hits) == 1 else []
        return []

    return (lambda _: [search], then, spelled) if person else (lambda _: [search], then)


#: words around a name said as whom to e-mail ("Linus at Northwind", "this to Margaret")
_NOT_NAMES = {"this", "that", "the", "and", "at", "to", "from", "with", "about", "of", "for"}


def _found(outcomes: Sequence[ToolOutcome]) -> list[Any]:
    """The records the searches found, each once."""
    seen: dict[str, Any] = {}
    for outcome in outcomes:
        records = outcome.result.get("records")
        for record in records if isinstance(records, list) else []:
            seen.setdefault(str(record.get("recordId") or id(record)), record)
    return list(seen.values())


def _mail_to(records: Sequence[Any], tool: str, subject: str, body: str) -> list[Call]:
    to = _addresses_of(records)
    return [(tool, {"to": to[:50], "subject": subject, "body": body})] if to else []


def _plain(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _said_whole(name: str, said: Sequence[str]) -> bool:
    have = {_plain(w) for w in said}
    parts = [_plain(w) for w in name.split()]
    return bool(parts) and all(p in have for p in parts)


def _said_first(name: str, said: Sequence[str]) -> bool:
    parts = name.split()
    return len(parts) > 1 and _plain(parts[0]) in {_plain(w) for w in said}


def _addresses_of(records: Sequence[Any]) -> list[str]:
    to: list[str] = []
    for record in records:
        fields = record.get("fields") or {}
        if fields.get("do-not-contact"):
            continue
        for email in fields.get("emails") or []:
            address = email.get("value") if isinstance(email, dict) else email
            if isinstance(address, str) and address not in to:
                to.append(address)
    return to
