"""Requests written as a note in Markdown or as a small form, in the plain words the offline
planner reads.

People who live in a notes app write a request as they would a note: a heading, bold labels,
bullets, a table, a value struck through and the new one after it::

    ## New contact
    - **Name:** Lynn Conway
    - **Title:** VP Engineering

    # Northwind Traders
    Employees: ~~420~~ **450**

    | Company | Field | New value |
    |---|---|---|
    | Tailspin Finance | Account health | 3 stars |

:func:`plain_markdown` takes the Markdown away (what was struck through goes with it: it is the
old value), :func:`plain_form` reads a heading over ``label: value`` lines as the request it is:
a create when the heading asks for a new record, an e-mail when it names one, a search, a list
with its conditions, or else a change of the record the heading names. As in
``offline_structured``, every label and value is passed on as said, for the planner to read
with its usual checks; nothing here writes by itself.
"""

from __future__ import annotations

import re

#: Markdown's marks, and whether a message has any (a plain message is left alone)
_MARKED = re.compile(
    r"^\s{0,3}#{1,6}\s|\*\*|__|~~|^\s*[-*+]\s|^\s*>|^\s*\|.*\|\s*$|\[[^\]]*\]\([^)]*\)|`", re.M
)
_STRUCK = re.compile(r"~~[^~\n]*~~\s*")
_EMPHASIS = re.compile(
    r"\*\*(?P<a>[^*\n]+?)\*\*|__(?P<b>[^_\n]+?)__|(?<![\w*])\*(?P<c>[^*\n]+?)\*(?![\w*])"
)
_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<url>[^)\s]*)\)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_BULLET = re.compile(r"^\s*(?:[-*+]|>)\s+(?:\[(?P<box>[ xX])\]\s+)?")
_QUOTE = re.compile(r"^\s*>\s?")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def plain_markdown(message: str) -> str:
    """The message without Markdown: headings, bullets and quotes as plain lines, emphasis and
    code as their text, a link as its address (or its text when that is no address), a table
    as lines (see :func:`_table`), and struck-through text gone."""
    if not _MARKED.search(message):
        return message
    text = _STRUCK.sub("", message)
    text = _LINK.sub(lambda m: m["url"] if "." in m["url"] else m["text"], text)
    text = _EMPHASIS.sub(lambda m: m["a"] or m["b"] or m["c"], text)
    text = text.replace("`", '"')  # code quotes a name: "`Send NDA to Hedy`"
    lines: list[str] = []
    rows: list[list[str]] = []
    for raw in text.splitlines():
        if raw.strip().startswith("|") and raw.strip().endswith("|"):
            if not _RULE.match(raw):
                rows.append([c.strip() for c in raw.strip().strip("|").split("|")])
            continue
        if rows:
            lines.extend(_table(rows))
            rows = []
        line = _HEADING.sub("", raw)
        bullet = _BULLET.match(line)
        if bullet:
            done = bullet["box"] in ("x", "X")
            line = line[bullet.end() :]
            line = f"mark {line.strip()} as done" if done else line
        lines.append(_QUOTE.sub("", line).rstrip())
    if rows:
        lines.extend(_table(rows))
    return "\n".join(lines).strip()


def _table(rows: list[list[str]]) -> list[str]:
    """A table's rows as lines. A table of changes (a record, a field and its new value) is one
    change a row; any other is read as ``header: cell`` lines, a row after another."""
    head, *body = rows
    if not body:
        return [" ".join(head)]
    lower = [h.lower() for h in head]
    field = next((i for i, h in enumerate(lower) if h in ("field", "attribute", "column")), None)
    value = next((i for i, h in enumerate(lower) if "value" in h or h in ("to", "new")), None)
    if field is not None and value is not None and len(head) == 3:
        (record,) = set(range(3)) - {field, value}
        return [
            f"set {row[record]}'s {row[field]} to {row[value]}." for row in body if len(row) == 3
        ]
    out: list[str] = []
    for row in body:
        out.extend(f"{h}: {c}" for h, c in zip(head, row, strict=False) if c)
    return out


_PAIR = re.compile(r"^\s*(?P<key>[A-Za-z][\w /'-]{0,30}?)(?<!\d)\s*:(?!\d)\s*(?P<value>\S.*?)\s*$")
#: a line that asks for something itself: the request typed under what was pasted, not a form
_ASKS = re.compile(
    r"^\s*(?:please\s+)?(?:remind|add|create|send|draft|write|find|look|show|list|set|update|"
    r"change|move|mark|log|book|schedule|can|could|would)\b",
    re.I,
)
_CREATE_HEAD = re.compile(
    r"^\s*(?:(?:new|add|create|add\s+an?|create\s+an?|an?\s+new)\s+)?"
    r"(?P<kind>contact|person|company|organisation|organization|account|deal|opportunity|task|"
    r"ticket|to-?do)(?:\s+to\s+add)?\s*(?::\s*(?P<name>.+?))?\s*$",
    re.I,
)
_NEW = re.compile(r"^\s*(?:new|add|create)\b|\bto\s+add\s*(?::|$)", re.I)
_MAIL_HEAD = re.compile(r"\b(?:send|draft|e-?mail|mail|message)\b", re.I)
_SEARCH_HEAD = re.compile(r"^\s*(?:search|find|look\s*up|lookup)\b", re.I)
_LIST_HEAD = re.compile(
    r"\b(?:contacts|people|companies|accounts|deals|opportunities|tasks|tickets|to-?dos)\b", re.I
)
_NAME_KEYS = ("name", "full name", "display name", "record")
_PERSON_KINDS = ("contact", "person")


def plain_form(message: str) -> str:
    """A heading over ``label: value`` lines (or condition lines under a list's heading) as the
    request it is; any other message as it is."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return message
    head, rest = lines[0], lines[1:]
    if any(_ASKS.match(line) for line in rest):
        return message
    pairs = [_PAIR.match(line) for line in rest]
    said = [(m["key"].strip(), m["value"].strip()) for m in pairs if m]
    loose = [line for line, m in zip(rest, pairs, strict=True) if not m]
    create = _CREATE_HEAD.match(head)
    if (_PAIR.match(head) and not create) or not (said or _LIST_HEAD.search(head)):
        return message
    by = {k.lower(): v for k, v in said}  # the values by their labels, in lower case
    if _REMINDER_HEAD.match(head):
        return _reminder(by, loose) or message
    if _MAIL_HEAD.search(head) and by.keys() & {"to", "recipient"}:
        return _mail(head, by, loose)
    if _SEARCH_HEAD.match(head):
        return _search(by) or message
    if create and (
        _NEW.search(head) or create["name"] or by.keys() & set(_NAME_KEYS) or "title" in by
    ):
        return _create(create["kind"].lower(), create["name"], said, loose)
    if _LIST_HEAD.search(head) and not said:
        return f"{head} with {' and '.join(loose)}"
    if loose:
        return message  # a record's heading over more than its values: not a form
    values = ", ".join(f"{k} {v}" for k, v in said)
    return f"update {head}: {values}"


def _create(kind: str, name: str | None, said: list[tuple[str, str]], loose: list[str]) -> str:
    details: list[str] = []
    for key, value in said:
        k = key.lower()
        if not name and (k in _NAME_KEYS or (k == "title" and kind not in _PERSON_KINDS)):
            name = value
            continue
        details.append(f"{'job title' if k == 'title' else key} {value}")
    if not name:
        return ", ".join([f"create a {kind}", *details])
    shown = name if kind in _PERSON_KINDS else '"' + name.strip('"') + '"'
    return ", ".join([f"create a {kind} {shown}", *details, *loose])


def _mail(head: str, by: dict[str, str], loose: list[str]) -> str:
    send = re.search(r"\bsend\b", head, re.I) and not re.search(r"\bdraft\b", head, re.I)
    to = by.get("to") or by.get("recipient", "")
    subject = by.get("subject") or by.get("re") or by.get("about") or by.get("topic")
    body = by.get("body") or by.get("message") or by.get("text")
    for line in loose:
        told = _TOLD.search(line)
        if told and not body:
            body = told["what"]
        if _KEPT_AS_DRAFT.search(line):
            send = False
    out = f"{'send' if send else 'draft'} an email to {to}"
    if subject:
        out += f' about "{subject}"'
    if body:
        out += f", saying {body}"
    return out


#: what a line under an e-mail's heading says its body is: "tell her the results are in"
_TOLD = re.compile(
    r"\b(?:tell|telling|say|saying|let)\s+(?:him|her|them)\s+(?:know\s+)?(?:that\s+)?"
    r"(?P<what>[^.;]+)",
    re.I,
)
_KEPT_AS_DRAFT = re.compile(
    r"\b(?:keep\s+it\s+as\s+a\s+draft|don'?t\s+send|do\s+not\s+send)\b", re.I
)
_REMINDER_HEAD = re.compile(r"^\s*(?:(?:new|set\s+a|add\s+a)\s+)?reminder\s*$", re.I)


def _reminder(by: dict[str, str], loose: list[str]) -> str | None:
    when = by.get("when") or by.get("at") or by.get("time") or by.get("due")
    what = by.get("what") or by.get("text") or by.get("about") or " ".join(loose)
    return f"remind me {when} to {what}" if when and what else None


def _search(by: dict[str, str]) -> str | None:
    query = by.get("query") or by.get("q") or by.get("term") or by.get("text")
    if not query:
        return None
    where = by.get("module") or by.get("modules") or by.get("in") or ""
    if where and not re.fullmatch(r"all|any|every(?:thing|\s+module)?|everywhere", where, re.I):
        return f'search {where} for "{query}"'
    return f'search for "{query}"'
