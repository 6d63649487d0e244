"""whentostop: when does an agent loop stop?

    from whentostop import connect, load_level, run_agent
    level = load_level("1-3")
    run = run_agent("Find the star.", model=connect("searcher"), tools=level.tools(),
                    max_turns=10, stop_on=["mark_star"])
    run.stop, run.answer      # (Stop.TERMINAL_TOOL, {'item': 'star', 'block': 12})

The notebook-only parts (`whentostop.plots`, `whentostop.widgets`) load matplotlib and
ipywidgets when imported; this package does not.
"""

from .client import ChatModel, Completion, OpenAIChat
from .errors import (
    AuthenticationError,
    BadResponse,
    DeadlineReached,
    EndpointError,
    EndpointHTTPError,
    EndpointTimeout,
    EndpointUnreachable,
    NoAnswer,
    NotFound,
    RateLimited,
    ServerError,
    WhenToStopError,
)
from .events import ModelReply, RetryEvent, SessionEnd, ToolResultEvent, TurnStart
from .i18n import language, set_language
from .level import LEVELS, Judgement, Level, LevelFileError, load_level
from .loop import run_agent
from .models import connect
from .outcome import Note, Run, Stop, ToolCall, Turn
from .tools import Tool, ToolError, tool
from .usage import Price, cost_per_turn, cumulative_cost, cumulative_tokens, price, prices

__version__ = "0.1.0"

__all__ = [
    "LEVELS",
    "AuthenticationError",
    "BadResponse",
    "ChatModel",
    "Completion",
    "DeadlineReached",
    "EndpointError",
    "EndpointHTTPError",
    "EndpointTimeout",
    "EndpointUnreachable",
    "Judgement",
    "Level",
    "LevelFileError",
    "ModelReply",
    "NoAnswer",
    "NotFound",
    "Note",
    "OpenAIChat",
    "Price",
    "RateLimited",
    "RetryEvent",
    "Run",
    "ServerError",
    "SessionEnd",
    "Stop",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolResultEvent",
    "Turn",
    "TurnStart",
    "WhenToStopError",
    "connect",
    "cost_per_turn",
    "cumulative_cost",
    "cumulative_tokens",
    "language",
    "load_level",
    "price",
    "prices",
    "run_agent",
    "set_language",
    "tool",
]
