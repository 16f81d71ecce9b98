"""Requests passed on for someone else, or said in a spreadsheet's words, in the plain words
the offline planner reads.

People relay what a colleague asked: "Marcus from sales said to create a follow-up task ...",
"My boss asked me to get a new deal in: ...", "According to Linus, the ... task should be
pushed to ...", "The Contoso folks told us Grace Hopper's title is now ...", "Tell the CRM that
Mary Jackson is now Head of Quality". The relaying frame asks nothing by itself: the request is
what follows it. Others think of the workspace as a spreadsheet: "Add a row to Deals: ...",
"Filter column Amount > 50000 in the Deals sheet", "Row 'Ken Thompson' in Contacts: put 'X' in
the Job title column", "Amount 18000 -> 21000". Each is put in the words of the request it is.

As in ``offline_register``, a rewrite keeps every word that names a record, a field or a value;
the planner reads the result with its usual checks, so a rewrite writes nothing by itself.
"""

from __future__ import annotations

import re

from fieldhouse.agents.providers.offline_register import ALL, ASKING, applied, rules
from fieldhouse.agents.providers.offline_schema import singular

#: who a request is relayed from: a colleague by name ("Marcus", "Marcus from sales"), "my
#: boss", "the finance team", "the Contoso folks", "someone in finance"
_WHO = (
    r"(?:(?:my|our)\s+(?:boss|manager|team\s+lead|lead|director|colleague|cfo|ceo|coo|vp|cto)"
    r"|(?-i:[A-Z][a-z]+)(?:\s+(?:from|in|on)\s+[\w-]+)?"
    r"|the\s+(?:[\w-]+\s+){1,2}(?:team|folks|people|department|guys)"
    r"|some(?:one|body)\s+(?:in|from|on)\s+[\w-]+)"
)
#: a module's words, as a create names what it makes
_KIND_NAMES = r"contact|company|deal|task|ticket|to-?do|opportunity|organi[sz]ation|account"
_KINDS = r"(?:" + _KIND_NAMES + r")"
#: the words of common fields, as a list of changes starts with one
_FIELD_WORDS = (
    r"(?:stage|status|amount|priority|lost\s+reason|employees|headcount|annual\s+revenue|revenue|"
    r"industry|website|phone|email|job\s+title|title|lifecycle(?:\s+stage)?|(?:account\s+)?health|"
    r"probability|close\s+date|due\s+date)"
)
#: a dash between what is said first and what it is for (an em or en dash, or two hyphens)
_DASHES = "\u2014\u2013"
_DASH = r"(?:[" + _DASHES + r"]|--)"
#: a dash or a colon
_SAID_FIRST = r"(?:[:" + _DASHES + r"]|--)"
#: a person's name of two or three capitalised words, and a company's of up to four
_PERSON = r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){1,2})"
_ORG = r"(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*){0,3}"
#: a sheet's words for a module: "Deals", "the Deals sheet", "the Contacts tab"
_SHEET = r"(?:the\s+)?(?P<module>[A-Za-z][\w-]*)(?:\s+(?:sheet|table|tab|list))?"
#: a value in a sheet's cell: a quoted text, a number or a word
_NUMBER = r"[$€£]?\d[\d,._]*(?:\.\d+)?\s*[kKmM]?"


def _module(m: re.Match[str]) -> str:
    return singular(m["module"].lower())


#: what people call a module's records, beyond its own words
_KIND_WORDS = {
    "candidate": "contact", "person": "contact", "client": "contact", "lead": "contact",
    "customer": "contact", "account": "company", "organisation": "company",
    "organization": "company", "firm": "company", "opportunity": "deal", "todo": "task",
}  # fmt: skip


def _kind_of(word: str) -> str:
    """The module word for what a record was called ("candidate": "contact "), with a space;
    empty for a word no module is known by."""
    said = _KIND_WORDS.get(word.lower(), singular(word.lower()))
    return f"{said} " if said in ("contact", "company", "deal", "task") else ""


#: an e-mail's purpose -> the few words of its subject
_SUBJECTS = (
    (r"^thanking\s+(?:him|her|them)\s+for\s+(?P<what>.+)$", "Thank you for {what}"),
    (r"^asking\s+(?:(?:him|her|them)\s+)?for\s+(?P<what>.+)$", "{What}"),
    (r"^inviting\s+(?:him|her|them)\s+to\s+(?P<what>.+)$", "Invitation: {what}"),
    (r"^reminding\s+(?:him|her|them)\s+(?:about|of|to)\s+(?P<what>.+)$", "Reminder: {what}"),
    (r"^(?P<what>.+)$", "{What}"),  # "asking if she has time ...": the purpose itself
)


def _purpose_mail(m: re.Match[str]) -> str:
    """ "draft an email to X asking for Y": to X, about Y, the purpose as the body (the tools
    want a subject; the draft or the send's approval shows it before anything goes out)."""
    who = m["to"] or m["named"]
    if not who:
        return m[0]
    purpose = m["purpose"].strip()
    subject = purpose
    for pattern, shape in _SUBJECTS:
        said = re.match(pattern, purpose, re.I)
        if said:
            what = said["what"].strip()
            subject = shape.format(what=what, What=what[:1].upper() + what[1:])
            break
    subject = subject if len(subject) <= 70 else subject[:70].rsplit(" ", 1)[0]
    body = purpose[:1].upper() + purpose[1:]
    return f"{m['verb']} an email to {who} about {subject}, saying {body}"


#: the rules, each applied at its first match only unless its count says ALL
_RULES = rules(
    # --- relayed: the frame goes, the request stays ---
    (r"^\s*(?:please\s+)?(?:tell|let)\s+the\s+(?:crm|system|database|app|tool)\s+(?:know\s+)?"
     r"(?:that\s+)?", ""),
    (r"^\s*according\s+to\s+" + _WHO + r"\s*,\s*", ""),
    (r"^\s*" + _WHO + r"\s+(?:just\s+)?(?:called|rang|phoned|emailed|messaged|wrote|pinged)"
     r"(?:\s+(?:in|me|us))?\s*[.!]\s*(?:she|he|they)\s+(?:said|says|told\s+(?:us|me))\s+"
     r"(?:that\s+)?", ""),
    (r"^\s*" + _WHO + r"\s+(?:told\s+(?:us|me)|said|says|mentioned)\s+(?:that\s+)?"
     r"(?=\S+(?:\s+\S+)?'s\s|(?-i:[A-Z]))", ""),
    (r"^\s*" + _WHO + r"\s+(?:asked\s+(?:me|us)\s+to|said\s+to|wants\s+(?:you|me|us)\s+to|"
     r"would\s+like\s+(?:you|me|us)\s+to|needs\s+(?:you|me|us)\s+to|told\s+(?:me|us)\s+to)\s+",
     ""),
    (r"^\s*" + _WHO + r"\s+wants\s+me\s+reminded\s+", "remind me "),
    (r"^\s*" + _WHO + r"\s+wants\s+(?P<what>an?\s+(?:new\s+)?[\w-]+)\s+(?:recorded|added|logged|"
     r"created|entered|opened|set\s+up|put\s+in)\s*:", r"add \g<what>:"),
    (r"^\s*" + _WHO + r"\s+wants\s+(?P<what>.+?)\s+(?:pulled|brought|looked)\s+up\b",
     r"pull up \g<what>"),
    (r"^\s*" + _WHO + r"\s+wants\s+to\s+know\s+who\s+has\s+(?:the\s+)?(?:e-?mail\s+)?"
     r"(?:address\s+)?(?=\S+@)", "find "),
    (r"^\s*who\s+has\s+(?:the\s+)?(?:e-?mail\s+)?(?:address\s+)?(?=\S+@)", "find "),
    # "Who does the address X belong to?", "Which company is the contact X with?"
    (r"^\s*(?:who|which\s+[\w-]+)\s+(?:does|is)\s+(?:the\s+)?(?:contact\s+|person\s+)?"
     r"(?:e-?mail\s+)?(?:address\s+)?(?P<address>[^\s@]+@[^\s?]+?)\s+(?:belong\s+to|with|from|at)"
     r"\s*\??\s*$", r"find \g<address>"),
    # "A new account came in through the portal: ..."
    (r"^\s*an?\s+new\s+(?P<what>account|company|contact|lead|deal|customer)\s+(?:came|come|comes)\s+"
     r"in\s+(?:through|from|via|at|on)\s+[^:]{1,40}:\s*", r"add a \g<what>: "),
    # "get a new deal in: ..." / "put a new contact in: ..."
    (r"^\s*(?:get|put)\s+(?P<what>an?\s+(?:new\s+)?[\w-]+)\s+in\s*:", r"add \g<what>:"),
    # "the deal is now at negotiation, please reflect that on Tailspin analytics"
    (r"^\s*the\s+(?:deal|contact|company|task|record)\s+(?P<change>(?:is|was)\s+now\s+.+?)\s*,?"
     r"\s*(?:so\s+)?(?:please\s+)?(?:reflect|record|update|note|show)\s+(?:that|this|it)\s+"
     r"(?:on|in|for|against)\s+(?P<target>.+?)\s*[.!]?\s*$", r"\g<target> \g<change>"),
    # met at an event: the contact or company met is the one to add
    (r"^\s*met\s+(?:at|during|on)\s+(?:the|a|our)\s+[\w\s-]{1,30}?:\s*", "Add "),
    (r"^\s*add\s+(?P<what>an?\s+[\w-]+)\s+(?:we|I)\s+met\s+(?:at|during|on)\s+(?:the|a|our)\s+"
     r"[\w\s-]{1,30}?:\s*", r"add \g<what>: "),
    (r"^\s*(?:open|start|log)\s+(?P<what>an?\s+(?:new\s+)?deal)\s+from\s+(?:the|a|our)\s+"
     r"[\w\s-]{1,30}?:\s*", r"add \g<what>: "),
    # --- e-mails: "a note to", "an event follow-up email to" ---
    (r"^\s*(?P<verb>draft|write|send|compose)\s+(?:a|an)\s+(?:quick\s+|short\s+)?note\s+to\b",
     r"\g<verb> an email to"),
    (r"^\s*(?P<verb>draft|write|send|compose)\s+(?:a|an)\s+(?:[\w-]+\s+){1,3}?"
     r"(?:e-?mail|message)\s+to\b", r"\g<verb> an email to"),
    # --- a look-up, and why it is wanted ---
    # "Open the X account, I need to check ..."
    (r"^(?P<ask>\s*(?:open|find|look\s+up|pull\s+up|bring\s+up|show\s+me)\b[^,.;!?]+?)\s*[,;]\s*"
     r"(?:(?:I|we)\s+(?:need|want|have|'d\s+like|would\s+like)\s+to|so\s+(?:I|we)\s+can)\s+[^.!?]*"
     r"[.!]?\s*$", r"\g<ask>"),
    # "Where's the X deal? It's up for renewal soon."
    (r"^(?P<ask>\s*(?:where'?s|where\s+is|find|look\s+up|pull\s+up|show\s+me)\b[^?.!]+)[?.!]\s+"
     r"(?:it'?s|it\s+is|he'?s|she'?s|they'?re|they\s+are)\b[^?]*[.!]?\s*$", r"\g<ask>?"),
    # "Look up Grace Hopper, our exec sponsor at Contoso, before my call."
    (r"^(?P<ask>\s*(?:look\s+up|find|pull\s+up|open|show\s+me)\s+"
     r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+))\s*,\s*(?:our|my|their|the)\s+[^,.]+,?[^.!?]*[.!]?\s*$",
     r"\g<ask>"),
    # "Leslie Lamport is our new exec sponsor at X, add the decision maker tag to him."
    (r"^\s*(?P<who>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+))\s+is\s+(?:now\s+)?(?:our|my|their|the)\s+"
     r"[^,.;]+[,;]\s*(?:so\s+)?(?:please\s+)?add\s+the\s+(?P<tag>[\w\s-]{1,30}?)\s+tag\s+to\s+"
     r"(?:him|her|them)\b\s*[.!]?\s*$", r"tag \g<who> as \g<tag>"),
    # "Mary Jackson is now Head of Quality": a new job title
    (r"^\s*(?P<who>(?-i:[A-Z][\w'-]+\s+[A-Z][\w'-]+))\s+is\s+now\s+(?:the\s+|our\s+|an?\s+)?"
     r"(?P<title>(?-i:[A-Z])[\w&-]*(?:\s+(?:of|and|for|&|(?-i:[A-Z])[\w&-]*))*)\s*[.!]?\s*$",
     r"set \g<who>'s job title to \g<title>"),
    # --- a change, and why ---
    # "Push X to Wednesday, the candidate can't make Friday": the reason after it goes
    (r"^(?P<req>\s*(?:push|move|set|change|mark|update|put|bump|shift)\b[^,;]+?)\s*[,;]\s*"
     r"(?:we'?ve|we\s+have|we\s+made|(?:the\s+)?[\w-]+\s+(?:can'?t|cannot|couldn'?t|won'?t|"
     r"isn'?t|wasn'?t|didn'?t|doesn'?t))\b[^,;]*[.!]?\s*$", r"\g<req>"),
    # "should be 7,500 rather than 6,000": the new value, not the old one
    (r"\b(?P<new>(?:should|must|needs\s+to)\s+be\s+\S+?)\s+(?:rather|instead)\s+(?:than|of)\s+"
     r"(?:" + _NUMBER + r"|[^\s,.;?!]+)", r"\g<new>"),
    # --- a spreadsheet's words ---
    (r"\badd\s+a\s+(?:new\s+)?(?:row|line|entry)\s+(?:to|in|into|on)\s+" + _SHEET + r"\s*:\s*"
     r"(?:[\w-]+\s+)?(?:name|title)?\s*(?=')",
     lambda m: f"add a {_module(m)}: "),
    (r"\badd\s+a\s+(?:new\s+)?(?:row|line|entry)\s+(?:to|in|into|on)\s+" + _SHEET + r"\s*:\s*",
     lambda m: f"add a {_module(m)}: "),
    (r"^\s*filter\s+(?:the\s+)?(?:column\s+)?(?P<field>[\w\s-]+?)\s*(?P<op>>=|<=|>|<|=)\s*"
     r"(?P<n>" + _NUMBER + r")\s+(?:in|on)\s+" + _SHEET + r"\s*[.!]?\s*$",
     lambda m: f"{m['module'].lower()} with {m['field']} {m['op']} {m['n']}"),
    (r"^\s*row\s+(?P<name>'[^']+'|\"[^\"]+\")\s+(?:in|of|on)\s+" + _SHEET + r"\s*:\s*"
     r"put\s+(?P<value>'[^']+'|\"[^\"]+\")\s+in\s+the\s+(?P<field>[\w\s-]+?)\s+(?:column|cell)"
     r"\s*[.!]?\s*$",
     lambda m: f"set {m['name'][1:-1]}'s {m['field']} to {m['value']}"),
    (r"^\s*(?P<module>[A-Za-z][\w-]*)\s+row\s+(?P<name>'[^']+'|\"[^\"]+\")\s*:\s*",
     lambda m: f"update {_module(m)} {m['name']}: "),
    # "Amount 18000 -> 21000": the new value (each of them: ALL)
    (r"(?P<old>" + _NUMBER + r")\s*(?:->|→|=>|-->)\s*(?P<new>" + _NUMBER + r")", r"\g<new>", ALL),
    # "X | Y | Amount 47,000": a sheet's cells, as a list
    (r"\s*\|\s*", ", ", ALL),
    # --- a heading before the request: "Status from stand-up: ...", "Notes after the call:" ---
    (r"^\s*(?!(?:[\w-]+\s+){0,2}?(?:new|add|create|log|contact|deal|company|task|ticket|lead)\b)"
     r"(?:[\w-]+\s+){0,2}(?:from|after)\s+(?:the\s+|our\s+|today'?s\s+)?[\w -]{2,30}?:\s*"
     r"(?=(?-i:[A-Z]))", ""),
    # "Scope creep on the X. Bump the deal amount to ...": "the deal" is the X said before
    (r"^[^.:;]*?\b(?:on|for|with|about|re)\s+(?:the\s+)?(?P<name>(?-i:[A-Z])[\w&' -]*?)\s*\.\s+"
     r"(?P<verb>bump|set|move|change|update|push|raise|lower)\s+the\s+(?:deal|task|ticket|company|"
     r"contact)(?:'s)?\s+", r"\g<verb> \g<name>'s "),
    # "X: move the expected close date to ...": the record before the colon
    (r"^\s*(?P<name>(?-i:[A-Z])[\w&' -]{2,60}?)\s*:\s*(?P<verb>move|set|change|update|bump|push)\s+"
     r"(?:the|its)\s+(?=[\w -]+?\s+to\b)", r"\g<verb> \g<name>'s "),
    # a ticket to a support desk is no task of the workspace ("raise a support ticket", "open a
    # ticket with IT"): said as what it is, so no module word reads it
    (r"\b(?:support|help\s*desk|helpdesk|service\s*desk|IT|bug|zendesk|jira)\s+tickets?\b",
     "support request", ALL),
    (r"\b(?P<v>raise|file|submit|open|log|create|put\s+in)\s+an?\s+(?:new\s+)?ticket\s+"
     r"(?=(?:with|to)\b)", r"\g<v> a support request "),
    # "Escalate X to priority urgent"
    (r"^\s*escalate\s+(?P<what>.+?)\s+to\s+(?:priority\s+)?(?P<p>urgent|high|critical)\b"
     r"(?:\s*(?:priority)?)(?:\s*[,;].*)?\s*[.!]?\s*$", r"set \g<what>'s priority to \g<p>"),
    # "Ship it: the X ticket is done, close it out"
    (r"^\s*(?:ship\s+it|shipped|done(?:\s+and\s+dusted)?|closed?|all\s+done)\s*[:!,.-]+\s*", ""),
    (r"^\s*(?P<what>(?:the\s+)?.+?\s+(?:task|ticket|to-?do))\s+is\s+(?:now\s+)?"
     r"(?P<v>done|complete|completed|finished)\s*(?:[,;]\s*(?:so\s+)?(?:please\s+)?"
     r"(?:close|mark|tick)\s+it(?:\s+(?:out|off|as\s+done))?)?\s*[.!]?\s*$",
     r"mark \g<what> as done"),
    # "Throw a ticket on the backlog: ...", "Pop a task in the queue: ..."
    (r"^\s*(?:throw|stick|pop|drop|put|add)\s+(?:an?\s+)?(?:new\s+)?(?P<kind>ticket|task|to-?do)\s+"
     r"(?:on|in|into|onto)\s+(?:the|my|our)\s+[\w -]{2,20}?:\s*", r"add a \g<kind>: "),
    # "Nobody's picked it up yet so leave the assignee empty": nothing to set
    (r"(?:(?<=[.!;])|,)\s*(?:[^.!;,]*?\s+so\s+)?leave\s+(?:the\s+)?[\w -]{2,20}?\s+"
     r"(?:empty|blank|unassigned|unset|as\s+it\s+is)\s*[.!]?", ""),
    # "Where's the ticket about the rollout survey? Find it."
    (r"^\s*where'?s\s+(?:the|that|my|our)\s+(?P<kind>[\w-]+)\s+(?:about|called|named|for|on|re)\s+"
     r"(?:the\s+)?(?P<what>[^?]+?)\s*\?\s*(?:(?:can\s+you\s+|please\s+)?(?:find|pull\s+up|get|"
     r"show\s+me|dig\s+up|open)\s+it(?:\s+for\s+me)?\s*[.!?]?)?\s*$",
     r"find \g<kind> \g<what>"),
    # "you'll want a new contact for this one: ...", "we need a new deal for this:"
    (r"^\s*(?:you'?ll|you\s+will|you'?d|we'?ll|we)\s+(?:want|need)\s+(?:an?\s+)?new\s+"
     r"(?P<kind>[\w-]+)(?:\s+for\s+(?:this|that)(?:\s+one)?)?\s*:\s*", r"add a \g<kind>: "),
    # "..., he's their Treasury Analyst": a new contact's job title
    (r"^(?P<head>\s*add\s+an?\s+(?:new\s+)?contact\b[^.]*?),\s*(?:he|she|they)(?:'s|\s+is|'re|"
     r"\s+are)\s+(?:their|the|our|an?)\s+(?P<title>(?-i:[A-Z])[\w&-]*(?:\s+(?:of|and|for|&|"
     r"(?-i:[A-Z])[\w&-]*))*)(?=\s*(?:[,.;]|$))", r"\g<head>, job title \g<title>"),
    # "new deal for X, can you call it "Y"?": the name said after
    (r"(?P<head>\b(?:new|add|create|put(?:\s+in)?)\s+(?:an?\s+)?(?:new\s+)?(?:deal|task|ticket)"
     r"(?:\s+in)?)\s+for\s+(?P<org>(?-i:[A-Z])[^,.]*?)\s*(?:,\s*it'?s\s+[^.]{2,60}?\.)?\s*[,.]\s*"
     r"(?:(?:can|could)\s+you\s+)?call\s+it\s+(?P<q>\"[^\"]+\"|'[^']+')\s*\??",
     r"\g<head> \g<q> for \g<org>"),
    # a draft or a note asked for: "write a draft to X", "prepare a draft to X"
    (r"\b(?:write|prepare|make|compose|do)\s+(?:me\s+)?an?\s+(?:e-?mail\s+)?draft\s+(?:e-?mail\s+)?"
     r"(?:to|for)\b", "draft an email to"),
    (r"^\s*prepare\s+(?:an?\s+)?(?:e-?mail|mail|letter|note)\s+to\b", "draft an email to"),
    # what an e-mail states is its body: "stating that ...", "to the effect that ..."
    (r",?\s+(?:stating|informing\s+(?:him|her|them)|advising\s+(?:him|her|them)|to\s+the\s+"
     r"effect)\s+that\s+", ", saying "),
    # the legal register: "For the avoidance of doubt, ...", "Please be advised that ..."
    (r"^\s*(?:for\s+the\s+avoidance\s+of\s+doubt|for\s+the\s+record|with\s+effect\s+from\s+"
     r"today|pursuant\s+to\s+[^,]{2,60})\s*,\s*", ""),
    (r"^\s*(?:please\s+)?(?:be\s+advised|note|kindly\s+note|take\s+note)\s+that\s+", ""),
    (r"\bI\s+(?:require|request)\s+(?=an?\s+(?:new\s+)?(?-i:[A-Z]?)[\w-]+\b)", "create "),
    (r"\b(?:entitled|titled)\b", "called", ALL),
    # "the Task called "X"": the record "X" (a name is looked up by itself)
    (r"\bthe\s+(?P<kind>deal|task|ticket|contact|company)\s+(?:called|named)\s+(?=[\"'])",
     r"the \g<kind> ", ALL),
    (r"\ban?\s+(?P<kind>task|deal)\s+of\s+the\s+(?P<type>[\w-]+)\s+type\b", r"a \g<type> \g<kind>"),
    # "The Task called "X" is hereby to be marked as done, the survey having been received."
    (r"^\s*(?P<what>[^,;]+?)\s+(?:is|shall\s+be|are)\s+(?:hereby\s+)?(?:to\s+be\s+)?"
     r"(?:hereby\s+)?(?:marked|set|changed|amended|updated)\s+(?:as|to)\s+(?P<v>[\w -]+?)\s*"
     r"(?:,\s*(?:the|its|his|her|their)\s+[^.]*)?[.!]?\s*$", r"mark \g<what> as \g<v>"),
    # "the deal "X" was lost for ...; amend its Lost reason to read "Y""
    (r"^\s*(?:the\s+)?(?P<kind>deal|task|contact|company)\s+(?P<q>\"[^\"]+\"|'[^']+')[^;.]*[;.]\s*"
     r"(?:please\s+|kindly\s+)?(?:amend|change|update|set|correct)\s+its\s+(?P<field>[\w -]+?)\s+"
     r"to\s+(?:read\s+)?", r"set the \g<kind> \g<q>'s \g<field> to "),
    (r"\bto\s+read\s+(?=[\"'])", "to "),
    (r"^\s*locate\b", "find"),
    (r"\bthe\s+(?P<f>[\w -]+?)\s+of\s+which\s+(?:exceeds|is\s+(?:greater|more|higher)\s+than)\s+",
     r"with \g<f> over "),
    (r"\bat\s+the\s+(?:company|organisation|organization|firm)\s+(?=(?-i:[A-Z]))", "at "),
    (r"\bfor\s+the\s+(?:company|organisation|organization|firm|client)\s+(?=(?-i:[A-Z]))", "for "),
    # "expected to close at the end of next month": the close date
    (r"\b(?:expected|due|set|slated|likely)\s+to\s+close\s+(?:at\s+|on\s+|by\s+|in\s+)?",
     "close date "),
    # "Pull the X's close date in to the 15th": move it earlier
    (r"^\s*pull\s+(?P<what>.+?)\s+in\s+to\s+", r"move \g<what> to "),
    # "... and link it to the X deal": the task's deal
    (r",?\s+and\s+(?:link|tie|attach|connect)\s+it\s+to\s+the\s+", ", for the "),
    # "Could you check whether we already have a deal called X and, if not, create it ..."
    (r"^\s*(?:(?:could|can|would)\s+you\s+)?(?:check|see)\s+(?:whether|if)\s+we\s+(?:already\s+)?"
     r"have\s+(?:an?\s+)?(?P<kind>[\w-]+)\s+(?:called|named)\s+(?P<name>.+?)\s*,?\s+and\s*,?\s*"
     r"if\s+not\s*,?\s*(?:please\s+)?(?:create|add|make)\s+it\b",
     r"create a \g<kind> called \g<name>"),
    # "Can you see whether X's title is still Y, and if so change it to Z?"
    (r"^\s*(?:(?:can|could|would)\s+you\s+)?(?:see|check)\s+(?:whether|if)\s+(?P<who>.+?)'s\s+"
     r"(?P<field>[\w -]+?)\s+is\s+still\s+[^,?]+?\s*,?\s+and\s*,?\s*if\s+(?:so|yes|it\s+is)\s*,?\s*"
     r"(?:please\s+)?(?:change|set|update|move|make)\s+it\s+to\s+", r"set \g<who>'s \g<field> to "),
    # "which of the contacts at X are customers?"
    (r"\bwhich\s+of\s+the\s+(?P<kind>[\w-]+)\s+at\s+(?P<org>(?-i:[A-Z])[^?]*?)\s+are\s+"
     r"(?:our\s+)?(?P<v>[\w-]+?)s?\s*\?\s*$", r"\g<kind> at \g<org> with lifecycle \g<v>"),
    # "add a deal: 'X', Adventure Works, 130k": the name after the quoted one is its company
    (r"^(?P<head>\s*add\s+an?\s+(?:new\s+)?deal\s*:?\s*'[^']+')\s*,\s*(?:company\s+)?"
     r"(?P<org>(?-i:[A-Z][\w&.-]*)(?:\s+(?-i:[A-Z][\w&.-]*)){0,3})\s*,", r"\g<head> for \g<org>,"),
    (r"\b(?:the\s+)?(?:e-?mail\s+)?address\s+(?:in|on|from)\s+(?P<name>(?-i:[A-Z])[^.,;:']*?)"
     r"'s\s+row\b", r"\g<name>"),
    (r"\b(?P<on>on|in|for)\s+(?:the\s+)?(?P<name>(?-i:[A-Z])[^.,;:']*?)(?:'s)?\s+row\b",
     r"\g<on> \g<name>"),
    # "job title Operations Manager at Litware Labs": the title, and the company (looked up)
    (r"\b(?P<label>job\s+title|title|role|position)\s*:?\s+(?P<title>[^,;:]+?)\s+at\s+"
     r"(?P<org>(?-i:[A-Z])[^,;:]*)", r"\g<label> \g<title>, company \g<org>"),
    # "linked to the X deal" (a task's deal)
    (r"\blinked\s+to\s+the\s+", "for the "),
    # "Add the newsletter tag to X"
    (r"^\s*add\s+the\s+(?P<tag>[\w\s-]{1,30}?)\s+tag\s+to\s+(?P<who>(?-i:[A-Z])[^.;!?]*?)"
     r"\s*(?:[.;!?].*)?$", r"tag \g<who> as \g<tag>"),
    # "X's title is now Y": the value is Y ("now" is no part of it)
    (r"(?<='s)\s+(?P<field>[\w\s-]{1,25}?)\s+(?:is|are)\s+now\s+(?=\S)", r" \g<field> is "),
    # "Tick the Do not contact checkbox on X" / "untick ..." ("tick" and "untick" need no box)
    (r"^\s*(?:(?:tick|check)\s+(?:the\s+)?(?P<field>[\w\s-]+?)\s+(?:checkbox|check\s*box|box|flag)"
     r"|tick\s+(?:the\s+)?(?P<ticked>[\w\s-]+?))\s+(?:on|for|of)\s+(?P<who>.+?)\s*[.!]?\s*$",
     lambda m: f"mark {m['who']} as {m['field'] or m['ticked']}"),
    (r"^\s*(?:(?:untick|uncheck|clear)\s+(?:the\s+)?(?P<field>[\w\s-]+?)\s+"
     r"(?:checkbox|check\s*box|box|flag)|(?:untick|uncheck)\s+(?:the\s+)?(?P<unticked>[\w\s-]+?))"
     r"\s+(?:on|for|of)\s+(?P<who>.+?)\s*[.!]?\s*$",
     lambda m: f"set {m['field'] or m['unticked']} on {m['who']} to false"),
    # "Log the listing as a deal called X", "Book me a viewing as a meeting task: X", "Add the
    # agency we co-list with as a company: X": a thing described, then the record it is
    (r"(?:^|(?<=[.!?]\s))\s*(?:log|book|record|enter|register|add|put\s+in)\s+(?:me\s+)?"
     r"(?:the|a|an|this|that|our)\s+[\w -]{2,40}?\s+as\s+an?\s+(?:new\s+)?"
     r"(?P<kind>(?:[\w-]+\s+)?(?:deal|task|company))\b", r"create a \g<kind>"),
    # "add a contact: Bartholomew Quist from Fabrikam Software": the company named as such
    # (the name's "from" / "at" had been dropped, or read as a job title ":")
    (r"^\s*(?P<verb>add|create|new)\s+(?:an?\s+)?(?:new\s+)?contact\s*:?\s*(?P<name>" + _PERSON
     + r")\s+(?:from|at|of|with)\s+(?P<org>" + _ORG + r")(?=\s*(?:[,;.]|$))",
     r"\g<verb> a contact: \g<name>, company \g<org>"),
    # "add Noor Haddad as a contact at Fabrikam Software": the company named as such
    (r"^\s*" + ASKING + r"(?P<verb>add|create|put\s+in|enter)\s+(?P<name>" + _PERSON + r")"
     r"\s+as\s+(?:an?\s+)?(?:new\s+)?contact\s+(?:at|from|of|with|for)\s+"
     r"(?P<org>" + _ORG + r")(?=\s*(?:[,;.?!]|$))",
     r"\g<verb> a contact: \g<name>, company \g<org>"),
    # "Add X as a contact. Her job title is Release Manager.": the new contact's title
    (r"^(?P<head>\s*" + ASKING + r"(?:add|create|put\s+in|enter)\b[^.?!;]*)(?:[.?!;]|,\s*and)\s+"
     r"(?:her|his|their)\s+(?:job\s+)?(?P<f>title|role|position)\s+is\s+", r"\g<head>, job \g<f> "),
    # "Add Harbor Lane Staffing as a client company: ..." (what the company is to us goes)
    (r"\bas\s+an?\s+(?:new\s+)?(?:client|prospect|partner|customer|vendor|supplier|target)\s+"
     r"(?=company\b|contact\b)", "as a "),
    # a closing interjection ("..., slay", "... lol", "... ta"): no part of the request
    (r"(?:\s*[,.!]\s*|\s+)(?:slay|lol|lmao|fr|ngl|tbh|thx|ty|ta|yay|woo+|yass+|cheers)\s*[.!]*\s*$",
     ""),
    # "Is there a candidate called Radia in here somewhere?": a look-up of that name
    (r"^\s*(?:is\s+there|do\s+we\s+have|have\s+we\s+got)\s+(?:an?\s+|any\s+)?(?P<kind>[\w-]+)\s+"
     r"(?:called|named)\s+(?P<name>.+?)(?:\s+(?:in\s+here|in\s+the\s+(?:crm|system)|on\s+file))?"
     r"(?:\s+(?:somewhere|at\s+all))?\s*\?\s*$",
     lambda m: f"find {_kind_of(m['kind'])}{m['name']}"),
    # "draft a mail to X regarding Y": about Y
    (r"\b(?P<verb>draft|send|write)\s+an?\s+(?:e-?mail|mail)\s+to\s+(?P<who>.+?)\s+"
     r"(?:regarding|concerning|re\b:?|on\s+the\s+(?:topic|subject)\s+of)\s+",
     r"\g<verb> an email to \g<who> about "),
    # "draft an email to X asking if ...", "send X an email thanking him for ...": an e-mail
    # whose purpose is its body, and its subject said in a few words
    (r"^\s*(?:please\s+|kindly\s+)?(?:(?:could|can|would)\s+you\s+)?(?P<verb>draft|send|write)\s+"
     r"(?:(?P<named>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){1,2})\s+)?an?\s+"
     r"(?:e-?mail|mail|note|message)\s+(?:to\s+(?P<to>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){1,2})"
     r"\s+)?(?P<purpose>(?:asking|thanking|inviting|reminding)\b[^?!.]*)[?!.]?\s*$",
     _purpose_mail),
    # other CRMs' and other Englishes' words: "prepone" (move earlier), "the activity X"
    (r"\bprepone\b", "move"),
    (r"\b(?:the\s+)?activity\s+(?=(?-i:[A-Z]))", "the task "),
    # "creating a company for Pinecrest Dental": a company has no "for"; it is its name
    (r"\b(?P<verb>creat(?:e|ing)|add(?:ing)?|mak(?:e|ing)|set(?:ting)?\s+up)\s+an?\s+(?:new\s+)?"
     r"company\s+for\s+(?=(?-i:[A-Z]))", r"\g<verb> a company called "),
    # "Frances Allen's a proper customer now": what the person is now
    (r"^(?P<who>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){1,2})(?:'s|\s+is)\s+(?:an?\s+)?"
     r"(?:proper|real|full|paying|actual|fully\s+fledged)\s+(?P<value>[\w-]+)\s+now\b",
     r"mark \g<who> as \g<value>"),
    # "(the people, not the opps)": a parenthesis that only says what is not meant
    (r"\s*\((?:the\s+)?[\w -]{2,30},\s*not\s+(?:the\s+)?[\w -]{2,30}\)", ""),
    # "Newsletter-tagged contacts": contacts tagged newsletter
    (r"\b(?P<tag>[A-Za-z]+)-tagged\s+(?P<what>[\w-]+)", r"\g<what> tagged \g<tag>", ALL),
    # --- the value first, the record last: "2 stars: Litware Labs' account health" ---
    (r"^\s*(?P<v>[^:" + _DASHES + r"]+?)\s*" + _SAID_FIRST + r"\s*(?:that'?s\s+)?"
     r"(?P<who>(?-i:[A-Z])[^:," + _DASHES + r"]*?)(?:'s|')\s+(?:new\s+)?"
     # (a field's name, not a sentence: "Tiny change: X's job title is Y" says its own value)
     r"(?P<field>(?![\w -]*\b(?:is|are|was|were|should|will|has|have)\b)[\w -]+?)"
     r"(?:\s+(?:from\s+now\s+on|now|going\s+forward))?(?:\s*,?\s*please)?\s*[.!]?\s*$",
     r"set \g<who>'s \g<field> to \g<v>"),
    (r"^\s*(?P<v>[^:" + _DASHES + r"]+?)\s+is\s+(?P<who>(?-i:[A-Z])[^.]*?)(?:'s|')\s+new\s+"
     r"(?P<field>[\w -]+?)\s*[.!]?\s*$", r"set \g<who>'s \g<field> to \g<v>"),
    (r"^\s*(?P<v>[^:" + _DASHES + r"]+?)\s*" + _SAID_FIRST + r"\s*(?:that'?s\s+)?(?:the\s+)?new\s+"
     r"(?P<field>[\w -]+?)\s+(?:for|of|on)\s+(?P<what>.+?)\s*[.!]?\s*$",
     r"set the \g<field> of \g<what> to \g<v>"),
    (r"^\s*(?P<v>lost|won)\s*,?\s+because\s+(?:the\s+|a\s+)?(?P<why>[^" + _DASHES + r"]+?)\s*"
     + _DASH + r"\s*that'?s\s+(?P<what>.+?)(?:\s+now)?\s*[.!]?\s*$",
     r"mark \g<what> as \g<v>, lost reason \g<why>"),
    (r"^\s*(?P<what>[^" + _DASHES + r"]+?)\s*" + _DASH + r"\s*(?P<verb>find|look\s+up|pull\s+up|"
     r"open|get)\s+(?:it|them|that|those)(?:\s+for\s+me)?\s*[.!]?\s*$", r"\g<verb> \g<what>"),
    (r"^\s*(?P<what>[^" + _DASHES + r"]+?)\s*" + _DASH + r"\s*show\s+me\s+(?:the\s+)?"
     r"(?:list|them|those)\s*[.!]?\s*$", r"show me \g<what>"),
    (r"^\s*(?P<q>'[^']+'|\"[^\"]+\")\s*" + _SAID_FIRST + r"\s*(?P<req>.*?)\s+(?:for\s+)?"
     r"(?:that|this)\s+(?:word|term|name|phrase|text)\s*[.!]?\s*$", r"\g<req> for \g<q>"),
    (r"^\s*(?P<vals>[^" + _DASHES + r"]+?)\s*" + _DASH + r"\s*that'?s\s+(?P<name>[^,]+?),\s+an?\s+"
     r"new\s+(?P<kind>[\w-]+)\s+to\s+add\s*[.!]?\s*$", r"add a new \g<kind> \g<name>, \g<vals>"),
    (r"^\s*(?P<when>[^:" + _DASHES + r"]+?)\s*" + _SAID_FIRST + r"\s*(?:a\s+)?reminder\s+"
     r"(?P<p>to|about|for)\s+(?P<what>.+?)\s*[.!]?\s*$", r"remind me \g<when> \g<p> \g<what>"),
    (r"^\s*(?P<s>[^" + _DASHES + r"]+?)\s*" + _DASH + r"\s*that'?s\s+the\s+subject\s*,?\s*"
     r"(?:and\s+)?the\s+body\s+(?:says|is|reads)\s+(?P<b>[^;]+?)\s*;\s*(?P<verb>send|draft)\s+it\s+"
     r"to\s+(?P<to>.+?)\s*[.!]?\s*$", r'\g<verb> an email to \g<to> about "\g<s>", saying \g<b>'),
    (r"^\s*(?P<s>'[^']+'|\"[^\"]+\")\s+as\s+the\s+subject\s*,\s*(?P<purpose>[^" + _DASHES + r"]+?)"
     r"\s*" + _DASH + r"\s*an?\s+draft\s+(?:for|to)\s+(?P<to>[^,]+?)"
     r"(?:\s*,\s*(?:don'?t|do\s+not)\s+send(?:\s+it)?)?\s*[.!]?\s*$",
     r"draft an email to \g<to> about \g<s>, saying \g<purpose>"),
    (r"^\s*(?P<v>[\w -]+?),\s*(?P<sort>sorted\s+by\s+[\w -]+?)\s*:\s*(?:the\s+)?(?P<what>[\w-]+)"
     r"\s+in\s+that\s+(?P<field>[\w-]+)\s*[.!]?\s*$", r"\g<what> with \g<field> \g<v>, \g<sort>"),
    # the values first, then the create asked for: "Retail, 300 staff -- create a company ..."
    (r"^\s*(?P<vals>[^:," + _DASHES + r"]+,[^:" + _DASHES + r"]+?)\s*" + _SAID_FIRST + r"\s*"
     r"(?P<req>(?:(?:please\s+)?(?:create|add|log|make|open)\s+(?:an?\s+)?(?:new\s+)?|an?\s+new\s+|"
     r"new\s+)" + _KINDS + r"\b[^:" + _DASHES + r"]*?)\s*[.!]?\s*$", r"\g<req>, \g<vals>"),
    (r"\b(?P<kind>company|deal|contact|task)\s+record\s+(?:for|called|named)\s+"
     r"(?P<name>(?-i:[A-Z])[\w&'. -]*?)(?=\s*(?:[,;]|\.\s|\.?$))", r'\g<kind> "\g<name>"'),
    (r",\s*mine\s*(?=[,.]|$)", ", assigned to me"),
    # "Company to add: X", "Task for me: X", "New company, name X", "New deal for Y, name X"
    (r"^\s*(?P<kind>" + _KINDS + r")\s+to\s+(?:add|create|log)\s*:\s*", r"add a \g<kind>: "),
    (r"^\s*(?:new\s+)?(?P<kind>task|ticket|to-?do)\s+for\s+me\s*:\s*(?P<name>[^,.]+)",
     r'add a \g<kind> "\g<name>", assigned to me'),
    (r"^\s*(?P<head>(?:new|add\s+an?|create\s+an?)\s+(?:new\s+)?" + _KINDS + r")\s+for\s+"
     r"(?P<org>[^,]+?)\s*,\s*name\s+(?P<name>(?![\"'])[^,.]+)",
     r'\g<head> "\g<name>" for \g<org>'),
    (r"^\s*(?P<head>(?:new|add\s+an?|create\s+an?)\s+(?:new\s+)?" + _KINDS + r")\s*,\s*"
     r"name\s+(?P<name>(?![\"'])[^,.]+)", r'\g<head> "\g<name>"'),
    # a heading before the request: "Kick-off for a new deal: X, ...", "Final whistle: send ..."
    (r"^[^:]{0,40}?\b(?:for|of)\s+an?\s+new\s+(?P<kind>" + _KINDS + r")\s*:\s*",
     r"add a \g<kind>: "),
    (r"^[^:\d]{0,40}:\s*(?=an?\s+(?:new\s+)?" + _KINDS + r"\s+(?:called|named)\b)", "add "),
    (r"^(?P<head>[^:]{0,60}?)\s*:\s*(?=remind\s+me\b)(?P<req>[^:]+?)\s*[.!]?\s*$",
     lambda m: f"{m['req']} {m['head']}" if re.search(r"\d|day\b", m["head"]) else m["req"]),
    (r"^(?![^:]*\b(?:new|add|create|need|want|" + _KIND_NAMES + r")\b)"
     r"(?-i:[A-Z])[^:\d]{0,30}?\s(?-i:[a-z])[^:\d]{0,30}:\s*(?=(?:send|draft|find|list|show|create|set|"
     r"mark|move|update)\s)", ""),
    # "Fabrikam Software: employees 310, ...", "We took the loss on X: stage lost, ...": a record,
    # then its fields and values
    (r"^(?:(?![^:]*\b(?:add|create|new|log|open|make)\b)[^:]*?\b(?:on|for|with)\s+(?:the\s+)?)?"
     r"(?!(?:update|change|set|edit|modify|amend|"
     r"correct|fix|add|new|create)\b)(?![^:]*\b(?:is|was|are|were|has|had|have|made|got|took|did)\b)"
     r"(?P<name>(?-i:[A-Z])[\w&' -]{2,60}?)\s*:\s*"
     r"(?=" + _FIELD_WORDS + r"\s)", r"update \g<name>: "),
    # "Where's the play called 'X'? It's a task."
    (r"^\s*where'?s\s+the\s+[\w-]+\s+(?:called|named)\s+(?P<q>'[^']+'|\"[^\"]+\")\s*\?\s*"
     r"it'?s\s+an?\s+(?P<kind>[\w-]+)\s*[.!]?\s*$", r"find \g<kind> \g<q>"),
    # "job title now Head of Platform": the value is what follows "now"
    (r"\b(?P<f>job\s+title|title|role|stage|status|lifecycle(?:\s+stage)?|priority|amount|phone|"
     r"email|website|industry)\s+now\s+", r"\g<f> ", ALL),
    # "overdue tasks: due before today, status not done": a list and its conditions
    (r"^\s*(?P<what>(?:[\w-]+\s+){0,2}(?:tasks|deals|contacts|companies|tickets|opportunities))\s*:\s*"
     r"(?=\S)", r"list \g<what> with "),
    # --- contrasts: what is not meant goes, what is meant stays ---
    # "The vendor can't do Thursday, so the X moves to Friday": the reason goes
    (r"^[^,.;]{3,80}?\b(?:can't|cannot|can\s+not|won't|couldn't)\b[^,.;]*,\s*so\s+", ""),
    # "the X moves to Friday. Update the due date." is a move
    (r"^(?:the\s+)?(?P<what>[^.;]+?)\s+(?:moves|is\s+moving|has\s+moved|slipped|slips|"
     r"(?:gets|got|was|has\s+been|is)\s+(?:moved|pushed))\s+(?:back\s+|out\s+)?to\s+"
     r"(?P<when>[^.;]+?)\s*(?:\.\s*(?:please\s+)?update\s+(?:the|its)\s+[\w -]+?)?\s*[.!]?\s*$",
     r"move \g<what> to \g<when>"),
    # "X isn't a lead any more, she's qualified now"
    (r"^(?P<who>(?-i:[A-Z])[^,;.]+?)\s+(?:isn't|is\s+not|is\s+no\s+longer)\s+(?:an?\s+)?[\w-]+"
     r"(?:\s+any\s*more)?\s*[,;]\s*(?:she|he|they|it)(?:'s|\s+is|\s+are|'re)\s+(?:now\s+)?"
     r"(?:an?\s+)?(?P<value>[\w-]+)(?:\s+now)?\s*[.!]?\s*$", r"mark \g<who> as \g<value>"),
    # "I'm not reopening the X deal; just change its lost reason to ..."
    (r"^\s*I'?m\s+not\s+[\w-]+ing\s+(?P<what>[^;,]+?)\s*[;,]\s*(?:just\s+|only\s+)?"
     r"(?P<verb>change|set|update)\s+its\s+", r"\g<verb> \g<what>'s "),
    # "Industry software, not financial services, whatever their website says."
    (r",\s*whatever\s+[^.;,]*?\bsays?\s*(?=[.;,]|$)", ""),
    (r"(?<=\w),\s+not\s+(?!only\b|yet\b|sure\b|now\b)[\w -]{2,30}?(?=\s*[,.;]|\s*$)", "", ALL),
    # "Don't put it at lead, it's already qualified": the value meant
    (r"\b(?:don't|do\s+not)\s+(?:put|set|leave|make)\s+it\s+(?:at|to|as|in|on)\s+[\w-]+\s*[,;]\s*"
     r"it'?s\s+(?:already\s+)?(?P<value>[\w-]+)", r"\g<value>"),
    # "Draft, don't send, an email to ..."
    (r"^\s*(?P<verb>draft|write)\s*,\s*(?:but\s+)?(?:don't|do\s+not)\s+send(?:\s+it)?\s*,\s*",
     r"\g<verb> "),
    # "Show my reminders, not the ones that already went off, ..."
    (r",?\s*not\s+the\s+ones?\s+(?:that|which|who)\s+[^,.;]+", ""),
    # "untick do not contact" inside a change: the box's field set to false, not ticked
    (r"\b(?:untick|uncheck)\s+(?:the\s+)?(?P<field>[\w -]+?)"
     r"(?:\s+(?:checkbox|check\s*box|box|flag))?(?=\s*(?:$|[,.;!]|\s+and\b))", r"\g<field> false",
     ALL),
)  # fmt: skip


def plain_relayed(text: str) -> str:
    """The message without a relaying frame and in a request's words, not a sheet's
    (unchanged when no rule applies)."""
    return applied(_RULES, text)
