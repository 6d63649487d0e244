"""The conversation rules a real chat-completions endpoint enforces, enforced by the mock too.

A loop that breaks one gets HTTP 400 with the words OpenAI's API answers it with, so a loop that
passes on the mock does not fail on the first real endpoint:

- every `tool_call` of an assistant message is answered by exactly one `tool` message carrying
  its id, before the next assistant or user message (an assistant message added twice leaves
  the first copy's calls unanswered);
- a `tool` message answers a call of the assistant message just before it, once;
- every message has one of the roles the API knows, and a `tool` message a `tool_call_id`.

One pass over the messages, in linear time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ROLES = ("system", "assistant", "user", "function", "tool", "developer")
"""The roles OpenAI's chat completions accept, in the order its error message lists them."""

UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
"""OpenAI's words when a tool call has no tool message after it."""
ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'."
)
"""OpenAI's words (its spelling) for a tool message that answers no call of the message before."""


@dataclass(frozen=True)
class Breach:
    """A rule the request broke: OpenAI's message, the `param` it names, and its `code`."""

    message: str
    param: str
    code: str | None = None
    index: int = 0
    """The position of the message that broke it."""
    rule: str = ""
    """Which rule: "unanswered", "orphan", "role" or "missing"."""
    names: tuple[str, ...] = ()
    """For "unanswered": the names of the tools whose calls were left unanswered."""


def breach(messages: list[Any]) -> Breach | None:
    """The first rule `messages` breaks, or None. (The endpoint has already checked that each
    message is an object with a string role.)"""
    pending: dict[str, str] = {}  # call id -> tool name, in order, of the last assistant message
    asked_at = 0
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role not in ROLES:
            known = ", ".join(f"'{r}'" for r in ROLES[:-1]) + f", and '{ROLES[-1]}'"
            message = f"Invalid value: {role!r}. Supported values are: {known}."
            return Breach(message, f"messages[{index}].role", "invalid_value", index, "role")
        if role == "tool":
            if broken := _answer(message, index, pending):
                return broken
            continue
        if pending:
            return _unanswered(pending, index)
        if role == "assistant":
            asked_at = index
            if broken := _asked(message, index, pending):
                return broken
    if pending:  # the request ends on the calls themselves
        return _unanswered(pending, asked_at)
    return None


def _missing(param: str, index: int) -> Breach:
    """A required id left out, said as OpenAI says it."""
    message = f"Missing required parameter: '{param}'."
    return Breach(message, param, "missing_required_parameter", index, "missing")


def _answer(message: dict[str, Any], index: int, pending: dict[str, str]) -> Breach | None:
    """A tool message answers one pending call (taken off `pending`); else the rule it breaks."""
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        return _missing(f"messages[{index}].tool_call_id", index)
    if call_id not in pending:
        return Breach(ORPHAN, f"messages.[{index}].role", None, index, "orphan")
    del pending[call_id]
    return None


def _asked(message: dict[str, Any], index: int, pending: dict[str, str]) -> Breach | None:
    """An assistant message's calls, added to `pending`; a call without an id breaks a rule."""
    for position, call in enumerate(message.get("tool_calls") or ()):
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(call_id, str) or not call_id:
            return _missing(f"messages[{index}].tool_calls[{position}].id", index)
        function = call.get("function") or {}
        pending[call_id] = str(function.get("name", "?"))
    return None


def _unanswered(pending: dict[str, str], index: int) -> Breach:
    message = UNANSWERED.format(ids=", ".join(pending))
    names = tuple(pending.values())
    return Breach(message, f"messages.[{index}].role", None, index, "unanswered", names)


__all__ = ["ORPHAN", "ROLES", "UNANSWERED", "Breach", "breach"]
