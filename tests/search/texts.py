"""Texts the embedder tests share."""

from __future__ import annotations

#: (text, a paraphrase of it, an unrelated text): any embedder worth its name puts the
#: paraphrase nearer
PARAPHRASES = [
    ("A man is eating food.", "Someone is having a meal.", "The stock market fell today."),
    ("invoice for office chairs", "bill for furniture", "walk the dog in the park"),
    ("How do I reset my password?", "I forgot my login credentials", "Paris is in France"),
]
