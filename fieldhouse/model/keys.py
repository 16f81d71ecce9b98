"""API key secrets: random, shown once, stored only as a hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

KEY_PREFIX = "sk_live_"


@dataclass(frozen=True)
class NewKey:
    secret: str
    key_hash: str
    #: the first characters, kept to help people recognise a key; never enough to use it
    display_prefix: str


def hash_api_key(secret: str) -> str:
    """SHA-256 of the secret: keys carry 256 random bits, so a fast hash is enough."""
    return hashlib.sha256(secret.encode()).hexdigest()


def generate_api_key() -> NewKey:
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    return NewKey(secret, hash_api_key(secret), secret[: len(KEY_PREFIX) + 4])


def hashes_match(stored: str, presented_hash: str) -> bool:
    return hmac.compare_digest(stored.encode(), presented_hash.encode())


def looks_like_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX) and 16 <= len(token) <= 200
