"""Misspelled request words put right: "ceate a new compnay", "lsit the daels in negotation".

A hurried or dyslexic typist swaps, drops, doubles or mistypes letters in the words that carry
a request: the verb, the module, the field, a choice's value, a day. The planner reads those
words by their spelling, so each such word is put right before it reads the message.

A word is only changed when it is no English word (the English word list of ``pyspellchecker``),
none of the 20,000 most used Spanish or French words, no British spelling, no chat shorthand
and no word the planner or the workspace's schema knows; and then only to one of:

1. the one request word (a verb, a module, a field, an option, a day: the workspace's own
   words and the planner's) within one slip of it (a letter swapped with its neighbour, left
   out, added or mistyped; two for a word of eight letters or more): "stgae" -> "stage",
   "priorty" -> "priority"; a likelier slip wins ("taks" is "task", not "tags"), and two
   words as near and as likely leave it as typed;
2. two such words run together: "tothe" -> "to the", "jobtitle" -> "job title";
3. the one common English word within one slip: "taht" -> "that", "alredy" -> "already".

A word of four letters or less is often shorthand ("abt", "amt", "req" are no slips of "at" or
"red"): only a swap or a left-out letter puts it right ("nxt", "tsk"). Names are left as typed:
a capitalised word is only looked at at a sentence's start, and then only for a swap ("FIdn");
quoted text, addresses, links and words with digits never. A first word that is a rare English
word one slip from a request verb ("crate a meeting task") is read as that verb, and a rare one
that is a very common word with two letters swapped as that word ("fro" -> "for"). Nothing else
that is an English word changes: "dead" is not "deal", "lost" is not "list".
"""

from __future__ import annotations

import functools
import gzip
import importlib.resources
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import orjson

from fieldhouse.agents.providers.offline_lexicon import QUOTED, lexicon_words
from fieldhouse.agents.providers.offline_schema import (
    FIELD_UNITS,
    FIELD_WORDS,
    MODULE_WORDS,
    OPTION_WORDS,
    Workspace,
    plural,
    words,
)


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: the planner's own request words, beside the workspace's modules, fields and options
REQUEST_WORDS = _listed(
    """
    create add new make update change set edit modify mark move list show find search look
    lookup pull open get draft send write email emails mail remind reminder reminders delete
    remove record records row rows entry note notes subject body about asking saying tell
    thanking priority status stage title job amount probability next tomorrow today tonight
    week weeks month months day days due date deadline already fired scheduled pending all
    every everything my mine our that those these with from what which where who whose
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december morning afternoon evening
    linked related assigned assignee high low medium urgent please thanks sorry
    """
)
#: chat shorthand, no English word but no slip either
SHORTHAND = _listed(
    """
    lol lmao omg pls plz thx ty tysm btw fyi asap imo imho tbh ngl rn idk np lmk eod eow cob
    ooo wfh qbr nps mql sql utm crm ceo cto cfo coo cmo vp hr ok okay fr bc tho ur u pm am
    """
)
#: verbs a request starts with: a rare English word one slip from one is read as it
_VERBS = ("create", "update", "change", "find", "search", "delete", "draft", "remove", "write")
#: an English word at least this common (in the list's counts) may be the reading of a slip
COMMON = 100_000
#: a first word rarer than this that is one slip from a request verb is read as that verb
RARE = 20_000
#: an English word at least this common may be two words run together ("tothe")
VERY_COMMON = 1_000_000
#: an English word rarer than this that is a very common word with two letters swapped is
#: read as that word ("fro" -> "for")
RARE_SWAP = 5_000
#: small words run into the next one ("tothe", "ofthe")
GLUE = _listed("to the of on in at for a an and my")
#: the most used words of Spanish and of French known as words
FOREIGN = 20_000
#: words of this length or less may be shorthand
SHORT = 4
#: words of this length or more may hold two slips
LONG = 8

_WORD = re.compile(
    r"(?<![\w@./'-])([A-Za-z][a-z]*|[A-Z]{2,}[a-z]*|[A-Z][a-zA-Z]*)(?![\w@/'-]|\.\w)"
)
_SENTENCE = re.compile(r"(?:^|[.!?:]\s+)$")
#: what may come before a request's first word
_LEAD = re.compile(r"^[\W]*(?:(?:pls|plz|please|hey|hi|ok|okay|so|now)\W+)*$", re.I)


class WordSet:
    """A large set of words kept small: the sorted hashes of its words (8 bytes a word, where
    a set of 160,000 strings held 19 MB, and its reading 68 MB of a worker's memory)."""

    def __init__(self, hashes: npt.NDArray[np.int64]) -> None:
        self._hashes = np.unique(hashes)

    def __contains__(self, word: object) -> bool:
        h = hash(word)
        i = int(np.searchsorted(self._hashes, h))
        return i < len(self._hashes) and int(self._hashes[i]) == h

    def __len__(self) -> int:
        return len(self._hashes)


@dataclass(frozen=True)
class English:
    """English words (``pyspellchecker``'s list: about 160,000), and how often the more used
    ones are used."""

    words: WordSet
    #: the words used at least RARE_SWAP times, by count
    counts: Mapping[str, int]
    #: the words used at least COMMON times
    common: tuple[str, ...]

    def count(self, word: str) -> int:
        """How often ``word`` is used (0: no English word; 1: a rare one)."""
        return self.counts.get(word, 1 if word in self.words else 0)


#: a word and its count in a list's JSON (``{"word": 123, ...}``)
_ENTRY = re.compile(r'"((?:[^"\\]|\\.)*)": (\d+)')


def _read(language: str) -> Iterator[tuple[str, int]]:
    """A language's words and their counts, one at a time. The list is never held whole: a
    dict of it left 17-24 MB of a worker's memory in use after it was freed (the few words
    kept held its pages); read this way, 2 MB."""
    data = importlib.resources.files("spellchecker") / "resources" / f"{language}.json.gz"
    for m in _ENTRY.finditer(gzip.decompress(data.read_bytes()).decode()):
        word = m[1]
        yield (orjson.loads(f'"{word}"') if "\\" in word else word), int(m[2])


@functools.cache
def english() -> English:
    """Read once (about 1 s of CPU; about 2 MB kept)."""
    counts: dict[str, int] = {}

    def hashes() -> Iterator[int]:
        for word, n in _read("en"):
            if n >= RARE_SWAP:
                counts[word] = n
            yield hash(word)

    words = WordSet(np.fromiter(hashes(), dtype=np.int64))
    common = tuple(w for w, n in counts.items() if n >= COMMON and w.isalpha())
    return English(words, counts, common)


def _counted(listed: Iterable[tuple[str, int]], hashes: list[int]) -> Iterator[int]:
    """Each word's count, its hash added to ``hashes``."""
    for word, n in listed:
        hashes.append(hash(word))
        yield n


@functools.cache
def foreign() -> WordSet:
    """The most used Spanish and French words (people mix them into English requests:
    "c'est", "est", "hier" are no slips of "set" or "her")."""
    kept: list[npt.NDArray[np.int64]] = []
    for language in ("es", "fr"):
        hashes: list[int] = []
        counts = np.fromiter(_counted(_read(language), hashes), dtype=np.int64)
        top = np.argsort(-counts, kind="stable")[:FOREIGN]
        kept.append(np.array(hashes, dtype=np.int64)[top])
    return WordSet(np.concatenate(kept))


def warm() -> None:
    """Read the word lists now (a blocking call: run it in a thread)."""
    from fieldhouse.search.embedding import give_back_memory

    english()
    foreign()
    give_back_memory()  # the lists' text and what reading it freed go back to the system


def warmed() -> bool:
    return english.cache_info().currsize > 0 and foreign.cache_info().currsize > 0


@functools.lru_cache(maxsize=32)
def request_words(ws: Workspace) -> frozenset[str]:
    """Every word a request may hang on, in this workspace."""
    said: set[str] = set(REQUEST_WORDS)
    said.update(_split(w for ws_words in MODULE_WORDS.values() for w in ws_words))
    said.update(_split(w for ws_words in FIELD_WORDS.values() for w in ws_words))
    said.update(_split(w for ws_words in FIELD_UNITS.values() for w in ws_words))
    said.update(_split(w for ws_words in OPTION_WORDS.values() for w in ws_words))
    for module in ws.modules:
        said.update(_split(module.phrases()))
        for f in module.fields:
            said.update(_split([f.label, f.slug]))
            for option in f.options:
                said.update(_split([option.value, option.label]))
    return frozenset(w for w in said | {plural(w) for w in said} if w.isalpha() and len(w) > 1)


def _split(phrases: Iterable[str]) -> set[str]:
    return {w for p in phrases for w in words(p).split()}


def slips(a: str, b: str, most: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b`` (a swap of neighbours counts
    one), or ``most + 1`` once it is past ``most``."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > most:
            return most + 1
        previous2, previous = previous, row
    return previous[-1]


def _swapped(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with two neighbouring letters swapped."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(diff) != 2 or diff[1] != diff[0] + 1:
        return False
    i, j = diff
    return a[i] == b[j] and a[j] == b[i]


#: the kinds of slip, most likely first
SWAP, LEFT_OUT, TOO_MANY, MISTYPED = range(4)


def _kind(word: str, candidate: str) -> int:
    if _swapped(word, candidate):
        return SWAP
    return {1: LEFT_OUT, -1: TOO_MANY}.get(len(candidate) - len(word), MISTYPED)


def _allowed(word: str, name_like: bool) -> tuple[int, ...]:
    """The slips a word may be read through: a short word is often shorthand ("abt", "amt",
    "req" are no slips of "at" or "red"), so only a swap or a left-out letter ("nxt",
    "tsk"); a capitalised word (maybe a name) only a swap."""
    if name_like:
        return (SWAP,)
    if len(word) <= SHORT:
        return (SWAP, LEFT_OUT)
    return (SWAP, LEFT_OUT, TOO_MANY, MISTYPED)


def _nearest(word: str, among: Iterable[str], most: int, kinds: tuple[int, ...]) -> str | None:
    """The one word of ``among`` fewest slips from ``word`` (of ``kinds`` when one slip;
    the likelier kind first); None when none is, or two are equally near."""
    best: list[tuple[int, int, str]] = []
    for candidate in among:
        if abs(len(candidate) - len(word)) > most:
            continue
        if (
            candidate[0] != word[0]
            and len(word) < LONG
            and not (word[0] == candidate[1:2] and word[1:2] == candidate[0])
        ):
            continue  # a slip in the first letter of a short word: too many readings
        d = slips(word, candidate, most)
        if d > most:
            continue
        kind = _kind(word, candidate) if d == 1 else MISTYPED
        if d == 1 and kind not in kinds:
            continue
        best.append((d, kind, candidate))
    if not best:
        return None
    best.sort()
    if len(best) > 1 and best[0][:2] == best[1][:2]:
        return None
    return best[0][2]


def _corrected(word: str, known: frozenset[str], *, first: bool, name_like: bool) -> str | None:
    """``word`` put right, or None. ``first``: the request's first word; ``name_like``: a
    capitalised word at a sentence's start (it may be a name: only a request word may
    replace it)."""
    low = word.lower()
    en = english()
    if low in known or low in lexicon_words() or low in SHORTHAND or len(low) < 3:
        return None
    count = en.count(low)
    if not count and (low in foreign() or _british(low, en.words)):
        return None
    if count:
        if first and count < RARE:
            return _nearest(low, _VERBS, 1, (SWAP, LEFT_OUT, TOO_MANY, MISTYPED))
        if count < RARE_SWAP and not name_like:
            swapped = [w for w in en.common if en.count(w) >= VERY_COMMON and _swapped(low, w)]
            return swapped[0] if len(swapped) == 1 else None
        return None
    kinds = _allowed(low, name_like)
    near = _nearest(low, known, 2 if len(low) >= LONG and not name_like else 1, kinds)
    if near is not None or name_like:
        return near
    for cut in range(2, len(low) - 1):
        parts = low[:cut], low[cut:]
        if all(p in GLUE for p in parts) or (
            all(p in known or p in GLUE for p in parts) and any(p in known for p in parts)
        ):
            return " ".join(parts)
    return _nearest(low, en.common, 1, kinds)


def _british(word: str, english_words: WordSet) -> bool:
    """A British spelling of an English word ("prioritise", "colour")."""
    for uk, us in (("is", "iz"), ("our", "or"), ("tre", "ter"), ("yse", "yze"), ("ll", "l")):
        if uk in word and word.replace(uk, us) in english_words:
            return True
    return False


def plain_spelling(text: str, ws: Workspace) -> str:
    """``text`` with its misspelled request words put right (unchanged when none is)."""
    known = request_words(ws)
    quoted = [m.span() for m in QUOTED.finditer(text)]
    out, last = [], 0
    for m in _WORD.finditer(text):
        start, end = m.span()
        if any(a <= start < b for a, b in quoted):
            continue
        word = m.group()
        opens = bool(_SENTENCE.search(text[:start]))
        if not word.islower() and not opens:
            continue  # a name, or a word in capitals: as typed
        first = bool(_LEAD.match(text[:start]))
        fixed = _corrected(word, known, first=first, name_like=not word.islower())
        if fixed is None:
            continue
        if word[0].isupper():
            fixed = fixed[0].upper() + fixed[1:]
        out += [text[last:start], fixed]
        last = end
    if not out:
        return text
    return "".join(out) + text[last:]
