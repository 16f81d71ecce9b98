"""The offline planner: common requests into the tool calls a model would make. Record
requests (create, update, find, list) are read with the workspace's schema
(``offline_records``); reminders, e-mail, outreach, social posts and pages with the sentence
shapes below.

A plan is a sequence of stages, or a reply. The first stage's calls come from the message
alone; each later stage sees the outcomes of the stage before it (to use an id a tool
returned, or a record a search found) and returns the next calls, or a reply (a question when
it is unsure) that ends the plan. A stage that returns no calls ends it too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from fieldhouse.agents.contract import ToolOutcome
from fieldhouse.agents.providers.offline_context import request_first
from fieldhouse.agents.providers.offline_corrections import settle
from fieldhouse.agents.providers.offline_described import plan_described
from fieldhouse.agents.providers.offline_dialect import plain_dialect
from fieldhouse.agents.providers.offline_forms import plain_form, plain_markdown
from fieldhouse.agents.providers.offline_lexicon import plain_english
from fieldhouse.agents.providers.offline_mail import ToPerson, read_mail
from fieldhouse.agents.providers.offline_paste import (
    plain_fragment,
    plain_pasted,
    plain_referred,
    plain_so_request,
    plain_steps,
)
from fieldhouse.agents.providers.offline_phrasings import (
    EMAIL,
    closed_deals,
    group_mail,
    mail_found,
    rewrite,
)
from fieldhouse.agents.providers.offline_records import (
    Planned,
    clean,
    loose_update,
    name_search,
    plain_symbols,
    plan_records,
    route_of,
    without_title_dots,
)
from fieldhouse.agents.providers.offline_register import plain_register
from fieldhouse.agents.providers.offline_relay import plain_relayed
from fieldhouse.agents.providers.offline_schema import Workspace, builtin
from fieldhouse.agents.providers.offline_spelling import plain_spelling
from fieldhouse.agents.providers.offline_spoken import plain_dictated, plain_radio
from fieldhouse.agents.providers.offline_structured import Asked, plain_structured
from fieldhouse.agents.providers.offline_values import find_date, find_time
from fieldhouse.model.agent_policy import RECORD_WRITES

Call = tuple[str, dict[str, Any]]
Stage = Callable[[Sequence[ToolOutcome]], "list[Call] | str"]

NETWORKS = {"twitter": "x", "x": "x", "linkedin": "linkedin", "facebook": "facebook"}
NETWORKS |= {"instagram": "instagram", "mastodon": "mastodon", "bluesky": "bluesky"}
_POLITE = r"^\s*(?:please\s+|could you\s+|can you\s+)?"
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"


@dataclass(frozen=True)
class Plan:
    stages: tuple[Stage, ...]
    #: with no stages: the reply (a question, or why nothing can be done)
    reply: str = ""


def _stage(*calls: Call) -> Stage:
    return lambda _: list(calls)


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


_BUILTIN: list[Workspace] = []


#: the answer to a message that corrects itself in a way the reader cannot place
UNSETTLED = (
    "You changed a value as you wrote and I could not tell which one you meant, so I did "
    "nothing; say it once more with only the value you mean."
)


def plan_for(message: str, now: datetime, workspace: Workspace | None = None) -> Plan | None:
    """The plan for a message, or None when the planner does not understand it. ``workspace``
    is the schema record requests are read with (the built-in modules without one). A stage
    whose write would store a text that runs on into another sentence asks instead. An
    e-mail asked to go out later ("Email X about Y tomorrow") is drafted: nothing here sends
    later, and sending it now is not what was asked."""
    later = _SEND_LATER.search(message)
    if later:
        message = message[: later.start("when")].rstrip(" ,") + message[later.end("when") :]
    plan = _plan_for(message, now, workspace)
    if plan is None or not plan.stages:
        return plan
    # ("Divvent send it yet": the words it is read in)
    draft = bool(later) or any(_KEEP_DRAFT.search(m) for m in (message, plain_dialect(message)))
    doubt = _UNDECIDED.search(message)
    undecided = _undecided_reply(doubt) if doubt else None
    return Plan(
        tuple(_checked(stage, draft, undecided, message) for stage in plan.stages), plan.reply
    )


def _written_words(calls: Sequence[Call]) -> Iterator[str]:
    """The one-word values the record writes among ``calls`` would set ("won", "urgent"), each
    as a pattern that reads its hyphen as a space too ("do-not-contact")."""
    for tool, args in calls:
        if tool not in RECORD_WRITES:
            continue
        for value in (args.get("fields") or {}).values():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, str) and re.fullmatch(r"[\w-]{2,30}", v):
                    yield re.escape(v).replace(r"\-", r"[\s-]")


def _alternatives(message: str, calls: Sequence[Call]) -> str | None:
    """The words of the message that put a value a record write would set beside another
    ("stage won or lost", "priority high or urgent"): either may be meant."""
    for word in _written_words(calls):
        said = re.search(
            rf"\b{word}\s+or\s+(?!(?:not|so|else|something|anything)\b)[\w-]+"
            rf"|\b(?<!either\s)[\w-]+\s+or\s+{word}\b",
            message,
            re.I,
        )
        if said:
            return said.group()
    return None


def _negated(message: str, calls: Sequence[Call]) -> str | None:
    """The words of the message that deny a value a record write would set ("stage: not won
    yet", "priority: not urgent"): the value had been written."""
    for word in _written_words(calls):
        said = re.search(
            r"\b(?:not|isn'?t|aren'?t|no\s+longer|never)\s+(?:(?:yet|a|an|in|the)\s+)*"
            + word
            + r"\b",
            message,
            re.I,
        )
        if said:
            return said.group()
    return None


#: a change the person has not decided on: a question whether to make it ("Should I set ...
#: to won?"), a condition still to be met ("If the deal closes, set it to won", "... once they
#: sign"), a doubt ("..., not sure yet") or two values left open ("next Friday or the one
#: after"). A record written then would be a guess: the planner asks instead
_UNDECIDED = re.compile(
    r"^\s*(?:should|shall|must)\s+(?:i|we)\b"
    r"|^\s*(?:do|would)\s+you\s+think\s+(?:i|we)\s+should\b"
    r"|^\s*(?:what\s+if|if|once|unless|in\s+case)\s+(?!(?:you|it'?s|that'?s|possible|not\b))"
    r"[^,.;:?!]{3,80},"
    r"|[,;]?\s+(?:if|once|unless|as\s+soon\s+as)\s+(?:they|she|he|we|the\s+\w+)\s+"
    r"(?:sign|signs|close|closes|agree|agrees|confirm|confirms|approve|approves|say|says|"
    r"accept|accepts|reply|replies|pay|pays)\b"
    r"|\bnot\s+(?:sure|certain|decided)(?:\s+(?:yet|about\s+(?:that|this|it)))?\s*[.!?]*\s*$"
    r"|\bnot\s+(?:sure|certain|decided)\s+yet\b"
    r"|\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+not\s+(?:yet\s+)?(?:sure|certain|decided)\b"
    r"|\b(?:still\s+)?(?:undecided|tbc|tbd)\b\s*[.!?]*\s*$"
    r"|\bor\s+(?:maybe|perhaps|possibly)\b|\bor\s+the\s+(?:one|week|day|month)\s+after\b"
    # a change asked not to be made ("Don't move the Litware pilot to won yet")
    # (the whole request: not "Don't change the stage, only the amount: ...")
    r"|^\s*(?:please\s+)?(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:(?:yet|ever|now)\s+)?"
    r"(?:move|set|change|update|mark|tag|put|make|create|add|open|close|rename|raise|lower|bump|"
    r"push)\b(?![^!?]*\b(?:only|instead|but|rather|just|already)\b)"
    # a sum for a period where the field holds one sum ("12k per month"), a probability said as
    # a fraction ("probability to 0.4": 40%, or 0.4%?)
    r"|[$€£]?\d[\d,.]*\s*(?:k|m|grand|thousand|million)?\s*(?:per|a|an|/)\s*(?:month|mo|year|yr|week|"
    r"annum|quarter)\b(?![^!?]*(?:->|=>|\bas\s+(?:the\s+)?amount\b|\btotal\b))"
    r"|\bprobability\b[^.!?]{0,40}?(?<![\d.])0?\.\d+\b(?!\s*%)"
    # a number below zero ("minus 500", "-500"): its sign is lost in reading, and no field
    # here holds one
    r"|\b(?:minus|negative)\s+[$€£]?\d[\d,.]*|(?:^|(?<=[\s(]))-[$€£]?\d[\d,.]*"
    # a day the month does not have ("the 31st of February"), an address with no domain
    # ("jane@doe"): read as some other day, or dropped
    r"|\b(?:3[01])(?:st|th)?\s+(?:of\s+)?feb(?:ruary)?\b|\bfeb(?:ruary)?\s+3[01]\b"
    r"|\b31(?:st)?\s+(?:of\s+)?(?:apr(?:il)?|june?|sep(?:t(?:ember)?)?|nov(?:ember)?)\b"
    r"|\b(?:apr(?:il)?|june?|sep(?:t(?:ember)?)?|nov(?:ember)?)\s+31\b"
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+\b(?![\w-]*\.[\w-])"
    # a question whether it was done ("Did we mark the Litware pilot as won?"), a value put up
    # to be confirmed ("... is CTO now, right?", "..., can you check?"): not a request to write
    r"|^\s*(?:did|have|has|had)\s+(?:we|you|i|they|he|she|someone|somebody|anyone|anybody)\b"
    r"|,?\s+(?:right|correct|isn'?t\s+(?:it|she|he|that)|is\s+that\s+(?:right|correct|so)|"
    r"am\s+i\s+right|or\s+not)\s*\?+\s*$"
    # a value put up with a question mark and no request ("Litware pilot stage -> won?",
    # "Grace's title is CTO?"); "Move it to won, can?" and "Could you ...?" ask for it
    r"|^(?!\s*(?:please\s+|pls\s+|kindly\s+)?(?:move|set|change|update|mark|put|make|create|"
    r"add|log|rename|raise|lower|bump|push|assign|give|record|register|enter|book|schedule|"
    r"email|send|remind)\b)"
    r"(?![^?]*\b(?:can|could|would|will|may|might|mind|possible|way|chance|please|pls|plz|"
    r"kindly|want|need|like|should|rather|instead|right|correct|isn'?t|or\s+not)\b)[^.!?;]*\?+\s*$"
    r"|\b(?:can|could|would)\s+you\s+(?:please\s+)?(?:check|confirm|verify|double[\s-]?check)\b"
    r"(?![^.!?]*\b(?:and|then|otherwise|if\s+not)\b[\s,]*(?:if\s+not\b[\s,]*)?(?:please\s+)?"
    r"(?:update|set|change|fix|correct|mark|move|make|create|add|put)\b)"
    # a day said vaguely ("sometime next month", "around the 15th", "move it to next week"): any
    # one day written would be a guess
    # (each day's words in a group of its own, :data:`_VAGUE_DAY`, quoted in the answer)
    r"|\b(?P<day1>(?:sometime|some\s+time|at\s+some\s+point|early|mid|late|later)[\s-]+"
    r"(?:in\s+)?(?:this|next|the\s+coming)\s+(?:week|month|quarter|year))\b"
    r"|\b(?P<day2>(?:around|about|approximately|roughly)\s+the\s+\d{1,2}(?:st|nd|rd|th))\b"
    r"|(?:\b(?:due|close\s+date|closes?|closing|deadline|until|till|by)|"
    r"\b(?:move|push|postpone|delay|shift|reschedule|set|change|bump)\b[^.!?]{0,80}?\bto)\s+"
    r"(?P<day3>(?:next|this)\s+(?:week|month))\b(?!\s*'s)"
    r"(?!\s+(?:on\s+)?(?:mon|tue|wed|thu|fri|sat|sun))",
    re.I,
)
#: the groups of :data:`_UNDECIDED` that hold a day said vaguely
_VAGUE_DAY = ("day1", "day2", "day3")


def _undecided_reply(doubt: re.Match[str]) -> str:
    """Why a change was not made, by what the message said (a match of :data:`_UNDECIDED`)."""
    said = doubt.group().strip(" ,.")
    if re.match(r"(?:don'?t|do\s+not|never|no\s+need)\b", said, re.I):
        return f"You asked me not to ({said!r}), so I changed nothing."
    day = next((doubt[g] for g in _VAGUE_DAY if doubt[g]), None)
    if day:
        return (
            f"{day!r} names no single day, so I changed nothing yet; say the day you mean "
            "(for example 'the 15th of next month' or 'next Friday')."
        )
    if re.match(r"(?:did|have|has|had)\b", said, re.I):
        return (
            "You asked whether it was done, so I changed nothing; to have me make the change, "
            "say it (for example 'set ... to ...')."
        )
    if said.endswith("?") or re.match(r"(?:can|could|would)\b", said, re.I):
        return (
            f"You asked whether it is so ({said!r}), so I changed nothing; to have me change "
            "it, say the change itself (for example 'set ... to ...')."
        )
    if re.search(r"[\d@]", said):
        return (
            f"I could not tell what {said!r} should be stored as, so I changed nothing yet; "
            "say the value as the field holds it (one total amount, a percentage, a day the "
            "month has, a whole e-mail address)."
        )
    return (
        f"That sounds undecided ({said!r}), so I changed nothing yet. Tell me once it is "
        "decided, and I will make the change."
    )


#: an e-mail about a subject, to go out at a later time ("Email Grace Hopper about the renewal
#: tomorrow"): no body said ("saying ...", "that ...", a colon), so the time is no part of one
_SEND_LATER = re.compile(
    r"^\s*(?:please\s+)?(?:e-?mail|send\s+(?:an?\s+)?e-?mail\s+to|mail)\b"
    r"(?![^.!?]*\b(?:saying|says|that|telling|to\s+say|body|tell\s+(?:him|her|them))\b)(?![^:]*:)"
    r"[^.!?]*?\babout\b[^.!?]*?\s(?P<when>tomorrow|tonight|later(?:\s+today)?|next\s+week|"
    r"(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|first\s+thing|"
    r"at\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?)\s*[.!]?\s*$",
    re.I,
)
#: the person asks that the e-mail not go out ("Draft only", "don't send it yet", "on hold")
_KEEP_DRAFT = re.compile(
    r"\b(?:draft\s+only|(?:only|just)\s+(?:as\s+)?(?:an?\s+)?draft|(?:don'?t|do\s+not|not)\s+send|"
    r"as\s+an?\s+draft|keep\s+it\s+(?:as\s+)?(?:an?\s+)?draft|save\s+(?:it\s+)?as\s+(?:an?\s+)?draft|"
    r"hold\s+off|on\s+hold)\b",
    re.I,
)
#: a closing sentence of the body that only says to keep it a draft
_DRAFT_TAIL = re.compile(
    r"(?:^|(?<=[.!?])\s+|\s*[,;]\s*)[^.!?]*?" + _KEEP_DRAFT.pattern + r"[^.!?]*[.!?]?\s*$", re.I
)


def _kept_a_draft(call: Call) -> Call:
    """A send the person asked to keep as a draft, as the draft; the body without the
    sentence that said so."""
    _, args = call
    body = _DRAFT_TAIL.sub("", str(args.get("body") or "")).strip() or str(args.get("subject"))
    kept: dict[str, Any] = {k: args[k] for k in ("to", "cc", "subject") if k in args}
    return ("email.draft", {**kept, "body": body})


#: a text that runs on into another sentence ("tasting menu. Ask her which night ...") or
#: starts with a mark: a name, title or subject read past its end
_RUN_ON = re.compile(
    r"^\s*(?:[.,;:!?\u2014\u2013]|as\s+an?\s)|[.!?]\s+(?:(?:please|and|but|so|then|also)\s+)?(?:ask|tell|remind|"
    r"thank|invite|let|make|set|add|put|mark|send|draft|keep|hold|she|he|they|we|i|her|him|them|"
    r"it|its|this|that)\b",
    re.I,
)


def _run_on(call: Call) -> str | None:
    """The text of a write that runs on into another sentence, if one does."""
    name, args = call
    said: list[Any] = []
    if name in ("records.create", "records.update"):
        said = [args.get("displayName"), *dict(args.get("fields") or {}).values()]
    elif name in ("email.draft", "email.send"):
        said = [args.get("subject")]
    return next((t for t in said if isinstance(t, str) and _RUN_ON.search(t)), None)


def _checked(
    stage: Stage, draft: bool = False, undecided: str | None = None, message: str = ""
) -> Stage:
    """``stage`` whose writes are checked: a send the message asked to hold is a draft, a
    write whose text runs on is asked about, and so is a record's change the message left
    ``undecided`` (the answer that says so)."""

    def run(outcomes: Sequence[ToolOutcome]) -> list[Call] | str:
        calls = stage(outcomes)
        if isinstance(calls, str):
            return calls
        if undecided and any(c[0] in RECORD_WRITES for c in calls):
            return undecided
        either = _alternatives(message, calls)
        if either:
            return (
                f"You said {either!r}: which one do you mean? I changed nothing yet; say the "
                "one value, and I will make the change."
            )
        denied = _negated(message, calls)
        if denied:
            return (
                f"You said {denied!r}, so I did not write that value; say the value it should "
                "be instead, and I will make the change."
            )
        if draft:
            calls = [_kept_a_draft(c) if c[0] == "email.send" else c for c in calls]
        for call in calls:
            text = _run_on(call)
            if text is not None:
                return (
                    f"I could not tell where {text!r} ends, so I wrote nothing; say it again "
                    "with each value in its own part, please."
                )
        return calls

    return run


def _plan_for(message: str, now: datetime, workspace: Workspace | None = None) -> Plan | None:
    if workspace is None:
        if not _BUILTIN:
            _BUILTIN.append(builtin())
        workspace = _BUILTIN[0]
    message = plain_radio(plain_dictated(plain_dialect(message)))
    message = plain_form(plain_steps(plain_pasted(plain_markdown(message))))
    message = plain_referred(plain_fragment(message))
    message = plain_so_request(message)
    structured = plain_structured(message, workspace)
    if isinstance(structured, Asked):  # code that names a value still to be filled in
        return Plan((), str(structured))
    if structured:
        message = plain_english(structured)
    else:  # (code is read by its keys: its spelling is left as typed)
        message = plain_relayed(plain_spelling(plain_english(message), workspace))
    settled = settle(plain_symbols(message))
    if settled is None:  # a correction the reader cannot place: ask, do not guess
        return Plan((), UNSETTLED)
    message = plain_register(without_title_dots(settled))
    said = rewrite(" ".join(message.split()).strip())
    text = rewrite(clean(message))  # without "please", "could you" and the like
    parsers = (_remind, _remind_any, _reminders, _mail, _mail_slots, _outreach, _social, _page)
    for parse in parsers:
        plan = parse(said, now) or parse(text, now)
        if plan is not None:
            return plan
    calls = closed_deals(said, now) or closed_deals(text, now)
    if calls is not None:
        return Plan((_stage(*calls),))
    mail = group_mail(said) or group_mail(text)
    if mail is not None:
        return Plan(mail)
    if _MAILISH.search(text):  # an e-mail the shapes above could not read: ask, do not guess
        return Plan(
            (),
            "Who should I e-mail, and about what? Give an address or a contact's full name, "
            'and a subject: "email Ada Lovelace about the renewal".',
        )
    text = request_first(text, workspace, now.date())
    described = plan_described(text, workspace, lambda named: _planned(named, now, workspace))
    if described is not None:  # a record said by what it holds: looked up, then named
        return Plan(described) if not isinstance(described, str) else Plan((), described)
    planned = plan_records(text, now, workspace)
    if (
        planned is None
        or isinstance(planned, str)
        or (_CHANGE_SAID.search(text) and route_of(text, workspace, now.date()) == "find")
    ):
        # a change said in no shape the update reads, or asked for inside a question
        planned = loose_update(text, now, workspace) or planned
    if planned is None:
        planned = name_search(text, workspace)  # not understood, but a name is said: look
    if planned is None:
        return None
    if isinstance(planned, str):
        return Plan((), planned)
    return Plan(planned)


def _planned(message: str, now: datetime, workspace: Workspace) -> Planned | None:
    """The plan for a message as stages, or its reply (a described record's message, read
    again with the record's name)."""
    plan = plan_for(message, now, workspace)
    if plan is None:
        return None
    return plan.stages or plan.reply


#: a verb that asks for a change, said anywhere in the message
_CHANGE_SAID = re.compile(
    r"\b(?:set|change|update|mark|flag|amend|raise|lower|move|bump|correct)\b", re.I
)
_MAILISH = re.compile(
    r"^\W*(?:(?:send|write|draft|compose)\s+(?:an?\s+|the\s+)?(?:e-?mail|message|note)|"
    r"e-?mail|message|write\s+to)\b",
    re.I,
)


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
    if _VAGUE.fullmatch(m["text"].strip()):
        return Plan((), "What should I remind you about?")
    due = _moment(m["when"], m["hour"], m["minute"], m["ampm"], now)
    return Plan((_stage(("reminders.create", {"text": m["text"], "dueAt": due})),))


_REMIND_ANY = re.compile(
    # after what led to it ("The decision comes after their board meets, so remind me ...")
    r"^(?:.*?(?:[,;.!?]\s+(?:so\s+|and\s+|but\s+)?|\s+so\s+)(?=(?:please\s+)?remind\s+me\b))?"
    r"\W*(?:(?:please|pls|can\s+you|could\s+you)\s+)?(?:remind\s+me|remember\s+me|"
    r"(?:set|put|add)\s+(?:me\s+)?(?:a\s+|up\s+a\s+)?(?:reminder|remider)|(?:reminder|remider)\b\s*:?|"
    r"(?:don'?t|do\s+not)\s+let\s+me\s+forget|ping\s+me|nudge\s+me)\s*(?P<rest>.*)$",
    re.I,
)
#: a reminder asked for after the moment was said ("call back in 3 days at 14:00; set a
#: reminder 'Call back Ken'"): its text quoted
_REMIND_LATE = re.compile(
    r"[;.]\s*(?:please\s+)?(?:set|put|add)\s+(?:a\s+)?reminder\s*:?\s*(?P<q>['\"].+['\"])\s*[.!]?$",
    re.I,
)


def _remind_any(text: str, now: datetime) -> Plan | None:
    """ "remind me friday at 3pm to X", "set a reminder for tmrw: X": the moment read from
    anywhere in the sentence, the rest is the reminder's text."""
    m = _REMIND_ANY.match(text)
    late = None if m else _REMIND_LATE.search(text)
    if m is None and late is None:
        return None
    rest = m["rest"] if m else text[: late.start()] if late else ""
    moment = _reminder_moment(rest, now)
    if isinstance(moment, str):
        return Plan((), moment)
    due, cut = moment
    said = _reminder_text(late["q"] if late else cut)
    if not said:
        return Plan((), "What should I remind you about?")
    if re.match(r"(?:at|on|by)\b", said, re.I) or re.search(r"\d:\d\d|\b(?:am|pm)\b", said, re.I):
        return Plan((), 'When should I remind you? Say a day and a time, e.g. "tomorrow at 9".')
    stamp = due.replace(second=0, microsecond=0).isoformat()
    return Plan((_stage(("reminders.create", {"text": said, "dueAt": stamp})),))


def _reminder_moment(rest: str, now: datetime) -> tuple[datetime, str] | str:
    """When the reminder is due and the words without the moment; or the question. A reminder
    that repeats ("every Monday") or a day already gone ("yesterday") is asked about: it had
    been set once, for next Monday, or for a moment past."""
    repeats = _REPEATS.search(rest)
    if repeats:
        return (
            f"I can only set a reminder for one moment, not {repeats.group()!r}; say the first "
            "day and time (for example 'next Monday at 9am'), and I will set that one."
        )
    when = find_date(rest, now.date())
    if when is not None and isinstance(when.value, date) and when.value < now.date():
        return (
            f"{when.value.isoformat()} has already gone; say a day still to come for the reminder."
        )
    time = find_time(rest)
    relative = re.search(r"\bin\s+(?P<n>\d+)\s+(?P<unit>minute|hour)s?\b", rest, re.I)
    spans = [(f.start, f.end) for f in (when, time) if f is not None]
    if relative:
        due = now + timedelta(**{f"{relative['unit'].lower()}s": int(relative["n"])})
        spans = [(relative.start(), relative.end())]
    elif when is None and time is None:
        return 'When should I remind you? Say a day or a time, e.g. "tomorrow at 9".'
    else:
        day = when.value if when is not None else now.date()
        hour, minute = time.value if time is not None else (9, 0)
        due = datetime(day.year, day.month, day.day, hour, minute, tzinfo=now.tzinfo)
    cut = rest
    for start, end in sorted(spans, reverse=True):
        cut = cut[:start] + " " + cut[end:]
    return due, cut


#: a reminder said to repeat
_REPEATS = re.compile(
    r"\b(?:every|each)\s+(?:other\s+)?(?:day|morning|afternoon|evening|night|week|weekday|month|"
    r"quarter|year|\d+|(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?\b|"
    # ("daily", "weekly" as an adverb, not "the weekly report")
    r"\b(?:daily|weekly|monthly|fortnightly|yearly|annually)\b"
    r"(?=\s*(?:$|[.,;!?]|(?:to|at|on|from|starting|until)\b))",
    re.I,
)


def _reminder_text(cut: str) -> str:
    said = " ".join(cut.split())
    said = re.sub(
        r"^\s*(?:for\s+)?(?:utc\b\s*)?(?:to\s+|that\s+|about\s+|:\s*)", "", said, flags=re.I
    )
    said = re.sub(r"^[\s:,.-]*(?:utc\b)?[\s:,.-]*", "", said, flags=re.I)
    said = re.sub(r"^(?:to|that|about)\s+|\s+(?:to|at|on|by)$", "", said.strip(" :,.-"), flags=re.I)
    said = said.strip(" '\"")
    # "Remind me sometime next week": when, vaguely, and nothing to remind of
    return "" if _VAGUE.fullmatch(said) else said


#: words that only say when, vaguely: no reminder's text
_VAGUE = re.compile(
    r"(?:(?:some\s*time|at\s+some\s+point|later(?:\s+on)?|soon(?:ish)?|again|then|around|"
    r"or\s+so|ish|maybe|please|pls)\s*)+",
    re.I,
)


def _reminders(text: str, now: datetime) -> Plan | None:
    lower = text.lower()
    if (_REMINDERS.match(text) is None and not re.search(r"\breminders\b", lower)) or re.search(
        r"\b(?:delete|remove|cancel)\b", lower
    ):
        return None
    args: dict[str, Any] = {}
    # "not fired yet", "haven't gone off": still to come ("n't" inside "haven't" has no \b)
    waiting = re.search(
        r"(?:\bnot|n't|\bnever)\s+(?:yet\s+|been\s+)?(?:fired|gone\s+off|went\s+off|triggered)\b"
        r"|\b(?:yet|still|waiting)\s+to\s+(?:go\s+off|fire|trigger)\b",
        lower,
    )
    if not waiting and re.search(r"\b(?:went\s+off|fired|past|already|old|done|missed)\b", lower):
        args["status"] = "fired"
    elif waiting or re.search(
        r"\b(?:upcoming|scheduled|pending|future|coming|next|open|queued|outstanding)\b", lower
    ):
        args["status"] = "scheduled"
    return Plan((_stage(("reminders.list", args)),))


def _mail(text: str, now: datetime) -> Plan | None:
    m = _MAIL.match(text)
    if m is None:
        return None
    subject = (m["subject"] or "Hello").strip(" '\"")
    body = (m["body"] or subject).strip(" '\"")
    tool = "email.send" if m["verb"].lower() == "send" else "email.draft"
    return Plan((_stage((tool, {"to": [m["to"]], "subject": subject, "body": body})),))


def _mail_slots(text: str, now: datetime) -> Plan | None:
    """An e-mail to an address said in any order ("send x@y a note saying ..., subject ...")."""
    mail = read_mail(text)
    if mail is None:
        return None
    if isinstance(mail, ToPerson):
        return Plan(mail_found(mail.name, mail.tool, mail.subject, mail.body, person=True))
    return Plan((), mail) if isinstance(mail, str) else Plan((_stage(mail),))


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
