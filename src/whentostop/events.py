"""What a run tells a listener while it happens: turn start, model reply, tool result, retry,
and exactly one session end whose `reason` equals `run.stop`.

A listener that raises is logged and ignored: watching a run must never break it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .outcome import Stop, ToolCall, Turn


@dataclass(frozen=True)
class TurnStart:
    turn: int
    max_turns: int
    kind: str = "turn_start"


@dataclass(frozen=True)
class ModelReply:
    turn: Turn
    """The turn just recorded: its index, the reply's message, usage, latency, finish reason."""
    kind: str = "model_reply"


@dataclass(frozen=True)
class ToolResultEvent:
    turn: int
    call: ToolCall
    kind: str = "tool_result"

    @property
    def ok(self) -> bool:
        return self.call.ok


@dataclass(frozen=True)
class RetryEvent:
    turn: int
    attempt: int
    reason: str
    wait_s: float
    kind: str = "retry"


@dataclass(frozen=True)
class SessionEnd:
    reason: Stop | None
    """Equals `run.stop`; None only when an endpoint error broke the run (see `error`)."""
    turns: int
    error: str | None = None
    kind: str = "session_end"


Event = TurnStart | ModelReply | ToolResultEvent | RetryEvent | SessionEnd
Listener = Callable[[Event], Any]


def emit(listener: Listener | None, event: Event) -> None:
    """Deliver one event; a listener's exception is logged, never raised into the loop."""
    if listener is None:
        return
    try:
        listener(event)
    except Exception:
        import logging  # only when a listener fails: logging costs ~10 ms at import

        logging.getLogger("whentostop").warning(
            "on_event listener raised on %s; the run goes on", event.kind, exc_info=True
        )
