"""API key secrets: random, stored only as a hash, recognisable by a short prefix."""

from __future__ import annotations

from fieldhouse.model.keys import (
    KEY_PREFIX,
    generate_api_key,
    hash_api_key,
    hashes_match,
    looks_like_key,
)


def test_a_new_key_is_random_and_kept_only_as_its_hash() -> None:
    key = generate_api_key()
    other = generate_api_key()
    assert key.secret.startswith(KEY_PREFIX)
    assert key.secret != other.secret
    assert key.key_hash == hash_api_key(key.secret)
    assert key.secret not in key.key_hash
    assert len(key.key_hash) == 64


def test_the_display_prefix_is_four_characters_past_the_marker() -> None:
    key = generate_api_key()
    assert key.display_prefix == key.secret[: len(KEY_PREFIX) + 4]
    assert len(key.secret) > len(key.display_prefix) + 32


def test_hashes_compare_equal_only_for_the_same_secret() -> None:
    key = generate_api_key()
    assert hashes_match(key.key_hash, hash_api_key(key.secret))
    assert not hashes_match(key.key_hash, hash_api_key(key.secret + "x"))


def test_what_looks_like_a_key() -> None:
    assert looks_like_key(generate_api_key().secret)
    assert not looks_like_key("sk_live_short")
    assert not looks_like_key("eyJhbGciOiJIUzI1NiJ9.e30.sig")
    assert not looks_like_key(KEY_PREFIX + "x" * 200)
