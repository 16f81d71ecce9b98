"""The offline planner's grammar: common requests, read with plain regular expressions, into
the tool calls a model would make.

A plan is a sequence of stages. The first stage's calls come from the message alone; each later
stage sees the outcomes of the stage before it (to use an id a tool returned) and may return no
calls, which ends the plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_phrasings import closed_deals, group_mail, rewrite

Call = tuple[str, dict[str, Any]]
Stage = Callable[[Sequence[ToolOutcome]], list[Call]]

MODULES = {"contact": "contacts", "company": "companies", "deal": "deals", "task": "tasks"}
NETWORKS = {"twitter": "x", "x": "x", "linkedin": "linkedin", "facebook": "facebook"}
NETWORKS |= {"instagram": "instagram", "mastodon": "mastodon", "bluesky": "bluesky"}
EMAIL = r"[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[A-Za-z]{2,}"
_POLITE = r"^\s*(?:please\s+|could you\s+|can you\s+)?"
_KIND = r"(?P<kind>contact|company|deal|task)"
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"


@dataclass(frozen=True)
class Plan:
    stages: tuple[Stage, ...]


def _stage(*calls: Call) -> Stage:
    return lambda _: list(calls)


def _module(word: str) -> str:
    word = word.lower()
    singular = "company" if word.startswith("compan") else word.rstrip("s")
    return MODULES[singular]


def _number(text: str) -> float | int:
    value = float(text.replace(",", "").rstrip("."))
    return int(value) if value.is_integer() else value


_CREATE = re.compile(
    _POLITE
    + r"(?:create|add|make)\s+(?:a\s+|an\s+)?(?:new\s+)?"
    + _KIND
    + r"\s+(?:named|called)\s+(?P<name>.+?)"
    + r"(?P<rest>\s+(?:with|worth|for|in\s+stage|at)\b.*)?\s*[.!]?\s*$",
    re.I,
)
_FIND = re.compile(
    _POLITE + r"(?:find|show|list|search(?:\s+for)?|look\s+up)\s+(?:me\s+)?(?:all\s+)?"
    r"(?:the\s+|my\s+)?(?P<kind>contacts?|compan(?:y|ies)|deals?|tasks?)\b(?P<rest>.*)$",
    re.I,
)
_UPDATE = re.compile(
    _POLITE + r"(?:update|change|set)\s+(?:the\s+)?" + _KIND + r"\s+(?P<name>.+?)(?:'s)?\s+"
    r"(?P<field>stage|amount|email|phone|name|status)\s+to\s+(?P<value>.+?)\s*[.!]?\s*$",
    re.I,
)
_REMIND = re.compile(
    _POLITE + r"remind\s+me\s+(?:to\s+)?(?P<text>.+?)\s+(?P<when>today|tomorrow|"
    r"in\s+\d+\s+(?:minutes?|hours?|days?)|on\s+\d{4}-\d{2}-\d{2}|on\s+" + WEEKDAY + r")"
    r"(?:\s+at\s+(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>am|pm)?)?\s*[.!]?\s*$",
    re.I,
)
_REMINDERS = re.compile(_POLITE + r"(?:list|show)\s+(?:me\s+)?(?:my\s+)?reminders\b", re.I)
_MAIL = re.compile(
    _POLITE + r"(?P<verb>draft|write|send)\s+(?:an?\s+)?e-?mail\s+to\s+(?P<to>" + EMAIL + r")"
    r"(?:\s+(?:about|re|with\s+subject|subject)\s*:?\s*(?P<subject>.+?))?"
    r"(?:\s*(?:,?\s*saying|:)\s*(?P<body>.+?))?\s*$",
    re.I,
)
_OUTREACH = re.compile(
    _POLITE + r"(?:plan|create|start|set\s+up)\s+(?:an?\s+)?outreach(?:\s+sequence|\s+campaign)?"
    r"(?:\s+(?:called|named)\s+['\"]?(?P<name>.+?)['\"]?)?\s+to\s+(?P<to>.+?)"
    r"(?:\s+about\s+(?P<topic>.+?))?(?:\s+starting\s+(?P<start>tomorrow|today|on\s+\S+))?"
    r"\s*[.!]?\s*$",
    re.I,
)
_SOCIAL = re.compile(
    _POLITE + r"(?P<verb>post|draft\s+a\s+post|draft|share)\s+(?:on|to|for)\s+"
    r"(?P<network>twitter|x|linkedin|facebook|instagram|mastodon|bluesky)\s*:?\s*(?P<text>.+)$",
    re.I,
)
_PAGE = re.compile(
    _POLITE + r"(?P<verb>create|make|build|publish)\s+(?:a\s+)?landing\s+page\s+"
    r"(?:for|called|titled|named)\s+['\"]?(?P<title>.+?)['\"]?"
    r"(?:\s+at\s+/?(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*))?\s*[.!]?\s*$",
    re.I,
)


def plan_for(message: str, now: datetime) -> Plan | None:
    """The plan for a message, or None when the planner does not understand it."""
    text = rewrite(" ".join(message.split()).strip())
    for parse in (_update, _create, _remind, _reminders, _mail, _outreach, _social, _page, _find):
        plan = parse(text, now)
        if plan is not None:
            return plan
    calls = closed_deals(text, now)
    if calls is not None:
        return Plan((_stage(*calls),))
    mail = group_mail(text)
    if mail is not None:
        search, then = mail
        return Plan((_stage(search), then))
    return None


def _create(text: str, now: datetime) -> Plan | None:
    m = _CREATE.match(text)
    if m is None:
        return None
    module, name, rest = MODULES[m["kind"].lower()], m["name"].strip(" '\""), m["rest"] or ""
    fields: dict[str, Any] = {}
    if module == "contacts":
        first, _, last = name.partition(" ")
        fields["first-name"] = first
        if last:
            fields["last-name"] = last
        emails = re.findall(EMAIL, rest)
        if emails:
            fields["emails"] = emails
        phone = re.search(r"phone\s+(\+?[\d][\d\s-]{5,}\d)", rest, re.I)
        if phone:
            fields["phones"] = [re.sub(r"[\s-]", "", phone[1])]
    elif module == "tasks":
        fields["title"] = name
    else:
        fields["name"] = name
    if module == "deals":
        amount = re.search(
            r"(?:worth|amount(?:\s+of)?|value(?:\s+of)?)\s+\$?([\d,]+(?:\.\d+)?)", rest
        )
        if amount:
            fields["amount"] = {"amount": _number(amount[1]), "currency": "USD"}
        stage = re.search(r"stage\s+(\w+)", rest, re.I)
        if stage:
            fields["stage"] = stage[1].lower()
    return Plan(
        (_stage(("records.create", {"module": module, "displayName": name, "fields": fields})),)
    )


def _find(text: str, now: datetime) -> Plan | None:
    m = _FIND.match(text)
    if m is None:
        return None
    module, rest = _module(m["kind"]), m["rest"]
    args: dict[str, Any] = {"module": module, "limit": 10}
    conditions: list[dict[str, Any]] = []
    for pattern, op in (
        (r"(?:over|above|more than|greater than)", "gt"),
        (r"(?:under|below|less than)", "lt"),
    ):
        found = re.search(pattern + r"\s+\$?([\d,]+(?:\.\d+)?)", rest, re.I)
        if found:
            value = _number(found[1])
            conditions.append(
                {
                    "id": f"c{len(conditions) + 1}",
                    "fieldSlug": "amount",
                    "operator": op,
                    "value": value,
                }
            )
    stage = re.search(r"stage\s+(\w+)", rest, re.I)
    if stage:
        conditions.append(
            {
                "id": f"c{len(conditions) + 1}",
                "fieldSlug": "stage",
                "operator": "eq",
                "value": stage[1].lower(),
            }
        )
    if conditions:
        args["advancedFilter"] = {
            "root": {"id": "root", "conjunction": "AND", "conditions": conditions}
        }
    named = re.search(r"(?:named|called|matching|for)\s+['\"]?(.+?)['\"]?\s*$", rest, re.I)
    if named and not conditions:
        args["query"] = named[1]
    return Plan((_stage(("records.search", args)),))


def _update(text: str, now: datetime) -> Plan | None:
    m = _UPDATE.match(text)
    if m is None:
        return None
    module, name = MODULES[m["kind"].lower()], m["name"].strip(" '\"")
    field, raw = m["field"].lower(), m["value"].strip(" '\"")
    change: dict[str, Any] = {}
    if field == "name":
        change["displayName"] = raw
    elif field == "amount":
        change["fields"] = {"amount": {"amount": _number(raw.lstrip("$")), "currency": "USD"}}
    elif field == "email":
        change["fields"] = {"emails": [raw]}
    elif field == "phone":
        change["fields"] = {"phones": [raw]}
    else:
        change["fields"] = {field: raw.lower()}

    return _change(module, name, change)


def _change(module: str, name: str, change: dict[str, Any]) -> Plan:
    """Look the record up (the run shows what it read), then change the one record with that
    name: by its id when the search found exactly one, else by name, which the tool refuses
    with the candidates when several records have it."""

    def then(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        records = outcomes[0].result.get("records") if outcomes else None
        if not records:
            return []
        named = [r for r in records if str(r.get("displayName", "")).casefold() == name.casefold()]
        if len(named) == 1 and named[0].get("recordId"):
            target: dict[str, Any] = {"recordId": named[0]["recordId"]}
        else:
            target = {"name": name}
        return [("records.update", {"module": module, **target, **change})]

    search = ("records.search", {"module": module, "query": name, "limit": 10})
    return Plan((_stage(search), then))


def _moment(
    when: str, hour: str | None, minute: str | None, ampm: str | None, now: datetime
) -> str:
    when = when.lower()
    base = now
    if when == "tomorrow":
        base = now + timedelta(days=1)
    elif when[3:] in DAYS:  # the next such day, a week ahead when it is today
        ahead = (DAYS.index(when[3:]) - now.weekday() - 1) % 7 + 1
        base = now + timedelta(days=ahead)
    elif when.startswith("on "):
        base = datetime.fromisoformat(when[3:]).replace(tzinfo=now.tzinfo)
    elif when.startswith("in "):
        count, unit = int(when.split()[1]), when.split()[2].rstrip("s")
        base = now + timedelta(**{f"{unit}s": count})
        if hour is None:
            return base.replace(microsecond=0).isoformat()
    h = int(hour) if hour is not None else 9
    if ampm and ampm.lower() == "pm" and h < 12:
        h += 12
    if ampm and ampm.lower() == "am" and h == 12:
        h = 0
    moment = base.replace(hour=h % 24, minute=int(minute or 0), second=0, microsecond=0)
    return moment.isoformat()


def _remind(text: str, now: datetime) -> Plan | None:
    m = _REMIND.match(text)
    if m is None:
        return None
    due = _moment(m["when"], m["hour"], m["minute"], m["ampm"], now)
    return Plan((_stage(("reminders.create", {"text": m["text"], "dueAt": due})),))


def _reminders(text: str, now: datetime) -> Plan | None:
    if _REMINDERS.match(text) is None:
        return None
    return Plan((_stage(("reminders.list", {})),))


def _mail(text: str, now: datetime) -> Plan | None:
    m = _MAIL.match(text)
    if m is None:
        return None
    subject = (m["subject"] or "Hello").strip(" '\"")
    body = (m["body"] or subject).strip(" '\"")
    tool = "email.send" if m["verb"].lower() == "send" else "email.draft"
    return Plan((_stage((tool, {"to": [m["to"]], "subject": subject, "body": body})),))


def _outreach(text: str, now: datetime) -> Plan | None:
    m = _OUTREACH.match(text)
    if m is None:
        return None
    recipients = re.findall(EMAIL, m["to"])
    if not recipients:
        return None
    topic = (m["topic"] or "Introduction").strip(" '\"")
    name = (m["name"] or f"Outreach: {topic}").strip()
    steps = [
        {"subject": topic, "body": topic, "delayDays": 0},
        {"subject": f"Following up: {topic}", "body": topic, "delayDays": 3},
    ]
    draft = ("outreach.draft", {"name": name, "recipients": recipients, "steps": steps})
    if m["start"] is None:
        return Plan((_stage(draft),))
    start = _moment(m["start"], None, None, None, now)

    def schedule(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        sequence = _made(outcomes, "sequence")
        return (
            [("outreach.schedule", {"sequenceId": sequence, "startAt": start})] if sequence else []
        )

    return Plan((_stage(draft), schedule))


def _social(text: str, now: datetime) -> Plan | None:
    m = _SOCIAL.match(text)
    if m is None:
        return None
    network = NETWORKS[m["network"].lower()]
    draft = ("social.draft", {"network": network, "text": m["text"].strip(" '\"")})
    if m["verb"].lower().startswith("draft"):
        return Plan((_stage(draft),))

    def post(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        post_id = _made(outcomes, "post")
        return [("social.post", {"postId": post_id})] if post_id else []

    return Plan((_stage(draft), post))


def _page(text: str, now: datetime) -> Plan | None:
    m = _PAGE.match(text)
    if m is None:
        return None
    title = m["title"].strip()
    slug = m["slug"] or re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:64].strip("-")
    html = f"<h1>{_escape(title)}</h1>"
    create = ("pages.create", {"slug": slug, "title": title, "html": html})
    if m["verb"].lower() != "publish":
        return Plan((_stage(create),))

    def publish(outcomes: Sequence[ToolOutcome]) -> list[Call]:
        return [("pages.publish", {"slug": slug})] if _made(outcomes, "page") else []

    return Plan((_stage(create), publish))


def _made(outcomes: Sequence[ToolOutcome], key: str) -> str | None:
    """The id of the object the previous stage made, when it succeeded."""
    for outcome in outcomes:
        made = outcome.result.get(key)
        if outcome.status == "ok" and isinstance(made, Mapping) and made.get("id"):
            return str(made["id"])
    return None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
