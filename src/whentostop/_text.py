"""Short, one-line quotes of whatever came back, for error messages and badges."""

from __future__ import annotations

import json
from typing import Any


def excerpt(text: str, limit: int = 200) -> str:
    """`text` on one line (whitespace runs folded), cut to `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def json_text(value: Any) -> str:
    """JSON text of `value` for a quote; never raises (deep nesting, odd types)."""
    try:
        return json.dumps(value, default=str)
    except (ValueError, TypeError, RecursionError):
        return f"(a {type(value).__name__} that cannot be shown)"
