"""The mock honours `tool_choice` and `parallel_tool_calls` as a real server does: "required" and a
named function force a call every turn (so the flag can never fire), "none" forbids one, and a
choice that names no offered tool is refused."""

from __future__ import annotations

import json

import pytest

from whentostop import Stop, connect, load_level, run_agent
from whentostop.lesson import PROMPT
from whentostop.mock import handle
from whentostop.mock.choice import GUESSED_BLOCK


def ask(tool_choice, *, level="1-3", messages=None, tools=(), **extra):
    """One request to the mock's endpoint; (status, the reply's message or error)."""
    body = {
        "model": "searcher",
        "messages": messages or [{"role": "user", "content": PROMPT}],
        "tools": [t.schema for t in load_level(level).tools(*tools)],
        "tool_choice": tool_choice,
        **extra,
    }
    status, data = handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    return status, data["choices"][0]["message"] if status == 200 else data["error"]["message"]


def test_a_named_function_is_called_even_before_the_persona_would_call_it():
    status, message = ask({"type": "function", "function": {"name": "mark_star"}})
    (call,) = message["tool_calls"]
    assert status == 200 and call["function"]["name"] == "mark_star"
    assert json.loads(call["function"]["arguments"]) == {"item": "star", "block": GUESSED_BLOCK}


def test_none_forbids_a_call_and_keeps_the_personas_words():
    status, message = ask("none")
    assert status == 200 and not message.get("tool_calls") and message["content"]


def test_required_forces_a_call_where_the_persona_would_answer_in_words():
    found = run_agent(
        PROMPT, model=connect("searcher"), tools=load_level("1-2").tools("search_blocks")
    )
    status, message = ask(
        "required", level="1-2", messages=found.messages[:-1], tools=["search_blocks"]
    )
    assert status == 200 and message["tool_calls"][0]["function"]["name"] == "search_blocks"
    assert "found the star" in message["content"]  # what it wanted to say goes with the call


def test_required_with_no_terminal_tool_runs_to_the_clock_with_the_star_marked_again_and_again():
    run = run_agent(
        PROMPT,
        model=connect("searcher"),
        tools=load_level("1-3").tools(),
        tool_choice="required",
        max_turns=8,
    )
    assert run.stop == Stop.MAX_TURNS
    assert [c.name for c in run.tool_calls[4:]] == ["mark_star"] * 4


@pytest.mark.parametrize(
    "choice, extra, says",
    [
        ({"type": "function", "function": {"name": "fly"}}, {}, "'fly', which is not among"),
        ("sometimes", {}, "must be 'auto', 'none', 'required' or a named function"),
        ("auto", {"parallel_tool_calls": "yes"}, "'parallel_tool_calls' must be a boolean"),
    ],
)
def test_a_choice_a_real_server_would_refuse_is_an_http_400(choice, extra, says):
    status, error = ask(choice, **extra)
    assert status == 400 and says in error
