"""The embedders' names and sizes, known without loading an embedder or numpy."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fieldhouse.search.embedder import INT8_KINDS, MiniLMEmbedder, NoEmbedder, make_embedder
from fieldhouse.search.models import CHOICES, identity
from fieldhouse.search.static import StaticEmbedder


@pytest.mark.parametrize("choice", CHOICES)
def test_identity_is_what_the_embedder_says(choice: str) -> None:
    embedder = make_embedder(choice)
    assert identity(choice) == (embedder.name, embedder.dim)


def test_names_tell_the_variants_apart() -> None:
    assert identity("minilm")[0] == MiniLMEmbedder().name
    assert identity("minilm-int8")[0] == MiniLMEmbedder(int8=INT8_KINDS).name
    assert identity("minilm")[0] != identity("minilm-int8")[0]
    assert identity("wordllama-256") == (StaticEmbedder.name, StaticEmbedder.dim)
    assert identity("none") == (NoEmbedder.name, 0)


def test_an_unknown_embedder_is_named_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown embedder 'bert'; expected one of 'minilm'"):
        identity("bert")
    with pytest.raises(ValueError, match="unknown embedder 'bert'"):
        make_embedder("bert")


def test_a_worker_starts_without_the_libraries_it_needs_only_later() -> None:
    """A worker's imports leave out numpy (its first workspace's vectors load it), PyJWT (its
    first session) and the e-mail and phone validators (their first value): 0.3 s of every
    worker's start, before its first answer, on a 2-core machine."""
    later = ("numpy", "jwt", "phonenumbers", "email_validator", "onnxruntime", "tokenizers")
    code = (
        f"import sys, fieldhouse.worker; print(','.join(m for m in {later!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
