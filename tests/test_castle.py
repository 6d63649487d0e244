"""Level 1-4, the castle: its level, the plumbing of the from-scratch loop, and the checks of its
exercises — above all that a learner's loop broken in one place gets a verdict naming that place
(each exit in turn, the terminal-tool rule, the error-back path), with the run that showed it."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from answers import answer, defined, near_miss, scratch, solution_of
from conftest import MAY_GIVE_UP, PROMPT
from words import says

from whentostop import Stop, connect, load_level, run_agent
from whentostop.i18n import using
from whentostop.lesson.castle import (
    describe_message,
    empty_castle,
    exit_by_last_message,
    http_post,
    post_to,
    side_by_side,
    where,
)
from whentostop.lesson.checks import EXERCISES, by_tag
from whentostop.mock import MockServer

LOOP = by_tag("exercise-1-4-b")
RUN_CALL = by_tag("exercise-1-4-a")
CALLER = by_tag("exercise-1-4-e")


def verdict_on_loop(old: str, new: str) -> str:
    verdict = LOOP.result(near_miss("1-4.b", old, new))
    assert verdict.status == "incorrect", verdict.message
    return verdict.message


# --- the level ----------------------------------------------------------------------------------


def test_the_castles_honest_search_takes_more_than_fifteen_turns_and_more_than_the_default_budget():
    castle = load_level("1-4")
    run = run_agent(
        PROMPT, model=connect("searcher"), tools=castle.tools(), max_turns=40, stop_on=["mark_star"]
    )
    assert castle.star == ("throne room", 47)
    assert run.stop == Stop.TERMINAL_TOOL and run.answer == {"item": "star", "block": 47}
    assert len(run.turns) == len(castle.areas) + 1 >= 17
    assert (
        run_agent(
            PROMPT, model=connect("searcher"), tools=castle.tools(), stop_on=["mark_star"]
        ).stop
        == Stop.MAX_TURNS
    )  # the default of 10


@pytest.mark.parametrize("persona, turns", [("sloppy", 18), ("loopboros", 17)])
def test_the_other_personas_play_the_castle_sensibly(persona, turns):
    run = run_agent(
        PROMPT,
        model=connect(persona),
        tools=load_level("1-4").tools(),
        max_turns=40,
        stop_on=["mark_star"],
    )
    assert run.answer == {"item": "star", "block": 47} and len(run.turns) == turns


def test_in_the_empty_castle_the_searcher_gives_up_only_with_permission_and_the_loopboros_never():
    empty = empty_castle()
    assert empty.star is None and empty.areas.keys() == load_level("1-4").areas.keys()
    gave_up = run_agent(
        PROMPT, model=connect("searcher"), tools=empty.tools(), max_turns=40, system=MAY_GIVE_UP
    )
    assert gave_up.stop == Stop.END_TURN and len(gave_up.turns) == 17
    stubborn = run_agent(
        PROMPT, model=connect("loopboros"), tools=empty.tools(), max_turns=30, system=MAY_GIVE_UP
    )
    assert stubborn.stop == Stop.MAX_TURNS


def test_the_castles_title_and_story_are_in_the_catalogue():
    from whentostop.i18n import using

    castle = load_level("1-4")
    with using("pt"):
        assert castle.title != castle.spec.title and castle.story != castle.spec.story


# --- the plumbing of the from-scratch loop ------------------------------------------------------


def test_where_keeps_the_key_out_of_sight(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-key-1234567890")
    place = where("searcher")
    assert place.model == "llama3.2" and place.base_url == "http://127.0.0.1:9/v1"
    assert place.api_key and "sk-test" not in repr(place) and "***" in repr(place)


def test_post_reaches_the_mock_in_process_and_over_a_real_socket_alike():
    body = {
        "messages": [{"role": "user", "content": PROMPT}],
        "tools": [t.schema for t in load_level("1-2").tools()],
    }
    in_process = post_to("searcher")(body)
    with MockServer() as server:
        over_http = http_post(server.base_url, "searcher")(body)
    assert in_process["choices"][0]["message"] == over_http["choices"][0]["message"]
    assert (
        in_process["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "search_blocks"
    )


def test_the_recipe_agrees_with_the_outcome_on_honest_runs_and_lies_after_a_rejected_terminal_call():
    level = load_level("1-3")
    honest = run_agent(PROMPT, model=connect("sloppy"), tools=level.tools(), stop_on=["mark_star"])
    assert exit_by_last_message(honest.messages) == ("terminal_tool", honest.answer)
    cut = run_agent(
        PROMPT, model=connect("sloppy"), tools=level.tools(), stop_on=["mark_star"], max_turns=5
    )
    assert cut.stop == Stop.MAX_TURNS and not cut.has_answer
    assert exit_by_last_message(cut.messages) == (
        "terminal_tool",
        {"item": "Star", "block": "the 12th block"},
    )


def as_read(markdown: str) -> str:
    """Markdown's text as a reader sees it: its escapes undone (`markdown_text` made them)."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


def test_side_by_side_shows_what_each_loop_returned_and_an_exception_in_place_of_a_run():
    run = run_agent(
        PROMPT, model=connect("loopboros"), tools=load_level("1-1").tools(), max_turns=2
    )
    table = side_by_side(
        [
            ("the clock", run.last_message, [{"reason": "completed"}], run),
            ("broken", ValueError("boom"), [], KeyError("x")),
        ]
    )
    text = as_read(table._repr_markdown_())
    assert "a tool call: search_blocks" in text and '{"reason": "completed"}' in text
    assert "max_turns: no answer" in text and "raised ValueError: boom" in text
    assert describe_message({"role": "assistant", "content": "hi"}) == "the text “hi”"


# --- 1-4.b: the learner's loop, each exit broken in turn ---------------------------------------


def test_the_reference_loop_is_correct_in_process_and_over_a_real_socket():
    verdict = LOOP.result(answer("1-4.b"))
    assert verdict.status == "correct", verdict.message
    assert says(verdict.message, "real socket", "http://127.0.0.1:")


def test_a_loop_without_the_flag_is_told_a_reply_with_no_tool_call_is_the_flag():
    message = verdict_on_loop('if not message.get("tool_calls"):', "if False:")
    assert "the flag" in message and 'message["tool_calls"]' in message
    assert says(message, "searcher", "1-2") and re.search(
        r"turn 3 +model: I found the star", message
    )


def test_a_flag_that_returns_the_whole_message_is_told_the_answer_is_its_text():
    message = verdict_on_loop(
        'Outcome("end_turn", message["content"], messages)',
        'Outcome("end_turn", message, messages)',
    )
    assert 'message["content"]' in message and "not the whole message" in message


def test_a_clock_that_returns_the_last_message_is_told_the_clock_has_no_answer():
    message = verdict_on_loop(
        'Outcome("max_turns", None, messages)', 'Outcome("max_turns", messages[-2], messages)'
    )
    assert says(message, "clock", "no answer", "last message")
    assert says(message, "Loopboros", "1-1", "max_turns=3")


def test_a_clock_one_turn_late_is_told_how_many_requests_it_made():
    message = verdict_on_loop("for turn in range(max_turns):", "for turn in range(max_turns + 1):")
    assert says(message, "max_turns=3", "4 requests")


def test_a_loop_that_exits_after_one_request_is_told_so_in_the_singular():
    exits = "message = ask(post, messages, tools)\n        raise SystemExit(0)"
    loop = near_miss("1-4.b", "message = ask(post, messages, tools)", exits)
    assert says(LOOP.result(loop).message, "SystemExit", "after 1 request:")
    with using("pt"):
        assert says(LOOP.result(loop).message, "SystemExit", "depois de 1 requisição:")


def test_a_loop_with_no_clock_is_stopped_and_told_it_did_not_stop():
    message = verdict_on_loop("for turn in range(max_turns):", "while True:")
    assert "did not stop" in message and "range(max_turns)" in message


def test_a_clock_named_as_the_flag_is_told_it_is_the_clock():
    message = verdict_on_loop(
        'Outcome("max_turns", None, messages)', 'Outcome("end_turn", None, messages)'
    )
    assert says(message, "the clock", '"max_turns"')


def test_a_pipe_that_opens_on_a_rejected_call_is_told_to_stop_only_when_it_validated_and_ran():
    message = verdict_on_loop(
        'if ok and call["function"]["name"] in stop_on:', 'if call["function"]["name"] in stop_on:'
    )
    assert says(message, "turn 5", "mark_star", "failed", "validated and ran")
    assert says(message, "sloppy caller", "1-3")


def test_a_loop_that_never_opens_the_pipe_is_told_the_model_spent_a_turn_saying_done():
    message = verdict_on_loop('if ok and call["function"]["name"] in stop_on:', "if False:")
    assert "your loop went on" in message and "Done" in message


def test_a_pipe_that_answers_with_the_tools_output_is_told_the_answer_is_its_input():
    message = verdict_on_loop(
        'Outcome("terminal_tool", data, messages)', 'Outcome("terminal_tool", output, messages)'
    )
    assert "validated input" in message and "not its output" in message


def test_a_pipe_that_answers_with_the_raw_arguments_is_told_to_return_the_validated_dict():
    message = verdict_on_loop(
        'Outcome("terminal_tool", data, messages)',
        'Outcome("terminal_tool", call["function"]["arguments"], messages)',
    )
    assert "as a dict" in message and "raw arguments" in message


def test_a_loop_that_drops_a_failed_calls_result_is_told_every_call_needs_a_tool_message():
    old = '            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})'
    message = verdict_on_loop(old, "            if ok: " + old.strip())
    assert "has no tool message" in message and "HTTP 400" in message


NO_ERROR_BACK = """def run_call(call, tools):
    by_name = {tool.name: tool for tool in tools}
    tool = by_name[call["function"]["name"]]
    data = dict(tool.validate(call["function"]["arguments"]))
    return True, data, str(tool.fn(**data))"""


def loop_with(run_call: str) -> Any:
    return defined(LOOP.solution_code, "my_loop", scratch() + "\n\n" + run_call)


def test_a_loop_without_the_error_back_path_is_told_the_failed_validation_escaped():
    verdict = LOOP.result(loop_with(NO_ERROR_BACK))
    assert verdict.status == "incorrect"
    assert says(verdict.message, "failed validation", "raised ToolInputError")
    assert says(verdict.message, "back to the model", "error result")


def test_a_loop_that_catches_only_bad_input_is_told_the_tools_exception_escaped():
    only_validation = """def run_call(call, tools):
    by_name = {tool.name: tool for tool in tools}
    if call["function"]["name"] not in by_name:
        return False, None, "Error: no such tool"
    tool = by_name[call["function"]["name"]]
    try:
        data = dict(tool.validate(call["function"]["arguments"]))
    except Exception as exc:
        return False, None, f"Error: {exc}"
    return True, data, str(tool.fn(**data))"""
    verdict = LOOP.result(loop_with(only_validation))
    assert verdict.status == "incorrect"
    assert says(verdict.message, "search_blocks raised", "RuntimeError", "let it out")
    assert says(verdict.message, "raises the first time")


def test_a_loop_that_trusts_the_tool_names_is_told_about_the_tool_that_does_not_exist():
    trusting = '''def run_call(call, tools):
    by_name = {tool.name: tool for tool in tools}
    tool = by_name[call["function"]["name"]]
    try:
        data = dict(tool.validate(call["function"]["arguments"]))
        return True, data, str(tool.fn(**data))
    except Exception as exc:
        return False, None, f"Error: {exc}"'''
    verdict = LOOP.result(loop_with(trusting))
    assert verdict.status == "incorrect"
    assert says(verdict.message, "open_door", "does not exist", "KeyError")


def test_a_loop_with_the_wrong_signature_is_told_how_it_is_called():
    verdict = LOOP.result(lambda post, prompt: None)
    assert verdict.status == "incorrect" and "TypeError" in verdict.message
    assert "loop(post, prompt, tools" in verdict.message


def test_a_loop_that_returns_nothing_is_told_to_return_an_outcome():
    verdict = LOOP.result(lambda post, prompt, tools, max_turns=10, stop_on=(): None)
    assert verdict.status == "incorrect" and "Outcome(stop, answer, messages)" in verdict.message


def test_a_loop_whose_run_call_is_still_blank_is_told_to_finish_1_4_a_first():
    loop = defined(
        LOOP.solution_code,
        "my_loop",
        scratch() + "\n\n" + solution_of("1-4.a").replace('f"Error: {exc}"', "____"),
    )
    verdict = LOOP.result(loop)
    assert verdict.status == "incorrect" and "finish Exercise 1-4.a first" in verdict.message


# --- 1-4.a: the error-back path on its own ------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, says",
    [
        (
            "except Exception as exc:",
            "except ValueError as exc:",
            "a search_blocks whose body raises",
        ),
        ('f"Error: {exc}"', '"Error: something went wrong"', "does not say what went wrong"),
        (
            "return True, data, str(output)",
            'return True, call["function"]["arguments"], str(output)',
            "the validated input",
        ),
        (
            'return False, None, f"Error: there is no tool',
            'return True, None, f"Error: there is no tool',
            "ok should be False",
        ),
    ],
)
def test_run_call_near_misses_get_their_own_verdict(old, new, says):
    verdict = RUN_CALL.result(near_miss("1-4.a", old, new))
    assert verdict.status == "incorrect"
    assert says in verdict.message


# --- 1-4.c and 1-4.d: the recipe and its lie ----------------------------------------------------


def test_a_recipe_that_reads_the_clock_as_an_answer_is_told_what_the_clock_should_say():
    recipe = by_tag("exercise-1-4-c")
    verdict = recipe.result(
        near_miss("1-4.c", 'return "max_turns", None', 'return "max_turns", last["tool_calls"]')
    )
    assert verdict.status == "incorrect" and "('max_turns', None)" in verdict.message


@pytest.mark.parametrize(
    "model, level, options, status",
    [
        ("sloppy", "1-3", {"stop_on": ["mark_star"], "max_turns": 5}, "correct"),
        ("loopboros", "1-1", {"max_turns": 3, "on_max_turns": "wrap_up"}, "correct"),
        ("searcher", "1-3", {"stop_on": ["mark_star"]}, "incorrect"),
        ("slow:0.05", "1-2", {"deadline_s": 0.12}, "incorrect"),
    ],
)
def test_only_a_run_whose_last_message_passes_for_an_answer_is_a_lie(model, level, options, status):
    """Right after a rejected terminal call, or after a wrap-up, the last message passes for an
    answer; an honest run, or a deadline mistaken for the clock (no answer either way), does not."""
    run = run_agent(PROMPT, model=connect(model), tools=load_level(level).tools(), **options)
    verdict = by_tag("exercise-1-4-d").result(run)
    assert verdict.status == status, verdict.message


# --- 1-4.e: the capstone ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, says",
    [
        ("max_turns=20", "max_turns=10", "max_turns=10 leaves no room in the castle"),
        ("max_turns=20", "max_turns=60", "at most 27"),
        ("max_turns=20", "max_turns=18", "max_turns=18 leaves no room"),
        ('stop_on=["mark_star"]', "stop_on=[]", "Choose the terminal tool"),
        ("system=GIVE_UP", "system=None", "no system prompt"),
        ("system=GIVE_UP", 'system="Be thorough."', "does not let it give up"),
        ("deadline_s=2.0", "deadline_s=None", "choose a deadline"),
        ("for task in (PROMPT, PROMPT +", "for task in (PROMPT,) or (PROMPT +", "retry once"),
        (
            'PROMPT + " Search each room once, then mark the star or say it is not here."',
            "PROMPT",
            "sent the same task again",
        ),
        (
            'return "clock", runs[-1].no_answer_reason, runs',
            'return "answer", None, runs',
            "The clock is a failure",
        ),
        ("if run.stop == Stop.DEADLINE:", "if False:", "retried"),
    ],
)
def test_castle_caller_near_misses_get_their_own_verdict(old, new, says):
    verdict = CALLER.result(near_miss("1-4.e", old, new))
    assert verdict.status == "incorrect"
    assert says in verdict.message, verdict.message


def test_castle_caller_may_make_the_retry_clearer_through_the_system_prompt():
    caller = near_miss(
        "1-4.e",
        'for task in (PROMPT, PROMPT + " Search each room once, then mark the star or '
        'say it is not here."):\n        run = run_agent(task, model=model, tools=level.tools(), '
        "system=GIVE_UP,",
        'for task, system in ((PROMPT, GIVE_UP), (PROMPT, GIVE_UP + " Search each room once.")):'
        "\n        run = run_agent(task, model=model, tools=level.tools(), system=system,",
    )
    verdict = CALLER.result(caller)
    assert verdict.status == "correct", verdict.message


def test_every_1_4_exercise_says_not_attempted_for_its_blank():
    from answers import context_of

    for exercise in EXERCISES["1-4"]:
        blank = defined(exercise.blank, exercise.answer, context_of(exercise.id))
        assert exercise.result(blank).status == "not attempted", exercise.id


def test_where_no_thread_can_start_the_loop_check_judges_in_process_and_says_the_socket_was_skipped(
    monkeypatch,
):
    """JupyterLite's browser kernel has no threads: the check must still give its verdict."""
    from whentostop.mock import endpoint

    def no_threads(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(endpoint.MockServer, "start", no_threads)
    verdict = LOOP.result(answer("1-4.b"))
    assert verdict.status == "correct"
    assert says(verdict.message, "real-socket runs", "skipped", "RuntimeError")
