"""The loop's exits, each reached by the persona that should reach it, and the rules it keeps."""

from __future__ import annotations

import re

import pytest
from conftest import MAY_GIVE_UP, PROMPT

from whentostop import (
    NoAnswer,
    SessionEnd,
    Stop,
    ToolResultEvent,
    TurnStart,
    connect,
    load_level,
    run_agent,
    tool,
)
from whentostop.loop import EMPTY_PROMPT
from whentostop.usage import DEFAULT_PRICE_MODEL, cost_per_turn, price


def test_loopboros_on_the_empty_level_stops_on_the_clock_asking_for_a_tool(play):
    run, _, _ = play("1-1", "loopboros", max_turns=7)
    assert run.stop == Stop.MAX_TURNS
    assert len(run.turns) == 7
    assert run.last_message["tool_calls"][0]["function"]["name"] == "search_blocks"
    with pytest.raises(NoAnswer, match=r"max_turns=7 while the model was asking for search_blocks"):
        run.answer


def test_loopboros_ignores_permission_to_give_up(play):
    run, _, _ = play("1-1", "loopboros", max_turns=12, system=MAY_GIVE_UP)
    assert run.stop == Stop.MAX_TURNS


def test_searcher_without_permission_keeps_trying_other_spellings_until_the_clock(play):
    run, _, _ = play("1-1", "searcher", max_turns=9)
    assert run.stop == Stop.MAX_TURNS
    areas = [c.input["area"] if c.input else c.arguments for c in run.tool_calls]
    assert areas[:4] == ["overworld", "underground", "sky", "castle"]
    assert any(a not in ("overworld", "underground", "sky", "castle") for a in areas[4:])


def test_searcher_gives_up_in_text_when_the_system_prompt_allows_it(play):
    run, _, _ = play("1-1", "searcher", max_turns=10, system=MAY_GIVE_UP)
    assert run.stop == Stop.END_TURN
    assert "couldn't find the star" in run.answer
    assert len(run.turns) == 5  # four areas searched, then the admission


def test_a_prompt_that_forbids_giving_up_is_not_permission(play):
    run, _, _ = play("1-1", "searcher", max_turns=8, system="Never give up until you find it.")
    assert run.stop == Stop.MAX_TURNS


def test_searcher_raises_the_flag_with_the_star_in_text(play):
    run, _, _ = play("1-2", "searcher", tools=load_level("1-2").tools("search_blocks"))
    assert run.stop == Stop.END_TURN
    assert "underground, block 7" in run.answer
    assert run.last_message.get("tool_calls") is None
    assert len(run.turns) == 3


def test_the_seeds_scenario_ends_through_the_warp_pipe_with_the_validated_input(play):
    run, level, _ = play("1-3", "searcher", max_turns=10, stop_on=["mark_star"])
    assert run.stop == Stop.TERMINAL_TOOL
    assert run.answer == {"item": "star", "block": 12}
    assert len(run.turns) == 5
    markers = level.view(run).markers
    assert [m.block for m in markers] == [12] and markers[0].correct


def test_without_stop_on_the_searcher_spends_one_more_turn_saying_done(play):
    with_pipe, _, _ = play("1-3", "searcher", stop_on=["mark_star"])
    without, _, _ = play("1-3", "searcher")
    assert without.stop == Stop.END_TURN
    assert len(without.turns) == len(with_pipe.turns) + 1
    assert "Done" in without.answer
    assert without.total_tokens > with_pipe.total_tokens


def test_terminal_tool_with_invalid_input_sends_error_back_and_continues(play):
    run, level, _ = play("1-3", "sloppy", stop_on=["mark_star"])
    assert run.stop == Stop.TERMINAL_TOOL
    first, second = [c for c in run.tool_calls if c.name == "mark_star"]
    assert not first.ok and first.output.startswith("Error: invalid input for mark_star")
    assert "block" in first.output and "item" in first.output
    assert second.ok and run.answer == {"item": "star", "block": 12}
    error_result = next(m for m in run.messages if m.get("tool_call_id") == first.id)
    assert error_result["content"] == first.output  # the model saw the error
    assert len(level.view(run).markers) == 1


def test_terminal_tool_whose_body_raises_does_not_stop_the_loop():
    level = load_level("1-3")
    search, _ = level.tools()

    @tool(name="mark_star", description="Put a marker on the level map where the star is.")
    def broken_mark(item: str, block: int) -> str:
        raise RuntimeError("the map is torn")

    run = run_agent(
        PROMPT,
        model=connect("searcher"),
        tools=[search, broken_mark],
        stop_on=["mark_star"],
        max_turns=8,
    )
    assert run.stop == Stop.MAX_TURNS
    failed = [c for c in run.tool_calls if c.name == "mark_star"]
    assert failed and all(not c.ok for c in failed)
    assert "RuntimeError: the map is torn" in failed[0].output


def test_calls_after_the_terminal_tool_in_one_reply_are_recorded_as_not_run():
    from whentostop.client import Completion

    class TwoCalls:
        name = "scripted"

        def complete(self, messages, tools, **_):
            calls = [
                {
                    "id": "a",
                    "type": "function",
                    "function": {"name": "mark_star", "arguments": '{"item": "star", "block": 12}'},
                },
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "search_blocks", "arguments": '{"area": "sky"}'},
                },
            ]
            return Completion(
                {"role": "assistant", "content": None, "tool_calls": calls},
                10,
                5,
                "tool_calls",
                0.0,
            )

    level = load_level("1-3")
    run = run_agent(PROMPT, model=TwoCalls(), tools=level.tools(), stop_on=["mark_star"])
    assert run.stop == Stop.TERMINAL_TOOL
    marked, skipped = run.turns[0].tool_calls
    assert marked.ok and not skipped.ran and skipped.output.startswith("Not run")
    assert level.view(run).searched == ()  # the search really did not run
    assert [m["tool_call_id"] for m in run.messages if m["role"] == "tool"] == ["a", "b"]


def test_max_turns_one_makes_exactly_one_request(play):
    run, _, events = play("1-3", "searcher", max_turns=1, stop_on=["mark_star"])
    assert run.stop == Stop.MAX_TURNS and len(run.turns) == 1
    assert sum(isinstance(e, TurnStart) for e in events) == 1


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", None, True])
def test_max_turns_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="max_turns must be a positive int"):
        run_agent(PROMPT, model=connect("searcher"), tools=load_level("1-2").tools(), max_turns=bad)


def test_stop_on_a_tool_that_is_not_offered_is_refused():
    with pytest.raises(ValueError, match="mark_stra.*never open"):
        run_agent(
            PROMPT,
            model=connect("searcher"),
            tools=load_level("1-3").tools(),
            stop_on=["mark_stra"],
        )


@pytest.mark.parametrize(
    "level,persona,kwargs,expected",
    [
        ("1-1", "loopboros", {"max_turns": 4}, Stop.MAX_TURNS),
        ("1-1", "searcher", {"system": MAY_GIVE_UP}, Stop.END_TURN),
        ("1-3", "searcher", {"stop_on": ["mark_star"]}, Stop.TERMINAL_TOOL),
        ("1-3", "sloppy", {"stop_on": ["mark_star"]}, Stop.TERMINAL_TOOL),
        ("1-1", "slow:0.05", {"deadline_s": 0.12}, Stop.DEADLINE),
        ("1-1", "loopboros", {"max_turns": 25, "max_tokens_total": 3000}, Stop.BUDGET),
        ("1-1", "loopboros", {"max_turns": 25, "max_cost_usd": 0.0005}, Stop.BUDGET),
    ],
)
def test_exactly_one_session_end_whose_reason_equals_run_stop(
    level, persona, kwargs, expected, play
):
    run, _, events = play(level, persona, **kwargs)
    ends = [e for e in events if isinstance(e, SessionEnd)]
    assert run.stop == expected
    assert len(ends) == 1 and ends[0].reason == run.stop and ends[0].turns == len(run.turns)
    assert events[-1] is ends[0]


def test_events_report_every_reply_with_usage_and_every_tool_result(play):
    run, _, events = play("1-3", "sloppy", stop_on=["mark_star"])
    replies = [e for e in events if e.kind == "model_reply"]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [r.turn for r in replies] == run.turns  # each reply event carries its Turn
    assert [r.ok for r in results] == [c.ok for c in run.tool_calls]
    assert any(not r.ok for r in results)


def test_a_listener_that_raises_never_breaks_the_run(caplog):
    def angry(event):
        raise ZeroDivisionError("listener bug")

    level = load_level("1-3")
    run = run_agent(
        PROMPT,
        model=connect("searcher"),
        tools=level.tools(),
        stop_on=["mark_star"],
        on_event=angry,
    )
    assert run.stop == Stop.TERMINAL_TOOL
    assert "listener raised" in caplog.text


def test_the_deadline_stops_a_slow_run_and_keeps_the_transcript(play):
    run, _, _ = play("1-1", "slow:0.2", max_turns=25, deadline_s=0.5)
    assert run.stop == Stop.DEADLINE
    assert 1 <= len(run.turns) < 25
    assert run.turns[0].tool_calls and run.messages[0]["role"] == "user"
    with pytest.raises(NoAnswer, match="deadline of 0.5 s"):
        run.answer


@pytest.mark.timeout(20)
def test_a_reply_that_would_take_minutes_is_cut_short_by_the_deadline(play):
    run, _, _ = play("1-1", "slow:300", max_turns=3, deadline_s=0.3)
    assert run.stop == Stop.DEADLINE and run.turns == []


def test_wrap_up_is_one_tool_less_request_kept_apart_from_the_answer():
    level = load_level("1-1")
    requests = []

    import httpx

    from whentostop import OpenAIChat
    from whentostop.mock.endpoint import mock_transport
    from whentostop.models import MOCK_BASE_URL

    inner = mock_transport()

    class Spy(httpx.BaseTransport):
        def handle_request(self, request):
            import json

            requests.append(json.loads(request.content))
            return inner.handle_request(request)

    model = OpenAIChat("loopboros", MOCK_BASE_URL, transport=Spy())
    run = run_agent(PROMPT, model=model, tools=level.tools(), max_turns=3, on_max_turns="wrap_up")
    assert run.stop == Stop.MAX_TURNS
    assert len(run.turns) == 3 and run.wrap_up_turn is not None and run.wrap_up_turn.wrap_up
    assert len(requests) == 4 and requests[-1]["tool_choice"] == "none"
    assert "did not find the star" in run.wrap_up
    with pytest.raises(NoAnswer):
        run.answer  # a wrap-up is a best effort, not an answer
    assert (
        run.total_tokens == sum(t.total_tokens for t in run.turns) + run.wrap_up_turn.total_tokens
    )


def test_prompt_tokens_grow_every_turn_because_the_history_is_sent_again(play):
    run, _, _ = play("1-1", "loopboros", max_turns=25)
    prompts = [t.prompt_tokens for t in run.turns]
    assert all(b > a for a, b in zip(prompts, prompts[1:]))
    assert prompts[-1] > 5 * prompts[0]


def test_a_failed_wrap_up_keeps_the_clock_as_the_outcome():
    import httpx

    from whentostop import OpenAIChat
    from whentostop.mock.endpoint import mock_transport
    from whentostop.models import MOCK_BASE_URL

    inner, seen = mock_transport(), []

    class FailsFourth(httpx.BaseTransport):
        def handle_request(self, request):
            seen.append(request)
            if len(seen) == 4:
                return httpx.Response(500, json={"error": {"message": "overloaded"}})
            return inner.handle_request(request)

    model = OpenAIChat("loopboros", MOCK_BASE_URL, transport=FailsFourth(), max_retries=0)
    events: list = []
    run = run_agent(
        PROMPT,
        model=model,
        tools=load_level("1-1").tools(),
        max_turns=3,
        on_max_turns="wrap_up",
        on_event=events.append,
    )
    assert run.stop == Stop.MAX_TURNS and run.wrap_up is None
    assert "HTTP 500" in run.wrap_up_error
    assert [e.reason for e in events if isinstance(e, SessionEnd)] == [Stop.MAX_TURNS]


def test_no_answer_after_a_cut_off_reply_says_so():
    from whentostop.client import Completion

    class CutOff:
        name = "cut"

        def complete(self, messages, tools, **_):
            return Completion(
                {"role": "assistant", "content": "The star is in the"}, 10, 5, "length", 0.0
            )

    run = run_agent(PROMPT, model=CutOff(), tools=load_level("1-2").tools(), max_turns=2)
    assert run.stop == Stop.MAX_TURNS and all(t.truncated for t in run.turns)
    with pytest.raises(NoAnswer, match="cut off"):
        run.answer


# ---- the budget ------------------------------------------------------------------------------


def spent_before(run, k: int) -> int:
    """Tokens the run had spent when it sent request k (0-based)."""
    return sum(t.total_tokens for t in run.turns[:k])


def floor_before(run, k: int) -> int:
    """The least request k could cost: the history it sends again (0 for the first)."""
    return 0 if k == 0 else run.turns[k - 1].prompt_tokens + run.turns[k - 1].completion_tokens


def test_the_budget_stops_the_run_before_a_request_that_would_certainly_pass_it(play):
    run, _, events = play("1-1", "loopboros", max_turns=25, max_tokens_total=4000)
    n = len(run.turns)
    assert run.stop == Stop.BUDGET and run.exit_name == "the budget" and 1 < n < 25
    assert run.total_tokens + floor_before(run, n) > 4000  # the next one could not fit
    assert all(spent_before(run, k) + floor_before(run, k) <= 4000 for k in range(n))
    assert sum(isinstance(e, TurnStart) for e in events) == n  # the refused request never began
    assert run.max_tokens_total == 4000 and run.budget_stop.unit == "tokens"


def test_no_answer_after_the_budget_names_where_the_next_request_would_take_the_run(play):
    run, _, _ = play("1-1", "loopboros", max_turns=25, max_tokens_total=4000)
    reach = run.total_tokens + run.turns[-1].total_tokens
    with pytest.raises(
        NoAnswer,
        match=(
            rf"the budget stopped the run after {len(run.turns)} turns \(the next request would "
            rf"take the run to {reach:,} tokens, over the budget of 4,000\) while the model was "
            r"asking for search_blocks"
        ),
    ):
        run.answer


def test_a_dollar_budget_counts_at_the_price_given_and_says_so(play):
    run, _, _ = play("1-1", "loopboros", max_turns=25, max_cost_usd=0.005, price="gpt-4o")
    assert run.stop == Stop.BUDGET and run.price_model == "gpt-4o" and run.max_cost_usd == 0.005
    p = price("gpt-4o")
    spent = sum(cost_per_turn(run, p))
    assert spent + floor_before(run, len(run.turns)) * p.cheapest_input_per_million / 1e6 > 0.005
    before_last = sum(cost_per_turn(run, p)[:-1])
    assert (
        before_last + floor_before(run, len(run.turns) - 1) * p.cheapest_input_per_million / 1e6
        <= 0.005
    )
    with pytest.raises(NoAnswer, match=r"over the budget of \$0\.0050 \(at gpt-4o prices\)"):
        run.answer


def test_a_dollar_budget_without_a_price_counts_at_the_charts_default_price(play):
    run, _, _ = play("1-1", "loopboros", max_turns=25, max_cost_usd=0.001)
    assert run.stop == Stop.BUDGET and run.price_model == DEFAULT_PRICE_MODEL


def test_the_first_request_is_always_sent_its_lower_bound_is_zero(play):
    run, _, _ = play("1-1", "loopboros", max_tokens_total=1)
    assert run.stop == Stop.BUDGET and len(run.turns) == 1


def test_a_budget_that_is_never_reached_changes_nothing(play):
    capped, _, _ = play(
        "1-3", "searcher", stop_on=["mark_star"], max_tokens_total=1_000_000, max_cost_usd=100.0
    )
    plain, _, _ = play("1-3", "searcher", stop_on=["mark_star"])
    assert capped.stop == plain.stop == Stop.TERMINAL_TOOL
    assert capped.total_tokens == plain.total_tokens and capped.budget_stop is None


def test_the_clock_can_come_before_the_budget(play):
    run, _, _ = play("1-1", "loopboros", max_turns=3, max_tokens_total=1_000_000)
    assert run.stop == Stop.MAX_TURNS


def test_a_wrap_up_the_budget_cannot_pay_for_is_not_sent_and_the_clock_stays(play):
    free, _, _ = play("1-1", "loopboros", max_turns=3)
    limit = free.total_tokens + free.turns[-1].total_tokens - 1  # three turns fit, a fourth not
    run, _, events = play(
        "1-1", "loopboros", max_turns=3, on_max_turns="wrap_up", max_tokens_total=limit
    )
    assert run.stop == Stop.MAX_TURNS and len(run.turns) == 3 and run.wrap_up_turn is None
    assert run.wrap_up_error.startswith("not sent: the next request would take the run to")
    assert [e.reason for e in events if isinstance(e, SessionEnd)] == [Stop.MAX_TURNS]


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"max_tokens_total": 0}, "max_tokens_total must be a positive int"),
        ({"max_tokens_total": 2.5}, "max_tokens_total must be a positive int"),
        ({"max_tokens_total": True}, "max_tokens_total must be a positive int"),
        ({"max_tokens_total": "100"}, "max_tokens_total must be a positive int"),
        ({"max_cost_usd": 0}, "max_cost_usd must be a positive number"),
        ({"max_cost_usd": -0.5}, "max_cost_usd must be a positive number"),
        ({"max_cost_usd": float("nan")}, "max_cost_usd must be a positive number"),
        ({"max_cost_usd": "1"}, "max_cost_usd must be a positive number"),
        (
            {"max_cost_usd": 1.0, "price": "gpt-99"},
            "no price for 'gpt-99'; known models: gpt-4o-mini",
        ),
        ({"text_tool_calls": "yes"}, "text_tool_calls must be 'note' or 'accept'"),
    ],
)
def test_budget_and_reading_arguments_are_checked_before_anything_is_sent(kwargs, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        run_agent(PROMPT, model=connect("searcher"), tools=load_level("1-2").tools(), **kwargs)


# ---- replies that are not what they seem ---------------------------------------------------


class Scripted:
    """A model that sends these assistant messages in turn (the last one repeats)."""

    name = "scripted"

    def __init__(self, *replies: dict) -> None:
        self.replies, self.sent = replies, 0

    def complete(self, messages, tools, **_):
        from whentostop.client import Completion

        message = dict(self.replies[min(self.sent, len(self.replies) - 1)])
        self.sent += 1
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return Completion(message, 100 * self.sent, 5, finish, 0.0)


def says(text: str) -> dict:
    return {"role": "assistant", "content": text}


SEARCH_AS_TEXT = '{"name": "search_blocks", "arguments": {"area": "sky"}}'


def test_a_tool_call_written_as_text_is_still_the_flag_but_the_run_says_what_it_is():
    run = run_agent(PROMPT, model=Scripted(says(SEARCH_AS_TEXT)), tools=load_level("1-1").tools())
    assert run.stop == Stop.END_TURN and len(run.turns) == 1  # the rule stays
    (note,) = run.turns[0].notes
    assert note.kind == "text_tool_call" and "search_blocks" in note.text
    assert run.answer_is_text_tool_call
    (warning,) = run.warnings
    assert "--jinja" in warning and "Ollama" in warning and 'text_tool_calls="accept"' in warning
    assert "the last reply is a tool call written as text, not an answer" in run.summary()


def test_a_tool_call_written_as_text_is_no_answer_and_answer_summary_and_has_answer_agree():
    run = run_agent(PROMPT, model=Scripted(says(SEARCH_AS_TEXT)), tools=load_level("1-1").tools())
    assert not run.has_answer and run.not_an_answer is run.turns[0].notes[0]
    with pytest.raises(NoAnswer, match="a tool call written as text, not an answer") as raised:
        run.answer
    assert "search_blocks" in str(raised.value)
    assert "; no answer" in run.summary() and run.answer_line() == run.no_answer_reason


def test_the_answer_line_shows_an_answer_and_says_when_it_follows_a_cut_off_reply():
    answered = run_agent(PROMPT, model=Scripted(says("It is in block 7.")), tools=[])
    assert answered.answer_line() == "answer: 'It is in block 7.'"
    cut = {"role": "assistant", "content": "Once upon a time " * 20}
    model = Scripted(cut, says("and so the star is in block 7."))
    model.complete = _cut_first(model.complete)
    run = run_agent(PROMPT, model=model, tools=load_level("1-2").tools())
    assert run.answer == "and so the star is in block 7."
    assert "it may be only the end of one" in run.answer_line()
    assert "it may be only the end of one" in run.summary()


@pytest.mark.parametrize(
    "text",
    [
        '{"item": "star", "block": 7}',  # an answer as JSON, not a call
        '{"name": "Mario", "age": 3}',  # a name that is no tool
        '{"name": "fly", "arguments": {"to": "castle"}}',  # a call to a tool that was not offered
        "I found the star in block {7}.",
    ],
)
def test_text_that_only_looks_like_a_call_is_an_answer_without_notes(text):
    run = run_agent(PROMPT, model=Scripted(says(text)), tools=load_level("1-1").tools())
    assert run.stop == Stop.END_TURN and run.answer == text
    assert run.notes == [] and run.warnings == [] and not run.answer_is_text_tool_call


def test_accept_runs_tool_calls_written_as_text_labelled_on_the_turn_and_the_run():
    fenced = says(
        "```json\n" + '{"name": "mark_star", "arguments": {"item": "star", "block": 12}}' + "\n```"
    )
    run = run_agent(
        PROMPT,
        model=Scripted(says(SEARCH_AS_TEXT), fenced),
        tools=load_level("1-3").tools(),
        stop_on=["mark_star"],
        text_tool_calls="accept",
    )
    assert run.stop == Stop.TERMINAL_TOOL and run.answer == {"item": "star", "block": 12}
    assert [c.name for c in run.tool_calls] == ["search_blocks", "mark_star"]
    assert all(t.noted("text_tool_call") and "accept" in t.notes[0].text for t in run.turns)
    assert run.turns[0].message["tool_calls"][0]["id"] == "text_call_1_1"
    assert {
        "role": "tool",
        "tool_call_id": "text_call_1_1",
        "content": run.tool_calls[0].output,
    } in run.messages
    (warning,) = run.warnings
    assert 'they were run anyway because text_tool_calls="accept"' in warning
    assert "2 tool calls written as text" in run.summary()


def test_an_empty_reply_is_the_models_turn_not_an_answer_and_the_loop_asks_again():
    run = run_agent(
        PROMPT, model=Scripted(says(""), says("It is in block 7.")), tools=load_level("1-2").tools()
    )
    assert run.stop == Stop.END_TURN and run.answer == "It is in block 7." and len(run.turns) == 2
    assert run.turns[0].empty and [n.kind for n in run.turns[0].notes] == ["empty_reply"]
    assert run.messages[2] == {"role": "user", "content": EMPTY_PROMPT}
    assert len(run.warnings) == 1 and "empty reply" in run.warnings[0]


def test_replies_that_stay_empty_end_on_the_clock_saying_so():
    run = run_agent(
        PROMPT, model=Scripted(says("  \n")), tools=load_level("1-2").tools(), max_turns=3
    )
    assert run.stop == Stop.MAX_TURNS and all(t.empty for t in run.turns)
    assert len(run.warnings) == 1 and "3 empty replies" in run.summary()
    assert "The model sent 3 empty replies (no text, no tool call), on turns 1-3" in run.warnings[0]
    with pytest.raises(
        NoAnswer, match="while the model was asking for nothing more: its last reply was empty"
    ):
        run.answer


@pytest.mark.parametrize(
    "level,persona,kwargs",
    [
        ("1-1", "loopboros", {"max_turns": 12}),
        ("1-1", "searcher", {"system": MAY_GIVE_UP}),
        ("1-3", "searcher", {"stop_on": ["mark_star"]}),
        ("1-3", "sloppy", {"stop_on": ["mark_star"]}),
    ],
)
def test_the_mock_personas_make_no_notes_and_no_warnings(level, persona, kwargs, play):
    run, _, _ = play(level, persona, **kwargs)
    assert run.notes == [] and run.warnings == [] and run.cached_tokens == 0


def _cut_first(complete):
    """`complete`, with its first reply cut off at the length limit."""

    def cut(messages, tools, **kwargs):
        completion = complete(messages, tools, **kwargs)
        if not any(m.get("role") == "assistant" for m in messages):
            completion.finish_reason = "length"
        return completion

    return cut


def test_the_empty_reply_warning_counts_every_empty_reply_not_only_the_first():
    search = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search_blocks", "arguments": '{"area": "sky"}'},
            }
        ],
    }
    model = Scripted(says(""), says(""), search, says(""), says("It is in block 7."))
    run = run_agent(PROMPT, model=model, tools=load_level("1-2").tools())
    (warning,) = run.warnings
    assert "3 empty replies" in warning and "on turns 1-2, 4" in warning


def test_a_reply_that_echoes_the_loops_own_request_is_the_flag_without_an_answer():
    run = run_agent(
        PROMPT,
        model=Scripted(says(""), says("Call a tool, or give your answer.")),
        tools=load_level("1-2").tools(),
    )
    assert run.stop == Stop.END_TURN and not run.has_answer
    (note,) = run.turns[1].notes
    assert note.kind == "echoed_prompt" and "the loop's own request" in note.text
    with pytest.raises(NoAnswer, match="only repeats words it was sent"):
        run.answer
    assert "repeats words the model was sent" in run.summary()


@pytest.mark.parametrize(
    "reply, whose",
    [
        (PROMPT, "the task"),
        ("Sure! Find the star in this level.", "the task"),
        ("your reply was empty", "the loop's own request"),
    ],
)
def test_an_echo_is_recognised_whole_or_in_part_and_says_whose_words(reply, whose):
    run = run_agent(PROMPT, model=Scripted(says(""), says(reply)), tools=load_level("1-2").tools())
    assert not run.has_answer and whose in run.turns[-1].notes[0].text


@pytest.mark.parametrize(
    "reply",
    [
        "The star is in block 7.",
        "I couldn't find the star in this level after searching every area.",
        "Tool",  # too short to be an echo of anything
    ],
)
def test_an_answer_that_shares_a_few_words_with_the_task_is_no_echo(reply):
    run = run_agent(PROMPT, model=Scripted(says(reply)), tools=load_level("1-2").tools())
    assert run.has_answer and run.notes == []


def test_a_cut_off_reply_gets_a_note_and_a_counted_warning():
    model = Scripted({"role": "assistant", "content": "Let me think " * 30}, says("Block 7."))
    model.complete = _cut_first(model.complete)
    run = run_agent(PROMPT, model=model, tools=load_level("1-2").tools())
    assert [n.kind for n in run.turns[0].notes] == ["cut_off"]
    assert (
        "cut off at the length limit (finish_reason: length, 5 tokens)"
        in run.turns[0].notes[0].text
    )
    assert [n.kind for n in run.turns[1].notes] == ["after_cut_off"]
    assert any("1 reply was cut off at the length limit (turn 1)" in w for w in run.warnings)


class Recording(Scripted):
    """A scripted model that keeps the keyword arguments of every request."""

    def __init__(self, *replies: dict) -> None:
        super().__init__(*replies)
        self.kwargs: list[dict] = []

    def complete(self, messages, tools, **kwargs):
        self.kwargs.append(kwargs)
        return super().complete(messages, tools, **kwargs)


def test_tool_choice_and_parallel_tool_calls_are_not_sent_unless_set():
    model = Recording(says("Block 7."))
    run_agent(PROMPT, model=model, tools=load_level("1-2").tools())
    assert "tool_choice" not in model.kwargs[0] and "parallel_tool_calls" not in model.kwargs[0]


@pytest.mark.parametrize(
    "choice, sent",
    [
        ("auto", "auto"),
        ("none", "none"),
        ("required", "required"),
        ("mark_star", {"type": "function", "function": {"name": "mark_star"}}),
        (
            {"type": "function", "function": {"name": "search_blocks"}},
            {"type": "function", "function": {"name": "search_blocks"}},
        ),
    ],
)
def test_tool_choice_is_sent_with_every_request(choice, sent):
    model = Recording(says("Block 7."))
    run_agent(
        PROMPT,
        model=model,
        tools=load_level("1-3").tools(),
        tool_choice=choice,
        parallel_tool_calls=False,
    )
    assert model.kwargs[0]["tool_choice"] == sent
    assert model.kwargs[0]["parallel_tool_calls"] is False


@pytest.mark.parametrize("choice", ["fly", {"function": {"name": "fly"}}, "", 3])
def test_a_tool_choice_that_names_no_offered_tool_is_an_error_before_anything_is_sent(choice):
    model = Recording(says("Block 7."))
    with pytest.raises(ValueError, match="tool_choice must be 'auto', 'none', 'required'"):
        run_agent(PROMPT, model=model, tools=load_level("1-3").tools(), tool_choice=choice)
    assert model.kwargs == []


def test_parallel_tool_calls_must_be_a_bool():
    with pytest.raises(ValueError, match="parallel_tool_calls must be True, False or None"):
        run_agent(PROMPT, model=Recording(says("x")), tools=[], parallel_tool_calls=1)


def test_required_tool_choice_warns_that_the_flag_cannot_fire_and_names_the_exits_left():
    run = run_agent(
        PROMPT,
        model=connect("searcher"),
        tools=load_level("1-3").tools(),
        tool_choice="required",
        stop_on=["mark_star"],
    )
    assert run.stop == Stop.TERMINAL_TOOL
    (warning,) = run.warnings
    assert (
        "the flag can never fire" in warning and "warp pipe (mark_star) or on the clock" in warning
    )


def test_a_forced_tool_outside_stop_on_warns_that_only_the_clock_is_left():
    run = run_agent(
        PROMPT,
        model=connect("searcher"),
        tools=load_level("1-3").tools(),
        tool_choice="search_blocks",
        stop_on=["mark_star"],
        max_turns=4,
    )
    assert run.stop == Stop.MAX_TURNS
    assert "can end only on the clock" in run.warnings[0]
