"""`expect`: what the prose says a run does, checked beside the run — silent when the run does it,
one note in the learner's language when it does not: what it did instead, why a real model may
do that, and what to try."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from words import says

from whentostop import Stop, connect, load_level, run_agent
from whentostop.client import Completion
from whentostop.i18n import using
from whentostop.lesson import PROMPT
from whentostop.lesson.expect import expect, expect_raised, history

FENCED = '```json\n{"name": "search_blocks", "arguments": {"area": "sky"}}\n```'


class Says:
    """A model that sends these texts in turn (the last one repeats)."""

    name = "says"

    def __init__(self, *texts: str) -> None:
        self.texts, self.sent = texts, 0

    def complete(self, messages, tools, **_):
        text = self.texts[min(self.sent, len(self.texts) - 1)]
        self.sent += 1
        return Completion({"role": "assistant", "content": text}, 100, 5, "stop", 0.01)


def run_of(persona: str, level: str = "1-2", **kwargs):
    return run_agent(PROMPT, model=connect(persona), tools=load_level(level).tools(), **kwargs)


def said(capsys) -> str:
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "persona, level, kwargs, stop",
    [
        ("loopboros", "1-1", {}, Stop.MAX_TURNS),
        ("searcher", "1-2", {}, Stop.END_TURN),
        ("searcher", "1-3", {"stop_on": ["mark_star"]}, Stop.TERMINAL_TOOL),
        ("slow:0.05", "1-1", {"deadline_s": 0.2}, Stop.DEADLINE),
        ("loopboros", "1-1", {"max_cost_usd": 0.01, "max_turns": 25}, Stop.BUDGET),
    ],
)
def test_a_run_that_does_what_the_text_says_prints_nothing(persona, level, kwargs, stop, capsys):
    expect(run_of(persona, level, **kwargs), stop)
    assert said(capsys) == ""
    assert history()[-1].held and history()[-1].stated == stop.value


def test_the_sloppy_callers_rejected_call_then_the_pipe_prints_nothing(capsys):
    expect(run_of("sloppy", "1-3", stop_on=["mark_star"]), Stop.TERMINAL_TOOL, rejected="mark_star")
    assert said(capsys) == "" and history()[-1].held


def test_a_tool_call_written_as_text_gets_one_note_what_it_did_why_and_what_to_try(capsys):
    run = run_agent(PROMPT, model=Says(FENCED), tools=load_level("1-1").tools())
    expect(run, Stop.MAX_TURNS)
    (note,) = said(capsys).strip().splitlines()
    stated, did = note.removeprefix("⚠ ").split(" This run did not: ")
    assert note.startswith("⚠") and says(stated, "clock", "max_turns", "no answer")
    assert says(did, "flag", "1 turn", "tool call written as text")
    assert says(did, "server", "parse")  # why
    assert 'text_tool_calls="accept"' in note and "--jinja" in note  # what to try
    assert not history()[-1].held and history()[-1].note == note


def test_the_flag_with_a_tool_call_written_as_text_is_not_the_flag_the_text_means(capsys):
    run = run_agent(PROMPT, model=Says(FENCED), tools=load_level("1-2").tools())
    expect(run, Stop.END_TURN)  # "its text is the answer": it is not
    stated, did = said(capsys).removeprefix("⚠ ").split(" This run did not: ")
    assert says(stated, "flag", "text", "answer") and says(did, "written as text")


def test_an_answer_where_the_text_says_the_clock_says_the_model_may_stop_by_itself(capsys):
    run = run_agent(
        PROMPT, model=connect("searcher"), tools=load_level("1-2").tools("search_blocks")
    )
    expect(run, Stop.MAX_TURNS)
    note = said(capsys)
    assert says(note, "answer in text", "“I found the star!")
    assert "may stop by itself" in note and "level.judge(run)" in note


def test_the_clock_where_the_text_says_the_flag_says_the_model_kept_asking(capsys):
    expect(run_of("loopboros", "1-1"), Stop.END_TURN)
    note = said(capsys)
    assert says(note, "clock", "10 turns", "asking for search_blocks")
    assert "max_turns" in note and "give up" in note


def test_an_answer_in_words_where_the_text_says_the_pipe_names_the_terminal_tool(capsys):
    run = run_agent(
        PROMPT,
        model=Says("The star is in block 12."),
        tools=load_level("1-3").tools(),
        stop_on=["mark_star"],
    )
    expect(run, Stop.TERMINAL_TOOL)
    note = said(capsys)
    assert "instead of calling mark_star" in note and 'tool_choice="required"' in note


def test_a_model_faster_than_the_deadline_is_told_its_own_pace(capsys):
    run = run_agent(PROMPT, model=Says("It is in block 7."), tools=[], deadline_s=1.0)
    expect(run, Stop.DEADLINE)
    note = said(capsys)
    assert says(note, "slow persona", "own pace", "deadline_s shorter")


def test_a_first_call_that_validates_where_the_text_says_it_fails(capsys):
    expect(
        run_of("searcher", "1-3", stop_on=["mark_star"]), Stop.TERMINAL_TOOL, rejected="mark_star"
    )
    note = said(capsys)
    assert says(note, "first mark_star call", "validated", "no call failed")
    assert says(note, "sloppy persona", "on purpose")


def test_an_echo_of_the_loops_request_is_noted_as_no_answer(capsys):
    run = run_agent(
        PROMPT, model=Says("", "Call a tool, or give your answer."), tools=load_level("1-2").tools()
    )
    expect(run, Stop.END_TURN)
    note = said(capsys)
    assert says(note, "repeats words", "not an answer", "larger model")


@dataclass
class Outcome:
    """What the plain loop of notebook 1-4 returns."""

    stop: str
    answer: object
    messages: list


def test_a_learners_own_outcome_is_read_too(capsys):
    expect(Outcome("end_turn", "The star is in block 7.", []), Stop.END_TURN)
    assert said(capsys) == ""
    expect(Outcome("end_turn", FENCED, []), Stop.END_TURN)
    note = said(capsys)
    assert says(note, "end_turn", "tool call written as text", "not an answer", "--jinja")
    assert "text_tool_calls" not in note  # the plain loop has no such setting


def test_expect_raised_is_silent_for_an_exception_and_says_what_was_returned_instead(capsys):
    expect_raised(KeyError("fly"))
    assert said(capsys) == ""
    expect_raised(Outcome("end_turn", FENCED, []))
    note = said(capsys)
    assert note.startswith("⚠ The text says the loop raises.")
    assert says(note, "returned instead", "end_turn", "tool call written as text")
    assert says(note, "first reply", "flag")


def test_the_note_is_in_the_learners_language(capsys):
    run = run_agent(PROMPT, model=Says(FENCED), tools=load_level("1-1").tools())
    with using("pt"):
        expect(run, Stop.MAX_TURNS)
    note = said(capsys)
    assert note.startswith("⚠ O texto diz") and "Experimente" in note
    assert "The text says" not in note


def test_expect_returns_nothing_so_a_cell_ending_with_it_shows_nothing():
    assert expect(run_of("searcher"), Stop.END_TURN) is None


def test_a_deadline_that_came_first_says_a_real_model_is_slower_than_the_mock(capsys):
    expect(run_of("slow:0.3", "1-2", deadline_s=0.2), Stop.END_TURN)
    note = said(capsys)
    assert says(note, "deadline stopped it", "0 turns", "0.2 s", "a larger deadline_s")


def test_a_learners_loop_that_raised_where_the_text_expects_an_exit_says_so(capsys):
    expect(TimeoutError("timed out"), Stop.END_TURN)
    note = said(capsys)
    assert says(note, "raised TimeoutError", "timed out")
    assert "no way back from an error" in note and "run the cell again" in note
