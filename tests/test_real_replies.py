"""What a real small model sent (tests/real_replies/, recorded from llama.cpp's server running
Qwen2.5-Coder-0.5B), served from a loopback server exactly as it came: each reply is recognised
for what it is — a tool call written as text, an empty reply with cached prompt tokens — and the
run, its summary, the level's judgement and the command line's exit status say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from faulty_server import FaultyServer, chat, reply, run_to_end

from whentostop import Stop, connect, load_level
from whentostop.__main__ import EXIT_TEXT_TOOL_CALL, EXIT_WRONG, main
from whentostop.loop import CONTINUE_PROMPT, EMPTY_PROMPT
from whentostop.usage import cost_per_turn, price, split_prompt

pytestmark = pytest.mark.timeout(30)

REPLIES = Path(__file__).resolve().parent / "real_replies"
FENCED = json.loads((REPLIES / "tool-call-as-fenced-text.json").read_text())
EMPTY = json.loads((REPLIES / "empty-reply-with-cached-tokens.json").read_text())
RUNAWAY = json.loads((REPLIES / "tool-calls-as-text-runaway-cut-by-max-tokens.json").read_text())
REQUIRED = json.loads((REPLIES / "required-call-as-text-then-runaway.json").read_text())
OURS = sorted(REPLIES.glob("ours-*.json"))
ANSWER = chat("The star is in the underground, block 7.")


def play(script, level="1-1", **options):
    board = load_level(level)
    with FaultyServer([reply(body) for body in script]) as server:
        ending = run_to_end(
            model=connect("qwen2.5-0.5b", base_url=server.base_url), tools=board.tools(), **options
        )
    return ending, board, server


def test_the_recorded_replies_are_in_llama_cpps_shape():
    for body in (FENCED, EMPTY, REQUIRED):
        assert body["system_fingerprint"] and "timings" in body
        assert "cached_tokens" in body["usage"]["prompt_tokens_details"]
        assert "tool_calls" not in body["choices"][0]["message"]


def test_a_recorded_tool_call_as_fenced_text_ends_on_the_flag_and_says_why():
    ending, level, _ = play([FENCED])
    run = ending.run
    assert run.stop == Stop.END_TURN and len(run.turns) == 1  # the loop's rule is unchanged
    assert run.turns[0].text == FENCED["choices"][0]["message"]["content"]
    assert not run.has_answer  # a request for a tool is no answer: run.answer raises
    assert run.answer_is_text_tool_call and run.turns[0].notes[0].kind == "text_tool_call"
    assert "mark_star" in run.turns[0].notes[0].text
    (warning,) = run.warnings
    assert "--jinja" in warning and "chat template" in warning
    assert "not an answer" in run.summary()
    judgement = level.judge(run)
    assert judgement.correct is None and "Not an answer" in judgement.text


def test_accepted_the_recorded_call_opens_the_pipe_on_a_guess_that_validates_and_is_wrong():
    ending, level, _ = play([FENCED], stop_on=["mark_star"], text_tool_calls="accept")
    run = ending.run
    assert run.stop == Stop.TERMINAL_TOOL and run.answer == {"item": "star", "block": 4}
    assert run.turns[0].noted("text_tool_call") and run.warnings
    judgement = level.judge(run)  # 1-1 hides no star: the schema accepted a wrong marker
    assert judgement.correct is False
    assert (
        "hides no star" in judgement.text and "never searched: the model guessed" in judgement.text
    )


def test_a_recorded_empty_reply_is_a_turn_with_its_cached_tokens_and_the_loop_asks_again():
    ending, _, server = play([EMPTY, ANSWER], level="1-2")
    run = ending.run
    empty, answered = run.turns
    assert empty.empty and empty.notes[0].kind == "empty_reply"
    assert (empty.prompt_tokens, empty.completion_tokens, empty.cached_tokens) == (727, 1, 670)
    assert run.stop == Stop.END_TURN and run.answer == "The star is in the underground, block 7."
    assert server.requests[1].body["messages"][-1] == {"role": "user", "content": EMPTY_PROMPT}


def test_the_recorded_cached_tokens_are_priced_at_the_cached_rate():
    ending, _, _ = play([EMPTY, ANSWER], level="1-2")
    p = price("gpt-4o-mini")
    assert cost_per_turn(ending.run, p)[0] == pytest.approx((57 * 0.15 + 670 * 0.075 + 0.6) / 1e6)
    assert split_prompt(ending.run)[0].cached == 0  # nothing of *this* run was sent before it


def test_a_recorded_runaway_of_calls_written_as_text_cut_by_the_cap_is_not_the_flag():
    ending, _, server = play([RUNAWAY, ANSWER], level="1-2")
    cut, answered = ending.run.turns
    assert cut.truncated and cut.completion_tokens == 512 and cut.cached_tokens == 637
    assert [n.kind for n in cut.notes] == ["cut_off", "text_tool_call"]
    assert "cut off (finish_reason: length), so the loop asked for the rest" in cut.notes[1].text
    assert "after_cut_off" in [n.kind for n in answered.notes]
    assert server.requests[1].body["messages"][-1] == {"role": "user", "content": CONTINUE_PROMPT}
    assert ending.run.stop == Stop.END_TURN and not ending.run.answer_is_text_tool_call


def test_accepted_every_whole_call_of_the_recorded_runaway_runs_and_the_cut_one_does_not():
    ending, _, _ = play([RUNAWAY, ANSWER], level="1-2", text_tool_calls="accept")
    calls = ending.run.tool_calls
    text = RUNAWAY["choices"][0]["message"]["content"]
    assert len(calls) == text.count("\n") and all(c.name == "search_blocks" for c in calls)
    assert [c.ok for c in calls[:4]] == [True, True, True, False]  # 1-2 has no castle


def test_forced_by_tool_choice_the_recorded_model_still_wrote_its_call_as_text_then_rambled():
    """tool_choice="required" with parallel_tool_calls=False, sent as set: the model still wrote
    its call as text, then rambled until the cap. A cut-off reply, not an answer and not the
    flag: the loop asks for the rest."""
    ending, _, server = play(
        [REQUIRED, ANSWER],
        level="1-3",
        stop_on=["mark_star"],
        tool_choice="required",
        parallel_tool_calls=False,
    )
    sent = server.requests[0].body
    assert sent["tool_choice"] == "required" and sent["parallel_tool_calls"] is False
    cut = ending.run.turns[0]
    assert cut.truncated and cut.completion_tokens == 256 and cut.cached_tokens == 327
    assert [n.kind for n in cut.notes] == ["cut_off", "text_tool_call"]
    assert server.requests[1].body["messages"][-1] == {"role": "user", "content": CONTINUE_PROMPT}
    assert "the flag can never fire" in ending.run.warnings[0]


def test_accepted_the_recorded_forced_call_opens_the_pipe_on_a_guessed_block():
    ending, level, _ = play(
        [REQUIRED], level="1-3", stop_on=["mark_star"], text_tool_calls="accept"
    )
    assert ending.run.stop == Stop.TERMINAL_TOOL and ending.run.answer == {
        "item": "star",
        "block": 1,
    }
    assert level.judge(ending.run).correct is False


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_the_other_forms_a_small_model_writes_are_recognised_too(path):
    body = json.loads(path.read_text())
    ending, _, _ = play([body])
    assert ending.run.answer_is_text_tool_call
    assert "search_blocks" in ending.run.turns[0].notes[0].text


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.stem)
def test_accepted_the_other_forms_run_their_search(path):
    body = json.loads(path.read_text())
    ending, _, _ = play([body, ANSWER], level="1-2", text_tool_calls="accept")
    (search,) = ending.run.tool_calls
    assert search.name == "search_blocks" and search.ok and search.output.startswith("Block ")


def cli(script, *args):
    with FaultyServer([reply(body) for body in script]) as server:
        return main(["run", "--base-url", server.base_url, "--model", "qwen2.5-0.5b", *args])


def test_the_command_line_exits_4_on_a_tool_call_written_as_text_and_says_so(capsys):
    assert cli([FENCED], "--level", "1-1") == EXIT_TEXT_TOOL_CALL
    out = capsys.readouterr().out
    assert "⚠ The reply's text is a call to mark_star written as text" in out
    assert "⚠ warning: On turn 1 the model wrote a tool call as text" in out and "--jinja" in out


def test_the_command_line_exits_3_on_a_marker_that_validated_on_the_wrong_block(capsys):
    status = cli(
        [FENCED],
        "--level",
        "1-1",
        "--stop-on",
        "mark_star",
        "--text-tool-calls",
        "accept",
        "--json",
    )
    data = json.loads(capsys.readouterr().out)
    assert status == EXIT_WRONG == data["exit_status"]
    assert data["stop"] == "terminal_tool" and data["answer"] == {"item": "star", "block": 4}
    assert data["judgement"]["correct"] is False and data["warnings"]
    assert data["turns"][0]["notes"][0]["kind"] == "text_tool_call"


def test_the_command_line_shows_cached_tokens(capsys):
    cli([EMPTY, ANSWER], "--level", "1-2")
    assert "727 prompt + 1 completion tokens (670 of them cached)" in capsys.readouterr().out
