"""A query's vector, from a model in this process or over the embedding process's socket."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import trio

from fieldhouse.search.embed_process import _answer, open_listener
from fieldhouse.search.query_embedder import LocalQueryEmbedder, RemoteQueryEmbedder
from tests.search.test_service import EMBEDDER


async def test_local_and_remote_give_the_model_s_vector(tmp_path: Path) -> None:
    local = LocalQueryEmbedder(EMBEDDER)
    want = await local.embed("freight to the north")
    assert want is not None and want.shape == (EMBEDDER.dim,)
    path = str(tmp_path / "embed.sock")
    listener = await open_listener(path)
    loaded = trio.Event()
    async with trio.open_nursery() as nursery:
        handler = partial(_answer, EMBEDDER, loaded, trio.CapacityLimiter(1))
        nursery.start_soon(partial(trio.serve_listeners, handler, [listener]))
        remote = RemoteQueryEmbedder(path, EMBEDDER.dim)
        # while the model loads the process answers with nothing: the keyword half alone
        assert await remote.embed("freight to the north") is None
        loaded.set()
        got = await remote.embed("freight to the north")
        nursery.cancel_scope.cancel()
    assert got is not None and np.allclose(got, want, atol=1e-5)


async def test_no_process_means_no_vector(tmp_path: Path) -> None:
    remote = RemoteQueryEmbedder(str(tmp_path / "none.sock"), EMBEDDER.dim)
    assert await remote.embed("anything") is None
