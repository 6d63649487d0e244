"""Where no thread can start (Pyodide: the lesson in the browser, JupyterLite), a tool with a time
limit runs in the caller's thread and the limit is applied afterwards: the same exits and the same
messages as with a thread, never "can't start new thread" sent to the model.

`no_threads` makes `threading.Thread.start` fail as it does under Pyodide.
"""

from __future__ import annotations

import threading
import time

import pytest

from whentostop import Stop, connect, load_level, run_agent, tool
from whentostop.tools import DEFAULT_TOOL_TIMEOUT_S

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def no_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every `Thread.start()` raises as Pyodide's does; the list records each attempt."""
    attempts: list[str] = []

    def start(self: threading.Thread) -> None:
        attempts.append(self.name)
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", start)
    return attempts


def slow(seconds: float) -> str:
    """Sleep, then say so."""
    time.sleep(seconds)
    return f"slept {seconds:g} s"


def test_a_tool_with_a_time_limit_runs_in_the_callers_thread_where_threads_cannot_start(
    no_threads: list[str],
) -> None:
    def where() -> str:
        """Name the thread this runs in."""
        return threading.current_thread().name

    result = tool(where)("{}")  # @tool's default limit: DEFAULT_TOOL_TIMEOUT_S
    assert tool(where).timeout_s == DEFAULT_TOOL_TIMEOUT_S
    assert result.ok and result.output == threading.current_thread().name
    assert no_threads == ["whentostop-tool"]  # a thread was tried first, as anywhere else


def test_a_tool_over_its_limit_without_threads_ends_with_the_threads_message(
    no_threads: list[str],
) -> None:
    result = tool(slow, timeout_s=0.05)({"seconds": 0.2})
    assert not result.ok
    assert result.output == "Error: slow did not finish within 0.05 s and was abandoned"
    assert result.input == {"seconds": 0.2}


def test_a_tool_that_raises_late_without_threads_is_abandoned_not_reported_as_its_error(
    no_threads: list[str],
) -> None:
    def late_failure() -> str:
        """Fail after the limit."""
        time.sleep(0.2)
        raise ValueError("too late to matter")

    result = tool(late_failure, timeout_s=0.05)("{}")
    assert result.output == "Error: late_failure did not finish within 0.05 s and was abandoned"


def test_a_tool_that_raises_in_time_without_threads_sends_its_error_as_with_a_thread(
    no_threads: list[str],
) -> None:
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    result = tool(divide)({"a": 1, "b": 0})
    assert result.output == "Error: divide failed: ZeroDivisionError: division by zero"


def test_a_tool_past_the_runs_deadline_without_threads_says_so(no_threads: list[str]) -> None:
    result = tool(slow)({"seconds": 0.2}, deadline=time.monotonic() + 0.05)
    assert result.output == "Error: slow did not finish before the run's deadline and was abandoned"


def test_a_run_with_a_deadline_ends_on_the_flag_where_threads_cannot_start(
    no_threads: list[str],
) -> None:
    run = run_agent(
        "Find the star in this level.",
        model=connect("searcher"),
        tools=load_level("1-2").tools("search_blocks"),
        max_turns=10,
        deadline_s=60,
    )
    assert run.stop == Stop.END_TURN
    assert run.tool_calls and all(call.ok for call in run.tool_calls)
    assert no_threads  # the deadline gave every call a limit, so a thread was tried each time


def test_a_slow_model_still_ends_on_the_deadline_where_threads_cannot_start(
    no_threads: list[str],
) -> None:
    run = run_agent(
        "Find the star in this level.",
        model=connect("slow:0.3"),
        tools=load_level("1-1").tools(),
        max_turns=10,
        deadline_s=1.0,
    )
    assert run.stop == Stop.DEADLINE
    # Each call ran in the loop's thread: done in time, or (a reply that came in just before the
    # deadline, on a loaded machine) past it and said so, never an error of its own.
    late = "did not finish before the run's deadline"
    assert all(call.ok or late in call.output for call in run.tool_calls), run.tool_calls
