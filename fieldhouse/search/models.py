"""The embedders' names and sizes, known without loading one, or numpy: a worker that has the
server's embedding process embed its queries needs only these (importing the embedders with
numpy took 0.12 s of every worker's start, before its first answer).

A model's name says what its vectors are: the store keeps vectors under it, and a record whose
vector was made under another name is embedded again.
"""

from __future__ import annotations

from collections.abc import Collection

#: all-MiniLM-L6-v2's vectors
MINILM_DIM = 384
#: tokens read per text (the model allows 256): a record's title and first fields carry its
#: meaning, and attention costs grow with the square of the length
MAX_TOKENS = 128
#: a longer text is read in up to this many windows of MAX_TOKENS, whose vectors are averaged
#: (weighted by their tokens): one vector per record, from all of an abstract-length body
MAX_WINDOWS = 4
#: the dense layers of a BERT layer, by what they compute (``qkv`` is one product for all three)
DENSE_KINDS = ("qkv", "out", "up", "down")
#: the quantised dense kinds of ``minilm-int8``: with the FFN down projections int8 too, a
#: 35-word text's cosine to fp32 falls to 0.9987 (benchmarks.embed_cost); without, >= 0.999
INT8_KINDS = ("qkv", "out", "up")

#: wordllama's static token embeddings (:mod:`.static`)
STATIC_MODEL = "l2_supercat"
STATIC_DIM = 256
#: tokens read per text; wordllama itself reads every token (it turns truncation off). The
#: mean of a record's first 512 tokens stands for all of it, and the cap bounds the gathered
#: (texts, tokens, 256) array that a batch of long texts pads to: 64 texts of 512 tokens are
#: 32 MiB. 512 is also the budget of the MiniLM embedder (4 windows of 128).
STATIC_MAX_TOKENS = 512

#: the names ``FIELDHOUSE_EMBEDDER`` takes (:func:`fieldhouse.search.embedder.make_embedder`)
CHOICES = ("minilm", "minilm-int8", "wordllama-256", "none")


def minilm_name(int8: Collection[str] = ()) -> str:
    """The name of MiniLM's vectors with these dense kinds quantised."""
    # the token budget is part of the name: vectors made with another budget are re-embedded
    # ("int8w7": 7-bit weight codes since they saturated on CPUs without VNNI)
    variant = "-int8w7-" + "+".join(k for k in DENSE_KINDS if k in int8) if int8 else ""
    # (a vector per window since "/windows"; before, one per record, their average)
    return f"all-MiniLM-L6-v2{variant}/{MAX_TOKENS}x{MAX_WINDOWS}/windows"


#: the token cap is part of the name: vectors made with another cap are re-embedded
STATIC_NAME = f"wordllama-{STATIC_MODEL}-{STATIC_DIM}/{STATIC_MAX_TOKENS}"


def identity(choice: str) -> tuple[str, int]:
    """The name and dimensions of the vectors the embedder ``choice`` makes (``none``: no
    vectors, dimension 0)."""
    known = {
        "minilm": (minilm_name(), MINILM_DIM),
        "minilm-int8": (minilm_name(INT8_KINDS), MINILM_DIM),
        "wordllama-256": (STATIC_NAME, STATIC_DIM),
        "none": ("none", 0),
    }
    if choice not in known:
        expected = ", ".join(repr(c) for c in CHOICES)
        raise ValueError(f"unknown embedder {choice!r}; expected one of {expected}")
    return known[choice]
