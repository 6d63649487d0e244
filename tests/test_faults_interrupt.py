"""A run that is interrupted: Ctrl-C (a real SIGINT) while the model is answering or a tool is
running, and a tool that raises `KeyboardInterrupt` or `SystemExit`.

The exception goes on unchanged — Ctrl-C still stops the program — but it carries the run so
far as `exc.run` (the turns already paid for), and exactly one SessionEnd says the run broke.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from faulty_server import ASK_LOOKUP, LOOKUP_TOOLS, FaultyServer, cli_command, hang

from whentostop import SessionEnd, connect, run_agent, tool

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals"),
]

CHILD = r'''
import json, sys, threading, time
from whentostop import SessionEnd, connect, run_agent, tool

where, url = sys.argv[1], sys.argv[2]

def lookup(key: str) -> str:
    """Look a key up."""
    if where != "request":
        print("in the tool", flush=True)
        time.sleep(30)
    return "42"

events = []
try:
    run_agent("Look up a.", model=connect("m", base_url=url),
              tools=[tool(lookup, timeout_s=None if where == "tool" else 30)],
              on_event=events.append)
except KeyboardInterrupt as exc:
    run = exc.run
    print(json.dumps({"turns": len(run.turns), "stop": run.stop, "error": run.error,
                      "last": run.messages[-1]["role"],
                      "ends": [[e.reason, e.error] for e in events if isinstance(e, SessionEnd)]}))
'''


def wait_for(condition, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the child never got there")
        time.sleep(0.05)


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


def ctrl_c_as_in_a_terminal() -> None:
    """In the child, before it starts: Ctrl-C's default, as a terminal gives it. A child inherits
    an ignored SIGINT, and a test runner's worker may ignore it (an in-process kernel does), so
    the child would never see the Ctrl-C the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("where", ["request", "tool", "tool thread"])
def test_ctrl_c_keeps_the_partial_run_on_the_exception_with_one_session_end(where):
    """SIGINT while the second request hangs, or while the first tool call runs (in the
    loop's own thread, or in the worker thread a tool's time limit uses)."""
    script = [ASK_LOOKUP, hang(30)] if where == "request" else [ASK_LOOKUP]
    with FaultyServer(script) as server:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, where, server.base_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            preexec_fn=ctrl_c_as_in_a_terminal,
        )
        try:
            if where == "request":
                wait_for(lambda: len(server.requests) == 2)
            else:
                assert child.stdout.readline() == "in the tool\n"
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=30)
        finally:
            child.kill()
    assert child.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["stop"] is None and "KeyboardInterrupt" in seen["error"]
    assert seen["ends"] == [[None, seen["error"]]]
    if where == "request":
        assert seen["turns"] == 1 and seen["last"] == "tool"  # the paid-for turn is there
    else:
        assert seen["turns"] == 1 and seen["last"] == "assistant"  # the call that was cut


@pytest.mark.parametrize("timeout_s", [None, 5.0], ids=["in the loop's thread", "in a worker"])
@pytest.mark.parametrize("raised", [KeyboardInterrupt(), SystemExit(3)], ids=repr)
def test_a_tool_raising_keyboard_interrupt_or_system_exit_propagates_with_the_run(
    raised, timeout_s
):
    def stop() -> str:
        """Stops everything."""
        raise raised

    events: list = []
    with FaultyServer([ASK_LOOKUP]) as server:
        model = connect("m", base_url=server.base_url)
        with pytest.raises(type(raised)) as caught:
            # the scripted model asks for `lookup`: `stop` is offered under that name
            run_agent(
                "Look up a.",
                model=model,
                on_event=events.append,
                tools=[tool(stop, name="lookup", timeout_s=timeout_s)],
            )
    assert caught.value is raised  # unchanged: the same exception, not a wrapper
    run = caught.value.run
    assert run.stop is None and len(run.turns) == 1 and run.error
    assert type(raised).__name__ in run.error
    ends = [e for e in events if isinstance(e, SessionEnd)]
    assert len(ends) == 1 and ends[0].reason is None and ends[0].error == run.error
    if isinstance(raised, SystemExit):
        assert caught.value.code == 3


def test_an_endpoint_error_still_ends_in_one_session_end_only():
    events: list = []
    with FaultyServer([ASK_LOOKUP, lambda h, req: h.send_error(500)]) as server:
        model = connect("m", base_url=server.base_url, max_retries=0)
        with pytest.raises(Exception) as caught:
            run_agent("Look up a.", model=model, tools=LOOKUP_TOOLS, on_event=events.append)
    assert caught.value.run.error == str(caught.value)
    assert len([e for e in events if isinstance(e, SessionEnd)]) == 1


def test_an_interrupt_in_the_session_end_listener_does_not_end_the_run_twice():
    events: list = []

    def listener(event) -> None:
        events.append(event)
        if isinstance(event, SessionEnd):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        run_agent("Find the star.", model=connect("searcher"), tools=[], on_event=listener)
    assert caught.value.run.stop is not None  # it had finished: the interrupt came after
    assert len([e for e in events if isinstance(e, SessionEnd)]) == 1


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_on_the_command_line_prints_the_run_so_far_and_one_error_line(as_json):
    with FaultyServer([ASK_LOOKUP, hang(30)]) as server:
        cmd = cli_command(server.base_url, as_json=as_json)
        child = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            preexec_fn=ctrl_c_as_in_a_terminal,
        )
        try:
            wait_for(lambda: len(server.requests) == 2)
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=30)
        finally:
            child.kill()
    assert child.returncode == 130, err  # 128 + SIGINT: the shell's "interrupted"
    assert "Traceback" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ") and "interrupted" in line
    if as_json:
        data = json.loads(out)
        assert data["stop"] is None and len(data["turns"]) == 1 and "interrupted" in data["error"]
    else:
        assert "turn 1/10" in out
