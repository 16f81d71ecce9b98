"""Requests typed under a pasted e-mail or invite, or spelled out as numbered steps, or as a
note with the verb last, in the plain words the offline planner reads.

People paste what they received and type the request below it::

    From: Ravi Menon <ravi.menon@contoso.example>
    Subject: Introduction
    > ...
    Best,
    Ravi Menon
    Head of Procurement | Contoso Health

    Add him as a contact.

The pasted part asks nothing by itself: the request is the last paragraph, and the paste only
tells who "him", "her", "them", "the sender" or "that number" are. "Add him as a contact"
becomes a create with the sender's name, address, and the title, company and phone of the
signature; "look them up" a search for the sender's address; a sender's first name alone
("Send Leslie an email") the sender's full name.

Others number their steps ("Steps: 1) New deal. 2) Name: "X". 3) Company: Y", "Step one: open
the contact X. Step two: untick Do not contact."): the steps are one request, read as one
sentence. Notes to self put the verb last ("Omar Haddad, Research Engineer, Litware Labs.
contact, create.") or leave it out ("Task, renew SSL certs, Friday, high priority, mine."):
the verb goes first.

A request can also follow the story it is about in plain text: "Just met Bartholomew Quist from
Fabrikam Software at the expo, he runs their partner programme. Can you add him?". The story
becomes the new record's details: "add a contact: Bartholomew Quist from Fabrikam Software ...".

As in ``offline_relay``, a rewrite keeps every word that names a record, a field or a value;
the planner reads the result with its usual checks, so a rewrite writes nothing by itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fieldhouse.agents.providers.offline_values import EMAIL, PHONE

#: a header line of a pasted e-mail or invite
_HEADER = re.compile(
    r"^\s*(?P<key>from|to|cc|bcc|sent|date|subject|when|where|organi[sz]er|attendees|"
    r"reply-to|invitation|location)\s*:\s*(?P<value>.*)$",
    re.I,
)
#: a line that marks a forwarded message
_FORWARDED = re.compile(
    r"^\s*(?:-{2,}\s*)?(?:begin\s+)?(?:forwarded|original)(?:\s+message)?\s*:?\s*(?:-{2,})?\s*$",
    re.I,
)
#: the line a signature starts after ("--", "-- "), or a sign-off ("Best,", "Thanks,")
_SIGNATURE = re.compile(r"^\s*--\s*$")
_SIGN_OFF = re.compile(
    r"^\s*(?:best(?:\s+regards)?|kind\s+regards|regards|thanks|thank\s+you|cheers|sincerely|"
    r"all\s+the\s+best|warm(?:est)?\s+regards)\s*,?\s*$",
    re.I,
)
_ADDRESS = re.compile(EMAIL)
_PHONE = re.compile(PHONE)
#: "Name <address>" or a bare address or a bare name
_SENDER = re.compile(r"^\s*(?P<name>[^<>@]*?)\s*(?:<(?P<address>[^>]+)>)?\s*$")


@dataclass
class _Paste:
    """What a pasted message tells: its sender, its signature's lines, numbers in it."""

    name: str = ""
    address: str = ""
    signature: list[str] = field(default_factory=list)
    phones: list[str] = field(default_factory=list)


def plain_pasted(message: str) -> str:
    """The request typed under a pasted e-mail or invite, its references to the paste said
    in full; any other message as it is."""
    lines = message.strip().splitlines()
    if len(lines) < 2 or not (_HEADER.match(lines[0]) or _FORWARDED.match(lines[0])):
        return message
    paragraphs = _paragraphs(lines)
    request = paragraphs[-1]
    if any(_HEADER.match(line) or line.lstrip().startswith(">") for line in request):
        return message  # no request of its own below the paste
    paste = _read(lines[: len(lines) - len(request)])
    return _resolved(" ".join(line.strip() for line in request), paste)


def _paragraphs(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


def _read(lines: list[str]) -> _Paste:
    paste = _Paste()
    in_signature = False
    for line in lines:
        header = _HEADER.match(line)
        if header and header["key"].lower() == "from" and not paste.name and not paste.address:
            value = header["value"].strip()
            sender = _SENDER.match(value)
            if _ADDRESS.fullmatch(value):  # a bare address
                paste.address = value
            elif sender:
                paste.name = sender["name"].strip().strip('"')
                paste.address = (sender["address"] or "").strip()
            continue
        if header or _FORWARDED.match(line):
            continue
        if _SIGNATURE.match(line) or _SIGN_OFF.match(line):
            in_signature = True
            continue
        paste.phones += [p.strip() for p in _PHONE.findall(line)]
        if in_signature and line.strip():
            paste.signature.append(line.strip())
        elif not line.strip():
            in_signature = False
    return paste


_PRONOUN = r"(?:him|her|them|this\s+person|the\s+sender|this\s+sender)"


def _resolved(request: str, paste: _Paste) -> str:
    who = paste.name or paste.address
    if not who:
        return request
    contact = re.match(
        r"^\s*(?:please\s+)?(?:(?:add|save|create|put)\s+" + _PRONOUN + r"\s+"
        r"(?:as\s+an?\s+(?:new\s+)?contact|to\s+(?:the\s+)?contacts|in(?:to)?\s+(?:the\s+)?"
        r"contacts)|(?:an?\s+)?new\s+contact(?:\s+please)?|(?:add|create)\s+(?:an?\s+)?"
        r"(?:new\s+)?contact(?:\s+for\s+" + _PRONOUN + r")?)\s*(?:please)?\s*[.!]?\s*$",
        request,
        re.I,
    )
    if contact and _NAMED.fullmatch(paste.name):  # a person's name, not "unknown"
        return _new_contact(request[contact.end() :], paste)
    if contact:
        return request
    if re.search(r"\b(?:look\s+" + _PRONOUN + r"\s+up|who(?:'s|\s+is)\s+this)\b", request, re.I):
        return f"find {paste.address or paste.name}"
    if paste.phones and re.search(r"\bthat\s+(?:new\s+)?(?:number|phone|mobile)\b", request, re.I):
        request = re.sub(
            r"\badd\s+that\s+(?:new\s+)?(?:number|phone|mobile)\s+to\s+(?:his|her|their)\s+"
            r"(?:contact|record)\b",
            f"set {paste.name}'s phone to {paste.phones[-1]}",
            request,
            flags=re.I,
        )
    if paste.name:
        request = re.sub(
            r"\b(?:" + _PRONOUN + r")(?=\s+(?:an?\s+)?(?:e-?mail|note|message|reply)\b)",
            paste.name,
            request,
            flags=re.I,
        )
        first = paste.name.split()[0]
        if len(paste.name.split()) > 1:
            request = re.sub(
                rf"\b{re.escape(first)}\b(?!\s+{re.escape(paste.name.split()[1])})",
                paste.name,
                request,
            )
    return request


def _new_contact(rest: str, paste: _Paste) -> str:
    """A create of the sender as a contact, with what the signature says."""
    parts = [f"create a contact named {paste.name}"]
    if paste.address:
        parts.append(f"email {paste.address}")
    title, company = _title_and_company(paste)
    if title:
        parts.append(f"job title {title}")
    if company:
        parts.append(f"company {company}")
    if paste.phones:
        parts.append(f"phone {paste.phones[-1]}")
    return ", ".join(parts) + (f" {rest.strip()}" if rest.strip() else "")


def _title_and_company(paste: _Paste) -> tuple[str, str]:
    """A signature's job title and company: "Title | Company", "Name | Title | Company", or
    the two lines after the sender's name."""
    lines = [
        line
        for line in paste.signature
        if not _PHONE.search(line) and not _ADDRESS.search(line) and not line.startswith("http")
    ]
    cells: list[str] = []
    for line in lines:
        cells += [c.strip() for c in re.split(r"\s*[|·•]\s*|\s+-\s+", line) if c.strip()]
    if cells and cells[0].lower() == paste.name.lower():
        cells = cells[1:]
    if len(cells) == 2:
        return cells[0], cells[1]
    return "", ""


#: "1) ", "2. ", "Step one: ", "Step 2 -", "First,", "Then"
_STEP = re.compile(
    r"(?:(?<=^)|(?<=[\s.;:,]))(?:\(?\d{1,2}[).]|step\s+(?:\d{1,2}|one|two|three|four|five|six|"
    r"seven|eight)\s*[:.)-]|steps?\s*:)\s+",
    re.I,
)


def plain_steps(message: str) -> str:
    """Numbered steps read as one request: "Steps: 1) New deal. 2) Name: "X"." becomes
    "New deal, Name: "X"."; "Step one: open the contact X. Step two: untick Y." becomes
    "update the contact X: untick Y"."""
    found = _in_order(list(_STEP.finditer(message)))
    if len(found) < 2:
        return message
    head = message[: found[0].start()].strip()
    steps = [
        message[m.end() : (found[i + 1].start() if i + 1 < len(found) else len(message))]
        .strip()
        .rstrip(".;,")
        for i, m in enumerate(found)
    ]
    steps = [s for s in steps if s]
    if not steps:
        return message
    listed = re.match(
        r"^(?:open|go\s+to|show|list|search)\s+(?:the\s+|all\s+|my\s+)?(?P<what>"
        + _MODULE_WORD
        + r"s|compan(?:y|ie)s|people|accounts)(?:\s+(?:sheet|list|tab|view|module))?$",
        steps[0],
        re.I,
    )
    if listed:
        return _listing(listed["what"], steps[1:])
    opened = re.match(
        r"^(?:open|find|go\s+to|pull\s+up|look\s+up|select)\s+(?:the\s+)?(?P<what>.+)$",
        steps[0],
        re.I,
    )
    if opened and len(steps) > 1 and not re.search(r"\b(?:search|show|list)\b", steps[0], re.I):
        changes = ", ".join(
            _detail(re.sub(r"\b(?:his|her|its|their)\s+", "", s))
            for s in steps[1:]
            if not _FINAL_STEP.match(s)
        )
        return f"update {opened['what']}: {changes}"
    if re.match(r"^(?:create|add|new|make)\b", steps[0], re.I):
        # the details of a new record: "set the amount to 40,000" is its amount 40,000
        first = re.sub(r"^new\b", "create a new", steps[0], flags=re.I)
        steps = [first] + [_detail(s) for s in steps[1:] if not _FINAL_STEP.match(s)]
    lead = head.rstrip(":").strip()
    if lead.lower() in ("", "steps", "please", "please do this", "do this"):
        lead = ""
    return (lead + " " if lead and not lead.endswith((".", ":")) else lead) + ", ".join(steps)


_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight")


_STEP_NUMBER = re.compile(r"\d{1,2}|" + "|".join(_NUMBERS), re.I)


def _in_order(found: list[re.Match[str]]) -> list[re.Match[str]]:
    """The step marks numbered 1, 2, 3, ... in turn (a "45." inside a step is no mark)."""
    kept: list[re.Match[str]] = []
    numbered = 0
    for m in found:
        said = _STEP_NUMBER.search(m.group(0))
        if said is None:  # "Steps:"
            if not kept:
                kept.append(m)
            continue
        word = said.group(0).lower()
        n = int(word) if word.isdigit() else _NUMBERS.index(word) + 1
        if n == numbered + 1:
            kept.append(m)
            numbered = n
    return kept


def _listing(module: str, steps: list[str]) -> str:
    """Steps that narrow a module's list and sort it, as one search."""
    said = []
    for step in steps:
        if re.match(r"^(?:show|display|give)\b.*\b(?:list|them|results?|what\b)", step, re.I):
            continue
        step = re.sub(r"^filter\s*:\s*", "where ", step, flags=re.I)
        step = re.sub(
            r"^keep(?:\s+only)?\s+(?:the\s+\w+|those|them|ones)?\s*(?:whose|where|that|which)?\s*",
            "where ",
            step,
            flags=re.I,
        )
        step = re.sub(r"^where\s+(?=with\b)", "", step, flags=re.I)
        step = re.sub(r"^sort\s+(?:them|it|the\s+list)\s+by\b", "sorted by", step, flags=re.I)
        said.append(step)
    return f"find {module} " + ", ".join(said)


#: a last step that only ends the others ("save", "submit it", "done")
_FINAL_STEP = re.compile(r"^(?:save|submit|done|finish|confirm)(?:\s+it)?\W*$", re.I)


def _detail(step: str) -> str:
    """A step that sets a field, as the field and its value ("untick X": X false)."""
    box = re.match(
        r"^(?P<verb>tick|untick|uncheck)\s+(?:the\s+)?(?P<field>.+?)(?:\s+(?:checkbox|box|flag))?$",
        step,
        re.I,
    )
    if box:
        return f"{box['field']} {'true' if box['verb'].lower() == 'tick' else 'false'}"
    named = re.match(r"^(?:name|title)\s*:\s*(?P<name>.+)$", step, re.I)
    if named:
        return f"called {named['name']}"
    step = re.sub(r"^(?P<field>[a-z][\w -]{1,30}?)\s*:\s+", r"\g<field> ", step, flags=re.I)
    return re.sub(
        r"^(?:set|change|make|put)\s+(?:the\s+|its\s+)?(?P<field>[\w -]+?)\s+(?:to|=|as)\s+",
        lambda m: f"{m['field']} ",
        step,
        flags=re.I,
    )


_MODULE_WORD = r"(?:contact|company|deal|task|person|account|organi[sz]ation)"
#: a note that ends with its verb: "..., contact, create." / "... company. add."
_VERB_LAST = re.compile(
    r"^(?P<body>.+?)[.,;]\s*(?:(?P<module>" + _MODULE_WORD + r")\s*[.,;]?\s+)?"
    r"(?P<verb>create|add|new|make|update|save|log)\s*(?:it|please|pls)?\s*[.!]?\s*$",
    re.I | re.S,
)
#: a note with no verb that starts with its module: "Task, renew SSL certs, Friday, ...",
#: 'Follow-up task "X", due Friday'
_MODULE_FIRST = re.compile(
    r"^\s*(?P<kind>(?:new|follow-?up|meeting|call|to-?do|e-?mail)\s+)?(?P<module>"
    + _MODULE_WORD
    + r")(?:\s*[,:]\s+|\s+(?=[\"“']))"
    r"(?P<body>.+)$",
    re.I,
)


def _card(body: str) -> str:
    """A business card's "Name, Title, Company" with its parts named."""
    parts = [p.strip() for p in body.split(",")]
    named = _NAMED.fullmatch(parts[0])
    plain = not any(re.search(r"\d|@|\b(?:email|phone|title|company)\b", p, re.I) for p in parts)
    if len(parts) == 3 and named and plain:
        return f"{parts[0]}, job title {parts[1]}, company {parts[2].rstrip('.')}"
    return body


def plain_fragment(message: str) -> str:
    """A note with its verb last, or with none, read with the verb first."""
    if "?" in message or "\n" in message.strip():
        return message
    last = _VERB_LAST.match(message.strip())
    if last and len(last["body"].split()) >= 2:
        verb = last["verb"].lower()
        verb = "create" if verb in ("new", "make", "save", "log", "add") else verb
        module = f"{last['module'].lower()} " if last["module"] else ""
        body = last["body"].strip()
        if not module:  # "Kestrel Freight Lines. company. industry other, 600 staff. add."
            parts = [p.strip() for p in re.split(r"(?<=[^\s.]{3})\.\s+", body) if p.strip()]
            kinds = [p for p in parts if re.fullmatch(_MODULE_WORD, p, re.I)]
            if len(kinds) == 1:
                module = f"{kinds[0].lower()} "
                body = ", ".join(p for p in parts if p is not kinds[0])
        if verb == "create" and module.strip() in ("contact", "person"):
            body = _card(body)
        if verb == "create" and not module:
            found = re.search(r"\b" + _MODULE_WORD + r"\b", body, re.I)
            if found is None:
                return message
        return _mine(f"{verb} {module}{body}")
    first = _MODULE_FIRST.match(message)
    if first and first["kind"] is None and first["body"][:1] in "\"“'":
        return message  # "task 'meeting notes'": a record named, to look up
    if first and not re.search(
        r"\b(?:list|show|find|search|all|every|which|mine\s*,\s*open)\b", first["body"], re.I
    ):
        kind = first["kind"] or ""
        if kind.strip().lower() == "new":
            kind = ""
        return _mine(f"create a {kind.lower()}{first['module'].lower()} {first['body'].strip()}")
    return message


def _mine(text: str) -> str:
    """A task's "mine" among its details: assigned to the person typing."""
    return re.sub(r"(?<=,)\s*mine\b", " assigned to me", text, flags=re.I)


#: the request at a story's end that points back into it: "... so add him as a contact at X",
#: "Can you add him?", "Put them in as a company, manufacturing."
_REFERRED = re.compile(
    r"(?:^|(?<=[.!?;,])\s*|\s+(?:so|and|then)\s+)(?:(?:can|could|would)\s+you\s+|please\s+)?"
    r"(?P<verb>add|put|create|save|log|enter|wants?|would\s+like|needs?)\s+"
    r"(?P<pronoun>him|her|them|the\s+(?P<thing>company|"
    r"contact|person)|(?P<first>(?-i:[A-Z])[a-z'-]+))(?:\s+in)?"
    r"(?:\s+as\s+an?\s+(?:new\s+)?(?P<kind>contact|company|lead|customer|account|subscriber)"
    r"|\s+to\s+(?:the\s+)?(?P<kinds>contacts|companies))?"
    r"(?P<rest>[^.!?]*)[.!?]?\s*$",
    re.I,
)
#: what a new record of each kind said is
_KINDS = {
    "contact": ("contact", ""),
    "contacts": ("contact", ""),
    "lead": ("contact", ", lifecycle lead"),
    "customer": ("contact", ", lifecycle customer"),
    "subscriber": ("contact", ", lifecycle subscriber"),
    "company": ("company", ""),
    "companies": ("company", ""),
    "account": ("company", ""),
}


#: a message that opens with the create itself ("New contact: ...", "Add a deal ...")
_CREATE_FIRST = re.compile(
    r"\s*(?:new\s+(?:contact|company|deal|task|account|lead)\b|(?:add|create)\s+(?:an?\s+)?(?:new\s+)?"
    r"(?:contact|company|deal|task|account|lead)\b)",
    re.I,
)


def plain_referred(message: str) -> str:
    """A request that points back into the story before it ("add him"), with the story as
    the new record's details; any other message as it is."""
    m = _REFERRED.search(message)
    if m is None or m.start() < 12 or _CREATE_FIRST.match(message):
        return message  # "New contact: X, ... Put her down as a lead.": the request came first
    wanted = m["verb"].lower().startswith(("want", "would", "need"))
    if wanted and not re.match(r"\s+in\b", message[m.end("pronoun") :]):
        return message  # "she wants him to call back": no record asked for
    said = (m["kind"] or m["kinds"] or m["thing"] or "").lower().replace("person", "contact")
    story = message[: m.start()].strip().rstrip(",;.")
    named_first = False
    if m["first"]:  # "Please add Omar.": the Omar of the story, by full name
        full = re.search(rf"\b{re.escape(m['first'])}\s+(?-i:[A-Z])[\w'-]+", story)
        if full is None:
            return message
        story, named_first = story[full.start() :], True
        said = said or "contact"
    if not said:
        if m["pronoun"].lower() == "them":
            return message  # a company or people? ask, do not guess
        said = "contact"
    kind, extra = _KINDS[said]
    story = re.sub(r"\b(?:his|her|their|its)\s+name\s+is\s+", ", ", story, flags=re.I)
    details = _story_details(story, named_first=named_first)
    if not details:
        return message  # nobody named before the request
    rest = re.sub(
        r"\s*\b(?:for\s+now|for\s+the\s+moment|please|pls|thanks|if\s+possible)\s*$",
        "",
        m["rest"].strip(" ,"),
        flags=re.I,
    )
    if kind == "contact":  # "add him as a contact at Tailspin Finance"
        rest = re.sub(r"^(?:at|from|with)\s+(?=(?-i:[A-Z]))", "company ", rest)
    name, _, said = details.partition(", ")
    works = re.match(r"^(?P<name>.+?)\s+(?:from|at|of|with)\s+(?P<org>(?-i:[A-Z]).+)$", name)
    if kind == "contact" and works:  # "Bartholomew Quist from Fabrikam Software"
        name, said = works["name"], ", ".join(p for p in (f"company {works['org']}", said) if p)
    more = ", ".join(p for p in (said, extra.strip(", "), rest) if p)
    return f"create a {kind} named {name}" + (f", {more}" if more else "")


#: a name of two or three capitalised words
_NAMED = re.compile(r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){1,2})")
#: "about 120 people", "45 staff"
_HEADCOUNT = re.compile(
    r"\b(?:about\s+|around\s+|some\s+)?(\d[\d,]*)\s+(?:people|staff|employees)\b", re.I
)


#: "their Treasury Manager (omar@tailspin.example)": a person's title said in a story
_THEIR_TITLE = re.compile(
    r"^(?:his|her|their)\s+(?P<title>(?-i:[A-Z])[\w&' -]+?)\s*(?:\((?P<inside>[^)]*)\))?$"
)


#: a sentence that starts with a person's name and says who they are after a comma
_APPOSITIVE = re.compile(
    r"(?!(?:Last|Next|This|That|The|Our|My|Yesterday|Today|Tomorrow|Good|Hi|Hello|Dear|Thanks|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b)"
    r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){1,2}),\s+(?:the\s+|our\s+|their\s+|an?\s+)?(?-i:[A-Z])"
)
#: "Analytics Lead at Northwind Traders": a title and the company
_TITLE_AT = re.compile(
    r"^(?:the\s+|our\s+|their\s+|an?\s+)?(?P<title>(?-i:[A-Z])[\w&/-]*(?:\s+(?:of|and|for|&|"
    r"(?-i:[A-Z])[\w&/-]*))*)\s+(?:at|with|from)\s+(?P<org>(?-i:[A-Z])[\w&'. -]*)$"
)


def _story_details(story: str, *, named_first: bool = False) -> str:
    """The new record's details in a story: from the first name said (not a sentence's first
    words, unless ``named_first``) on, without the clauses about someone ("he runs ...") but
    with the titles, addresses, phones and headcounts said in them; empty when no name is
    said."""
    named = next(
        (
            n
            for n in _NAMED.finditer(story)
            if named_first
            or (n.start() and not re.search(r"[.!?]\s*$", story[: n.start()]))
            or _APPOSITIVE.match(story, n.start())  # "Fran Bilas, Analytics Lead at ..."
        ),
        None,
    )
    if named is None:
        return ""
    kept: list[str] = []
    clauses = re.split(
        r"\s*[,;]\s*|\.\s+|\s+and\s+(?=(?:his|her|their|its)\b)", story[named.start() :]
    )
    # the name alone first ("Priya Raman joined X as Y" is no name); "Name from Org" stays
    said = clauses[0][len(named[0]) :].strip()
    if said and not re.match(r"(?:from|at|of|with)\s+(?-i:[A-Z])", said):
        clauses[0:1] = [named[0], said]
    for clause in clauses:
        if not clause:
            continue
        title = _THEIR_TITLE.match(clause)
        if kept and title:  # "their Treasury Manager (omar@...)": the title, and what it holds
            kept.append(f"job title {title['title']}")
            kept += [f"email {a}" for a in _ADDRESS.findall(title["inside"] or "")]
            continue
        if kept and re.match(
            r"(?:he|she|they|it|his|her|their|its|who|which|relocating)\b", clause, re.I
        ):
            kept += [f"email {a}" for a in _ADDRESS.findall(clause)]
            kept += [f"phone {p.strip()}" for p in _PHONE.findall(clause)]
            kept += [f"{h.replace(',', '')} employees" for h in _HEADCOUNT.findall(clause)]
            continue
        works = _TITLE_AT.match(clause)
        if kept and works:  # "Analytics Lead at Northwind Traders": a title, and where
            kept += [f"job title {works['title']}", f"company {works['org']}"]
            continue
        headcount = _HEADCOUNT.search(clause)
        kept.append(f"{headcount[1].replace(',', '')} employees" if headcount else clause)
    return ", ".join(kept)


#: the request after a story and "so": "Ada mentioned ..., so could you draft an email to her"
#: (an e-mail, a reminder or a look-up: a change keeps its story, which names the record)
_SO_REQUEST = re.compile(
    r",?\s+so\s+(?:(?:could|can|would)\s+you\s+|please\s+|just\s+)*"
    r"(?P<request>(?:draft|send|write|e-?mail|find|look\s+up|pull\s+up|show|list|remind)\b.+)$",
    re.I | re.S,
)
#: a story's first word that names a person ("Ada mentioned ...", "Linus asked me ...")
_TELLER = re.compile(r"^(?P<name>(?-i:[A-Z][a-z'-]+)(?:\s+(?-i:[A-Z][a-z'-]+))?)\s+(?-i:[a-z])")
_NOT_PEOPLE = frozenset(
    {"I", "The", "Our", "My", "We", "They", "He", "She", "It", "This", "That", "Before", "After",
     "When", "Since", "Because", "If", "So", "And", "But", "Please", "Just", "Today", "Yesterday"}
)  # fmt: skip


def plain_so_request(message: str) -> str:
    """The request said after a story and "so", with "her" / "him" the person the story
    starts with; any other message as it is."""
    m = _SO_REQUEST.search(message)
    if m is None or len(message[: m.start()].split()) < 6:
        return message
    request = m["request"]
    head = re.split(r"\b(?:subject|saying|body|asking|about|telling)\b", request, maxsplit=1)[0]
    if re.search(r"\b(?:them|it|its|those|these|they|there|this|that)\b", head, re.I):
        return message  # what they point to is in the story: read it all
    if re.search(r"\b(?:him|her)\b", request, re.I):
        teller = _TELLER.match(message)
        if teller is None or teller["name"].split()[0] in _NOT_PEOPLE:
            return message
        request = re.sub(r"\b(?:him|her)\b", teller["name"], request, count=1)
    return request
