"""Tools that misbehave: raise, return something that is not text, hang, or flood the context.

Each case runs the real loop against a scripted loopback endpoint: the model asks for the tool,
then answers. What the tool did must reach the model as the call's result (checked in the
request the endpoint received), and the loop must go on to its normal exit.
"""

from __future__ import annotations

import threading
import time

import pytest
from faulty_server import FaultyServer, call, completion, run_to_end
from pydantic import BaseModel

from whentostop import Stop, ToolError, connect, tool
from whentostop.tools import MAX_OUTPUT_CHARS

pytestmark = pytest.mark.timeout(30)

ANSWER = completion("Done.")


def run_tool(fn, arguments=None, **kwargs):
    """Offer `fn` as the one tool; the scripted model calls it once, then answers."""
    t = fn if hasattr(fn, "schema") else tool(fn)
    asks = completion(tool_calls=[call(t.name, arguments or {})])
    with FaultyServer([asks, ANSWER]) as server:
        ending = run_to_end(model=connect("m", base_url=server.base_url), tools=[t], **kwargs)
    if len(server.requests) > 1:
        sent_back = server.requests[1].body["messages"][-1]
        assert (
            sent_back["role"] == "tool" and sent_back["content"] == ending.run.tool_calls[0].output
        )
    return ending


def test_a_tool_that_raises_sends_its_error_back_and_the_loop_goes_on():
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    ending = run_tool(divide, {"a": 1, "b": 0})
    (failed,) = ending.run.tool_calls
    assert not failed.ok and failed.input == {"a": 1, "b": 0}
    assert failed.output == "Error: divide failed: ZeroDivisionError: division by zero"
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "Done."


def test_a_tool_error_meant_for_the_model_is_sent_as_is():
    def search(area: str) -> str:
        """Search an area."""
        raise ToolError(f"there is no area called {area!r}")

    (failed,) = run_tool(search, {"area": "moon"}).run.tool_calls
    assert failed.output == "Error: there is no area called 'moon'"


def test_an_exception_without_a_message_still_says_what_it_was():
    def broken() -> str:
        """Always breaks."""
        raise KeyError

    (failed,) = run_tool(broken).run.tool_calls
    assert failed.output == "Error: broken failed: KeyError: KeyError"


class Found(BaseModel):
    area: str
    blocks: list[int]


class Thing:
    def __str__(self) -> str:
        return "a thing in the castle"


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


@pytest.mark.parametrize(
    "value, text",
    [
        ({"area": "castle", "blocks": [12]}, '{"area": "castle", "blocks": [12]}'),
        (["coin", "star"], '["coin", "star"]'),
        (12, "12"),
        (True, "true"),
        (None, ""),
        (Found(area="castle", blocks=[12]), '{"area":"castle","blocks":[12]}'),
        (Thing(), "a thing in the castle"),
        ({"when": Thing()}, '{"when": "a thing in the castle"}'),
        (b"bytes", "b'bytes'"),
    ],
)
def test_a_tool_returning_something_that_is_not_text_sends_it_as_text(value, text):
    def produce() -> object:
        """Produce a value."""
        return value

    (done,) = run_tool(produce).run.tool_calls
    assert done.ok and done.output == text


def test_a_tool_output_that_cannot_become_text_is_an_error_not_a_crash():
    def produce() -> object:
        """Produce a value."""
        return Unprintable()

    ending = run_tool(produce)
    (failed,) = ending.run.tool_calls
    assert not failed.ok and "RuntimeError: no text for you" in failed.output
    assert ending.run.stop == Stop.END_TURN


def test_a_hanging_tool_is_abandoned_at_its_time_limit_and_the_loop_goes_on():
    release = threading.Event()

    def stuck() -> str:
        """Never returns (until the test lets it go)."""
        release.wait(20)
        return "too late"

    try:
        ending = run_tool(tool(stuck, timeout_s=0.3))
    finally:
        release.set()
    (failed,) = ending.run.tool_calls
    assert failed.output == "Error: stuck did not finish within 0.3 s and was abandoned"
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "Done."


def test_a_hanging_tool_is_cut_by_the_run_deadline_too():
    release = threading.Event()

    def stuck() -> str:
        """Never returns (until the test lets it go)."""
        release.wait(20)
        return "too late"

    started = time.monotonic()
    try:
        ending = run_tool(tool(stuck, timeout_s=30), deadline_s=0.5)
    finally:
        release.set()
    (failed,) = ending.run.tool_calls
    assert (
        failed.output == "Error: stuck did not finish before the run's deadline and was abandoned"
    )
    assert ending.run.stop == Stop.DEADLINE
    assert time.monotonic() - started < 10  # not the tool's 30 s: the loop did not hang


def test_a_huge_tool_output_is_cut_with_a_note_before_it_reaches_the_model():
    size = MAX_OUTPUT_CHARS * 10

    def dump() -> str:
        """Dump everything."""
        return "x" * size

    ending = run_tool(dump)
    (done,) = ending.run.tool_calls
    note = f"\n[output cut: {size:,} characters, only the first {MAX_OUTPUT_CHARS:,} are shown]"
    assert done.ok and done.output == "x" * MAX_OUTPUT_CHARS + note
    assert ending.run.stop == Stop.END_TURN


# ---- formatting a result is part of the call; hung calls do not pile up ------------------


class SlowText:
    """A result whose text takes long to make (a slow `__str__`)."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def __str__(self) -> str:
        self.release.wait(10)
        return "finally"


def test_a_result_that_is_slow_to_format_is_cut_by_the_tools_time_limit():
    release = threading.Event()

    def produce() -> object:
        """Produce a value."""
        return SlowText(release)

    try:
        ending = run_tool(tool(produce, timeout_s=0.3))
    finally:
        release.set()
    (failed,) = ending.run.tool_calls
    assert failed.output == "Error: produce did not finish within 0.3 s and was abandoned"
    assert ending.run.stop == Stop.END_TURN


def test_a_result_that_is_slow_to_format_is_cut_by_the_run_deadline():
    release = threading.Event()

    def produce() -> object:
        """Produce a value."""
        return SlowText(release)

    try:
        ending = run_tool(tool(produce, timeout_s=30), deadline_s=0.5)
    finally:
        release.set()
    (failed,) = ending.run.tool_calls
    assert (
        failed.output == "Error: produce did not finish before the run's deadline and was abandoned"
    )
    assert ending.run.stop == Stop.DEADLINE


class Counted:
    """An item that counts how often it is written out as text."""

    made = 0

    def __str__(self) -> str:
        Counted.made += 1
        return "x"


def test_a_huge_list_is_cut_without_writing_it_all_out_first():
    items = [Counted()] * 15_000_000
    Counted.made = 0

    def dump() -> list[object]:
        """Dump every item."""
        return items

    ending = run_tool(dump)
    (done,) = ending.run.tool_calls
    note = (
        f"\n[output cut: more than {MAX_OUTPUT_CHARS:,} characters, only the first "
        f"{MAX_OUTPUT_CHARS:,} are shown]"
    )
    assert done.ok and done.output.startswith('["x", "x", ') and done.output.endswith(note)
    assert len(done.output) == MAX_OUTPUT_CHARS + len(note)
    assert Counted.made < 10_000, f"{Counted.made:,} of 15,000,000 items written out"


def tool_threads() -> set[threading.Thread]:
    """The tool threads alive now. A test counts those it started (the set now minus the set
    before): an earlier test's hung calls may still be running, and may end at any moment."""
    return {t for t in threading.enumerate() if t.name == "whentostop-tool" and t.is_alive()}


def test_hung_calls_of_a_tool_are_capped_and_the_next_call_fails_at_once():
    from whentostop.tools import MAX_ABANDONED_CALLS

    release = threading.Event()

    def stuck() -> str:
        """Never returns (until the test lets it go)."""
        release.wait(20)
        return "done"

    calls = MAX_ABANDONED_CALLS + 3
    script = [completion(tool_calls=[call("stuck", {}, f"c{i}")]) for i in range(calls)] + [ANSWER]
    before = tool_threads()
    try:
        with FaultyServer(script) as server:
            ending = run_to_end(
                model=connect("m", base_url=server.base_url),
                tools=[tool(stuck, timeout_s=0.1)],
                max_turns=calls + 1,
            )
        running = len(tool_threads() - before)
    finally:
        release.set()
    outputs = [c.output for c in ending.run.tool_calls]
    abandoned = "Error: stuck did not finish within 0.1 s and was abandoned"
    assert outputs[:MAX_ABANDONED_CALLS] == [abandoned] * MAX_ABANDONED_CALLS
    refused = (
        f"Error: stuck was not run: {MAX_ABANDONED_CALLS} earlier calls of it did not "
        f"finish within their time limit and are still running (at most "
        f"{MAX_ABANDONED_CALLS} are left running). It can run again once they finish."
    )
    assert outputs[MAX_ABANDONED_CALLS:] == [refused] * 3
    assert running == MAX_ABANDONED_CALLS  # not one thread per call
    assert ending.run.stop == Stop.END_TURN


def test_a_tool_runs_again_once_its_hung_calls_have_finished():
    from whentostop.tools import MAX_ABANDONED_CALLS

    release = threading.Event()

    def sometimes() -> str:
        """Hangs until released."""
        release.wait(20)
        return "done"

    before = tool_threads()
    slow = tool(sometimes, timeout_s=0.05)
    for _ in range(MAX_ABANDONED_CALLS):
        assert "was abandoned" in slow("{}").output
    assert "was not run" in slow("{}").output
    release.set()
    deadline = time.monotonic() + 10
    while tool_threads() - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert slow("{}").output == "done"


def test_a_tool_defined_again_each_time_still_counts_as_one_tool():
    """A notebook cell run again defines the function again: a new object, the same tool."""
    from whentostop.tools import MAX_ABANDONED_CALLS

    release = threading.Event()
    before = tool_threads()
    outputs = []
    try:
        for _ in range(MAX_ABANDONED_CALLS + 20):

            def redefined() -> str:
                """Hangs until released."""
                release.wait(20)
                return "done"

            outputs.append(tool(redefined, timeout_s=0.02)("{}").output)
        running = len(tool_threads() - before)
    finally:
        release.set()
    assert running == MAX_ABANDONED_CALLS
    assert sum("was not run" in o for o in outputs) == 20
