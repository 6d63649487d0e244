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


_MARKDOWN_LITERAL = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;"} | {c: "\\" + c for c in "\\`*_{}[]()#+-.!|$~"}
)


def markdown_text(text: str) -> str:
    """`text` as literal words inside a Markdown output: no HTML tag, link, image, emphasis, code,
    table-cell break or maths (`$…$`) can come out of it. Every place that shows model, tool or
    learner text in Markdown goes through here (HTML outputs use `html.escape`)."""
    return text.translate(_MARKDOWN_LITERAL)
