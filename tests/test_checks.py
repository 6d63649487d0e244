"""The exercise checkers: every exercise says "Not attempted yet" for a blank, helps on a wrong
answer, and accepts its own solution — judged by running the answer on the mock. Verdicts put
their words first ("Correct", "Not yet", "Not attempted yet"); hints come in two steps."""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_intent import GIVES_UP

from whentostop import NoAnswer, Stop, connect, load_level, run_agent
from whentostop.i18n import _, using
from whentostop.i18n import _ as translated
from whentostop.lesson.checks import (
    EXERCISES,
    GIVE_UP_EXAMPLES,
    ____,
    by_tag,
    exercises,
    mock_run,
    predictions,
    question_by_tag,
    quiz,
)

ALL = [ex for group in EXERCISES.values() for ex in group]
IDS = [ex.id for ex in ALL]


PRELUDE = (
    "from whentostop import *\nfrom whentostop.lesson import GIVE_UP, PROMPT\n"
    "from whentostop.lesson.checks import ____\n"
)
"""What every notebook's first cell imports, which the answers rely on."""


def answer_of(source: str, name: str, given: str = "") -> Any:
    """Run an answer cell's code (without its check line), after the code of earlier cells it
    relies on, and return what it defined."""
    namespace: dict[str, Any] = {}
    exec(PRELUDE + given + "\n" + source, namespace)
    return namespace[name]


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_blank_answer_is_not_attempted_and_never_raises(exercise, capsys):
    blank = answer_of(exercise.blank, exercise.answer, exercise.given)
    assert exercise.result(blank).status == "not attempted"
    exercise.check(blank)
    exercise.check()
    out = capsys.readouterr().out
    assert out.count(f"Exercise {exercise.id} — Not attempted yet: ") == 2


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_own_solution_is_correct(exercise, capsys):
    answer = answer_of(exercise.solution_code, exercise.answer, exercise.given)
    verdict = exercise.result(answer)
    assert verdict.status == "correct", verdict.message
    exercise.check(answer)
    assert f"Exercise {exercise.id} — Correct: " in capsys.readouterr().out


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_hints_come_in_two_steps_and_the_solution_prints_without_running_anything(exercise, capsys):
    exercise.hint()
    first = capsys.readouterr().out
    exercise.hint(2)
    second = capsys.readouterr().out
    assert f"Hint 1 of 2 ({exercise.id})" in first and f"{exercise.var}.hint(2)" in first
    assert (
        f"Hint 2 of 2 ({exercise.id})" in second
        and first.split(": ", 1)[1] != second.split(": ", 1)[1]
    )
    exercise.solution()
    assert exercise.solution_code in capsys.readouterr().out


@pytest.mark.parametrize("exercise", ALL, ids=IDS)
def test_answer_cell_is_tagged_and_solvable(exercise):
    assert by_tag(exercise.tag) is exercise
    assert re.fullmatch(r"exercise-(00|1-[1234])-[a-z]", exercise.tag)
    assert exercise.cell().endswith(exercise.check_line)
    assert "____" in exercise.cell() and "____" not in exercise.cell(solved=True)


def test_each_level_has_at_least_two_exercises_and_00_a_warm_up():
    assert len(exercises("00")) >= 1
    for level in ("1-1", "1-2", "1-3", "1-4"):
        group = exercises(level)
        assert len(group) >= 2
        assert [ex.var for ex in group] == [f"q{i}" for i in range(1, len(group) + 1)]


def test_a_learners_code_that_raises_is_reported_not_raised():
    def broken(run):
        return run.no_such_attribute

    verdict = by_tag("exercise-1-3-b").result(broken)
    assert verdict.status == "incorrect"
    assert "AttributeError" in verdict.message


# --- 00 -----------------------------------------------------------------------------------------


def test_first_run_on_the_empty_level_is_told_where_the_star_is():
    verdict = by_tag("exercise-00-a").result(mock_run("1-1", "loopboros", max_turns=3))
    assert verdict.status == "incorrect"
    assert "1-2" in verdict.message and "the clock" in verdict.message


def test_first_run_that_is_not_a_run_is_named():
    verdict = by_tag("exercise-00-a").result("I found the star")
    assert verdict.status == "incorrect" and "Run" in verdict.message


# --- 1-1 ----------------------------------------------------------------------------------------


def test_clock_after_five_turns_is_told_to_set_three():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-1", "loopboros", max_turns=5))
    assert verdict.status == "incorrect"
    assert "5 turns" in verdict.message and "max_turns=3" in verdict.message


def test_clock_exercise_with_a_run_that_answered_is_told_it_played_another_level():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-2", only_search=True, max_turns=3))
    assert verdict.status == "incorrect"
    assert "another level" in verdict.message and 'load_level("1-1")' in verdict.message


def test_clock_exercise_with_the_searcher_on_level_1_2_stopped_at_3_turns_is_not_accepted():
    """Both tools offered, so the searcher marks the star on turn 3, and the clock stops it
    there: three turns on the clock, but not the Loopboros on level 1-1 the task asks for."""
    run = mock_run("1-2", max_turns=3)
    assert run.stop == Stop.MAX_TURNS and len(run.turns) == 3
    verdict = by_tag("exercise-1-1-a").result(run)
    assert verdict.status == "incorrect" and "another level" in verdict.message


def test_clock_exercise_with_the_searcher_on_level_1_1_asks_for_the_loopboros():
    verdict = by_tag("exercise-1-1-a").result(mock_run("1-1", max_turns=3))
    assert verdict.status == "incorrect"
    assert "searcher" in verdict.message and "loopboros" in verdict.message


def test_answer_or_none_that_lets_noanswer_escape_is_told_to_catch_it():
    verdict = by_tag("exercise-1-1-b").result(lambda run: run.answer)
    assert verdict.status == "incorrect"
    assert "NoAnswer" in verdict.message and "except" in verdict.message


def test_answer_or_none_that_returns_the_last_message_is_told_it_is_a_tool_call():
    def last_text(run):
        return run.last_message.get("content")

    verdict = by_tag("exercise-1-1-b").result(last_text)
    assert verdict.status == "incorrect"
    assert "clock" in verdict.message and "tool call" in verdict.message


@pytest.mark.parametrize(
    "budget, says",
    [
        (4, "needs 5 turns"),  # too tight: the searcher cannot finish level 1-3
        (25, "over the cap"),  # too loose: the Loopboros burns tokens
        (0, "whole number"),
        ("6", "whole number"),
    ],
)
def test_budget_outside_the_range_says_which_way_to_move(budget, says):
    verdict = by_tag("exercise-1-1-c").result(budget)
    assert verdict.status == "incorrect"
    assert says in verdict.message


@pytest.mark.parametrize("budget", [5, 6, 7])
def test_every_budget_in_the_range_is_accepted(budget):
    assert by_tag("exercise-1-1-c").result(budget).status == "correct"


# --- 1-2 ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt",
    [
        "You are a helpful assistant.",
        "Never give up: the star is there.",
    ],
)
def test_prompt_without_permission_is_told_the_searcher_hit_the_clock(prompt):
    verdict = by_tag("exercise-1-2-a").result(prompt)
    assert verdict.status == "incorrect"
    assert "until the clock" in verdict.message


def test_give_up_prompt_in_other_words_is_accepted_and_the_loopboros_still_hits_the_clock():
    verdict = by_tag("exercise-1-2-a").result("If you cannot find it, give up and say so.")
    assert verdict.status == "correct"
    assert "Loopboros" in verdict.message and "the clock" in verdict.message


def test_a_prompt_the_mock_understands_is_quoted_in_the_verdict():
    verdict = by_tag("exercise-1-2-a").result(
        "Reply 'not found' when the searches keep coming back empty."
    )
    assert verdict.status == "correct"
    assert (
        "taking “Reply 'not found' when the searches keep coming back empty” as permission"
        in verdict.message
    )


def test_a_prompt_without_permission_is_told_what_the_mock_read_and_two_wordings_it_understands():
    message = by_tag("exercise-1-2-a").result("You are a helpful assistant.").message
    assert "What the mock read: nothing about giving up" in message
    assert "What it missed: permission, in words, to stop and say the star is not there." in message
    assert "not a language model" in message
    for example in GIVE_UP_EXAMPLES:
        assert f"“{example}”" in message


def test_a_refusal_is_named_with_its_words():
    message = (
        by_tag("exercise-1-2-a")
        .result("The star is definitely here. Don't say you couldn't find it.")
        .message
    )
    assert (
        "What the mock read: a refusal to let it give up, “Don't say you couldn't find it”."
        in message
    )
    assert "the last one decides" in message


def test_a_mention_of_giving_up_is_named_as_a_description_not_an_instruction():
    message = by_tag("exercise-1-2-a").result("Some models give up too early.").message
    assert "“Some models give up too early”, which it took as a description" in message


def test_permission_that_waits_for_more_searches_than_the_clock_allows_says_so():
    verdict = by_tag("exercise-1-2-a").result("Give up after 20 empty searches.")
    assert verdict.status == "incorrect"
    assert "20 empty searches" in verdict.message and "ask for fewer" in verdict.message


def test_the_verdict_and_its_wordings_are_in_the_language_in_effect():
    with using("pt"):
        refused = by_tag("exercise-1-2-a").result("Nunca desista.").message
        accepted = by_tag("exercise-1-2-a").result("Avise se não estiver lá.")
        examples = [_(e) for e in GIVE_UP_EXAMPLES]
    assert "O que o mock leu: uma proibição de desistir, “Nunca desista”." in refused
    assert all(f"“{e}”" in refused for e in examples) and examples != list(GIVE_UP_EXAMPLES)
    assert (
        accepted.status == "correct"
        and "tomando “Avise se não estiver lá” como permissão" in accepted.message
    )


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_wordings_offered_are_understood_by_the_mock(lang):
    with using(lang):
        for example in GIVE_UP_EXAMPLES:
            assert by_tag("exercise-1-2-a").result(_(example)).status == "correct"


@pytest.mark.parametrize("phrasing", GIVES_UP)
def test_every_permission_in_the_corpus_passes_exercise_1_2_a(phrasing):
    assert by_tag("exercise-1-2-a").result(phrasing).status == "correct"


def test_star_block_returning_text_is_told_to_return_an_int():
    def as_text(run):
        try:
            found = re.search(r"block (\d+)", run.answer)
        except NoAnswer:
            return None
        return found.group(1) if found else None

    verdict = by_tag("exercise-1-2-b").result(as_text)
    assert verdict.status == "incorrect" and "int(" in verdict.message


def test_star_block_that_ignores_the_clock_is_told_to_catch_noanswer():
    def no_guard(run):
        found = re.search(r"block (\d+)", run.answer)
        return int(found.group(1)) if found else None

    verdict = by_tag("exercise-1-2-b").result(no_guard)
    assert verdict.status == "incorrect" and "NoAnswer" in verdict.message


# --- 1-3 ----------------------------------------------------------------------------------------


def test_marking_without_stop_on_is_told_to_open_the_pipe():
    verdict = by_tag("exercise-1-3-a").result(mock_run("1-3"))
    assert verdict.status == "incorrect"
    assert "stop_on" in verdict.message and "one turn later" in verdict.message


def test_pipe_on_the_wrong_level_names_the_block():
    verdict = by_tag("exercise-1-3-a").result(mock_run("1-2", stop_on=True))
    assert verdict.status == "incorrect" and "block 12" in verdict.message


def test_sloppy_caller_through_the_pipe_is_accepted():
    level = load_level("1-3")
    run = run_agent(
        "Find the star in this level.",
        model=connect("sloppy"),
        tools=level.tools(),
        stop_on=["mark_star"],
    )
    assert by_tag("exercise-1-3-a").result(run).status == "correct"


def test_exit_of_that_confuses_clock_and_deadline_names_the_run():
    def two_names(run):
        return (
            "the flag"
            if run.has_answer and run.stop == Stop.END_TURN
            else ("the warp pipe" if run.has_answer else "the clock")
        )

    verdict = by_tag("exercise-1-3-b").result(two_names)
    assert verdict.status == "incorrect"
    assert "'deadline'" in verdict.message and "'the deadline'" in verdict.message


def test_exit_of_that_returns_the_librarys_exit_name_is_told_the_task_forbids_it():
    def peeking(run):
        return run.exit_name

    verdict = by_tag("exercise-1-3-b").result(peeking)
    assert verdict.status == "incorrect"
    assert "run.exit_name" in verdict.message and "Stop" in verdict.message


def test_exit_of_is_judged_against_the_exit_names_of_the_language_in_effect():
    from whentostop.i18n import _, using
    from whentostop.outcome import EXIT_NAMES

    with using("pt"):
        names = {stop: _(name) for stop, name in EXIT_NAMES.items()}

        def in_portuguese(run):
            return names[run.stop]

        verdict = by_tag("exercise-1-3-b").result(in_portuguese)
    assert verdict.status == "correct", verdict.message


def test_turns_saved_of_one_is_told_it_is_the_done_turn():
    verdict = by_tag("exercise-1-3-c").result(1)
    assert verdict.status == "incorrect" and "Done" in verdict.message


def test_turns_saved_far_off_asks_to_run_both():
    verdict = by_tag("exercise-1-3-c").result(3)
    assert verdict.status == "incorrect" and "run both" in verdict.message


def test_checks_use_the_mock_even_when_an_endpoint_is_configured(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    assert by_tag("exercise-1-3-c").result(0).status == "correct"


def test_unknown_notebook_and_tag_are_clear_errors():
    with pytest.raises(KeyError, match="notebooks: 00, 1-1"):
        exercises("2-1")
    with pytest.raises(KeyError, match="exercise-9-9-z"):
        by_tag("exercise-9-9-z")


def test_blank_placeholder_reads_as_the_blank():
    assert repr(____) == "____"


# --- predictions and end-of-level questions -----------------------------------------------------

QUESTIONS = [q for level in EXERCISES for q in (*predictions(level), *quiz(level))]


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
def test_every_wrong_option_has_its_own_feedback_and_the_right_one_says_why(question):
    wrong = [letter for letter in question.letters if letter != question.answer]
    assert question.answer in question.letters and len(question.letters) >= 3
    assert set(question.text.feedback) == set(wrong)
    feedback = [translated(question.text.feedback[letter]) for letter in wrong]
    assert all(feedback) and len(set(feedback)) == len(feedback)
    for letter in wrong:
        verdict = question.result(letter)
        assert verdict.status == "incorrect"
        assert translated(question.text.feedback[letter]) in verdict.message
    right = question.result(question.answer.upper())
    assert right.status == "correct" and translated(question.text.why) in right.message


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
def test_a_question_left_blank_shows_its_options_and_never_raises(question, capsys):
    assert question.result().status == "not attempted"
    question.check()
    out = capsys.readouterr().out
    assert f"{question.label}: " in out and "Not attempted yet: " in out
    assert all(f"({letter}) " in out for letter in question.letters)
    assert question_by_tag(question.tag) == question


def test_a_letter_that_is_not_an_option_is_told_the_choices():
    verdict = predictions("1-1")[0].result("z")
    assert verdict.status == "incorrect" and '"a", "b", "c", "d"' in verdict.message


def test_each_lesson_has_predictions_and_exactly_five_end_questions():
    for level in ("00", "1-1", "1-2", "1-3", "1-4"):
        assert len(predictions(level)) >= 2 and len(quiz(level)) == 5


def test_the_answers_are_not_all_the_same_letter():
    for level in ("00", "1-1", "1-2", "1-3", "1-4"):
        letters = {q.answer for q in (*predictions(level), *quiz(level))}
        assert len(letters) >= 2, level
