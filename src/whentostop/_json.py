"""JSON from outside — a model's tool arguments, an endpoint's reply, a level file — read in one
place, so that whatever `json.loads` can raise becomes one error that says what is wrong.

`json.loads` fails in three ways: a syntax error (`JSONDecodeError`), nesting deeper than
Python's stack (`RecursionError`), and an integer of more digits than Python converts (4,300 by
default: a plain `ValueError`, with no position). Each caller turns `NotJSON` into its own typed
error: a tool's `Error:` line for the model, a `LevelFileError` naming the file, a `BadResponse`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

_DIGITS = re.compile(r"[0-9]+")


class NotJSON(ValueError):
    """Text that JSON cannot read: why (`reason`, English, as `json` says it), and where."""

    def __init__(
        self, reason: str, position: int = 0, line: int = 1, column: int = 1, *, kind: str
    ) -> None:
        super().__init__(f"{reason} (line {line}, column {column})")
        self.reason = reason
        self.position = position
        """The 0-based index in the text where the problem starts."""
        self.line = line
        self.column = column
        self.kind = kind
        """`"syntax"`, `"nesting"` (too deep for Python) or `"number"` (too many digits)."""


def read_json(
    text: str, *, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    """`json.loads(text)`, with every way it fails as `NotJSON`."""
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise NotJSON(exc.msg, exc.pos, exc.lineno, exc.colno, kind="syntax") from None
    except RecursionError:
        raise NotJSON("nested too deeply to read", kind="nesting") from None
    except ValueError:  # int(): more digits than sys.get_int_max_str_digits() allows
        position = _long_number(text)
        line = text.count("\n", 0, position) + 1
        column = position - text.rfind("\n", 0, position)
        raise NotJSON(
            f"a number of more than {max_digits():,} digits", position, line, column, kind="number"
        ) from None


def max_digits() -> int:
    """The most digits Python turns into an int (0: no limit): a JSON number past it is refused."""
    return sys.get_int_max_str_digits()


def _long_number(text: str) -> int:
    """Where the first run of digits longer than Python converts starts (0 if none is found)."""
    limit = max_digits()
    return next((run.start() for run in _DIGITS.finditer(text) if limit and len(run[0]) > limit), 0)
