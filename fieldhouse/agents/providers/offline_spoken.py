"""Requests spoken rather than typed, in the written words the offline planner reads.

Two kinds of speech reach a chat box as text:

* **dictation** through speech-to-text, with the punctuation spoken ("new contact colon claude
  shannon comma research director at adventure works period", "open quote senior vp finance
  close quote") and the homophones such software writes ("dew friday", "hi priority", "assign
  it two me", "four the Contoso deal", "sell phone");
* **radio procedure**, from someone used to a radio net: call signs ("Fieldhouse, this is Alex,
  over."), "Request ...", "Over.", "How copy?", spelled names ("Bravo Alpha Romeo Tango India
  Kilo"), digits said one by one ("employees three one zero", "1100 hours") and "negative on"
  for "except".

:func:`plain_dictated` and :func:`plain_radio` write each in the planner's words. Each acts only
on a message that shows its kind (spoken punctuation said twice or a quote opened; a closing
"Over" or a call sign), so a typed message is left as it is; and as everywhere in the planner,
the result is read with the usual checks, so nothing here writes by itself.
"""

from __future__ import annotations

import re

from fieldhouse.agents.providers.offline_register import ALL, applied, rules

#: punctuation said as words, and what it writes
_SPOKEN_MARKS = rules(
    (r"\s*\bfull\s+stop\b", "."),
    (r"\s*\bperiod\b", "."),
    (r"\s*\bcomma\b", ","),
    (r"\s*\bsemi-?colon\b", ";"),
    (r"\s*\bcolon\b", ":"),
    (r"\s*\bquestion\s+mark\b", "?"),
    (r"\s*\bexclamation\s+(?:mark|point)\b", "!"),
    (r"\s*\bnew\s+(?:line|paragraph)\b", "."),
    count=ALL,
)
_DICTATED = re.compile(
    r"\b(?:full\s+stop|period|comma|colon|semi-?colon|question\s+mark|open\s+quote)\b", re.I
)
_QUOTED = re.compile(
    r"\bopen\s+(?:quote|quotes)\s+(?P<q>.+?)\s+(?:close|end|unquote)\s*(?:quote|quotes)?\b", re.I
)
#: words speech-to-text writes for others, where the words around them tell which was said
_HOMOPHONES = rules(
    (r"\bdew\b", "due"),
    (r"\bhi(?=\s+priority\b|-priority\b)", "high"),
    (r"\b(?<=\s)two\s+(?=(?:me|him|her|them|us|the|a|an)\b|\S+@)", "to "),
    (r"\b(?P<v>email|e-mail|send|sent|assign|assigned|move|moved|change|set|it|them|him|her)\s+two\b",
     r"\g<v> to"),
    (r"\bfour\s+(?=(?:me|him|her|them|us|the|a|an)\b)", "for "),
    (r"\bsell\s+phone\b", "cell phone"),
    (r"\bmeat\b", "meet"),
    (r"\bknot\b", "not"),
    (r"\bright\s+(?=an?\s+(?:e-?mail|draft|note|message)\b)", "write "),
    count=ALL,
)  # fmt: skip
#: an address said aloud: "claude dot shannon at adventure dot example"
_SAID_ADDRESS = re.compile(
    r"\b(?P<user>[a-z0-9]+(?:\s+(?:dot|underscore|dash)\s+[a-z0-9]+)*)\s+at\s+"
    r"(?P<domain>[a-z0-9-]+(?:\s+dot\s+[a-z0-9-]+)+)\b",
    re.I,
)
_SAID_DOMAIN = re.compile(r"\b(?P<a>[a-z0-9-]+)\s+dot\s+(?P<b>[a-z]{2,})\b", re.I)


def _written_address(m: re.Match[str]) -> str:
    def joined(part: str) -> str:
        part = re.sub(r"\s+dot\s+", ".", part, flags=re.I)
        part = re.sub(r"\s+underscore\s+", "_", part, flags=re.I)
        return re.sub(r"\s+dash\s+", "-", part, flags=re.I)

    return f"{joined(m['user'])}@{joined(m['domain'])}"


def plain_dictated(message: str) -> str:
    """A dictated message with its spoken punctuation, addresses and homophones written; any
    other message as it is."""
    said = len(_DICTATED.findall(message)) >= 2 or re.search(r"\bopen\s+quote", message, re.I)
    if not said or re.search(r"[,;:]", message):  # typed punctuation: not dictated
        return message
    text = _QUOTED.sub(lambda m: f'"{m["q"]}"', message)
    text = _SAID_ADDRESS.sub(_written_address, text)
    text = _SAID_DOMAIN.sub(r"\g<a>.\g<b>", text)
    text = re.sub(r"\bplus\s+(?=\d)", "+", text, flags=re.I)
    text = re.sub(r"\s+(?:dash|hyphen)\s+", "-", text, flags=re.I)
    text = applied(_HOMOPHONES, applied(_SPOKEN_MARKS, text))
    return re.sub(r"\s*\.(?:\s*\.)+", ".", text).strip()


#: the end of a radio call: "Over.", "Over and out.", "How copy? Over.", "Acknowledge. Over."
_OVER = re.compile(
    r"(?:(?<=[.!?,])|^)\s*(?:(?:how\s+copy|do\s+you\s+copy|wilco|roger(?:\s+that)?|confirm|"
    r"acknowledge|please\s+confirm)\s*[?.!]?\s*)*(?:over(?:\s+and\s+out)?|out)\s*[.!]?\s*$",
    re.I,
)
#: who calls whom: "Fieldhouse, this is Alex, over." / "Fieldhouse, Alex."
_CALL_SIGN = re.compile(
    r"^\s*(?-i:[A-Z])\w+\s*,\s*(?:this\s+is\s+)?(?-i:[A-Z])\w+\s*(?:,\s*over)?\s*[.!]\s*", re.I
)
_NATO = (
    "alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliet|juliett|kilo|lima|"
    "mike|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiskey|whisky|xray|"
    "x-ray|yankee|zulu"
)
_SPELLED = re.compile(r",?\s*\b(?:(?:" + _NATO + r")[\s-]+){2,}(?:" + _NATO + r")\b", re.I)
_DIGIT_WORDS = {
    "zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "niner": "9",
}  # fmt: skip
_DIGIT = "|".join(_DIGIT_WORDS)
_DIGITS = re.compile(rf"\b(?:{_DIGIT})(?:[\s-]+(?:{_DIGIT}))+\b", re.I)
_HOURS = re.compile(r"\b(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)\s+hours\b", re.I)


def plain_radio(message: str) -> str:
    """A request said over a radio net, without its procedure words; any other message as it
    is."""
    over = _OVER.search(message)
    sign = _CALL_SIGN.match(message)
    if over is None and not (sign and re.search(r"\bover\b", sign[0], re.I)):
        return message
    text = message[: over.start()] if over else message
    text = _CALL_SIGN.sub("", text) if sign else text
    text = re.sub(r"(?:^|(?<=[.!?]))\s*(?:how\s+copy|wilco|roger(?:\s+that)?|confirm|acknowledge)"
                  r"\s*[?.!]", "", text, flags=re.I)  # fmt: skip
    text = re.sub(r"^\s*request(?:ing)?\s+(?:a\s+)?", "", text, flags=re.I)
    text = re.sub(r"^\s*search\s+on\s+(?:the\s+)?(?:address\s+)?", "search for ", text, flags=re.I)
    text = _SPELLED.sub("", text)
    text = _DIGITS.sub(
        lambda m: "".join(_DIGIT_WORDS[w.lower()] for w in re.split(r"[\s-]+", m[0])), text
    )
    text = _HOURS.sub(r"\g<h>:\g<m>", text)
    text = re.sub(r"\bnegative\s+on\s+", "except ", text, flags=re.I)
    text = re.sub(r"\baffirmative\b", "yes", text, flags=re.I)
    return text.strip(" ,") or message
