"""whentostop: when does an agent loop stop?

    from whentostop import connect, load_level, run_agent
    level = load_level("1-3")
    run = run_agent("Find the star.", model=connect("searcher"), tools=level.tools(),
                    max_turns=10, stop_on=["mark_star"])
    run.stop, run.answer      # (Stop.TERMINAL_TOOL, {'item': 'star', 'block': 12})

The package has three rooms beside this loop library (the public imports above stay flat):

    whentostop.mock     the offline model: personas, the reader of intent, the endpoint
    whentostop.lesson   what the notebooks teach with: exercises, questions, the castle, the race
    whentostop.views    widgets, the figure model and its SVG and matplotlib renderers; they
                        only read runs

The widgets load ipywidgets when imported, and the figures matplotlib when they draw one (SVG
where it cannot be imported); this package loads neither. Neither the loop
library nor the mock imports `lesson` or `views` (tests/test_structure.py).
"""

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

from .client import ChatModel, Completion, OpenAIChat
from .errors import (
    AuthenticationError,
    BadResponse,
    DeadlineReached,
    EndpointError,
    EndpointHTTPError,
    EndpointTimeout,
    EndpointUnreachable,
    InvalidAPIKey,
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

# The paths notebooks used before the rooms (`from whentostop.lesson.checks import ...`, `from whentostop
# import plots`) still work: each names the module in its room, imported when first asked for.
MOVED = {
    "checks": "lesson.checks",
    "questions": "lesson.questions",
    "loopcheck": "lesson.loopcheck",
    "castle": "lesson.castle",
    "race": "lesson.race",
    "uncapped": "lesson.uncapped",
    "classroom": "lesson.classroom",
    "widgets": "views.widgets",
    "controls": "views.controls",
    "livecharts": "views.charts",
    "plots": "views.plots",
    "describe": "views.describe",
    "look": "views.look",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import whentostop.lesson.checks` gives the module `whentostop.lesson.checks` itself."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> Any:
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> ModuleType:
        return importlib.import_module(f"{__name__}.{MOVED[spec.name.rpartition('.')[2]]}")

    def exec_module(self, module: ModuleType) -> None:
        """The room's module has run already."""


if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
    sys.meta_path.append(_MovedFinder())


def __getattr__(name: str) -> ModuleType:
    """`from whentostop import plots`: the module from its room (PEP 562)."""
    if name in MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    "InvalidAPIKey",
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
