"""Property-based tests (hypothesis): arbitrary JSON and strings into the response parser and the
tool-argument path, arbitrary completions into a whole run. Nothing may escape but the
library's own typed errors; a run always ends with exactly one outcome or one EndpointError
carrying the run, and exactly one SessionEnd."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whentostop import (
    BadResponse,
    EndpointError,
    OpenAIChat,
    SessionEnd,
    Stop,
    load_level,
    run_agent,
    tool,
)
from whentostop.client import parse_completion
from whentostop.textcalls import find_text_calls
from whentostop.tools import as_tools, call_tool

FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """Either a plausible value or any JSON at all, so both deep and shallow paths get tried."""
    return strategy | json_values


tool_names = st.sampled_from(["search_blocks", "mark_star", "", "nope"]) | st.text(max_size=12)
arguments = maybe(
    st.sampled_from(
        ['{"area": "castle"}', '{"item": "star", "block": 12}', '{"block": -1}', "{", ""]
    )
    | st.text(max_size=30)
    | json_values.map(json.dumps)
)
tool_calls = st.lists(
    maybe(
        st.fixed_dictionaries(
            {
                "id": maybe(st.sampled_from(["call_1", "call_2"])),
                "type": st.just("function"),
                "function": maybe(
                    st.fixed_dictionaries({"name": maybe(tool_names), "arguments": arguments})
                ),
            }
        )
    ),
    max_size=3,
)
contents = maybe(
    st.text(max_size=30)
    | st.lists(
        maybe(
            st.fixed_dictionaries({"type": st.just("text"), "text": maybe(st.text(max_size=10))})
        ),
        max_size=3,
    )
)
completions = maybe(
    st.fixed_dictionaries(
        {
            "choices": maybe(
                st.lists(
                    maybe(
                        st.fixed_dictionaries(
                            {
                                "message": maybe(
                                    st.fixed_dictionaries(
                                        {"role": st.just("assistant"), "content": contents},
                                        optional={"tool_calls": maybe(tool_calls)},
                                    )
                                ),
                                "finish_reason": maybe(
                                    st.sampled_from(["stop", "tool_calls", "length"])
                                ),
                            }
                        )
                    ),
                    min_size=1,
                    max_size=2,
                )
            ),
            "usage": maybe(
                st.fixed_dictionaries(
                    {
                        "prompt_tokens": maybe(st.integers(0, 5000)),
                        "completion_tokens": maybe(st.integers(0, 500)),
                    },
                    optional={
                        "prompt_tokens_details": maybe(
                            st.fixed_dictionaries({"cached_tokens": maybe(st.integers(-10, 6000))})
                        )
                    },
                )
            ),
        }
    )
)


@FAST
@given(completions)
def test_parse_completion_returns_a_clean_completion_or_raises_bad_response(data: Any):
    try:
        done = parse_completion(data)
    except BadResponse as exc:
        assert str(exc) and len(str(exc)) < 400  # a short, readable excerpt
        return
    message = done.message
    assert message["role"] == "assistant"
    assert message["content"] is None or isinstance(message["content"], str)
    for call in message.get("tool_calls", []):
        assert isinstance(call["id"], str) and call["id"]
        assert isinstance(call["function"]["name"], str)
        assert isinstance(call["function"]["arguments"], str)
    # no tool call: the text, maybe empty (an empty reply is the model's turn, not an error)
    assert message.get("tool_calls") or isinstance(message["content"], str)
    assert isinstance(done.prompt_tokens, int) and done.prompt_tokens >= 0
    assert isinstance(done.completion_tokens, int) and done.completion_tokens >= 0
    assert isinstance(done.cached_tokens, int) and 0 <= done.cached_tokens <= done.prompt_tokens


@FAST
@given(json_values)
def test_parse_completion_of_any_json_value_never_escapes(data: Any):
    try:
        parse_completion(data)
    except BadResponse:
        pass


LEVEL_TOOLS = as_tools(load_level("1-3").tools())


@FAST
@given(maybe(st.text(max_size=40)), tool_names)
def test_tool_arguments_of_any_kind_become_a_result_never_an_exception(args: Any, name: str):
    result = call_tool(LEVEL_TOOLS, name, args)
    assert isinstance(result.ok, bool) and isinstance(result.output, str)
    if result.ok:
        assert name in LEVEL_TOOLS and isinstance(result.input, dict)
    else:
        assert result.output.startswith("Error: ")


@tool(timeout_s=None)
def echo(value: int, label: str = "") -> Any:
    """Return its input in a few shapes."""
    return {0: None, 1: [label] * value, 2: object()}.get(value % 3) if value else label


@FAST
@given(maybe(st.fixed_dictionaries({"value": json_values}, optional={"label": json_values})))
def test_tool_call_with_arbitrary_input_returns_text(args: Any):
    result = echo(args)
    assert isinstance(result.output, str)
    if result.ok:
        assert isinstance(result.input, dict) and isinstance(result.input["value"], int)
    else:
        assert result.output.startswith("Error: ")


# ---- whole runs against a transport that answers anything ------------------------------

replies = st.one_of(
    completions.map(lambda body: (200, body)),
    st.tuples(st.sampled_from([400, 401, 404, 429, 500, 503]), json_values),
    st.tuples(st.just(200), st.text(max_size=20)),  # not JSON
)


def transport(script: list[tuple[int, Any]]) -> httpx.MockTransport:
    """Answer each request with the next scripted reply (the last one repeats)."""
    served = {"n": 0}

    def respond(request: httpx.Request) -> httpx.Response:
        status, body = script[min(served["n"], len(script) - 1)]
        served["n"] += 1
        headers = {"Retry-After": "0"}
        if isinstance(body, str) and status == 200:
            return httpx.Response(status, text=body, headers=headers)
        # json.dumps, not httpx's json=: a server may well send NaN or Infinity, which
        # Python's JSON parser accepts, so the client must cope with them too.
        headers["Content-Type"] = "application/json"
        return httpx.Response(status, content=json.dumps(body).encode(), headers=headers)

    return httpx.MockTransport(respond)


def within_budget_when_sent(run, limit: int) -> bool:
    """Every request the run sent could still fit the budget when it was sent: what it had spent
    plus the history that request sent again (the previous prompt and reply) was at most it."""
    spent, floor = 0, 0
    for turn in run.turns:
        if spent + floor > limit:
            return False
        spent += turn.total_tokens
        floor = turn.prompt_tokens + turn.completion_tokens
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(replies, min_size=1, max_size=6),
    st.integers(1, 4),
    st.booleans(),
    st.none() | st.integers(1, 3000),
    st.sampled_from(["note", "accept"]),
)
def test_a_run_against_arbitrary_replies_ends_exactly_once(
    script, max_turns, wrap_up, budget, text_tool_calls
):
    level = load_level("1-3")
    model = OpenAIChat("m", "http://fuzz.invalid/v1", transport=transport(script), max_retries=1)
    events: list = []
    try:
        run = run_agent(
            "Find the star.",
            model=model,
            tools=level.tools(),
            max_turns=max_turns,
            stop_on=["mark_star"],
            on_event=events.append,
            on_max_turns="wrap_up" if wrap_up else "stop",
            max_tokens_total=budget,
            text_tool_calls=text_tool_calls,
        )
    except EndpointError as exc:
        assert exc.run is not None and exc.run.stop is None and exc.run.error == str(exc)
        ends = [e for e in events if isinstance(e, SessionEnd)]
        assert len(ends) == 1 and ends[0].reason is None
        assert len(exc.run.turns) <= max_turns
        return
    ends = [e for e in events if isinstance(e, SessionEnd)]
    assert len(ends) == 1 and ends[0].reason == run.stop
    assert run.stop in (Stop.END_TURN, Stop.TERMINAL_TOOL, Stop.MAX_TURNS, Stop.BUDGET)
    assert 1 <= len(run.turns) <= max_turns  # the first request is never refused by a budget
    if budget is not None:
        assert within_budget_when_sent(run, budget)
    if run.stop == Stop.TERMINAL_TOOL:
        assert run.answer["item"] == "star" and run.answer["block"] > 0
    elif run.stop == Stop.END_TURN:
        assert isinstance(run.answer, str) and run.answer.strip()  # an empty reply never is
    elif run.stop == Stop.BUDGET:
        assert budget is not None and run.budget_stop.would_reach > budget and not run.has_answer
    else:
        assert len(run.turns) == max_turns and not run.has_answer


@FAST
@given(
    st.text(max_size=300) | st.lists(json_values, max_size=3).map(json.dumps),
    st.sets(tool_names, max_size=3),
)
def test_finding_calls_in_any_text_never_raises_and_finds_only_offered_tools(text, offered):
    for call in find_text_calls(text, offered):
        assert call.name in offered and isinstance(call.arguments, str)


@FAST
@given(
    st.text(max_size=40),
    st.sampled_from(["search_blocks", "mark_star"]),
    st.dictionaries(
        st.sampled_from(["area", "item", "block"]),
        st.none() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=9),
        max_size=2,
    ),
    st.sampled_from(
        [
            "{call}",
            "```json\n{call}\n```",
            "<tool_call>\n{call}\n</tool_call>",
            "[TOOL_CALLS] [{call}]",
        ]
    ),
)
def test_a_call_written_in_any_known_form_is_found_with_its_arguments(before, name, args, form):
    text = (
        before.replace("{", "(").replace("[", "(")
        + " "
        + form.format(call=json.dumps({"name": name, "arguments": args}))
    )
    (found,) = find_text_calls(text, {"search_blocks", "mark_star"})
    assert found.name == name and json.loads(found.arguments) == json.loads(json.dumps(args))


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deeply_nested_tool_arguments_are_an_error_result(depth: int):
    result = call_tool(LEVEL_TOOLS, "search_blocks", "[" * depth + "]" * depth)
    assert not result.ok and result.output.startswith("Error: the arguments for search_blocks")
