"""An ONNX graph under construction, and its int8 dense layer.

The int8 layer quantises its weights per output column (symmetric, 7 bits: see
:data:`WEIGHT_LEVELS`) and its input per
token (asymmetric uint8, the scale and zero point taken from that token's own row), then
multiplies with ``MatMulInteger`` and scales back to float32. Per token, not per tensor as
``onnxruntime.quantization`` does: a text's vector then does not depend on the other texts (or
the padding) in its batch, and one token with large values costs only that token precision.
BERT's hidden states have a few channels far larger than the rest, which would still set every
token's scale; SmoothQuant (Xiao et al., 2023) divides each input channel by
``sqrt(max|x_j| / max|w_j|)`` and multiplies the weight's row by the same, moving that range
into the weights, which are quantised per column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from onnx import TensorProto, helper, numpy_helper

Matrix = npt.NDArray[np.float32]


#: a constant of at least this many bytes is left out of the serialised model when the graph
#: is built ``external``: see :attr:`Graph.external`
EXTERNAL_BYTES = 4096


class Graph:
    """Nodes and initialisers of an ONNX graph being built; names are the caller's.

    ``external``: the large constants are not serialised with the model but kept in
    :attr:`external`, for ``SessionOptions.add_external_initializers``. onnxruntime copies
    them once; fed inside the model's bytes it kept two copies of every weight for the life of
    the session (the embedding process 217 -> 150 MB, minilm-int8)."""

    def __init__(self, *, external: bool = False) -> None:
        self.inits: list[Any] = []
        self.nodes: list[Any] = []
        self._external = external
        #: name -> value of the constants left out of :attr:`inits`' data
        self.external: dict[str, npt.NDArray[Any]] = {}

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        if not (self._external and value.nbytes >= EXTERNAL_BYTES):
            self.inits.append(numpy_helper.from_array(value, name))
            return name
        tensor = TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(value.dtype))
        tensor.dims.extend(value.shape)
        tensor.data_location = TensorProto.EXTERNAL
        # (a location it names, never read: the session is handed the values)
        for key, text in (("location", name), ("offset", "0"), ("length", str(value.nbytes))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, text
        self.inits.append(tensor)
        self.external[name] = np.ascontiguousarray(value)
        return name

    def node(self, op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def dense(self, x: str, weight: Matrix, bias: Matrix, name: str) -> str:
        """``x @ weight + bias`` in float32."""
        y = self.node("MatMul", [x, self.const(f"{name}.w", weight)], f"{name}.mm")
        return self.node("Add", [y, self.const(f"{name}.b", bias)], f"{name}.out")

    def dense_int8(
        self, x: str, weight: Matrix, bias: Matrix, name: str, act_max: Matrix | None
    ) -> str:
        """``x @ weight + bias`` with int8 weights and a per-token uint8 input; ``act_max``:
        the largest ``|x|`` seen per input channel on calibration texts (None: no
        smoothing)."""
        if act_max is not None:
            smooth = smoothing(act_max, weight)
            x = self.node("Mul", [x, self.const(f"{name}.smooth", 1.0 / smooth)], f"{name}.sx")
            weight = weight * smooth[:, None]
        wq, wscale = quantize_columns(weight)
        q, step, zp = self._quantize_rows(x, name)
        acc = self.node("MatMulInteger", [q, self.const(f"{name}.wq", wq)], f"{name}.acc")
        # x ~= step * (q - zp) per token, weight ~= wq * wscale per column, so x @ weight ~=
        # step * wscale * (q @ wq) - step * zp * wscale * (the column sums of wq)
        y = self.node("Cast", [acc], f"{name}.accf", to=TensorProto.FLOAT)
        y = self.node("Mul", [y, step], f"{name}.y1")
        y = self.node("Mul", [y, self.const(f"{name}.wscale", wscale)], f"{name}.y2")
        colsum = (wq.astype(np.float32).sum(0) * wscale).astype(np.float32)
        zs = self.node("Mul", [zp, step], f"{name}.zs")
        shift = self.node("Mul", [zs, self.const(f"{name}.colsum", colsum)], f"{name}.shift")
        y = self.node("Sub", [y, shift], f"{name}.y3")
        return self.node("Add", [y, self.const(f"{name}.b", bias)], f"{name}.out")

    def _quantize_rows(self, x: str, name: str) -> tuple[str, str, str]:
        """``x`` as uint8 per token (last axis): the codes, each row's step and zero point
        (floats of shape (..., 1)), the range widened to hold 0 so that 0 is exact."""
        zero = self.const(f"{name}.zero", np.array(0.0, np.float32))
        hi = self.node("ReduceMax", [x], f"{name}.hi", axes=[-1], keepdims=1)
        lo = self.node("ReduceMin", [x], f"{name}.lo", axes=[-1], keepdims=1)
        hi = self.node("Max", [hi, zero], f"{name}.hi0")
        lo = self.node("Min", [lo, zero], f"{name}.lo0")
        span = self.node("Sub", [hi, lo], f"{name}.span")
        tiny = self.const(f"{name}.tiny", np.array(1e-8 * 255, np.float32))
        span = self.node("Max", [span, tiny], f"{name}.span1")  # an all-zero row
        levels = self.const(f"{name}.255", np.array(255, np.float32))
        step = self.node("Div", [span, levels], f"{name}.step")
        neg_lo = self.node("Neg", [lo], f"{name}.neglo")
        zp = self.node("Round", [self.node("Div", [neg_lo, step], f"{name}.zpf")], f"{name}.zp")
        q = self.node("Add", [self.node("Div", [x, step], f"{name}.xs"), zp], f"{name}.xz")
        q = self.node("Round", [q], f"{name}.xr")
        q = self.node("Clip", [q, zero, levels], f"{name}.xc")  # rounding may pass 255
        q = self.node("Cast", [q], f"{name}.xq", to=TensorProto.UINT8)
        return q, step, zp


def smoothing(act_max: Matrix, weight: Matrix) -> Matrix:
    """SmoothQuant's per-input-channel divisor (alpha 0.5) for ``x @ weight``."""
    a = np.maximum(act_max, 1e-5)
    w = np.maximum(np.abs(weight).max(1), 1e-5)
    return np.sqrt(a / w).astype(np.float32)  # type: ignore[no-any-return]


#: the largest weight code: 7 bits. x86 CPUs without VNNI multiply uint8 by int8 in pairs
#: summed into int16 (``vpmaddubsw``), which saturates past 32,767: 255 * 127 * 2 does, and
#: on such a CPU (an AMD EPYC with AVX2) a 35-word text's cosine to fp32 fell to 0.9949;
#: 255 * 63 * 2 does not, so the vectors are the same on every CPU (onnxruntime's quantiser
#: calls this ``reduce_range``)
WEIGHT_LEVELS = 63


def quantize_columns(weight: Matrix) -> tuple[npt.NDArray[np.int8], Matrix]:
    """Symmetric 7-bit codes per output column: ``weight ~= wq * scale``."""
    scale = (np.maximum(np.abs(weight).max(0), 1e-12) / WEIGHT_LEVELS).astype(np.float32)
    wq = np.clip(np.round(weight / scale), -WEIGHT_LEVELS, WEIGHT_LEVELS).astype(np.int8)
    return wq, scale
