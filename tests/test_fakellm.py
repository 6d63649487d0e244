"""Our client against an OpenAI-compatible fake this project did not write: `fakellm` (PyPI),
scripted in its own YAML rules and started on 127.0.0.1 by the test.

fakellm counts every request of a conversation as a turn (a retried request too), keys the
conversation on the first user message, and matches the first rule that fits. It cannot send
a Retry-After header, a `finish_reason` other than stop/tool_calls, chosen tool-call ids, or a
slow reply; those faults are covered by tests/faulty_server.py instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import httpx
import pytest
from conftest import free_port, running

from whentostop import (
    AuthenticationError,
    RateLimited,
    RetryEvent,
    SessionEnd,
    Stop,
    connect,
    load_level,
    run_agent,
)

pytestmark = pytest.mark.timeout(60)

RULES = """\
version: 1
rules:
  # A three-turn warp-pipe run on level 1-3: search, search, mark the star.
  - name: loop-1-overworld
    when: {turn: 1, messages_contain: "scripted loop"}
    respond: {tool_calls: [{name: search_blocks, arguments: {area: overworld}}]}
  - name: loop-2-castle
    when: {turn: 2, tool_result_contains: "Block 1: coin"}
    respond: {tool_calls: [{name: search_blocks, arguments: {area: castle}}]}
  - name: loop-3-mark
    when: {turn: 3, tool_result_contains: "Block 12: star"}
    respond: {tool_calls: [{name: mark_star, arguments: {item: star, block: 12}}]}

  # Rate limited once, then an answer (fakellm counts the retried request as turn 2).
  - name: limited-once
    when: {turn: 1, messages_contain: "limited once"}
    respond: {status: 429, error: "Rate limit exceeded (mock)"}
  - name: limited-once-then-ok
    when: {turn: 2, messages_contain: "limited once"}
    respond: {content: "The star is in block 12."}

  - name: limited-always
    when: {messages_contain: "limited always"}
    respond: {status: 429, error: "Rate limit exceeded (mock)"}

  - name: bad-key
    when: {messages_contain: "bad key"}
    respond: {status: 401, error: "Incorrect API key provided"}

  # Arguments that are a JSON string, not an object: the error goes back, the model retries.
  - name: string-args
    when: {turn: 1, messages_contain: "string arguments"}
    respond: {tool_calls: [{name: search_blocks, arguments: "castle"}]}
  - name: string-args-fixed
    when: {turn: 2, tool_result_contains: "must be a JSON object"}
    respond: {content: "Sorry: I will send an object next time."}
"""


@pytest.fixture(scope="module")
def fakellm(tmp_path_factory: pytest.TempPathFactory):
    """fakellm on a free loopback port, with our rules; no request leaves the machine."""
    where = tmp_path_factory.mktemp("fakellm")
    config = where / "fakellm.yaml"
    config.write_text(RULES)
    port = free_port()
    closed = f"http://127.0.0.1:{free_port()}"  # tiktoken's download (if any) fails at once
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(HTTP_PROXY=closed, HTTPS_PROXY=closed, TIKTOKEN_CACHE_DIR=str(where / "tiktoken"))
    cmd = [
        str(Path(sys.executable).parent / "fakellm"),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--config",
        str(config),
    ]
    with running(
        cmd,
        url=f"http://127.0.0.1:{port}/_fakellm/stats",
        env=env,
        cwd=where,
        log=where / "fakellm.log",
    ):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def base_url(fakellm: str) -> str:
    httpx.post(f"{fakellm}/_fakellm/reset", timeout=10).raise_for_status()
    return f"{fakellm}/v1"


def test_a_scripted_three_turn_tool_loop_ends_through_the_warp_pipe(base_url):
    level = load_level("1-3")
    run = run_agent(
        "A scripted loop: find the star.",
        model=connect("gpt-4o-mini", base_url=base_url),
        tools=level.tools(),
        max_turns=10,
        stop_on=["mark_star"],
    )
    assert run.stop == Stop.TERMINAL_TOOL and run.answer == {"item": "star", "block": 12}
    assert [c.name for c in run.tool_calls] == ["search_blocks", "search_blocks", "mark_star"]
    assert all(c.ok for c in run.tool_calls) and len(run.turns) == 3
    view = level.view(run)
    assert view.markers[-1].correct and view.searched == ("overworld", "castle")
    prompts = [t.prompt_tokens for t in run.turns]
    assert prompts == sorted(set(prompts)) and prompts[0] > 0  # fakellm's own count grows too


def test_a_429_is_retried_recorded_on_the_turn_and_not_counted_as_a_turn(base_url):
    events: list = []
    run = run_agent(
        "Limited once: where is the star?",
        model=connect("m", base_url=base_url),
        max_turns=1,
        on_event=events.append,
    )
    assert run.stop == Stop.END_TURN and run.answer == "The star is in block 12."
    assert len(run.turns) == 1 and run.turns[0].retries == ["HTTP 429, waited 0.50 s"]
    assert [(e.turn, e.attempt) for e in events if isinstance(e, RetryEvent)] == [(1, 1)]


def test_a_429_that_persists_is_rate_limited_with_the_servers_message(base_url):
    events: list = []
    with pytest.raises(RateLimited) as caught:
        run_agent(
            "Limited always.",
            model=connect("m", base_url=base_url, max_retries=1),
            on_event=events.append,
        )
    err = caught.value
    assert err.status == 429 and err.run is not None and err.run.turns == []
    assert "after 1 retry: rate limited" in str(err) and "Rate limit exceeded (mock)" in str(err)
    assert [e.reason for e in events if isinstance(e, SessionEnd)] == [None]


def test_a_401_is_an_authentication_error(base_url):
    with pytest.raises(AuthenticationError, match="Incorrect API key provided"):
        run_agent("Bad key.", model=connect("m", base_url=base_url, api_key="sk-wrong"))


def test_arguments_that_are_not_an_object_go_back_and_the_model_answers(base_url):
    level = load_level("1-3")
    run = run_agent(
        "String arguments, please.", model=connect("m", base_url=base_url), tools=level.tools()
    )
    (bad,) = run.tool_calls
    assert not bad.ok and bad.arguments == '"castle"'
    assert (
        bad.output
        == 'Error: the arguments for search_blocks must be a JSON object, got str: "castle"'
    )
    assert run.stop == Stop.END_TURN and len(run.turns) == 2
