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


_INVISIBLE = [
    *range(0x09),  # C0 but tab and newline, DEL, C1
    *range(0x0B, 0x20),
    0x7F,
    *range(0x80, 0xA0),
    *(0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)),  # bidi controls
    *(0x2028, 0x2029),  # line and paragraph separators
]
_TERMINAL_LITERAL = str.maketrans(
    {c: ascii(chr(c))[1:-1] for c in _INVISIBLE} | {0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f"}
)


def terminal_text(text: str, indent: str = "") -> str:
    """`text` as it may be printed to a terminal: every control character shown as a visible
    escape (`\\x1b`, `\\r`, `\\x9b`, `\\u202e`), so no escape sequence (OSC 52 writing the
    clipboard, CSI moving the cursor), bare carriage return, backspace or bidi override can act
    or fake a line; tabs stay, and each newline is followed by `indent`, so a line of the text
    cannot pass for one of the program's. Every line the CLI prints from model, tool or learner
    text goes through here."""
    shown = text.translate(_TERMINAL_LITERAL)
    return shown.replace("\n", "\n" + indent) if indent else shown
