"""Asserting what a message means, not how it is worded: its numbers, names and key terms."""

from __future__ import annotations


def says(text: str, *words: str) -> bool:
    """Whether `text` holds every one of `words`, case aside: a rewording that keeps the meaning
    (the same numbers, names and terms) still passes; one that loses a fact does not."""
    low = str(text).lower()
    return all(word.lower() in low for word in words)
