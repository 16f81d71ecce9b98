"""Requests said in a formal register or as a correction, in the plain words the offline
planner reads: "It is requested that a deal entitled 'X' be opened for Y" is "create a deal
entitled 'X' for Y"; "X's job title is wrong, it should say CTO" is "X's job title should be
CTO"; "Kindly note that ... is hereby amended to V" is "... should be V".

Each rewrite keeps every word that names a record, a field or a value; only the words that
say how the person asks (officialese, the shape of a correction) change. The planner reads the
result as it reads any request, with the same checks (the record looked up, the value read as
its field's type), so a rewrite never writes anything by itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from fieldhouse.agents.providers.offline_values import find_phone

#: what a rule puts in place of its match: a text (with group references) or a function
Replacement = str | Callable[[re.Match[str]], str]
#: (pattern, replacement), or (pattern, replacement, count) with its own count (0: every match)
Rule = tuple[re.Pattern[str], Replacement] | tuple[re.Pattern[str], Replacement, int]
#: rules applied in order (:func:`applied`)
Rules = tuple[tuple[re.Pattern[str], str], ...]
#: a rule's count meaning every match
ALL = 0


def rules(
    *said: tuple[str, Replacement] | tuple[str, Replacement, int], count: int = 1
) -> tuple[Rule, ...]:
    """Rules from (pattern, replacement[, count]), case aside; ``count`` where none is given."""
    return tuple((re.compile(r[0], re.I), r[1], r[2] if len(r) > 2 else count) for r in said)


_NAME = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+"
#: the same in capitals whatever the rule's flags (the rules read case aside)
_CAPITALISED = rf"(?-i:{_NAME})"
#: verbs that say a record is to come into being, in the passive ("is to be raised")
_BROUGHT_IN = (
    r"(?:opened|created|raised|registered|recorded|logged|added|set\s+up|entered|put\s+in)"
)
#: verbs that say a value is to change, in the passive ("is to be revised to")
_CHANGED = (
    r"(?:amended|revised|changed|updated|moved|altered|corrected|adjusted|knocked|dropped|"
    r"lowered|raised|bumped|shifted|rescheduled|postponed|pushed)(?:\s+(?:up|down|back))?"
)
#: "is wrong", "looks wrong", "is out of date": a value said to be wrong
_WRONG = (
    r"(?:is|are|looks|seems|appears(?:\s+to\s+be)?)\s+(?:wrong|incorrect|off|out\s+of\s+date|"
    r"outdated|not\s+right|mistaken)"
)


def _draft_unless_named(m: re.Match[str]) -> str:
    """ "prep a message to X": a draft to X, unless a record's name is being said ("Create a
    task: prepare a message for X", "a to-do to prepare ...")."""
    before = re.split(r"[.!?]\s", m.string[: m.start()])[-1]
    if re.search(r"\b(?:task|to-?do|deal|reminder|named|called|titled)\b|:", before, re.I):
        return m[0]
    return "draft an email to "


#: (pattern, replacement), each applied once, in order, to the whole message
_RULES: tuple[Rule, ...] = tuple(
    (re.compile(p, re.I), r)
    for p, r in (
        # "X's been moved", "Donald Knuth's asked us": has
        (r"(?P<n>\b(?-i:[A-Z])[\w-]*)'s\s+(?=(?:been|asked|got|gone|left|joined|signed|said|told|"
         r"called|emailed|agreed|decided|moved|changed|switched|become)\b)", r"\g<n> has "),
        (r"'s\s+been\b", " has been"),
        # openers that ask nothing: "FYI, ...", "Per our deep dive, ...", "Heads up: ..."
        (r"^\s*(?:fyi|heads[\s-]up|btw|just\s+so\s+you\s+know|for\s+the\s+record|"
         r"(?:as\s+)?per\s+(?:our|the|my|your|today's|this\s+morning's)\s+[\w\s'-]{1,30}?)"
         r"\s*[,:\u2014]\s+", ""),
        # "X, a real mensch, tag him as a champion", "X has signed up, make her a lead": the
        # change, said of X
        (r"^\s*(?!(?-i:The|A|An|Our|My|Their)\s)(?P<n>" + _CAPITALISED + r")(?!['\u2019]s\b)"
         r"(?=\s*,|\s+(?:has|is|was)\b)[^.;!?\d@]{0,60}?[,;]\s+(?:so\s+|please\s+)?"
         r"(?P<v>tag|make|mark|set|flag|give|put)\s+(?:him|her|them)\b", r"\g<v> \g<n>"),
        # "X has been promoted; his new title is Y": X's new title
        (r"(?P<n>" + _CAPITALISED + r")\s+(?:has\s+been|was|got|is)\s+promoted\s*[;,.:\u2014-]?"
         r"\s*(?:and\s+)?(?:his|her|their)\s+(?=(?:new\s+)?(?:job\s+)?(?:title|role)\b)",
         r"\g<n>'s "),
        # "make her a lead in the lifecycle": a lead
        (r"(?<=\w)\s+in\s+the\s+lifecycle(?:\s+stage)?\b", ""),
        # "Tick do not contact": set it
        (r"\btick\s+(?=(?:the\s+)?(?:do\s+not|don'?t)\s+contact\b)", "set "),
        # a reason after the change says nothing of it: "... to the 10th of next month to stay
        # aligned with their budget cycle", "..., because they asked"
        (r"\s*,?\s+(?:to\s+(?:stay|keep|be)\s+(?:aligned|in\s+line|in\s+sync|on\s+track)|"
         r"because\s+(?:they|we|she|he|it)|since\s+(?:they|we|she|he|it)|"
         r"as\s+(?:they|we|she|he)\s+(?:asked|requested|said|wanted))\b[^.!?,;\d@$\u20ac\u00a3]*"
         r"(?=[.!?,;]|$)", ""),
        # "a new deal for Litware Labs. The name is Litware research cloud, ...": called
        (r"(?P<n>\b(?-i:[A-Z])[\w&'-]*)\s*[.;]\s+(?:the|its)\s+(?:name|title)\s+"
         r"(?:is|will\s+be|should\s+be)\s*:?\s+(?=(?-i:[A-Z]))", r"\g<n> called "),
        # officialese that asks nothing by itself
        (r"^\s*(?:please\s+)?kindly\s+(?:note|be\s+advised|be\s+informed)\s+that\s+", ""),
        (r"^\s*(?:please\s+)?(?:note|be\s+advised)\s+that\s+", ""),
        (r"\bkindly\s+", ""),
        (r"\s+hereby\b", ""),
        (r"\s*,?\s+(?:with\s+immediate\s+effect|with\s+effect\s+from\s+today|forthwith)\b", ""),
        (r"\s+(?:is|are)\s+(?:hereby\s+)?requested\s*(?=[.!]?\s*$)", ""),
        # "A listing of all deals at the lead stage": a list asked for
        (r"^\s*(?:an?|the)\s+(?:list|listing|rundown|summary|register)\s+of\s+", "list "),
        (r"^\s*(?:please\s+)?(?:furnish|provide|produce|supply)\s+(?:me\s+)?(?:with\s+)?"
         r"(?:an?\s+)?(?:list|listing|rundown)\s+of\s+", "list "),
        # "It is requested that X be ...": the request itself
        (r"^\s*it\s+is\s+(?:requested|asked|required)\s+that\s+", ""),
        # "needs put in", "needs changed" (Midland English): "needs to be put in"
        (r"\b(?P<n>needs?|wants?)\s+(?=(?:added|put\s+in|created|entered|logged|started|made|"
         r"set\s+up|opened|booked|changed|updated|moved|set|marked|fixed|closed|renamed|sent|"
         r"bumped|pushed|knocked|dropped|lowered|raised)\b)", r"\g<n> to be "),
        # "New company needs to be added: X", "Meeting task needs to be put in: X": a create
        (r"^\s*(?P<what>(?:(?:an?|the)\s+)?(?:new\s+)?(?:[\w-]+\s+)?(?:company|contact|deal|"
         r"task|account|opportunity|to-do))\s+needs?\s+to\s+be\s+"
         r"(?:" + _BROUGHT_IN + r"|started|booked|made)\b"
         r"\s*(?P<colon>:)?\s*", r"create \g<what>\g<colon> "),
        # "Herb Simon needs to be put in as a contact": an add
        (r"(?:^|(?<=[,.;:!]))\s*(?P<who>" + _NAME + r")\s+needs?\s+to\s+be\s+" + _BROUGHT_IN
         + r"\s+as\s+(?P<m>an?\s+(?:new\s+)?(?:contact|company))\b", r" add \g<who> as \g<m>"),
        # "Post a new deal to the pipeline", "Book a new deal", "Admit new company": a create
        (r"^\s*(?:post|book|admit|enter)\s+(?=(?:an?\s+)?(?:new\s+)?(?:deal|company|contact|task|"
         r"opportunity|account)\b)", "create "),
        (r"^(?P<h>\s*create\s+(?:an?\s+)?(?:new\s+)?(?:deal|opportunity))\s+to\s+the\s+pipeline\b",
         r"\g<h>"),
        # "Create a deal for Fabrikam Cloud: Fabrikam Cloud support plan, 14,000": its name
        # ("New deal for X: Name", "... deal for X — Name, 18,500")
        (r"^(?P<h>\s*(?:(?:create|add|open|log|make)\s+(?:an?\s+)?(?:new\s+)?|new\s+)"
         r"(?:deal|opportunity|task)(?:\s+in)?\s+for\s+[^:,;.\u2014\u2013]+?)\s*(?::|\s[\u2014\u2013-])\s*"
         r"(?P<n>(?-i:[A-Z'\"])[^,.;:]+?)\s*(?=[,;]|\.(?:\s|$)|$)",
         r"\g<h> called \g<n>"),
        # "Add X as a contact. He's the Plant Manager at Y": the title and company are the add's
        (r"^(?P<h>(?:[^.;]*?,\s*)?(?:add|create)\s+.+?\s+as\s+an?\s+(?:new\s+)?contact)\s*[.;]\s+(?:and\s+)?"
         r"(?:he|she|they)(?:'s|\s+is|'re|\s+are)\s+(?:the\s+|an?\s+|our\s+|their\s+)?"
         r"(?=(?-i:[A-Z]))", r"\g<h>, "),
        (r"\bover\s+at\s+(?=(?-i:[A-Z]))", "at "),
        # "A new deal, 'X', is to be recorded against Y": a create
        (r"^\s*(?P<what>(?:an?|the)\s+(?:new\s+)?[\w-]+(?:\s+(?:entitled|named|called|titled)"
         r"\s+'[^']+')?)\s*,?\s*(?P<name>'[^']+')?\s*,?\s+(?:is|are|shall|should|must|will)?"
         r"\s*(?:to\s+)?be\s+" + _BROUGHT_IN + r"\b\s*(?P<rest>.*)$",
         r"create \g<what> \g<name> \g<rest>"),
        (r"\b(?:recorded|opened|raised|registered|logged)\s+against\s+", "for "),
        (r"\bagainst\s+(?=" + _NAME + r")", "for "),
        # "X's title is wrong, it should say CTO" / "X amount looks wrong, should be 36,000"
        (r"\s+" + _WRONG + r"\s*[,;:.-]*\s*(?:and\s+)?(?:it\s+|that\s+)?"
         r"(?:should|must|ought\s+to|needs\s+to)\s+(?:be|say|read|show)\s+(?:as\s+)?",
         " should be "),
        (r"\s+" + _WRONG + r"\s*[,;:.-]*\s*(?:it'?s|it\s+is|that'?s)\s+(?:actually\s+)?",
         " should be "),
        # "X shouldn't be high priority, it's medium"
        (r"\s+(?:(?:shouldn'?t|should\s+not)\s+be|isn'?t|is\s+not)\s+[^,;.]+?\s*[,;.]\s*"
         r"(?:it'?s|it\s+is|it\s+should\s+be|they'?re|make\s+it|but)\s+", " should be "),
        # "is to be revised to", "shall be moved to", "is amended to", "be amended to"
        (r"\s+(?:(?:is|are)\s+to\s+be|shall\s+be|should\s+be|must\s+be|needs?\s+to\s+be|is|are|"
         r"be|has\s+been|have\s+been)\s+(?:now\s+)?" + _CHANGED
         + r"\s+(?:from\s+[^,;]+?\s+)?(?:to|as)\s+",
         " should be "),
        (r"\s+(?:(?:is|are)\s+to\s+be|shall\s+be|be)\s+(?:set|put)\s+(?:to|at|as)\s+",
         " should be "),
        (r"\s+(?:shall|is\s+to|are\s+to)\s+be\s+(?:recorded\s+as\s+|shown\s+as\s+)?",
         " should be "),
        (r"\b(?:must|needs\s+to|has\s+to|ought\s+to)\s+(?:now\s+)?be\b(?!\s+(?:done|finished|sent|"
         r"called|made|created|added)\b)", "should be"),
        # "should be qualified, not lead": the old value is no part of the new one
        (r"(\b(?:should\s+be|must\s+be|is\s+now)\s+[^,;]+?)\s*,?\s+(?:not|rather\s+than|instead\s+of)\s+"
         r"[^,;]+?"
         r"\s*(?=[.!?]?\s*$)", r"\1"),
        # "bump the probability up to 80": the new value
        (r"\s+(?:up|down)\s+to\s+(?=\d)", " to "),
        # "update the mobile number of X, it is +91 ...": the new value after the field's record
        (r"^(?P<h>\s*(?:please\s+)?(?:update|change|correct|fix|set)\s+(?:the\s+)?[\w -]+?\s+"
         r"(?:of|for|on)\s+[^,;:]+?)\s*[,;:.-]+\s*(?:it\s+is|it'?s|its|that\s+is|which\s+is)\s+"
         r"(?:now\s+)?(?!(?:not\s+)?(?:wrong|incorrect|off|out\s+of\s+date|outdated|right|"
         r"mistaken|missing|empty|blank|old|stale|correct)\b)(?P<v>[^,;]+?)\s*[.!]?$",
         r"\g<h> to \g<v>"),
        # "stick a new company in called X", "get a new deal in for X called Y": the particle
        (r"\b(?P<m>company|contact|deal|task)\s+in\s+(?=(?:called|named|for)\b)", r"\g<m> "),
        # "... for X at the lead stage": the stage said as its field
        (r"\s+(?:at|in)\s+the\s+(?P<s>[\w-]+)\s+stage\b", r", stage \g<s>"),
        (r"^(?P<h>\s*deals)\s+(?:at|in)\s+(?P<s>[\w-]+)\s+stage\b", r"\g<h>, stage \g<s>"),
        # "push X's close date back to", "move the due date out to"
        (r"\s+(?:back|forward|out)\s+(?=(?:to|until|till)\b)", " "),
        # "Grace Hopper's been made Chief Digital Officer, could you update her title?"
        (r"^(?P<who>" + _NAME + r")(?:'s|\s+has|\s+is)\s+(?:just\s+)?(?:been\s+)?"
         r"(?:made|promoted\s+to|appointed(?:\s+as)?|named\s+as|named)\s+(?:the\s+)?"
         r"(?P<v>(?:[A-Z][\w&/-]*|of|and|for|the)(?:\s+(?:[A-Z][\w&/-]*|of|and|for|the))*)"
         r"\s*(?:[,;.]\s*(?:could|can|would|will|please|so|update|change)\b.*)?[.!]?$",
         r"update \g<who>'s job title to \g<v>"),
        # "Hedy Lamarr got a promotion, she's Chief Innovation Officer now"
        (r"^(?P<who>" + _NAME + r")\s+(?:got|has\s+got|has\s+had|had|was\s+given)\s+"
         r"(?:a\s+)?promotion\s*[,;:.-]+\s*(?:and\s+)?(?:she|he|they)(?:'s|\s+is|'re|\s+are)\s+"
         r"(?:now\s+)?(?:the\s+)?(?P<v>[A-Z][\w&/-]*(?:\s+(?:[A-Z][\w&/-]*|of|and|for))*)"
         r"(?:\s+now)?\s*[.!]?$",
         r"update \g<who>'s job title to \g<v>"),
        # "he holds the position of Compliance Officer at Tailspin Finance"
        (r"\s*[;,.]?\s+(?:and\s+)?(?:he|she|they|who)\s+(?:holds|hold|has|have|occupies)\s+"
         r"the\s+(?:position|role|post|title)\s+of\s+", ", "),
        # "is Brightline Health already in here?", "do we have Acme on file?": a look-up
        (r"^\s*(?:is|are)\s+(?P<x>.+?)\s+(?:already\s+|still\s+)?(?:in\s+here|in\s+there|on\s+file|"
         r"in\s+(?:the|our)\s+(?:system|crm|workspace|database))\s*\??$", r"find \g<x>"),
        # "have we got anyone at Fabrikam Cloud on file?", "which of our contacts work at X?"
        (r"^\s*(?:have\s+we\s+got|do\s+we\s+have|is\s+there|are\s+there|got|any)\s+"
         r"(?:anyone|anybody|someone|any\s+contacts?|any\s+people|contacts?|people)\s+"
         r"(?:at|from)\s+(?P<org>(?-i:[A-Z])[^?.,;]*?)(?:\s+(?:on\s+file|in\s+here|in\s+the\s+system))?"
         r"\s*\??$", r"list contacts at \g<org>"),
        (r"^.*?\b(?:which|what)\s+of\s+(?:our|the|my)\s+contacts\s+(?:work|works|are)\s+(?:at|for|with)\s+",
         "list contacts at "),
        # "what's on my plate": the person's own tasks
        (r"^\s*what'?s\s+on\s+my\s+plate\b", "show my tasks"),
        # "I would like that you make ...", "Mister Brandt"
        (r"^\s*i\s+(?:would|'d)\s+like\s+that\s+you\s+", ""),
        (r"\bmister\s+(?=[A-Z])", "Mr "),
        # "shoot x@y an email", "fire off an email to"
        (r"^\s*(?:shoot|fire\s+off|drop)\s+(?=\S+@\S+\s+an?\s+e-?mail\b|an?\s+e-?mail\b)", "send "),
        # "create a company record for Pemberton Mutual": the record's name
        (r"\b(?P<m>company|contact|deal|task)\s+(?:record|entry)\s+(?:for|of)\s+(?=[A-Z'\"])",
         r"\g<m> called "),
        # lists: the order and the bounds said in words
        (r"\s*,?\s+in\s+(?P<d>descending|ascending)\s+order\s+of\s+(?:the\s+)?(?P<f>[\w -]+?)"
         r"\s*(?=[.!?]?\s*$)", r" sorted by \g<f> \g<d>"),
        (r"\s+by\s+(?P<f>[\w -]+?)\s*,?\s+(?:most|highest|largest|biggest|greatest)\s+first"
         r"\s*(?=[.!?]?\s*$)", r" sorted by \g<f> descending"),
        (r"\s+by\s+(?P<f>[\w -]+?)\s*,?\s+(?:least|fewest|lowest|smallest)\s+first"
         r"\s*(?=[.!?]?\s*$)", r" sorted by \g<f> ascending"),
        (r"\b(?:valued\s+|worth\s+)?in\s+excess\s+of\b", "over"),
        (r"\bon\s+or\s+before\b", "before"),
        (r"\bon\s+or\s+after\b", "after"),
        # "... so I can check them": why a list is asked for
        (r"\s*,?\s+so\s+(?:that\s+)?(?:i|we)\s+can\s+[^,;.]+?\s*(?=[.!?]?\s*$)", ""),
        # reminders: "give me a nudge on Monday to ...", "A reminder is to be scheduled for ..."
        (r"^\s*(?:give\s+(?:me|us)|gimme|send\s+me)\s+a\s+(?:nudge|shout|ping|reminder)\b",
         "remind me"),
        (r"^\s*(?:an?\s+)?reminder\s+(?:is\s+to\s+be|should\s+be|shall\s+be|needs\s+to\s+be|"
         r"must\s+be)\s+(?:set|scheduled|created|made|added|put\s+in)\s+", "set a reminder "),
        (r"\b(?:concerning|regarding|in\s+respect\s+of|with\s+regard\s+to)\s+", "about "),
        # "and in the text ask her whether ...": what the e-mail says
        (r"\s*,?\s*(?:and\s+)?in\s+the\s+(?:text|body|message)\s*,?\s+(?P<v>ask|tell)\s+"
         r"(?:her|him|them)\s*,?\s*", r", \g<v>ing "),
        # "whose email is x@y?", "who has the address x@y": the address looked up
        (r"^.*?\b(?:whose\s+(?:e-?mail(?:\s+address)?|address)\s+is|who\s+has\s+(?:the\s+)?"
         r"(?:e-?mail(?:\s+address)?|address))\s+(?=\S+@)", "find "),
        # "New contact: X, ... Put her down as a lead.": the new record's value, said after it
        (r"^(?P<h>\s*(?:new|add|create)\b(?:[^.;]|\.(?=\S))*?)\s*[.;]\s+(?:put|mark|set|list|flag|add)\s+"
         r"(?:him|her|them|it)\s+(?:down\s+|in\s+)?as\s+(?:an?\s+)?(?P<v>[\w-]+)\s*[.!]?\s*$",
         r"\g<h>, \g<v>."),
        # "at 4 in the afternoon", "at 8 in the morning": the hour of that half of the day
        (r"\bat\s+(?P<t>\d{1,2}(?::\d\d)?)\s+in\s+the\s+(?:afternoon|evening)\b", r"at \g<t>pm"),
        (r"\bat\s+(?P<t>\d{1,2}(?::\d\d)?)\s+in\s+the\s+morning\b", r"at \g<t>am"),
        # "about the sensor loadout — ask which firmware she wants": what the e-mail asks
        (r"\babout\s+(?P<s>[^,;\u2014\u2013]+?)\s+[\u2014\u2013-]\s+(?P<v>ask|tell|remind|thank|invite)\b",
         r"about \g<s>, \g<v>ing"),
        # "Subject: tasting menu. Ask her which night works": the subject ends with its sentence
        (r"\bsubject\s*:\s*(?P<s>[^.!?'\"\n]+?)\s*[.!?]\s+(?P<v>ask|tell|remind|thank|invite)\s+"
         r"(?:her|him|them)\b", r"subject '\g<s>', \g<v>ing"),
        # "Hedy Lamarr became customer yesterday": is now customer
        (r"^\s*(?P<n>" + _CAPITALISED + r")\s+became\s+(?:an?\s+)?(?P<v>[\w-]+)"
         r"(?:\s+(?:yesterday|today|this\s+morning|last\s+week))?", r"\g<n> is now \g<v>"),
        # "Mail to X about Y. Please write that we will ...": what the e-mail says
        (r"(?P<s>\babout\s+[^.;]+?)\s*\.\s+(?:please\s+)?(?:write|say|tell\s+(?:him|her|them))\s+"
         r"that\s+", r"\g<s>, saying "),
        # "queue up an email for X", "prep a message to X": a draft to X; "I'll hit send later"
        # (not inside a task's name: "Create a task: prepare a message for X")
        (r"\b(?:queue\s+up|prep|prepare|line\s+up)\s+(?:an?\s+)?(?:e-?mail|message|note)\s+"
         r"(?:for|to)\s+", _draft_unless_named),
        (r"(?P<d>\bdraft\s+only)\s*[,;]?\s*i'?ll\s+(?:hit\s+)?send\s+(?:it\s+)?(?:later|myself)\b",
         r"\g<d>"),
        (r"\bi'?ll\s+(?:hit\s+)?send\s+(?:it\s+)?(?:later|myself)\b", "don't send it"),
        # "the lost reason wrong — should be 'budget frozen'" (the verb left out)
        (r"\s+(?:wrong|incorrect)\s*[,;:.\u2014\u2013-]*\s*(?:it\s+)?should\s+(?:be|say|read)\s+",
         " should be "),
        # "website is x.example now, not y.example": the old value is no part of the new one
        (r"(?P<h>\bis\s+[^,;\s]+\s+now)\s*,\s+(?:not|no)\s+[^,;\s]+\s*(?=[.!?]?\s*$)", r"\g<h>"),
        # lists: "closing soonest first", "due soonest first"
        (r"\b(?:closing|close|closes)\s+soonest\s+first\b", "soonest close date first"),
        (r"\bdue\s+soonest\s+first\b", "soonest due date first"),
        # "Tag Ken Thompson champion", "tag X with Y", "add the tag Y to X", "X is our man at Y,
        # tag him Z": the tag on that record
        (r"^\s*tag\s+(?P<who>" + _CAPITALISED + r")\s+(?:with\s+)?(?P<t>[\w-]+)\s*[.!]?\s*$",
         r"tag \g<who> as \g<t>"),
        (r"^\s*add\s+(?:the\s+)?tag\s+(?P<t>[\w-]+)\s+to\s+(?P<who>" + _CAPITALISED
         + r")\s*[.!]?\s*$",
         r"tag \g<who> as \g<t>"),
        (r"^\s*(?P<who>" + _CAPITALISED + r")(?:\s+is|'s)\s+(?:our|the|a|an|my)\b[^.;,]*[,.;]\s*"
         r"tag\s+"
         r"(?:him|her|them)\s+(?:as\s+|with\s+)?(?P<t>[\w-]+)\s*[.!]?\s*$",
         r"tag \g<who> as \g<t>"),
        # "Fabrikam Software health dropped to 3 stars": the field of the record named first
        (r"^\s*(?P<r>" + _CAPITALISED + r")(?:'s)?\s+(?P<f>(?-i:[a-z])[\w -]{1,30}?)\s+"
         r"(?:dropped|drop|fell|"
         r"went\s+(?:down|up)|down|rose|up|went)\s+to\s+", r"set \g<r> \g<f> to "),
        # "..., but don't include the do-not-contact ones", "excluding the contacts with the
        # do-not-contact flag": those without it
        (r"\s*,?\s*(?:but\s+)?(?:don'?t\s+include|do\s+not\s+include|excluding|exclude|leave\s+out|"
         r"except(?:\s+for)?|minus)\s+(?:the\s+|any\s+)?(?:contacts?\s+|ones?\s+|people\s+)?"
         r"(?:with\s+(?:the\s+|a\s+)?|who\s+are\s+|marked\s+|flagged\s+)?do[- ]not[- ]contact"
         r"(?:\s+(?:ones|flag|contacts|people))?", " without do not contact"),
        # "Shafi Goldwasser, job title → CISO", "Dennis Ritchie. lifecycle qualified -> customer":
        # the field of the record named first, to the value after the arrow
        (r"^\s*(?P<r>" + _CAPITALISED + r")\s*[,.:;]\s+(?P<f>(?-i:[a-z])[\w -]{1,30}?)\s+"
         r"(?:(?-i:[a-z])[\w -]{0,30}?\s+)?(?:\u2192|->|=>)\s*(?P<v>[^,.;]+)",
         r"set \g<r> \g<f> to \g<v>"),
        # "every contact who asked not to be contacted": those marked do not contact
        (r"\b(?:who|that)\s+(?:have\s+|has\s+)?asked\s+(?:us\s+)?not\s+to\s+be\s+"
         r"(?:contacted|e-?mailed|called)\b", "marked do not contact"),
        # "n'at" (Pittsburgh's "and that"): it says nothing
        (r"\s*,?\s+n'at\b", ""),
        # "draft something to X", "email → X": an e-mail to X
        (r"\b(?P<v>draft|write|send)\s+(?:something|a\s+(?:quick\s+)?(?:note|line|message))\s+"
         r"(?=to\b)", r"\g<v> an email "),
        (r"\b(?P<m>e-?mail|message|note)\s*(?:\u2192|->|=>)\s*", r"\g<m> to "),
        # "write email to Margaret Hamilton": the article left out
        (r"^\s*(?P<v>write|draft|send|compose)\s+e-?mail\s+(?=to\b)", r"\g<v> an email "),
        # "dispatch an e-mail", "despatch a message"
        (r"\b(?:dispatch|despatch|transmit)\s+(?=(?:an?\s+)?(?:e-?mail|message)\b)", "send "),
    )
)  # fmt: skip


#: words shortened as people type them on a phone, and what they stand for
_SHORT = {
    "pls": "please", "plz": "please", "u": "you", "r": "are", "ur": "your", "tmrw": "tomorrow",
    "tmr": "tomorrow", "tmrrw": "tomorrow", "2moro": "tomorrow", "2day": "today",
    "nxt": "next", "abt": "about", "w/": "with", "w/o": "without", "upd": "update",
    "prio": "priority", "prob": "probability", "cust": "customer", "tsk": "task",
    "tsks": "tasks", "cntct": "contact", "cntcts": "contacts", "chg": "change",
    "any1": "anyone", "some1": "someone", "ppl": "people", "dont": "don't", "msg": "message",
    "mtg": "meeting", "subj": "subject", "pri": "priority", "co": "company", "amt": "amount",
    "thx": "thanks", "b4": "before", "wk": "week", "wks": "weeks", "mk": "make",
}  # fmt: skip
#: "2" and "4" said as words ("assigned 2 me", "new deal 4 northwind"): between a word and a
#: word that is no unit of a count
_TWO_FOR = re.compile(
    r"(?<=[a-z]\s)(?P<d>[24])\s+(?=(?!(?:k|m|pm|am|h|hrs?|hours?|mins?|minutes?|secs?|seconds?|"
    r"days?|weeks?|wks?|months?|years?|times|nights|ppl|people|staff|employees|seats|users|"
    r"tasks|deals|contacts|companies|records|more|of|new|or|and|percent|pct|x)\b)[a-z])"
)


def _plain_words(text: str) -> str:
    """A message typed the quick way (no capital letter anywhere): its shortened words in
    full. Nothing changes in a message with a capital: "R" or "4" there is no shorthand. A
    message in capitals only is read in small letters (names are then read as typed in small
    letters: "odette marchand" is Odette Marchand)."""
    if not any(c.islower() for c in text) and sum(c.isupper() for c in text) >= 4:
        text = text.lower()
    if any(c.isupper() for c in text):
        return text
    text = _TWO_FOR.sub(lambda m: "to " if m["d"] == "2" else "for ", text)
    return re.sub(
        r"(?<![\w@./-])(" + "|".join(re.escape(k) for k in _SHORT) + r")(?![\w@/-])",
        lambda m: _SHORT[m[1]],
        text,
    )


#: a person's name as people write it: two or three capitalised words
_PERSON = r"(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){1,2})"
#: a job title: quoted, or capitalised words (small joining words inside), or a C-level
#: abbreviation in any case ("ceo")
_TITLE = (
    r"(?:'(?P<q1>[^']+)'|\"(?P<q2>[^\"]+)\"|(?P<t>(?:(?-i:[A-Z][\w&/-]*)|(?:c[etofi]o|vp)\b)"
    r"(?:\s+(?:(?-i:[A-Z][\w&/-]*)|of|and|for|the|c[etofi]o\b))*))"
)
_SHE = r"(?:she|he|they)(?:'s|\s+is|s|'re|\s+are)\s+(?:now\s+)?(?:the\s+|our\s+|an?\s+)?"
#: "X got promoted, she's CEO now", "X's job is different now, she is the Chief Digital
#: Officer", "X: he is now Head of IT", "X ... her title is now 'VP of Operations'"
_NEW_TITLE = (
    re.compile(
        r"\b(?P<who>"
        + _PERSON
        + r")(?:'s|\s+is|\s+has\s+become)\s+now\s+(?:the\s+|our\s+|an?\s+)?"
        + _TITLE,
        re.I,
    ),
    re.compile(
        r"\b(?P<who>"
        + _PERSON
        + r")\b[^.;:!?]{0,60}?(?:[,;.:!]\s*|\s+)(?:and\s+|so\s+)?(?:now\s+)?"
        + _SHE
        + _TITLE,
        re.I,
    ),
    # "X is the new Head of Platform at Y", "X's the COO at Y now"
    re.compile(
        r"\b(?P<who>" + _PERSON + r")(?:'s|\s+is)\s+(?:now\s+)?(?:the|our)\s+new\s+" + _TITLE,
        re.I,
    ),
    re.compile(
        r"\b(?P<who>"
        + _PERSON
        + r")(?:'s|\s+is)\s+(?:the|our)\s+"
        + _TITLE
        + r"(?:\s+(?:at|of|for|in)\s+[^,.;]{1,40}?)?\s+now\b",
        re.I,
    ),
    re.compile(
        r"\b(?P<who>" + _PERSON + r")\b[^;]{0,80}?\b(?:her|his|their)\s+(?:job\s+)?title\s+is\s+"
        r"(?:now\s+)?" + _TITLE,
        re.I,
    ),
)
#: words that say the change is asked for, or what changed: a title, a promotion
_TITLE_CUE = re.compile(
    r"\b(?:title|job|role|position|promot\w*|update|change|reflect|fix|amend|record|note)\b", re.I
)


#: the polite frame of a request: "would you be able to", "is it possible to"
ASKING = (
    r"(?:(?:please|kindly|(?:could|can|would|will)\s+you(?:\s+be\s+able\s+to)?|"
    r"(?:is|would)\s+it\s+(?:be\s+)?possible\s+to|is\s+there\s+any\s+way\s+to)\s+)*"
)
#: a request to add someone: the title said after it is the new contact's ("Add Noor Haddad
#: as a contact. Her job title is Release Manager.")
_ADDS = re.compile(
    r"\s*" + ASKING + r"(?:add|create|new|log|register|enter|put\s+in|set\s+up)\b", re.I
)
#: a second change asked for beside the title ("... please also tag him decision-maker"): the
#: message is read whole, not as a title alone
_MORE_ASKED = re.compile(
    r"\b(?:also|as\s+well\s+as|plus)\b|\band\s+(?:tag|set|mark|flag|move)\b", re.I
)


def _new_title(text: str) -> str | None:
    """ "update <person>'s title to <title>" for a message that says a person's new title in
    passing, with a word that asks for it or names it; None otherwise. A title that is no
    capitalised run, quote or C-level word ("she's now a customer") is not read here."""
    if not _TITLE_CUE.search(text) or _MORE_ASKED.search(text) or _ADDS.match(text):
        return None
    for pattern in _NEW_TITLE:
        m = pattern.search(text)
        if m is None:
            continue
        title = (m["q1"] or m["q2"] or m["t"] or "").strip()
        title = re.sub(r"\s+(?:now|too|as\s+well)$", "", title, flags=re.I)
        if not title or title.lower() in ("the", "a", "an"):
            continue
        who = re.sub(r"'s$", "", m["who"])
        who = re.sub(
            r"^(?:(?:customer|client|contact|mr|mrs|ms|dr|prof)\.?\s+)+", "", who, flags=re.I
        )
        return f"update {who}'s title to '{title}'"
    return None


_PHONE_CUE = re.compile(r"\b(?:phone|number|mobile|cell|line|tel|telephone)\b", re.I)
_PHONE_ASKED = re.compile(
    r"\b(?:add|change|changed|update|new|gave|give|it'?s|is\s+now|set|put|record|save|store|fix)\b",
    re.I,
)
_NOT_A_PHONE_CHANGE = re.compile(
    r"\b(?:remind|e-?mail|send|draft|call\s+task|create|log)\b"
    r"|\b(?:add|new)\s+(?:an?\s+)?(?:new\s+)?(?:company|contact|account|lead)\b",  # a new record's
    re.I,
)
#: a record's name said first in a message: capitalised words, not after "at"/"from" (a
#: company someone works at is not the record that changed)
_FIRST_NAME_SAID = re.compile(
    r"(?<!\bat\s)(?<!\bfrom\s)(?<!\bof\s)(?<!\bwith\s)(?<!\bfor\s)"
    r"\b(?!(?i:our|the|my|we|please|support|customer|new|note|can|could|hi|hello)\b)"
    r"(?P<who>(?-i:[A-Z][a-z\u00e0-\u00ff'][\w'-]*(?:\s+[A-Z][a-z\u00e0-\u00ff'][\w'-]*){1,2}))"
)


#: other fields a message with a phone may change too (it had kept only the phone)
_OTHER_CHANGES = re.compile(
    r"(?<!\bthe\s)(?<!\bits\s)(?<!\btheir\s)(?<!\bher\s)(?<!\bhis\s)"
    r"\b(?:title|lifecycle|stage|e-?mail|company|status|priority|amount|tags?|website|owner)\b"
    r"(?!['\u2019]s)(?=\s*[:=]?\s*[\w+$€£])",
    re.I,
)


def _new_phone(text: str) -> str | None:
    """ "set <record>'s phone to <number>" for a message that gives one phone number for the
    record it names first ("Margaret Hamilton gave me her phone number, it's +1 408 555
    0199, can you add it"); None when it is anything else (an e-mail, a reminder, a create)."""
    phone = find_phone(text)
    if phone is None or not _PHONE_CUE.search(text) or not _PHONE_ASKED.search(text):
        return None
    if _NOT_A_PHONE_CHANGE.search(text) or find_phone(text[phone.end :]) is not None:
        return None
    if _OTHER_CHANGES.search(text[: phone.start] + " " + text[phone.end :]):
        return None  # "X: title CTO, lifecycle customer, phone +1...": not the phone alone
    first = _FIRST_NAME_SAID.search(text[: phone.start])
    if first is None:
        return None
    who = re.sub(r"'s$", "", first["who"])
    return f"set {who}'s phone to {phone.value}"


#: an e-mail asked for at the end of a message, after what led to it
_MAIL_ASKED = re.compile(
    r"(?:^|[.;!?]\s+|,\s+(?:so\s+|and\s+)?|\s+so\s+)(?:(?:please|could\s+you|can\s+you|would\s+you)"
    r"\s+)?(?P<req>(?:send|draft|write|shoot|e-?mail)\b.*)$",
    re.I,
)
#: the person it goes to, said as a pronoun
_TO_PRONOUN = re.compile(
    r"^(?:send|write|draft|shoot)\s+(?P<p>him|her|them)\s+(?=an?\s+(?:e-?mail|note|message)\b)"
    r"|\b(?:e-?mail|note|message|draft)\s+to\s+(?P<p2>him|her|them)\b"
    r"|^e-?mail\s+(?P<p3>him|her|them)\b",
    re.I,
)
_QUOTED_WORDS = re.compile(r"'[^']*'|\"[^\"]*\"")


def _mail_to_pronoun(text: str) -> str | None:
    """ "I told Ken Thompson I'd send the details; send him an email, subject ...": the
    request, with the one person the words before it name in place of the pronoun; None when
    they name no one or several."""
    m = _MAIL_ASKED.search(text)
    if m is None:
        return None
    request = m["req"]
    to = _TO_PRONOUN.search(request)
    if to is None:
        return None
    before = _QUOTED_WORDS.sub(" ", text[: m.start("req")])
    people = {re.sub(r"'s$", "", p["who"]) for p in _FIRST_NAME_SAID.finditer(before)}
    if len(people) != 1:
        return None
    name = people.pop()
    pronoun = "p" if to["p"] else "p2" if to["p2"] else "p3"
    return request[: to.start(pronoun)] + name + request[to.end(pronoun) :]


#: how a hesitant person wraps a request: it asks nothing by itself ("Um, I think we should
#: probably add ...", "Sorry to bother you, but ...", "... Only if you think that's sensible,
#: of course."). A real choice left open ("X or maybe Y?") stays: the value reader asks.
_HEDGES: Rules = tuple(
    (re.compile(p, re.I), "")
    for p in (
        r"^\s*(?:um+|uh+|erm*|hmm+|so|well|ok(?:ay)?|right)\s*[,.!]+\s*",
        r"^\s*sorry(?:\s+to\s+(?:bother|trouble|pester|bug)\s+you)?(?:\s+again)?\s*[,.!]*\s*"
        r"(?:but\s+)?(?=\S)",
        r"^\s*(?:i\s+(?:think|believe|guess|suppose|reckon|feel\s+like)|i'?m\s+not\s+(?:sure|certain)"
        r"(?:\s+(?:if|whether)\s+this\s+is\s+(?:right|ok(?:ay)?|the\s+right\s+(?:place|way)))?|"
        r"not\s+sure\s+(?:if|whether)\s+this\s+is\s+(?:right|ok(?:ay)?|the\s+right\s+(?:place|way))|"
        r"if\s+it'?s\s+not\s+(?:too\s+much\s+)?(?:a\s+)?(?:bother|trouble)|if\s+you\s+don'?t\s+mind|"
        r"if\s+you\s+(?:get|have)\s+a\s+(?:sec|second|moment|minute|chance)|when\s+you\s+(?:get|have)"
        r"\s+a\s+(?:sec|second|moment|minute|chance)|if\s+you'?re\s+sure\s+it'?s\s+(?:ok(?:ay)?|fine)"
        r"[^,;]*)\s*[,;:]*\s*(?:but\s+|that\s+|then\s+)?",
        r"^\s*(?:(?:maybe|perhaps)\s+)?(?:we|you)\s+(?:should|could|might|may)\s+(?:probably\s+|"
        r"maybe\s+|perhaps\s+)?(?:want\s+to\s+)?(?=(?:add|create|set|change|move|mark|update|bump|"
        r"put|log|make|open|send|draft|remind|list|show|find|push|raise|lower|drop)\b)",
        r"^\s*(?:maybe|perhaps|possibly|probably)\s*,?\s+(?=(?:add|create|set|change|move|mark|"
        r"update|bump|put|log|make|open|send|draft|remind|list|show|find|search|look|push|raise|"
        r"lower|drop|a|an|the)\b)",
        r"\s*[,.;!?]?\s*(?:only\s+if\s+you\s+think[^.?!]*|if\s+(?:that'?s|it'?s)\s+(?:ok(?:ay)?|"
        r"alright|all\s+right|fine|not\s+too\s+much\s+trouble)|i\s+think|i\s+believe|"
        r"i'?m\s+(?:fairly|pretty|quite)\s+sure|if\s+i\s+(?:copied|got|typed|wrote)\s+it\s+right|"
        r"of\s+course|maybe|perhaps|sorry\s+if\s+[^.?!]*|(?:that\s+)?would\s+be\s+(?:fine|great|ok(?:ay)?)"
        r"(?:,?\s+i\s+think)?)\s*[.?!]*\s*$",
        r"\b(?:i\s+(?:think|believe|guess|reckon)|i'?m\s+(?:fairly|pretty)\s+sure)\s+(?=(?:she|he|"
        r"they|it|his|her|their|the|its)\b)",
    )
)
#: "add a contact? Her name is ...": the question mark of a create asked as a question
_ASKED_CREATE = re.compile(r"^(\s*(?:add|create)\s+an?\s+(?:new\s+)?[\w-]+)\?\s+", re.I)


#: slang that wraps a request and asks nothing by itself ("..., bet", "slay", "ngl", "rn",
#: "real quick", "for me bestie", "tiny but they ate"), and slang for a won or lost deal
_SLANG: Rules = tuple(
    (re.compile(p, re.I), r)
    for p, r in (
        (r"^\s*(?:ngl|tbh|lowkey|highkey|fr|ok\s+so|so\s+like|yo|bruh|bestie)\s*[,:]?\s+", ""),
        (r"\s*[,.;!]*\s+(?:bet|slay|periodt?|no\s+cap|fr(?:\s+fr)?|ngl|tbh|rn|lol|lmao|iykyk|"
         r"for\s+me\s+bestie|bestie|real\s+quick|asap\s+pls|tiny\s+but\s+they\s+ate|"
         r"i\s+need\s+the\s+tea|the\s+big\s+dogs\s+only)\s*[.!]*\s*$", ""),
        (r"\s+(?:rn|real\s+quick)\b(?=[,.!?]|\s*$)", ""),
        (r"(?-i:\b(?:that'?s|it'?s|is|was)\s+a\s+W\b)", "is won"),
        (r"(?-i:\btook\s+the\s+L\s+on\s+)", "lost "),
    )
)  # fmt: skip


def applied(rules: Iterable[Rule], text: str, times: int = 1) -> str:
    """``text`` with each rule applied in order, each at most ``times`` times (a rule with a
    count of its own: that many, 0 meaning at every match in one pass)."""
    for pattern, replacement, *own in rules:
        count = own[0] if own else times
        if count == 0:
            text = pattern.sub(replacement, text)
            continue
        for _ in range(count):
            text, n = pattern.subn(replacement, text, count=1)
            if not n:
                break
    return text


def without_slang(text: str) -> str:
    return applied(_SLANG, text)


def without_hedges(text: str) -> str:
    """The request without the hedges around it (each pattern up to twice: "Um, sorry, ...")."""
    text = applied(_HEDGES, text, times=2)
    text = _ASKED_CREATE.sub(r"\1: ", text, count=1)
    return text.strip() or text


def plain_register(text: str) -> str:
    """The message in plain words (unchanged when no rule applies)."""
    text = without_hedges(without_slang(_plain_words(text)))
    said = _new_title(text) or _new_phone(text) or _mail_to_pronoun(text)
    if said is not None:
        return said
    return " ".join(applied(_RULES, text).split())
