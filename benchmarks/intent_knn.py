"""Could the server's sentence embedder read a request's intent? (issue 32, item 6)

    python -m benchmarks.intent_knn [--k 7] [--embedder minilm-int8] [--mask]

Each phrasing of the tuning halves of tests/agents/data/blind*/ is labelled with what it expects
(``records.create``, ``records.update``, ``search``, ``email.draft``, ``ask``, ``answer``, ...)
and embedded with the embedder search uses. Leaving one set out at a time, each of its
phrasings takes the label of its k nearest neighbours in the other sets (votes weighted by
cosine similarity): the accuracy says how well intent-by-embedding carries to a writer it has
not seen, which is the planner's problem. ``--mask`` first replaces quoted texts, addresses,
numbers and capitalised names by placeholders, so that what a request is about weighs less
than what it asks. Prints the accuracy and the most common confusions. Reads no held-out
half.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np

from fieldhouse.search.embedder import make_embedder

DATA = Path(__file__).resolve().parent.parent / "tests" / "agents" / "data"


def label(expect: dict[str, object]) -> str:
    if expect["kind"] != "call":
        return str(expect["kind"])
    tool = str(expect["tool"])
    return "search" if tool == "records.search" else tool


def masked(text: str) -> str:
    text = re.sub(r'"[^"]*"|“[^”]*”', " NAME ", text)
    text = re.sub(r"\S+@\S+", " ADDRESS ", text)
    text = re.sub(r"[$€£]?\d[\d,.:]*\s*(?:k|m|am|pm|%)?", " NUMBER ", text, flags=re.I)
    word = r"[A-Z][\w'\u2019-]+"
    return re.sub(rf"(?<![.!?]\s)(?<!^)\b{word}(?:\s+{word})*", " NAME ", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--embedder", default="minilm-int8")
    parser.add_argument("--mask", action="store_true")
    args = parser.parse_args()
    embedder = make_embedder(args.embedder)
    sets = sorted(DATA.glob("blind*/tuning.jsonl"))
    texts: dict[Path, list[str]] = {}
    labels: dict[Path, list[str]] = {}
    for path in sets:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        texts[path] = [masked(r["text"]) if args.mask else r["text"] for r in rows]
        labels[path] = [label(r["expect"]) for r in rows]
    vectors = {path: embedder.embed(texts[path]) for path in sets}
    right = total = 0
    confused: Counter[tuple[str, str]] = Counter()
    for path in sets:
        others = [p for p in sets if p != path]
        matrix = np.vstack([vectors[p] for p in others])
        their = [y for p in others for y in labels[p]]
        similarity = vectors[path] @ matrix.T
        for i, truth in enumerate(labels[path]):
            votes: Counter[str] = Counter()
            for j in np.argsort(-similarity[i])[: args.k]:
                votes[their[j]] += float(similarity[i, j])
            guess = votes.most_common(1)[0][0]
            total += 1
            right += guess == truth
            confused[(truth, guess)] += guess != truth
    print(
        f"{len(sets)} sets, {total} phrasings, k={args.k}, {args.embedder}"
        f"{', masked' if args.mask else ''}: intent right {right / total:.1%} (leave one set out)"
    )
    for (truth, guess), n in confused.most_common(8):
        print(f"  {truth} read as {guess}: {n}")


if __name__ == "__main__":
    main()
