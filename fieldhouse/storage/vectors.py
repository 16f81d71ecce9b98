"""Operations on stored sentence vectors: each record version is embedded once per database.

A row is keyed by (account, record id, stamp, model): the vector of one version of one record
by one embedding model. A process that needs a vector first reads it here; when none is
stored it *claims* the row (an insert that only one process can win, with the wall-clock time
of the claim and no vector yet), embeds, and stores the vector in the claimed row. Another
process meanwhile finds the claim and waits for the vector; a claim left without a vector for
longer than the caller's bound (its process died, say) is taken over by the next claimer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from fieldhouse.storage.base import Op, count, execute, executemany, rows

#: (record id, stamp): one version of one record
Key = tuple[str, str]

_CLAIM = (
    "INSERT INTO search_vectors (account_id, record_id, stamp, model, vector, claimed_at)"
    " VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT (account_id, record_id, stamp, model) DO NOTHING"
)
_TAKE_OVER = (
    "UPDATE search_vectors SET claimed_at = ? WHERE account_id = ? AND record_id = ?"
    " AND stamp = ? AND model = ? AND vector IS NULL AND claimed_at < ?"
)


def get_vectors(account_id: str, model: str, keys: Collection[Key]) -> Op[dict[str, bytes]]:
    """record id -> stored vector bytes, for those of ``keys`` whose vector is stored."""
    if not keys:
        return {}
    wanted = dict(keys)
    found = yield rows(
        "SELECT record_id, stamp, vector FROM search_vectors WHERE account_id = ?"
        " AND model = ? AND record_id = ANY(?) AND vector IS NOT NULL",
        (account_id, model, list(wanted)),
    )
    return {str(r[0]): bytes(r[2]) for r in found if wanted.get(str(r[0])) == str(r[1]) and r[2]}


def claim_vectors(
    account_id: str, model: str, keys: Sequence[Key], now: float, stale_before: float
) -> Op[list[str]]:
    """Claim the rows of ``keys`` for embedding; return the record ids this call claimed
    (unclaimed ones, and ones claimed before ``stale_before`` still without a vector)."""
    claimed: list[str] = []
    for record_id, stamp in keys:
        won = yield count(_CLAIM, (account_id, record_id, stamp, model, now))
        if not won:
            won = yield count(_TAKE_OVER, (now, account_id, record_id, stamp, model, stale_before))
        if won:
            claimed.append(record_id)
    return claimed


def put_vectors(account_id: str, model: str, items: Sequence[tuple[str, str, bytes]]) -> Op[None]:
    """Store the vectors of (record id, stamp, vector bytes) and drop older versions' rows."""
    if not items:
        return
    yield executemany(
        "UPDATE search_vectors SET vector = ? WHERE account_id = ? AND record_id = ?"
        " AND stamp = ? AND model = ?",
        [(vec, account_id, rid, stamp, model) for rid, stamp, vec in items],
    )
    yield executemany(
        "DELETE FROM search_vectors WHERE account_id = ? AND record_id = ? AND stamp < ?",
        [(account_id, rid, stamp) for rid, stamp, _ in items],
    )


def delete_vectors(account_id: str, record_ids: Collection[str]) -> Op[None]:
    """Forget every stored vector of the records (they were deleted)."""
    if record_ids:
        yield execute(
            "DELETE FROM search_vectors WHERE account_id = ? AND record_id = ANY(?)",
            (account_id, list(record_ids)),
        )
