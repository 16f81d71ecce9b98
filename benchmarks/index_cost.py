"""The keyword index's cost per record: ``python -m benchmarks.index_cost [--records 20000]``.

CPU microseconds (process time) and wall microseconds per record of
:meth:`fieldhouse.search.keyword.KeywordIndex.apply`, records of the side-by-side load's deals
shape (a name, a stage, an amount, a date) indexed in batches of 25 and of 200 (the indexer's
batches under load hold tens of records), once with the trigram index empty (a new index, until
a module list's ``search`` fills it) and once with it filled. Every worker process indexes every
record, so the per-record figure counts once per worker.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.harness import format_table
from fieldhouse.search.documents import Doc
from fieldhouse.search.keyword import KeywordIndex

STAGES = ("lead", "qualified", "proposal", "won", "lost")
COMPANIES = ("Acme", "Globex", "Initech", "Umbrella")


def deal(rng: random.Random, i: int) -> Doc:
    name = f"Deal {uuid.UUID(int=rng.getrandbits(128)).hex[:8]} {rng.choice(COMPANIES)}"
    stage, amount = rng.choice(STAGES), str(rng.randint(1, 100_000))
    date = f"2026-11-{rng.randint(1, 28):02d}"
    return Doc(
        uuid.UUID(int=rng.getrandbits(128)).hex,
        "deals",
        name,
        f"{stage} \n {amount} \n {date}",
        "",
        f"2026-11-26T10:00:00.{i:06d}Z",
        "\n".join([name, stage, amount, date]),
    )


def measure(docs: list[Doc], batch: int, grams: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="fh-index-cost-") as tmp:
        index = KeywordIndex.open(Path(tmp), create=True)
        if grams:
            index.fill_grams()
        cpu, wall = time.process_time(), time.perf_counter()
        for start in range(0, len(docs), batch):
            index.apply(docs[start : start + batch], [])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        index.close()
    return cpu / len(docs) * 1e6, wall / len(docs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(7)
    docs = [deal(rng, i) for i in range(args.records)]
    rows: list[dict[str, object]] = []
    for batch in (25, 200):
        for grams in (False, True):
            cpu, wall = measure(docs, batch, grams)
            rows.append(
                {
                    "batch": batch,
                    "trigram index": "filled" if grams else "empty (a new index)",
                    "CPU us/record": round(cpu, 1),
                    "wall us/record": round(wall, 1),
                }
            )
    print(f"keyword index, {args.records:,} records of the deals shape")
    print(format_table(rows))


if __name__ == "__main__":
    main()
