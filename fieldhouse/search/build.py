"""Filling the search index from the records: after an upgrade from a version that kept it
elsewhere (the migration asks for it), or on ``fieldhouse search rebuild``. Records written
meanwhile are indexed by their own transactions; a rebuild is never needed after a crash, a
restore or a template reset."""

from __future__ import annotations

import logging

from fieldhouse.model.search_doc import record_doc
from fieldhouse.storage.store import Store

log = logging.getLogger("fieldhouse.search")

PAGE = 500
#: the meta key a migration sets when the index must be filled from the records
REBUILD_KEY = "search_rebuild"


async def rebuild(store: Store, account_ids: list[str] | None = None) -> int:
    """Index every live record of the workspaces (all: None) anew; how many were indexed."""
    if account_ids is None:
        account_ids = [a.account_id for a in await store.list_accounts()]
    indexed = 0
    for account_id in account_ids:
        _, schemas = await store.load_schemas(account_id)
        by_id = {s.module.module_id: s for s in schemas.values()}
        labels = await store.label_names(account_id)
        last, first = "", True
        while True:
            rows = await store.records_after(account_id, last, PAGE)
            docs = [record_doc(r, by_id.get(r.module_id), labels) for r in rows]
            if docs or first:
                await store.reindex(account_id, docs, first=first)
            first = False
            indexed += len(docs)
            if len(rows) < PAGE:
                break
            last = rows[-1].record_id
    return indexed


async def build_if_needed(store: Store) -> None:
    """Fill the index when a migration asked for it (once; a server's first start after it)."""
    if await store.get_meta(REBUILD_KEY) is None:
        return
    count = await rebuild(store)
    await store.delete_meta(REBUILD_KEY)
    log.info("search: indexed %d records in the store", count)
