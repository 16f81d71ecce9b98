"""English as some people speak it, in the words the offline planner reads: Scots ("Pit her
doon as a lead", "tae", "the morra at half ten", "Friday coming"), Singlish ("Can add company X
or not?", "lah", "key in one new task"), dropped g's ("closin'", "askin'"), a trade's
shorthand ("approx 600 emp, annual rev ~$45M", "sched a task") and the verbs people bring a
record into being with ("spawn a company", "fire a new deal", "stick a new deal in").

Each rewrite swaps words for the words they stand for and keeps every name, field and value;
the planner then reads the message with its usual checks, so nothing here writes anything by
itself. Only small letters are read as dialect ("Ma" or "Tae" starting a name stays as typed,
except where a sentence starts with a word no name is: "Ma tasks").
"""

from __future__ import annotations

import re

from fieldhouse.agents.providers.offline_register import Rule, Rules, applied
from fieldhouse.agents.providers.offline_values import EMAIL

#: Scots words, and the English words they are
_SCOTS = {
    "tae": "to", "fur": "for", "noo": "now", "aboot": "about", "efter": "after",
    "efternoon": "afternoon", "afore": "before", "mair": "more", "thoosand": "thousand",
    "whit": "what", "havenae": "haven't", "hasnae": "hasn't", "arenae": "aren't",
    "isnae": "isn't", "cannae": "can't", "dinnae": "don't", "disnae": "doesn't",
    "didnae": "didn't", "wullnae": "won't", "widnae": "wouldn't", "aff": "off", "pit": "put",
    "doon": "down", "oot": "out", "oor": "our", "yer": "your", "wi'": "with", "o'": "of",
    "gie": "give", "gie's": "give me", "ma": "my", "masel": "myself",
    "wance": "once", "nae": "no", "frae": "from", "intae": "into", "oan": "on",
}  # fmt: skip
#: a trade's shorthand and a phone's, in any message
_SHORTHAND = {
    "emp": "employees", "emps": "employees", "rev": "revenue", "approx": "about",
    "sched": "schedule", "mo": "month", "mos": "months",
}  # fmt: skip
#: single words of other Englishes (Jamaican, Ghanaian, Hawaiian Pidgin, Kenyan) and the
#: English words they are; a capital only at a sentence's start, as for Scots
_WORLD = {
    "weh": "that", "nuh": "not", "inna": "in", "di": "the", "har": "her", "bout": "about",
    "mek": "make", "okyena": "tomorrow", "da": "the", "fo'": "for", "tafadhali": "please",
    "haraka": "now", "kesho": "tomorrow", "owt": "anything", "nowt": "nothing",
    "bukra": "tomorrow",
    # Geordie ("divvent send it", "howay"), Portuguese words in English ("amanhã", a
    # "costumer" is a customer), Newfoundland English ("I needs", "I wants")
    "divvent": "don't", "divent": "don't", "dinnet": "don't", "amanhã": "tomorrow",
    "amanha": "tomorrow", "costumer": "customer", "costumers": "customers",
    "kkkk": "", "kkk": "",
}  # fmt: skip
_PLAIN = {**_SCOTS, **_SHORTHAND, **_WORLD}
_WORD = re.compile(
    r"(?<![\w@./'-])(?P<w>"
    + "|".join(re.escape(k) for k in sorted(_PLAIN, key=len, reverse=True))
    + r")(?![\w@/-]|'\w)",
    re.I,
)
_MODULE_WORD = r"(?:deal|company|contact|task|opportunity|account|lead|to-do|todo)"
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
#: a count said before a unit of time ("after two weeks", "over 3 days")
_A_FEW = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip

#: Scots phrases, read before its words: "Gonnae no send it" is don't send it
_PHRASES: Rules = tuple(
    (re.compile(p, re.I), r)
    for p, r in (
        (r"\bgonnae\s+no(?![\w'-])", "don't"),
        (r"\bgonnae(?![\w'-])", "going to"),
        (r"\bthe\s+morra(?![\w'-])", "tomorrow"),
        (r"\bthe\s+noo(?![\w'-])", "now"),
        # Swahili: "kesho kutwa" is the day after tomorrow (read before "kesho", a word)
        (r"\bkesho\s+kutwa\b", "the day after tomorrow"),
        # Gulf Arabic: "ba'd bukra" (read before "bukra", tomorrow), "ya'ni" (I mean);
        # Yorkshire: "t'" (the), "any road" (anyway)
        (r"\bba['\u2019]?d\s+bukra\b", "the day after tomorrow"),
        (r"\bya['\u2019]?ni\b", "I mean"),
        (r"(?<![\w'])t['\u2019](?=[A-Za-z])", "the "),
        (r"\s*,?\s+any\s*road\b", ""),
        # Geordie: "the morn" (tomorrow), "hev a deek" (have a look), "remind us" (me);
        # Portuguese: "depois de amanhã" (read before "amanhã"), "Bom dia"; Newfoundland:
        # "I needs", "I wants"
        (r"\bthe\s+morn\b(?!ing)", "tomorrow"),
        (r"\bhev\s+a\s+deek\s+(?:through|at|for)\b", "search"),
        (r"\b(?P<v>remind|show|give|tell|send)\s+us\b", r"\g<v> me"),
        (r"\bdepois\s+de\s+amanh[ãa]\b", "the day after tomorrow"),
        (r"^\s*bo[mn]\s+dia\s*[!.,]*\s*", ""),
        (r"\bi\s+(?P<v>need|want)s\b", r"I \g<v>"),
    )
)
_RULES: Rules = tuple(
    (re.compile(p, re.I), r)
    for p, r in (
        # "Friday coming", "Monday coming": that day, the next one
        (r"\b(?P<d>" + _DAYS + r")\s+coming\b", r"\g<d>"),
        # Nigerian English: "next tomorrow" is the day after tomorrow; "now now" (South
        # African) and "Please help me to" ask nothing more
        (r"\bnext\s+tomorrow\b", "the day after tomorrow"),
        (r"\bnow\s+now\b", "now"),
        (r"\bplease\s+help\s+me\s+(?:to\s+)?(?=(?:add|create|open|put|set|change|update|move|"
         r"find|search|look|list|show|send|draft|remind|make|log|record)\b)", "please "),
        (r"\babeg\b", "please"),
        # "has resumed as Head of X": has taken up the post
        (r"\bhas\s+resumed\s+as\b", "is now"),
        (r"^\s*oya\s*,?\s*", ""),
        # "remind me tomorrow by 9am", "Set reminder ... by 3pm": at that time
        (r"(?<=\bremind)(?P<r>[^.!?]{0,60}?)\bby\s+(?=\d{1,2}(?::\d\d)?\s*(?:am|pm)\b)",
         r"\g<r>at "),
        # Cockney: "dog and bone" is a phone, "have a butcher's" a look; "twelve grand" 12,000
        (r"\bdog\s+and\s+bone\b", "phone"),
        (r"\b(?:have|take)\s+a\s+butcher'?s\b", "have a look"),
        # "a thoosand" -> "a thousand": the number
        (r"\b(?:a|one)\s+thousand\b", "1000"),
        # Singlish: "Can add company X or not?", "X, can?", "one new company"
        (r"^\s*can\s+(?=(?:add|create|open|key\s+in|put|set|change|update|move|send|make)\b)",
         ""),
        (r"\s*,?\s+or\s+not\s*\?(?=\s*\S)", ","),
        (r"\s*,?\s+or\s+not\s*\?", "."),
        (r"\s*,?\s+can\s*\?\s*", ". "),
        (r"\b(?:key|punch)\s+in\b", "enter"),
        (r"\bone\s+new\b", "a new"),
        (r"\bopen\s+new\b", "open a new"),
        # particles that say nothing at a clause's end: "lah", "leh", "lor", "meh", "ah"
        (r"\s+(?:lah|leh|lor|meh|hor|sia|ah)\b(?=\s*(?:[,.;!?\u2014-]|$))", ""),
        # "..., aye.", "..., chef.": a word to the listener, no part of the request
        (r"\s*,\s*(?:aye|chef|mate|pal|boss|bro|buddy|folks|guys|team|eh|love|cher|habibi|kid|"
         r"habibti|howay|pet|hinny|b'y|me\s+son|my\s+love|my\s+son|me\s+darling)"
         r"(?=\s*(?:[,.;:!?]|$))", ""),
        # the 24-hour clock with an "h" ("9h", "14h30"), as in Portuguese and French
        (r"\b(?P<h>[01]?\d|2[0-3])h(?P<m>[0-5]\d)\b", r"\g<h>:\g<m>"),
        (r"\bat\s+(?P<h>[01]?\d|2[0-3])h\b(?!\w)", r"at \g<h>:00"),
        # a greeting before the request ("Ey up, love.", "Salam habibi."), a hope after it
        # ("..., inshallah he becomes customer soon", "Yalla."): nothing asked
        (r"^\s*(?:ey\s+up|sala+m(?:\s+(?:alaikum|aleikum))?|marhaba|ahlan)\b[\w\s,]{0,20}?"
         r"[.!]\s*", ""),
        (r"\s*,?\s+(?:in\s*sha|ma\s*sha)['\u2019\s]*a?llah\b[^.!?]*", ""),
        (r"(?<=[.!?])\s*yalla\s*[.!]*\s*$", ""),
        # the 24-hour clock after Finnish "klo" ("klo 10", "klo 14.30"); "after two weeks"
        # (Finnish English): in two weeks
        (r"\bklo\s+(?P<h>[01]?\d|2[0-3])[.:](?P<m>[0-5]\d)\b", r"at \g<h>:\g<m>"),
        (r"\bklo\s+(?P<h>[01]?\d|2[0-3])\b(?![.:]\d)", r"at \g<h>:00"),
        (r"\bafter\s+(?=" + _A_FEW + r"\s+(?:days?|weeks?|months?)\b)", "in "),
        (r"^\s*i\s+would\s+need\s+(?:an?\s+)?(?=new\b)", ""),
        # "Make deal for X", "A to-do for me: ...", "Task for me, type call: ..."
        # ("Make task Sensor site visit done": a change, not a new task)
        (r"^\s*make\s+(?=(?:deal|contact|company|task)\s+(?:for|called|named|titled|:))",
         "Create a new "),
        (r"^\s*an?\s+(?=(?:to-?do|task|call\s+task|meeting\s+task|follow-?up)\s+for\s+me\s*:)",
         "Create a "),
        (r"^\s*(?:please\s+)?(?:(?:create|make|add|open)\s+)?(?:an?\s+)?(?:new\s+)?task\s+for\s+me"
         r"\s*[,:]?\s*type\s+(?P<t>meeting|call|follow-?up|to-?do)\s*:\s*",
         r"Create a \g<t> task for me: "),
        # a new record's name said after its module ("New deal for X, the name is Y, ...",
        # "Make deal for X. Name Y, ...")
        (r"^(?P<h>\s*(?:create|make|add|open|new)\b[^.!?,]{0,60}?)\s*[.,]\s*(?:the\s+|its\s+)?"
         r"name\s*(?:is\s+|:\s*)?(?=(?-i:[A-Z]))", r"\g<h> named "),
        # "the brass" (Yorkshire: money) of a deal is its amount
        (r"\bthe\s+brass\b", "the amount"),
        # "Is there anything in here about 'x'?": a search for it
        (r"^\s*is\s+there\s+anything\s+(?:in\s+here\s+|at\s+all\s+)?(?:about|on|for|with|"
         r"mentioning)\s+", "find anything about "),
        # "Draft an email for Mary Jackson": to her (not "a task: prepare a note for X")
        (r"^(?P<v>\s*(?:please\s+)?(?:draft|write|send|compose)\s+(?:an?\s+|one\s+)?(?:e-?mail|note|"
         r"message))\s+for\s+(?=(?-i:[A-Z][a-z]+\s+[A-Z]))", r"\g<v> to "),
        # a list without those marked so ("minus anyone marked do not contact")
        (r"\b(?:minus|except|excluding|but\s+not|without)\s+(?:anyone|anybody|those|people|"
         r"the\s+ones)\s+(?:who\s+(?:is|are)\s+)?(?:marked|flagged)\s+(?:as\s+)?"
         r"(?=do[- ]not[- ]contact)", "and not "),
        # a disambiguation: "Move the Tailspin deal to X, I mean Tailspin analytics, not the
        # security review": that record
        (r"^(?P<v>.*?)\b(?:the\s+)?(?P<w>(?-i:[A-Z])[\w'-]+)\s+(?:deal|task|contact|company)\b"
         r"(?P<rest>[^,]*),\s*i\s+mean\s+(?P<name>(?P=w)\b[^,.;!?]*?)\s*(?:,\s*not\s+[^.;!?]*)?"
         r"(?=[.!?]?\s*$)", r"\g<v>\g<name>\g<rest>"),
        # "X is Head of Research now, change his job title": X's title is now that
        (r"^\s*(?P<who>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)+)\s+is\s+(?:the\s+)?"
         r"(?P<v>[^,.;]+?)\s+now\s*[,.;]\s*(?:please\s+)?(?:change|update|set|fix)\s+"
         r"(?:his|her|their)\s+(?P<f>job\s+title|title|role|position)\b[^.!?]*",
         r"\g<who>'s \g<f> is now \g<v>"),
        # office shorthand: "WIP" in progress, "HC" headcount, "DNC" do not contact, "FYI",
        # "w.r.t." and "ca." about, "viz.", "cf. ..." and "(... et al.)" asides
        (r"\bwip\b", "in progress"),
        (r"(?-i:\bHC\b)", "employees"),
        (r"(?-i:\bDNC\b)", "do not contact"),
        (r"\btag(?:ged)?\s+(?P<w>(?:him|her|them|[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s+)?(?:as\s+)?"
         r"(?-i:DM)\b", r"tag \g<w>decision maker"),
        (r"\s*,?\s*\bfyi\b\s*[,:]?", ""),
        (r"\bw\.\s?r\.\s?t\.?(?=\s)", "about"),
        (r"\bca\.\s+(?=\d)", "about "),
        (r"\s*\((?:[^()]*\bet\s+al\.?|cf\.[^()]*|e\.g\.[^()]*)\)", ""),
        (r",?\s+\bviz\.?\s+", ": "),
        (r"(?<=[.!?])\s*(?:the\s+)?rest\s+of\s+the\s+details\s+(?:tbd|to\s+follow|later)"
         r"\s*\.?", ""),
        (r"(?<=[.!?])\s*(?:solid|good|great|strong|perfect)\s+(?:icp\s+)?fit\s*[.!]?\s*$", ""),
        # "Create a follow-up task for me, i.e. send ...": its name; "Find X, i.e. ...": said again
        (r"^(?P<h>\s*(?:please\s+)?(?:create|add|make|new|open)\b[^.:;,]{0,60}?)\s*,\s*i\.\s?e\.\s*",
         r"\g<h>: "),
        (r"\s*,\s*i\.\s?e\.\s*[^.!?]*", ""),
        # Dutch English: "Do you want to make ...?" (please make), "over two days" (in), "9.30
        # hour", "a mailtje"
        (r"^\s*do\s+you\s+want\s+to\s+(?=(?:make|create|add|set|change|move|put|draft|write|send|"
         r"update|open|find|look|show|list|remind)\b)", "Please "),
        (r"\bover\s+(?=" + _A_FEW + r"\s+(?:days?|weeks?|months?|hours?)\b)", "in "),
        (r"\b(?P<h>[01]?\d|2[0-3])[.:](?P<m>[0-5]\d)\s+hours?\b", r"\g<h>:\g<m>"),
        (r"\bmailtje\b", "email"),
        # "New account for my territory: X": a new company named X
        (r"^\s*(?:a\s+)?new\s+(?P<m>account|company|contact|deal|task)\s+for\s+(?:my|our|the)\s+"
         r"[\w\s-]{2,30}?:\s*", r"New \g<m>: "),
        # "X has progressed from lead to qualified; please update the lifecycle": X's lifecycle
        # is now qualified; "X got promoted to T": X's job title is now T
        (r"^\s*(?P<who>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+))\s+(?:has\s+)?(?:progressed|moved|"
         r"gone|advanced|went)\s+from\s+[\w-]+\s+to\s+(?P<v>[\w-]+)\s*[;,.]\s*(?:please\s+)?"
         r"update\s+(?:the|her|his|their)\s+(?P<f>[\w -]+?)(?:\s+accordingly)?\s*[.!]?\s*$",
         r"\g<who>'s \g<f> is now \g<v>."),
        (r"^\s*(?P<who>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+))\s+(?:got|was|has\s+been)\s+"
         r"promoted\s+to\s+(?P<v>[^.,;]+?)\s*[.!]\s*(?:please\s+)?update\s+(?:the|her|his|their)\s+"
         r"(?:job\s+)?title\b[^.!?]*[.!]?\s*$", r"\g<who>'s job title is now \g<v>."),
        # "New contact. Aino Virtanen, ...": the record's details follow
        (r"^\s*(?P<h>(?:a\s+)?new\s+(?:contact|company|deal|task))\s*\.\s+(?=(?-i:[A-Z]))",
         r"\g<h>: "),
        # a theatre's words: "in the book" (the CRM), "cue me" (remind me), "cues"
        # (reminders), "Standby email" (a draft), "Hold the go" (don't send it)
        (r"\s+in\s+the\s+book\b", ""),
        (r"\bcue\s+me\b", "remind me"),
        (r"\b(?:my\s+)?cues\b", "my reminders"),
        (r"\bhave\s+already\s+gone\b(?!\s+off)", "have already gone off"),
        (r"^\s*standby\s+(?:an?\s+)?e-?mail\b", "Draft an email"),
        (r"\bhold\s+the\s+go\b", "don't send it"),
        (r"^\s*(?:another|a\s+new|new)\s+venue\s+for\s+the\s+book\s*:", "New company:"),
        # a list's last words: "..., all of them"; "Contacts in X, only qualified ones"
        (r"\s*,\s*all\s+of\s+them\s*(?=[.!?]?\s*$)", ""),
        (r"^(?P<h>\s*(?:deals|companies|contacts|tasks)\b[^.;]*?),\s+only\s+(?P<v>[\w-]+)\s+"
         r"ones\s*[.!?]?\s*$", r"\g<h> that are \g<v>"),
        # "spawn a company", "fire a new deal", "stick a new deal in", "sched a task": a create
        (r"^\s*(?:spawn|fire|stick|pop|chuck|bang|throw|slap|whack|schedule)\s+"
         r"(?:(?:a|an)\s+)?(?:new\s+)?(?=" + _MODULE_WORD + r"\b)", "create a new "),
        (r"\blog\s+it\s+as\s+an?\s+(?=" + _MODULE_WORD + r"\b)", "create a "),
        # "... on hold, don't fire it": don't send it
        (r"\bdon'?t\s+fire\s+it\b", "don't send it"),
        # "..., link it to the X deal": the new task's related deal (read before a pronoun is)
        (r"\blink\s+it\s+to\s+", "linked to "),
        # a list's last word: "deals closing before ..., not lost" are those that are not lost
        (r"^(?P<h>\s*(?:my\s+)?(?:deals|companies|contacts|tasks)\b[^.;]*?),\s+not\s+"
         r"(?=[\w-]+\s*(?:,|[.!?]?\s*$))", r"\g<h> that are not "),
        # a Japanese honorific after a name ("Hedy Lamarr-san"); "mail" for e-mail
        (r"(?<=[A-Za-z])-(?:san|sama|kun|chan)\b", ""),
        (r"(?<![\w-])mail\s+address\b", "email address"),
        (r"^\s*mail\s+(?:for|to)\s+", "email to "),
        # topic first: "About Northwind design system, close date moves to ..."
        (r"^\s*about\s+(?P<x>(?-i:[A-Z])[^,;.]{2,60}?)\s*,\s+", r"\g<x>: "),
        # "in three days' time": in three days
        (r"\b(?P<n>\w+)\s+(?P<u>days?|weeks?|months?)'?\s+time\b", r"\g<n> \g<u>"),
        # "~$45M", "~600": about that
        (r"(?<!~)~(?!~)\s*(?=[$€£]?\d)", ""),  # not "~~420~~": struck out in Markdown
        # an honorific before a name ("Sir Dennis Ritchie", "Ma'am Mary Jackson"): the name
        (r"(?-i:\b(?:Sir|Ma['\u2019]am|Madam|Mama|Bwana|Uncle|Aunty|Auntie)\s+)(?=(?-i:[A-Z][a-z]))",
         ""),
        # Filipino English's particles of politeness and emphasis ("for me po", "pala",
        # "naman") and its "Sige," (all right): nothing asked
        (r"(?-i:\s+(?:po|pala|naman)\b)(?!['\u2019-])", ""),
        (r"^\s*sige\s*[,.!]\s*", ""),
        # Swahili in Kenyan English ("tafadhali", "haraka", "kesho" are words of _WORLD):
        # "bwana" (sir, mate) and a closing "Poa." (cool)
        (r"\s*,?\s+bwana\b", ""),
        (r"(?<=[.!?])\s*poa\s*[.!]?\s*$", ""),
        # Welsh English's tag "..., isn't it" (not a question) and "there's lush" (lovely)
        (r"\s*,\s*isn'?t\s+it\b(?!\s*\?)", ""),
        (r"\s*,\s*there'?s\s+lush\b", ""),
        # a drill sergeant's "at the double" (at once), "Right then." and "if you please"
        (r"\s*,?\s+at\s+the\s+double\b", ""),
        (r"^\s*right\s+then\s*[.,!]\s*", ""),
        (r"\s*,\s*if\s+you\s+please\b\s*,?", ""),
        # the 24-hour clock: "at 0730", "at 1800 hours"
        (r"\b(?P<at>at|by|for|from|until)\s+(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)"
         r"(?:\s*(?:hours|hrs)\b)?(?![\d:,.]\d)", r"\g<at> \g<h>:\g<m>"),
        # a card player's words: "the pot" of a deal is its amount, "the odds" its probability
        (r"\bthe\s+pot\b", "the amount"),
        (r"\bthe\s+odds\b", "the probability"),
        # "Task for me, meeting type: X, ...": a meeting task, named X; "Put a follow-up task
        # in for me: X"
        (r"^\s*(?:please\s+)?(?:(?:create|make|add|open)\s+)?(?:an?\s+)?(?:new\s+)?task\s+for\s+me"
         r"\s*[,:]?\s*(?P<t>meeting|call|follow-?up|to-?do)\s+type\s*:\s*",
         r"Create a \g<t> task for me: "),
        (r"^\s*(?:please\s+)?(?:put|pop|stick)\s+(?P<a>an?\s+(?:[\w-]+\s+)?task)\s+in\s+"
         r"(?=for\s+me\b)", r"Create \g<a> "),
        (r"\btied\s+to\s+the\s+(?=[^.;]{2,60}?\bdeal\b)", "linked to the "),
        # a reason that asks nothing: "..., for my coaching notes", "..., per Ken", "...,
        # they're happy with our agents", "Mission accomplished."
        (r"\s*,\s+for\s+(?:my|our)\s+(?![^.!?]*\b(?:deals?|compan\w*|contacts?|tasks?|"
         r"records?)\b)(?![^.!?]*(?-i:[A-Z]))[\w\s'-]{2,40}?(?=\s*[.!?]?\s*$)", ""),
        (r"\s*,\s+per\s+(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?(?=\s*[.!?]?\s*$)", ""),
        (r"\s*,\s+(?:they|she|he)(?:'re|'s|\s+are|\s+is)\s+(?:so\s+|very\s+|really\s+)?"
         r"(?:happy|pleased|unhappy|thrilled|delighted|impressed|satisfied|chuffed)\b[^.!?]*", ""),
        (r"(?<=[.!?])\s*mission\s+accomplished\s*[.!]?\s*$", ""),
        # "X have a new website, Y." (a company as a team: "have"); "X have grown, they are
        # now 3,300 employees": X now has that many
        (r"(?P<n>(?-i:[A-Z])[\w&'-]*)\s+have\s+a\s+new\s+(?P<f>[\w -]{2,20}?)\s*,\s*(?=\S+\.?\s)",
         r"\g<n> has a new \g<f>: "),
        (r"(?P<n>(?-i:[A-Z])[\w&'-]*)\s+(?:have|has)\s+(?:grown|shrunk|expanded)\s*,?\s*"
         r"(?:they|it)\s+(?:are|is)\s+now\s+(?=\d)", r"\g<n> now has "),
        # Jamaican English: "fi mi" for me, "Show mi", "Mi have", "the task dem" (tasks),
        # "weh" that, "nuh" not, "inna" in, "di" the, "har" her, "bout" about, "mek" make,
        # ", seh ..." saying ..., "Who dis?", a greeting ("Wah gwaan.") and a closing "Respect."
        (r"\bfi\s+mi\b", "for me"),
        (r"\b(?P<v>show|tell|give|remind|send|for|to|with)\s+mi\b", r"\g<v> me"),
        (r"(?:^|(?<=[.!?]\s))mi\s+(?=(?:have|just|want|need|get|got|meet|met)\b)", "I "),
        (r"\b(?P<n>task|deal|contact|compan(?:y|ie)|reminder|record)s?\s+dem\b", r"\g<n>s"),
        (r"\bfi\b(?=\s+(?-i:[A-Z]))", "for"),
        (r"\s*,\s*seh\s+", ", saying "),
        (r"\bwho\s+dis\s*\?", "Who is this?"),
        (r"^\s*wah\s+gwaan\s*[.!,]*\s*", ""),
        (r"(?<=[.!?])\s*respect\s*[.!]*\s*$", ""),
        # Ghanaian English: "okyena" tomorrow, "Herh,"/"Chale," openers, "on"/"off" the
        # do-not-contact box
        (r"^\s*(?:herh|chale|charley)\s*[,!]\s*", ""),
        (r"^\s*(?:please\s+)?on\s+the\s+do[- ]not[- ]contact\b", "tick do not contact"),
        (r"^\s*(?:please\s+)?off\s+the\s+do[- ]not[- ]contact\b", "untick do not contact"),
        # Hawaiian Pidgin: "da" the, "fo'" for, "one" a (after a verb), "No send 'um" don't
        # send it, "brah"
        (r"\b(?P<v>open|make|write|draft|get|create|add|send|put|set)\s+one\b(?!\s+of\b)",
         r"\g<v> a"),
        (r"^\s*one\s+(?=(?:to-?do|task|deal|contact|company|new)\b)", "a "),
        (r"\bno\s+send\s+'?um\b", "don't send it"),
        (r"\s*,?\s+brah\b", ""),
        # "... on Edsger Dijkstra's record": for that person; a reason a person gave for the
        # do-not-contact box ("she said we should stop calling her", "he wants to hear from
        # us again")
        (r"\bon\s+(?P<who>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){1,2})'s\s+"
         r"(?:record|card|profile|contact)\b", r"for \g<who>"),
        (r"\s*,\s+(?:she|he|they)\s+(?:said|says|asked|told\s+us)\s+(?:that\s+)?"
         r"(?:we\s+should\s+|to\s+)?(?:stop|not|never)\s+(?:call|contact|e-?mail|mail|ring)\w*"
         r"\b[^.!?]*", ""),
        (r"\s*,\s+(?:she|he|they)\s+wants?\s+to\s+hear\s+from\s+us\s+again\b", ""),
        # "a company name Portmore Hardware": named
        (r"\b(?P<m>company|contact|deal|task)\s+name\s+(?=(?-i:[A-Z]))", r"\g<m> named "),
        # a lead-in that only announces the request: "Tiny change:", "Quick one:", "Heads up!"
        (r"^\s*(?:(?:a|one)\s+)?(?:(?:tiny|small|quick|little|minor|another|good|great)\s+)?"
         r"(?:change|update|one|thing|fix|edit|news|heads[- ]up)\s*[:!]+\s*(?=\S)", ""),
        # "My tasks on high priority": those of that priority
        (r"^(?P<h>\s*(?:(?:show|list|get|give)\s+(?:me\s+)?)?my\s+(?:open\s+)?tasks)\s+"
         r"(?:on|with|at|of)\s+(?P<p>low|medium|high|urgent)\s+priority\b",
         r"\g<h>, \g<p> priority"),
        # "Target close is end of next month": the close date
        (r"\btarget\s+close(?:\s+date)?\s+is\b", "close date is"),
        # topic first: "X, please move the close date to ...", "the X: push it to Saturday"
        (r"^\s*(?P<x>(?-i:[A-Z])[^,;.:]{2,60}?)\s*,\s*(?P<p>please\s+)?"
         r"(?P<v>move|change|set|update|push|bump)\s+(?P<f>the\s+[\w -]{2,30}?)\s+to\b",
         r"\g<p>\g<v> \g<f> of \g<x> to"),
        (r"^\s*(?:slow-?play\s+)?(?P<x>the\s+(?![^:;,.]*\b(?:where|whose|which|that|with)\b)[^:;,.]{2,60}?)"
         r"\s*[:;,]\s*(?P<v>push|bump|shift|delay|postpone)\s+it\s+(?=(?:to|back\s+to|until)\b)",
         r"\g<v> \g<x> "),
    )
)  # fmt: skip


def _word(m: re.Match[str]) -> str:
    said = m["w"]
    lower = said.lower()
    plain = _PLAIN[lower]
    if said[0].isupper():
        # "Ma tasks", "Whit reminders": a capital only where a sentence starts
        before = m.string[: m.start()].rstrip()
        if before and before[-1] not in ".!?:;\u2014-":
            return said
        if re.match(r"\s+[A-Z]", m.string[m.end() :]):
            return said  # "Da Vinci", "Di Maria": a name's first word
        return plain[0].upper() + plain[1:]
    return plain


_DROPPED = re.compile(r"(?<![\w'])(?P<w>[a-z]{2,})in'(?=[\s,.;:!?]|$)")


def _g_dropped(text: str) -> str:
    """ "closin'", "askin'": the word with its g, outside quotes."""

    def put_back(m: re.Match[str]) -> str:
        before = _DROPPED.sub("", text[: m.start()])
        quotes = len(re.findall(r"(?<!\w)'|'(?!\w)", before))
        return m[0] if quotes % 2 else m["w"] + "ing"

    return _DROPPED.sub(put_back, text)


def _half_hour(text: str) -> str:
    """ "at half ten" (British) and "at half past ten": ten thirty; "at quarter past ten" ten
    fifteen, "at quarter to ten" nine forty-five."""

    def time(m: re.Match[str]) -> str:
        hour = _NUMBER_WORDS.get(m["h"].lower()) or int(m["h"])
        if m["part"].lower().startswith(("quarter", "a quarter")):
            if m["part"].lower().endswith("to"):
                return f"{m['at']}{(hour - 2) % 12 + 1}:45"
            return f"{m['at']}{hour}:15"
        return f"{m['at']}{hour}:30"

    return re.sub(
        r"(?P<at>\bat\s+)(?P<part>half(?:\s+past)?|(?:a\s+)?quarter\s+(?:past|to))\s+"
        r"(?P<h>" + "|".join(_NUMBER_WORDS) + r"|1[0-2]|[1-9])\b",
        time,
        text,
        flags=re.I,
    )


#: a letter's habits: the parts of a request run on with ellipses ("New Contact... Dorothy
#: Kessler... Office Manager"), a sign-off ("- Walt", "Thanks, Walt", "Thank You"), the record
#: kept "in the computer" or "for the Rolodex", "Please advise", a doubled question mark
_THANKS = r"(?:(?:many\s+)?thanks|thank\s+you)"
_LETTER: tuple[Rule, ...] = tuple(
    (re.compile(p, re.I), r, n)
    for p, r, n in (
        (r"(?:[.!?]\s*|\s+|,\s*)?[-\u2013\u2014]\s*(?-i:[A-Z][a-z]+)\s*$", ".", 1),
        # (not a name after a title's dot: "named Ms. Smith")
        (
            r"(?<=[.!?])(?<!\b(?:Mr|Ms|Mx|Dr|St|Jr|Sr)\.)(?<!\b(?:Mrs|Rev)\.)(?<!\bProf\.)\s*"
            rf"{_THANKS}?\s*,?\s*(?-i:[A-Z][a-z]+)\s*$",
            "",
            1,
        ),
        (rf"(?<=[.!?\u2026])\s*{_THANKS}\s*[.!]*\s*$", "", 1),
        (r"(?<=\w)\s+(?-i:Thanks|Thank\s+[Yy]ou)\s*[.!]*\s*$", ".", 1),
        (r"\s*(?:\.{3,}|\u2026)\s*$", ".", 1),
        (r"\s*(?:\.{3,}|\u2026)\s*(?=[.!?])", "", 0),
        # (not before a correction: "at Northwind... no, Wide World" is read as one later)
        (
            r"\s*(?:\.{3,}|\u2026)(?!\s*(?:no|nope|sorry|wait|actually|i\s+mean|make\s+that|"
            r"scratch\s+that|or\s+rather)\b)\s*",
            ", ",
            0,
        ),
        (r"\s+(?:in|into|on|to|for)\s+(?:the\s+)?(?:computer|rolodex)\b", "", 0),
        (r"(?<=[.!?])\s*please\s+advise\s*[.!]*\s*$", "", 1),
        (r"\?{2,}", "?", 1),
    )
)


def plain_letter(message: str) -> str:
    """The message without a letter's habits (:data:`_LETTER`); unchanged when it has none."""
    if "\n" in message:  # a pasted e-mail or form: read by its lines later
        return message
    return applied(_LETTER, message).strip()


def plain_dialect(message: str) -> str:
    """The message in the words the planner reads (unchanged when nothing here is said; its
    lines as they were: a pasted e-mail or form is read by its lines later)."""
    text = applied(_PHRASES, _g_dropped(plain_letter(message)), times=2)
    text = _WORD.sub(_word, text)
    text = _half_hour(text)
    # after the rules: "a thousand", "one thousand" are 1000 by theirs
    text = applied(_RULES, text)
    text = _FRONTED.sub(lambda m: f"{m['who']} is now a {m['v'].lower()}.", text)
    text = _SPACED_THOUSANDS.sub(lambda m: re.sub(r"\s", "", m[0]), text)
    text = _ASIDE.sub(_aside, text)
    text = _whose_address(text)
    return _THOUSANDS.sub(lambda m: f"{_NUMBER_WORDS[m['n'].lower()]} ", text)


#: "48 000 €", "12 500 euros": thousands grouped by spaces, before a currency (phones are not)
_SPACED_THOUSANDS = re.compile(
    r"(?<![\d+])(?<![\d+]\s)\d{1,3}(?:[ \u00a0\u202f]\d{3})+"
    r"(?=\s*(?:€|\b(?:eur|euros?|usd|dollars?|aed|dirhams?|sek|nok|dkk|kr)\b))",
    re.I,
)
#: a closing remark about oneself ("..., me I'm on the road till Thursday", "..., we're at the
#: half on that one"): dropped when it says no value (no digit, address, field or record word)
_ASIDE = re.compile(
    r"\s*,\s+(?P<c>(?:me\s+)?(?:i'?m|i\s+am|we'?re|we\s+are)\s+[^.!?,;]{3,60}?)\s*(?=[.!?]?\s*$)",
    re.I,
)
_SAYS_A_VALUE = re.compile(
    r"\d|@|\b(?:deal|compan|contact|task|stage|amount|title|phone|e-?mail|priority|status|due|"
    r"close|date|tag|lifecycle|probability|name|won|lost|lead|customer|sign|signing|signed)",
    re.I,
)


#: a name in a remark (a capital that is not "I" or a day's): the remark may say a value
_NAMES_ONE = re.compile(r"(?-i:\b(?!I\b|I'm\b|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b)[A-Z])")


def _aside(m: re.Match[str]) -> str:
    said = m["c"]
    return m[0] if _SAYS_A_VALUE.search(said) or _NAMES_ONE.search(said) else ""


#: "twelve grand", "five thousand": the number in figures
_THOUSANDS = re.compile(
    r"\b(?P<n>" + "|".join(_NUMBER_WORDS) + r")\s+(?=(?:grand|thousand)\b)", re.I
)

#: a fronted predicate (Welsh English): "Customer she is now, Hedy Lamarr." is Hedy Lamarr is
#: now a customer
_FRONTED = re.compile(
    r"^\s*(?P<v>[a-z][\w-]+)\s+(?:she|he|they)\s+(?:is|are)\s+now\s*,\s*"
    r"(?P<who>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){1,2}))\s*[.!]",
    re.I,
)


_ADDRESS = re.compile(EMAIL)
#: a question who an address is ("Who is x@y?", "whose email is this: x@y? Find out")
_WHOSE = re.compile(
    r"\b(?:who|whose|hoo|look\s+(?:it\s+)?up|find\s+out|recall|who'?s\s+that|"
    r"(?:somebody|someone|anybody|anyone)\s+with)\b",
    re.I,
)
#: ... and no request to write to it or with it
_DOES_MORE = re.compile(
    r"\b(?:send|write|draft|compose|reply|add|create|new|set|change|update|put|save|store|"
    r"remind|mark|tag|delete|remove|email\s+(?:him|her|them))\b",
    re.I,
)


def _whose_address(text: str) -> str:
    """ "Who is x@y? Look it up.": a search for the address (the one said, no other)."""
    found = _ADDRESS.findall(text)
    if len(found) != 1 or not _WHOSE.search(text) or _DOES_MORE.search(text):
        return text
    return f"find {found[0].rstrip('.')}"
