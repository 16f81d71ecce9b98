"""An e-mail to an address, read by its slots wherever they are said: the verb (send, or draft
and its kin), the addresses (``cc`` ones apart), the subject after "subject"/"subj" and the body
after "body"/"saying", each quoted or running to the next slot.

Without a subject, or when the message says neither send nor draft, nothing is written: the
planner asks (an e-mail that goes out is a write nobody can take back).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fieldhouse.agents.providers.offline_values import EMAIL

Mail = tuple[str, dict[str, Any]] | str
_SUBJECT = re.compile(r"\b(?:subject(?:\s+line)?|subj)\b\s*(?:is\s+)?[:=]?\s*|\bre:\s*", re.I)
_BODY = re.compile(
    r"\b(?:body|saying|(?:say|tell\s+(?:him|her|them))(?=\s+\w)|"
    # "send x@y a quick note: ..." (the words after the colon are the body)
    r"(?:quick\s+|short\s+|brief\s+)?(?:note|message|line)(?=\s*:)|"
    r"(?:letting|let|to\s+let)\s+(?:him|her|them)\s+know(?:\s+that)?|"
    r"(?:telling|informing)\s+(?:him|her|them)(?:\s+that)?)\b\s*(?:is\s+)?[:=]?\s*",
    re.I,
)
#: what the e-mail is for, said after its subject without a body keyword: the body
_PURPOSE = re.compile(
    r"[,;]\s*((?:asking|thanking|inviting|reminding|letting\s+(?:him|her|them)\s+know)\b.+?)"
    r"\s*[.!?]?$",
    re.I,
)
_SLOT_END = re.compile(r"\s*(?:[,;]\s*|\s+(?=(?:body|saying|subject|subj)\b)|$)", re.I)
_DRAFT = re.compile(
    r"\b(?:draft|prepare|compose|write)\b|\b(?:don'?t|do\s+not)\s+send\b|\bnot\s+send\b", re.I
)
_SEND = re.compile(r"\bsend\b", re.I)
_MAIL_VERB = re.compile(r"\b(?:e-?mail|send|draft|write|compose|prepare|note|message)\b", re.I)
_CREATE = re.compile(r"^\W*(?:add|create|new|update|set|change|log|\+)", re.I)
_QUOTE = re.compile(r"(?P<q>['\"\u2018\u201c])(?P<text>.+?)['\"\u2019\u201d](?!\w)")
#: "katherine dot johnson at tailspin dot example": an address said aloud
_SPOKEN = re.compile(
    r"\b(?P<user>[a-z0-9]+(?:\s+dot\s+[a-z0-9]+)*)\s+at\s+(?P<host>[a-z0-9-]+(?:\s+dot\s+[a-z]+)+)\b",
    re.I,
)


def spoken_addresses(text: str) -> str:
    """The text with addresses said aloud written as addresses."""

    def written(m: re.Match[str]) -> str:
        user = re.sub(r"\s+dot\s+", ".", m["user"], flags=re.I)
        host = re.sub(r"\s+dot\s+", ".", m["host"], flags=re.I)
        return f"{user}@{host}"

    return _SPOKEN.sub(written, text)


@dataclass(frozen=True)
class ToPerson:
    """An e-mail to a contact said by name: looked up first, its address then used."""

    name: str
    tool: str
    subject: str
    body: str


def read_mail(message: str) -> Mail | ToPerson | None:
    """The e-mail call a message asks for (or the person to look up for it), a question, or
    None when it is not such a message."""
    text = spoken_addresses(message)
    subject_at = _SUBJECT.search(text)
    if subject_at is None or _CREATE.match(text):
        return None
    head = text[: subject_at.start()]
    if not _MAIL_VERB.search(head):
        return None
    found = _fill(text, subject_at)
    if isinstance(found, str):
        return found
    tool, subject, body = found
    to, cc = _addresses(head)
    if not to:
        name = _name_said(head)
        return ToPerson(name, tool, subject, body) if name else None
    args: dict[str, Any] = {"to": to, "subject": subject, "body": body}
    if cc:
        args["cc"] = cc
    return (tool, args)


def purpose_body(said: str) -> str:
    """What an e-mail is for, written as its body ("asking if he is free" is "Asking if he is
    free.")."""
    return said[0].upper() + said[1:] + "."


def _fill(text: str, subject_at: re.Match[str]) -> tuple[str, str, str] | str:
    """The tool (send or draft), the subject and the body; or the question to ask."""
    subject = _slot(text, subject_at.end())
    if not subject:
        return "What should the e-mail's subject be?"
    body_at = _BODY.search(text)
    purpose = _PURPOSE.search(text, subject_at.end())
    if body_at:
        body = _slot(text, body_at.end(), body=True)
    elif purpose:  # "subject 'Quick sync?', asking if he is free on Tuesday"
        body = purpose_body(purpose[1])
    else:
        body = _quoted_body(text, subject)
    verbs = text.replace(body, " ") if body else text  # "body: please send ...": not a verb
    tool = "email.draft" if _DRAFT.search(verbs) else "email.send" if _SEND.search(verbs) else ""
    if not tool and re.match(r"\W*e-?mail\b", text, re.I):
        tool = "email.send"  # "email x@y: subject ...": e-mail them
    if not tool:
        return "Should I send that e-mail now, or keep it as a draft?"
    return tool, subject, body or subject


#: words that end a name said after the verb ("email radia perlman um just draft it")
_NOT_NAME = {
    "um", "uh", "just", "an", "a", "the", "email", "e-mail", "mail", "note", "message", "draft",
    "about", "re", "and", "with", "please", "pls", "it", "quick", "only", "now", "today",
}  # fmt: skip
_NAME_AT = re.compile(
    r"(?:\b(?:to|for)\s+|^\W*(?:send|e-?mail|write|message)\s+)"
    r"(?=(?P<name>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){1,4}))",
    re.I,
)


def _name_said(head: str) -> str | None:
    """A contact's name (two or three words) said as whom to e-mail."""
    for m in _NAME_AT.finditer(head):
        said: list[str] = []
        for word in m["name"].split():
            if word.lower() in _NOT_NAME or len(said) == 3:
                break
            said.append(word)
        if len(said) >= 2:
            return " ".join(said)
    return None


def _quoted_body(text: str, subject: str) -> str:
    """Without a body keyword: a quoted text that is not the subject ("send x@y the message
    'Workshop moved' with subject 'Workshop'"), else the subject."""
    quoted = [m["text"].strip() for m in _QUOTE.finditer(text) if m["text"].strip() != subject]
    return quoted[0] if len(quoted) == 1 else subject


def _slot(text: str, start: int, *, body: bool = False) -> str:
    """A slot's words: the quoted text right after its keyword, else up to the next slot (a
    body runs to the end but for a last sentence that says how to send)."""
    quoted = _QUOTE.match(text, start)
    if quoted:
        return quoted["text"].strip()
    if body:
        rest = text[start:]
        cut = re.search(r"[,;.]?\s*(?:subject|subj)\b", rest, re.I)
        rest = rest[: cut.start()] if cut else rest
        rest = re.sub(r"\.\s+[^.]*\b(?:draft|send)\b[^.]*\.?\s*$", "", rest, flags=re.I)
        return rest.strip(" .'\"")
    end = _SLOT_END.search(text, start)
    return text[start : end.start() if end else len(text)].strip(" .'\"")


def _addresses(head: str) -> tuple[list[str], list[str]]:
    """The addresses said before the subject: to whom, and who is copied ("cc x@y")."""
    to: list[str] = []
    cc: list[str] = []
    for m in re.finditer(EMAIL, head):
        copied = re.search(r"\b(?:cc|copy|copying)\s*:?\s*$", head[: m.start()], re.I)
        (cc if copied else to).append(m[0].rstrip("."))
    return to, cc
