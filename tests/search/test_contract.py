"""The embedders' contract: normalise scales rows to unit length and leaves zero rows zero."""

from __future__ import annotations

import numpy as np

from fieldhouse.search.contract import normalise


def test_rows_come_out_unit_length_and_float32() -> None:
    rows = np.array([[3.0, 4.0], [0.0, 2.0]], np.float64)
    out = normalise(rows)  # type: ignore[arg-type]
    assert out.dtype == np.float32
    assert np.allclose(out, [[0.6, 0.8], [0.0, 1.0]])


def test_a_zero_row_stays_zero() -> None:
    out = normalise(np.zeros((1, 3), np.float32))
    assert np.array_equal(out, np.zeros((1, 3), np.float32))
