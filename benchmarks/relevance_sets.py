"""Labelled relevance sets (documents, queries, judgements) for ``search_relevance``.

``handmade`` lives here: 30 CRM-like records and 28 queries, half sharing words with their
targets and half paraphrases that share (almost) none. The public sets are read from files under
``FIELDHOUSE_RELEVANCE_DATA`` (default ``~/.cache/fieldhouse/relevance``), one folder each:

- ``cranfield/``: the Cranfield collection in TREC form (``cran.all.1400.xml``,
  ``cran.qry.xml``, ``cranqrel.trec.txt``; 1,400 aeronautics abstracts, 225 queries, binary
  judgements), as shared in the public repository oussbenk/cranfield-trec-dataset.
- ``cisi/``: CISI in its original SMART form (``CISI.ALL``, ``CISI.QRY``, ``CISI.REL``; 1,460
  library-science abstracts, 112 queries of which 76 have judgements).
- ``cacm/``: CACM in SMART form (``cacm.all``, ``query.text``, ``qrels.text``; 3,204
  Communications of the ACM titles, most with an abstract, 64 queries of which 52 judged).
- ``scifact/``, ``nfcorpus/``, ``arguana/``, ``scidocs/``, ``fiqa/``: a BEIR folder
  (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``) as the BEIR authors publish it.

No package on PyPI or npm ships any of these files (looked for in November 2026), and the
benchmark fetches nothing: a missing folder is reported with the files it should hold.
"""

from __future__ import annotations

import csv
import html
import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from fieldhouse.model.search_doc import MAX_BODY_CHARS, Doc

MODULE = "m-docs"
DATA_ENV = "FIELDHOUSE_RELEVANCE_DATA"
DEFAULT_DATA = Path.home() / ".cache" / "fieldhouse" / "relevance"
BEIR_SETS = ("scifact", "nfcorpus", "arguana", "scidocs", "fiqa")
SETS = ("handmade", "cranfield", "cisi", "cacm", *BEIR_SETS)

#: published nDCG@10 of BM25 (BEIR paper, Thakur et al. 2021, table 2) and of
#: all-MiniLM-L6-v2 (MTEB results in the model's card); recall@10 is not published for them
PUBLISHED: dict[str, tuple[float, float]] = {
    "scifact": (0.665, 0.645),
    "nfcorpus": (0.325, 0.316),
    "arguana": (0.315, 0.502),
    "scidocs": (0.158, 0.216),
    "fiqa": (0.236, 0.369),
}

RECORDS: dict[str, tuple[str, str]] = {
    "c1": ("Acme Anvils", "Supplier of anvils, rocket skates and other hardware"),
    "c2": ("Borealis Shipping", "Cold-chain freight forwarding between Oslo and Rotterdam"),
    "c3": ("Sunny Bakery", "Sourdough bread, pastries and wedding cakes"),
    "c4": ("Helix Biotech", "Clinical trials for a new diabetes treatment"),
    "c5": ("Northwind Legal", "Law firm handling contracts and intellectual property disputes"),
    "c6": ("Pixel Forge", "Video game studio building a fantasy role-playing game"),
    "c7": ("GreenLeaf Energy", "Installs solar panels and home batteries"),
    "c8": ("Atlas Realty", "Sells and rents apartments in the city centre"),
    "c9": ("Blue Harbor Hotel", "Seaside hotel with conference rooms and a spa"),
    "c10": ("Quantum Ledger", "Accounting software for small businesses: invoices and payroll"),
    "t1": ("Book flights for the Berlin trade fair", "Two tickets, return on Friday"),
    "t2": ("Renew the office printer lease", "Contract ends in March"),
    "t3": ("Prepare the quarterly revenue report", "Numbers for the board meeting"),
    "t4": ("Hire a senior backend engineer", "Python and PostgreSQL experience"),
    "t5": ("Fix the leaking roof in the warehouse", "Call a contractor before the rain"),
    "t6": ("Plan the team offsite", "Somewhere in the mountains with hiking"),
    "t7": ("Reset the admin password for the CRM", "Locked out after three failed logins"),
    "t8": ("Order new laptops for the sales team", "Ten machines with 16 GB memory"),
    "t9": ("Send the customer satisfaction survey", "Ask clients how happy they are with support"),
    "t10": ("Renegotiate the cloud hosting bill", "Our AWS costs doubled this year"),
    "d1": ("Enterprise licence for Globex", "Three-year deal, 500 seats"),
    "d2": ("Catering contract with the city council", "Lunches for municipal schools"),
    "d3": ("Website redesign for a dental clinic", "New booking page for patients"),
    "d4": ("Security audit for a bank", "Penetration testing of online banking"),
    "d5": ("Fleet of electric delivery vans", "Twenty vans with charging stations"),
    "n1": ("Dog walking schedule", "Walk the dogs twice a day in the park"),
    "n2": ("Recipe: tomato soup", "Tomatoes, onions, garlic and basil"),
    "n3": ("Marathon training plan", "Long runs on Sundays, intervals on Tuesdays"),
    "n4": ("Guitar lessons", "Learn chords and strumming patterns"),
    "n5": ("Garden tasks", "Prune the roses and plant tulip bulbs"),
}

#: (query, kind, expected record ids); ``kind`` is "keyword" or "paraphrase"
QUERIES: list[tuple[str, str, set[str]]] = [
    ("anvils", "keyword", {"c1"}),
    ("freight forwarding", "keyword", {"c2"}),
    ("sourdough", "keyword", {"c3"}),
    ("printer lease", "keyword", {"t2"}),
    ("revenue report", "keyword", {"t3"}),
    ("backend engineer", "keyword", {"t4"}),
    ("admin password", "keyword", {"t7"}),
    ("laptops", "keyword", {"t8"}),
    ("security audit", "keyword", {"d4"}),
    ("tomato soup", "keyword", {"n2"}),
    ("solar panels", "keyword", {"c7"}),
    ("invoices payroll", "keyword", {"c10"}),
    ("medicine research for blood sugar disease", "paraphrase", {"c4"}),
    ("attorneys for patent disagreements", "paraphrase", {"c5"}),
    ("company that makes computer games", "paraphrase", {"c6"}),
    ("renewable power for houses", "paraphrase", {"c7", "d5"}),
    ("property agency for flats downtown", "paraphrase", {"c8"}),
    ("arrange travel to the exhibition in Germany", "paraphrase", {"t1"}),
    ("repair water damage to the building", "paraphrase", {"t5"}),
    ("team retreat in the alps", "paraphrase", {"t6"}),
    ("I can't log in to the customer system", "paraphrase", {"t7"}),
    ("find out if clients like our service", "paraphrase", {"t9"}),
    ("reduce server infrastructure spending", "paraphrase", {"t10"}),
    ("food supply for public schools", "paraphrase", {"d2"}),
    ("hacking test for a financial institution", "paraphrase", {"d4"}),
    ("training for a long distance running race", "paraphrase", {"n3"}),
    ("learning to play music", "paraphrase", {"n4"}),
    ("where to stay by the sea with meeting space", "paraphrase", {"c9"}),
]


@dataclass(frozen=True)
class RelevanceSet:
    name: str
    docs: list[Doc]
    queries: dict[str, str]
    #: query id -> record id -> grade (> 0 is relevant; graded where the set is)
    qrels: dict[str, dict[str, int]]
    source: str
    published: tuple[float, float] | None = field(default=None)


class SetMissing(Exception):
    """The files of a public set are not on this machine."""


def data_root() -> Path:
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)


def load(name: str, root: Path | None = None) -> RelevanceSet:
    """The set called ``name``; raise :class:`SetMissing` naming the files to put in place.
    ``<set>-x<k>`` is that set's long-record form (:func:`joined`)."""
    base, sep, times = name.rpartition("-x")
    if sep and times.isdigit() and int(times) > 1:
        return joined(load(base, root), int(times))
    folder = (root or data_root()) / name
    if name == "handmade":
        return _handmade()
    loaders = {"cranfield": _cranfield, "cisi": _cisi, "cacm": _cacm}
    if name in loaders:
        return loaders[name](folder)
    if name in BEIR_SETS:
        return _beir(name, folder)
    raise ValueError(f"unknown set {name!r}; expected one of {', '.join(SETS)}")


def joined(s: RelevanceSet, per: int, seed: int = 15) -> RelevanceSet:
    """Long records made of a labelled set: its documents shuffled (with a fixed seed) and
    joined ``per`` to a record, the first one's title as the record's title and every part's
    title and text, in order, as its body. A record is as relevant to a query as its most
    relevant part. No public set of long documents with judgements can be had here (SciFact's
    and NFCorpus's corpora are in no registry package or fetchable copy), so this stands in for
    one: a record whose text runs far past the first 128-token window, about one topic per
    part, like a report of several sections or a thread of several notes."""
    order = list(s.docs)
    random.Random(seed).shuffle(order)
    docs: list[Doc] = []
    part_of: dict[str, str] = {}
    for start in range(0, len(order), per):
        parts = order[start : start + per]
        rid = f"long{start // per}"
        body = " \n ".join(f"{p.title}. {p.body}" if p.title else p.body for p in parts)
        docs.append(_doc(rid, parts[0].title, body))
        part_of.update((p.record_id, rid) for p in parts)
    qrels: dict[str, dict[str, int]] = {}
    for qid, grades in s.qrels.items():
        mine = qrels.setdefault(qid, {})
        for rid, grade in grades.items():
            if rid in part_of:
                mine[part_of[rid]] = max(mine.get(part_of[rid], 0), grade)
    source = f"{s.name}'s documents joined {per} to a record (relevance_sets.joined)"
    return RelevanceSet(f"{s.name}-x{per}", docs, s.queries, qrels, source)


def _doc(rid: str, title: str, body: str) -> Doc:
    body = re.sub(r"\s+", " ", body).strip()[:MAX_BODY_CHARS]
    return Doc(rid, MODULE, re.sub(r"\s+", " ", title).strip(), body, "", "1")


def _handmade() -> RelevanceSet:
    docs = [_doc(rid, title, body) for rid, (title, body) in RECORDS.items()]
    queries = {f"q{i}": text for i, (text, _, _) in enumerate(QUERIES)}
    qrels = {f"q{i}": dict.fromkeys(ids, 1) for i, (_, _, ids) in enumerate(QUERIES)}
    return RelevanceSet("handmade", docs, queries, qrels, "benchmarks/relevance_sets.py")


def _need(folder: Path, names: tuple[str, ...]) -> list[Path]:
    paths = [folder / n for n in names]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise SetMissing(
            f"{folder.name}: missing {', '.join(str(p) for p in missing)} "
            f"(set {DATA_ENV} to the folder holding {folder.name}/)"
        )
    return paths


def _tag(block: str, name: str) -> str:
    found = re.search(rf"<{name}>(.*?)</{name}>", block, re.S)
    return html.unescape(found.group(1)).strip() if found else ""


def _cranfield(folder: Path) -> RelevanceSet:
    docs_path, queries_path, qrels_path = _need(
        folder, ("cran.all.1400.xml", "cran.qry.xml", "cranqrel.trec.txt")
    )
    docs = []
    for block in re.findall(r"<doc>(.*?)</doc>", docs_path.read_text(), re.S):
        title = _tag(block, "title")
        text = _tag(block, "text")
        if text.startswith(title):  # the abstract repeats the title
            text = text[len(title) :]
        docs.append(_doc(_tag(block, "docno"), title, text))
    # the judgements number the queries 1..225 in file order, while <num> keeps the original
    # (gapped) numbers up to 365: the well-known Cranfield trap
    blocks = re.findall(r"<top>(.*?)</top>", queries_path.read_text(), re.S)
    queries = {str(i): _tag(block, "title") for i, block in enumerate(blocks, 1)}
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and int(parts[3]) > 0:
            qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return RelevanceSet("cranfield", docs, queries, qrels, str(folder))


def _smart(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """Records of a SMART-format file: ``.I id`` then ``.T``/``.A``/``.W``/... sections."""
    rid, fields, key = "", dict[str, str](), ""
    for line in path.read_text(errors="replace").splitlines():
        head = re.match(r"^\.([A-Z])\b ?(.*)$", line)
        if head and head.group(1) == "I":
            if rid:
                yield rid, fields
            rid, fields, key = head.group(2).strip(), {}, ""
        elif head:
            key = head.group(1)
            fields[key] = head.group(2)
        elif key:
            fields[key] = f"{fields[key]}\n{line}"
    if rid:
        yield rid, fields


def _cisi(folder: Path) -> RelevanceSet:
    return _smart_set("cisi", folder, ("CISI.ALL", "CISI.QRY", "CISI.REL"))


def _cacm(folder: Path) -> RelevanceSet:
    return _smart_set("cacm", folder, ("cacm.all", "query.text", "qrels.text"))


def _smart_set(name: str, folder: Path, files: tuple[str, str, str]) -> RelevanceSet:
    """A SMART-format set: documents with a title (.T) and abstract (.W), queries (.W, and .T
    where there is one), and judgements ``query doc ...`` (any listed pair is relevant)."""
    docs_path, queries_path, qrels_path = _need(folder, files)
    docs = [_doc(str(int(rid)), f.get("T", ""), f.get("W", "")) for rid, f in _smart(docs_path)]
    queries = {
        str(int(rid)): re.sub(r"\s+", " ", f"{f.get('T', '')} {f.get('W', '')}").strip()
        for rid, f in _smart(queries_path)
    }
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            qrels.setdefault(str(int(parts[0])), {})[str(int(parts[1]))] = 1
    return RelevanceSet(name, docs, queries, qrels, str(folder))


def _beir(name: str, folder: Path) -> RelevanceSet:
    corpus, queries_path, qrels_path = _need(
        folder, ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv")
    )
    docs = []
    with corpus.open() as f:
        for line in f:
            row = json.loads(line)
            docs.append(_doc(str(row["_id"]), row.get("title") or "", row.get("text") or ""))
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open() as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if int(row["score"]) > 0:
                qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    queries = {}
    with queries_path.open() as f:
        for line in f:
            row = json.loads(line)
            if str(row["_id"]) in qrels:
                queries[str(row["_id"])] = row["text"]
    return RelevanceSet(name, docs, queries, qrels, str(folder), PUBLISHED.get(name))
