"""Numbers beyond what the code expects (issue 27, class 4): JSON and number errors become the
library's own typed errors in one place (`whentostop._json`, `whentostop._numbers`), wherever the
number comes in — a model's tool arguments, a level file, an endpoint's reply, a usage count, a
caller's limit — and nothing downstream (costs, budgets, charts, figures) overflows."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from whentostop import (
    BadResponse,
    LevelFileError,
    OpenAIChat,
    Run,
    ServerError,
    Stop,
    Turn,
    cost_per_turn,
    cumulative_cost,
    load_level,
    run_agent,
    tool,
)
from whentostop._numbers import MAX_TOKEN_COUNT, token_count
from whentostop.usage import Budget, price

LONG = (
    "7" * 5_000
)  # past Python's 4,300-digit limit for int(): json.loads raises a plain ValueError
NEGATIVE_LONG = "-" + LONG
FLOAT_LONG = LONG + ".5"  # a float: Python reads it (as a float), no limit

NOT_COUNTS = [10**400, -3, True, False, 1.5, math.nan, math.inf, -math.inf, "12", None, [], {}]
"""What a server (or a caller) may put where a token count goes."""


@tool
def lookup(key: str, n: int = 0) -> str:
    """Look a key up."""
    return f"{key}:{n}"


def completion(content: str = "done", usage: Any = None, calls: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    body: dict[str, Any] = {
        "choices": [{"message": message, "finish_reason": "tool_calls" if calls else "stop"}]
    }
    if usage is not None:
        body["usage"] = usage
    return body


def endpoint(
    *bodies: str | dict[str, Any], status: int = 200, timeout_s: float = 60.0
) -> OpenAIChat:
    """A model whose endpoint answers each request with the next body (the last repeats)."""
    served = {"n": 0}

    def respond(request: httpx.Request) -> httpx.Response:
        body = bodies[min(served["n"], len(bodies) - 1)]
        served["n"] += 1
        text = body if isinstance(body, str) else json.dumps(body)
        return httpx.Response(status, content=text.encode(), headers={"Retry-After": "0"})

    return OpenAIChat(
        "m",
        "http://numbers.test/v1",
        transport=httpx.MockTransport(respond),
        max_retries=0,
        timeout_s=timeout_s,
    )


def call(arguments: str) -> list[dict[str, Any]]:
    return [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}
    ]


# -- JSON integers longer than Python reads ------------------------------------------------------

TOO_LONG_ARGUMENTS = [
    f'{{"key": "a", "n": {LONG}}}',
    f'{{"key": "a", "n": {NEGATIVE_LONG}}}',
    f'{{"key": "a", "deep": [[{{"x": {LONG}}}]]}}',
    f"[{LONG}]",
    LONG,
]


@pytest.mark.parametrize("arguments", TOO_LONG_ARGUMENTS)
def test_a_number_too_long_in_tool_arguments_is_an_error_line_for_the_model(arguments: str) -> None:
    result = lookup(arguments)
    assert not result.ok
    assert result.output.startswith("Error: the arguments for lookup hold a number of more than")
    assert "4,300 digits" in result.output
    assert "\n" not in result.output and len(result.output) < 400


def test_a_float_with_many_digits_is_read_as_json_reads_it_then_validated() -> None:
    result = lookup(f'{{"key": "a", "n": {FLOAT_LONG}}}')  # a float: infinity, to Python
    assert (
        result.output
        == "Error: invalid input for lookup: n: Input should be a finite number (got Infinity)"
    )


@pytest.mark.parametrize("arguments", TOO_LONG_ARGUMENTS)
def test_a_number_too_long_in_tool_arguments_goes_back_to_the_model_and_the_run_goes_on(
    arguments: str,
) -> None:
    model = endpoint(completion("", calls=call(arguments)), completion("gave up"))
    run = run_agent("go", model=model, tools=[lookup], max_turns=3)
    assert run.stop == Stop.END_TURN and run.answer == "gave up"
    (sent,) = run.tool_calls
    assert not sent.ok and "digits" in sent.output
    assert run.messages[2] == {"role": "tool", "tool_call_id": "c1", "content": sent.output}


@pytest.mark.parametrize(
    "body",
    [
        f'{{"title": {LONG}}}',
        f'{{"name": "x", "areas": {{"a": {{"1": {LONG}}}}}}}',
        f'{{"name": "x", "areas": {{"a": {{"1": "coin"}}}}, "extra": [1, 2, {NEGATIVE_LONG}]}}',
        f"\n\n  [{LONG}]",
    ],
)
def test_a_number_too_long_in_a_level_file_is_a_level_file_error_naming_the_file_and_line(
    tmp_path: Path, body: str
) -> None:
    path = tmp_path / "huge.json"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(LevelFileError) as caught:
        load_level(path)
    message = str(caught.value)
    assert message.startswith(f"{path} has a number of more than 4,300 digits (line ")
    line = body[: body.index("7" * 10)].count("\n") + 1
    assert f"(line {line}, column " in message


@pytest.mark.parametrize(
    "body",
    [
        f'{{"choices": [{{"message": {{"role": "assistant", "content": "x"}}}}], "usage": {{"prompt_tokens": {LONG}}}}}',
        f'{{"choices": [{{"index": {LONG}}}]}}',
        f"[{NEGATIVE_LONG}]",
    ],
)
def test_a_number_too_long_in_a_reply_is_a_bad_response_with_the_partial_run(body: str) -> None:
    model = endpoint(body)
    with pytest.raises(BadResponse) as caught:
        run_agent("go", model=model, tools=[lookup], max_turns=3)
    assert "a number of more than 4,300 digits" in str(caught.value)
    assert caught.value.run is not None and caught.value.run.stop is None


def test_a_number_too_long_in_an_error_body_still_gives_the_http_error() -> None:
    model = endpoint(f'{{"error": {{"message": "busy", "code": {LONG}}}}}', status=503)
    with pytest.raises(ServerError) as caught:
        run_agent("go", model=model, tools=[lookup], max_turns=3)
    assert "HTTP 503" in str(caught.value)


# -- token counts: what is not a count counts as 0 -------------------------------------------------


@pytest.mark.parametrize("value", NOT_COUNTS, ids=repr)
def test_a_usage_value_that_is_not_a_token_count_counts_as_none_reported(value: Any) -> None:
    usage = {"prompt_tokens": value, "completion_tokens": value}
    try:
        body = json.dumps(completion(usage=usage))
    except ValueError:
        pytest.skip("not JSON")
    run = run_agent("go", model=endpoint(body), tools=[lookup], max_turns=2)
    assert run.stop == Stop.END_TURN
    assert (run.prompt_tokens, run.completion_tokens) == (0, 0)


@pytest.mark.parametrize("value", NOT_COUNTS, ids=repr)
def test_a_turn_built_with_a_count_that_is_not_one_holds_zero(value: Any) -> None:
    turn = Turn(1, value, value, 0.0, {"role": "assistant", "content": "x"}, cached_tokens=value)
    assert (turn.prompt_tokens, turn.completion_tokens, turn.cached_tokens) == (0, 0, 0)


def test_token_count_keeps_every_real_count_up_to_its_ceiling() -> None:
    assert [token_count(n) for n in (0, 1, 123_456, MAX_TOKEN_COUNT)] == [
        0,
        1,
        123_456,
        MAX_TOKEN_COUNT,
    ]
    assert token_count(MAX_TOKEN_COUNT + 1) == 0
    assert float(MAX_TOKEN_COUNT) == MAX_TOKEN_COUNT  # exact as a float: sums stay exact


def huge_run(value: Any = 10**400, turns: int = 3) -> Run:
    made = [
        Turn(i, value if i == 2 else 100 * i, value, 0.1, {"role": "assistant", "content": "x"})
        for i in range(1, turns + 1)
    ]
    return Run(stop=Stop.MAX_TURNS, messages=[], turns=made, max_turns=turns)


@pytest.mark.parametrize("value", [10**400, MAX_TOKEN_COUNT, math.nan, -(10**400), True])
def test_costs_of_any_usage_are_finite_numbers(value: Any) -> None:
    run = huge_run(value)
    for costs in (cost_per_turn(run, "gpt-4o"), cumulative_cost(run, "gpt-4o")):
        assert len(costs) == 3 and all(math.isfinite(c) and c >= 0 for c in costs)
    assert math.isfinite(price("gpt-4o").cost(10**400, 10**400, 10**400))


@pytest.mark.parametrize("value", [10**400, 2 * MAX_TOKEN_COUNT, math.inf])
def test_a_budget_in_dollars_with_absurd_usage_stops_or_goes_on_but_never_overflows(
    value: Any,
) -> None:
    usage = {"prompt_tokens": MAX_TOKEN_COUNT, "completion_tokens": 5}
    body = completion("", usage=usage, calls=call('{"key": "a"}'))
    run = run_agent("go", model=endpoint(body), tools=[lookup], max_turns=4, max_cost_usd=value)
    assert run.stop in (Stop.BUDGET, Stop.MAX_TURNS)
    assert run.summary()
    if run.budget_stop is not None:
        assert math.isfinite(run.budget_stop.would_reach)


def test_a_dollar_budget_of_more_than_a_float_holds_is_no_limit_not_an_overflow() -> None:
    budget = Budget.of(None, 10**400, None)
    assert budget is not None and budget.max_cost_usd == math.inf
    assert budget.over(huge_run(10**400)) is None


def test_the_explorers_cost_chart_and_its_words_take_absurd_usage() -> None:
    from whentostop.views import charts

    run = huge_run(10**400)
    svg = charts.cost_svg(run)
    assert svg.startswith("<svg") and "nan" not in svg.lower() and "inf" not in svg.lower()
    assert 'alt="Tokens per turn' in charts.img(svg)  # its words, read back as the alt text


def test_the_figures_take_absurd_usage() -> None:
    pytest.importorskip("matplotlib")
    from whentostop.views import plots

    run = huge_run(10**400)
    for figure in (
        plots.tokens_per_turn(run),
        plots.cumulative_cost(run),
        plots.compare_runs({"a": run, "b": huge_run(MAX_TOKEN_COUNT)}),
    ):
        assert plots.png_bytes(figure).startswith(b"\x89PNG") and figure.alt_text


def test_the_uncapped_bill_takes_absurd_usage() -> None:
    from whentostop.lesson.uncapped import bill

    shown = bill([{"prompt_tokens": 10**400, "completion_tokens": math.nan}, {"prompt_tokens": 90}])
    assert all(math.isfinite(row.usd) for row in shown.rows)


# -- a caller's limits -------------------------------------------------------------------------------

BAD_SECONDS = [math.nan, 0, -1, True, "5", -math.inf]
HUGE_SECONDS = [10**400, math.inf, 1e300]


@pytest.mark.parametrize("value", BAD_SECONDS, ids=repr)
def test_a_deadline_or_timeout_that_is_not_seconds_is_refused_with_its_name(value: Any) -> None:
    with pytest.raises(ValueError, match="deadline_s must be a positive number of seconds"):
        run_agent("go", model=endpoint(completion()), tools=[lookup], deadline_s=value)
    with pytest.raises(ValueError, match="timeout_s must be a positive number of seconds"):
        OpenAIChat("m", "http://numbers.test/v1", timeout_s=value)
    with pytest.raises(ValueError, match="timeout_s must be a positive number of seconds"):
        tool(lookup.fn, name="again", timeout_s=value)


@pytest.mark.parametrize("value", HUGE_SECONDS, ids=repr)
def test_a_deadline_or_timeout_past_any_clock_means_no_limit_not_an_overflow(value: Any) -> None:
    model = endpoint(
        completion("", calls=call('{"key": "a"}')), completion("done"), timeout_s=value
    )
    slow = tool(lookup.fn, name="lookup", timeout_s=value)
    run = run_agent("go", model=model, tools=[slow], deadline_s=value, max_turns=3)
    assert run.stop == Stop.END_TURN and run.tool_calls[0].ok
