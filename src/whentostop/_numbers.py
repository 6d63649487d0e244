"""Numbers from outside — a server's usage, a caller's limits — read in one place, so that one
beyond what the code expects (10**400 tokens, a NaN timeout, `True` seconds) is either read
sensibly or refused with the library's own error, never an `OverflowError` later on."""

from __future__ import annotations

import math
from typing import TypeGuard

from .i18n import _

MAX_TOKEN_COUNT = 2**53
"""The most tokens one count may hold: far past any model's context, and still exact as a float,
so a cost, a sum or a chart never overflows (10**400 tokens would: `float()` cannot hold it)."""

FOREVER_S = 1e9
"""The longest wait the library keeps (about 31 years): a socket's timeout cannot hold much more
(`OverflowError` past about 1e10 s), so a longer one, or infinity, is read as this."""


def token_count(value: object) -> int:
    """`value` as a count of tokens: a whole number from 0 to `MAX_TOKEN_COUNT`. Anything else a
    server (or a caller) may put there — a bool, a float, NaN, infinity, a negative or absurd
    number, text — is not a count and counts as 0, as a usage the server did not report."""
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value if 0 <= value <= MAX_TOKEN_COUNT else 0


def is_count(value: object) -> TypeGuard[int]:
    """Whether `value` is a whole number of 1 or more (an int, not a bool): a caller's limit."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def positive_int(value: object, name: str) -> int:
    """A limit given as `name`: a whole number of 1 or more (`is_count`); anything else a
    ValueError that says what was given."""
    if not is_count(value):
        said = _("{name} must be a positive int (1 or more), got {value!r}")
        raise ValueError(said.format(name=name, value=value))
    return value


def is_number(value: object) -> TypeGuard[float]:
    """Whether `value` is an int or a float (not a bool): NaN and infinity are numbers here."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_float(value: float) -> float:
    """`value` as a float; an int too large for one (10**400) is infinity, not an error."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def seconds(value: object, name: str) -> float:
    """A time limit given as `name`: a positive number of seconds (infinity and absurdly large
    ones are read as `FOREVER_S`); anything else — a bool, NaN, zero or less, text — a ValueError
    that says what was given."""
    if not is_number(value) or not value > 0:
        said = _("{name} must be a positive number of seconds, got {value!r}")
        raise ValueError(said.format(name=name, value=value))
    return min(as_float(value), FOREVER_S)
