"""The mock refuses what a real endpoint refuses: a conversation whose tool calls are not each
answered by one tool message, a tool message that answers nothing, an assistant message sent
twice, an unknown role. It answers HTTP 400 with OpenAI's own words, so a loop that breaks a rule
fails on the mock as it would on OpenAI; the library's loop and the lesson's loops never do."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import PROMPT

from whentostop import Stop, connect, load_level, run_agent
from whentostop.mock import MockServer
from whentostop.mock.endpoint import handle
from whentostop.mock.protocol import ORPHAN, breach

USER = {"role": "user", "content": PROMPT}


def asking(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "Let me search.",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "search_blocks", "arguments": '{"area": "sky"}'},
            }
            for call_id in ids
        ],
    }


def answer(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "Block 9: 1-up"}


def post(messages: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"model": "searcher", "messages": messages}).encode()
    return handle("POST", "/v1/chat/completions", body)


def test_a_conversation_that_keeps_the_rules_is_answered():
    status, _ = post([USER, asking("a", "b"), answer("a"), answer("b")])
    assert status == 200


def test_answering_only_the_first_of_two_calls_is_refused_with_openais_words():
    status, reply = post([USER, asking("call_a", "call_b"), answer("call_a")])
    assert status == 400
    error = reply["error"]
    assert error["message"].startswith(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'."
    )
    assert error["message"].endswith("did not have response messages: call_b")
    assert error["type"] == "invalid_request_error"


def test_an_assistant_message_added_twice_leaves_its_calls_unanswered():
    message = asking("call_1")
    status, reply = post([USER, message, message, answer("call_1")])
    assert status == 400 and "call_1" in reply["error"]["message"]
    assert reply["error"]["param"] == "messages.[2].role"


def test_a_request_that_ends_on_the_calls_themselves_is_refused():
    status, reply = post([USER, asking("call_1")])
    assert status == 400 and "did not have response messages: call_1" in reply["error"]["message"]


@pytest.mark.parametrize(
    "messages",
    [
        [USER, answer("call_1")],  # answers nothing
        [USER, asking("call_1"), answer("call_1"), answer("call_1")],  # answered twice
        [USER, asking("call_1"), answer("call_2")],  # another id
    ],
    ids=["before-any-call", "answered-twice", "wrong-id"],
)
def test_a_tool_message_that_answers_no_pending_call_is_refused(messages):
    status, reply = post(messages)
    assert status == 400 and reply["error"]["message"] == ORPHAN


def test_an_unknown_role_and_a_tool_message_without_its_id_are_refused():
    status, reply = post([{"role": "bot", "content": "hi"}])
    assert status == 400 and "Invalid value: 'bot'" in reply["error"]["message"]
    status, reply = post([USER, asking("call_1"), {"role": "tool", "content": "x"}])
    assert status == 400 and "tool_call_id" in reply["error"]["message"]


def test_the_rule_names_the_tools_left_unanswered():
    broken = breach([USER, asking("a", "b"), answer("b")])
    assert broken is not None and broken.rule == "unanswered" and broken.names == ("search_blocks",)


def test_the_check_is_linear_in_the_conversation():
    """A long, valid conversation is read in one pass (no call is looked for twice)."""
    messages: list[dict[str, Any]] = [USER]
    for i in range(20_000):
        messages += [asking(f"c{i}"), answer(f"c{i}")]
    assert breach(messages) is None


@pytest.mark.parametrize(
    "persona, level, options",
    [
        ("searcher", "1-2", {"tools": ("search_blocks",)}),
        ("sloppy", "1-3", {"stop_on": ["mark_star"]}),
        ("loopboros", "1-1", {"max_turns": 4, "on_max_turns": "wrap_up"}),
    ],
)
def test_the_librarys_loop_keeps_every_rule_over_a_real_socket(persona, level, options):
    options = dict(options)
    names = options.pop("tools", ())
    with MockServer() as server:
        model = connect(persona, base_url=server.base_url)
        run = run_agent(PROMPT, model=model, tools=load_level(level).tools(*names), **options)
    assert run.stop in (Stop.END_TURN, Stop.TERMINAL_TOOL, Stop.MAX_TURNS) and run.error is None


def test_the_parallel_searcher_asks_for_two_searches_in_one_reply_and_the_loop_answers_both():
    run = run_agent(
        PROMPT, model=connect("parallel"), tools=load_level("1-2").tools("search_blocks")
    )
    first = run.turns[0]
    assert [c.name for c in first.tool_calls] == ["search_blocks", "search_blocks"]
    assert len({c.id for c in first.tool_calls}) == 2 and all(c.ok for c in first.tool_calls)
    assert run.stop == Stop.END_TURN and "block 7" in run.answer


def test_the_parallel_searcher_gives_up_only_with_permission_like_the_searcher():
    from conftest import MAY_GIVE_UP

    level = load_level("1-1")
    allowed = run_agent(PROMPT, model=connect("parallel"), tools=level.tools(), system=MAY_GIVE_UP)
    stubborn = run_agent(PROMPT, model=connect("parallel"), tools=level.tools())
    assert allowed.stop == Stop.END_TURN and stubborn.stop == Stop.MAX_TURNS
