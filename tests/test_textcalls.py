"""Tool calls written as text: the forms small models write, recognised only for offered tools."""

from __future__ import annotations

import json

import pytest

from whentostop.textcalls import MAX_SCAN_CHARS, TextCall, find_text_calls

OFFERED = {"search_blocks", "mark_star"}
SKY = TextCall("search_blocks", '{"area": "sky"}')


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "search_blocks", "arguments": {"area": "sky"}}',
        '```json\n{"name": "search_blocks", "arguments": {"area": "sky"}}\n```',
        '```\n{"name": "search_blocks", "arguments": {"area": "sky"}}\n```',
        '```json\n{\n  "name": "search_blocks",\n  "arguments": {\n    "area": "sky"\n  }\n}\n```',  # seen
        '<tool_call>\n{"name": "search_blocks", "arguments": {"area": "sky"}}\n</tool_call>',
        '<tool_call>{"name": "search_blocks", "arguments": {"area": "sky"}}',  # never closed
        '[TOOL_CALLS] [{"name": "search_blocks", "arguments": {"area": "sky"}}]',
        '{"name": "search_blocks", "parameters": {"area": "sky"}}',  # Llama 3.x
        '{"type": "function", "function": {"name": "search_blocks", "arguments": {"area": "sky"}}}',
        '{"function": {"name": "search_blocks", "parameters": {"area": "sky"}}}',
        '{"function": "search_blocks", "arguments": {"area": "sky"}}',
        '{"tool": "search_blocks", "args": {"area": "sky"}}',
        '{"search_blocks": {"area": "sky"}}',
        '{"tool_calls": [{"function": {"name": "search_blocks", "arguments": "{\\"area\\": \\"sky\\"}"}}]}',
        'Let me search the sky first.\n{"name": "search_blocks", "arguments": {"area": "sky"}}',
    ],
)
def test_each_form_small_models_write_is_recognised(text):
    assert find_text_calls(text, OFFERED) == [SKY]


def test_arguments_given_as_a_string_are_kept_as_they_were_written():
    text = '{"name": "search_blocks", "arguments": "{\\"area\\": \\"sky\\"}"}'
    assert find_text_calls(text, OFFERED) == [TextCall("search_blocks", '{"area": "sky"}')]


def test_several_calls_in_one_reply_are_found_in_order():
    text = (
        '<tool_call>{"name": "search_blocks", "arguments": {"area": "sky"}}</tool_call>\n'
        '<tool_call>{"name": "mark_star", "arguments": {"item": "star", "block": 9}}</tool_call>'
    )
    assert [c.name for c in find_text_calls(text, OFFERED)] == ["search_blocks", "mark_star"]


def test_a_call_without_arguments_counts_only_when_nothing_else_is_there():
    assert find_text_calls('{"name": "search_blocks"}', OFFERED) == [
        TextCall("search_blocks", "{}")
    ]
    assert find_text_calls('{"name": "search_blocks", "colour": "red"}', OFFERED) == []


@pytest.mark.parametrize(
    "text",
    [
        "The star is in the underground, block 7.",
        '{"item": "star", "block": 7}',
        '{"name": "Mario", "arguments": {"jump": true}}',
        '{"name": "search_blocks", "arguments": ["sky"]}',
        '{"name": "fly", "arguments": {}}',
        "{not json at all}",
        "",
    ],
)
def test_text_that_is_not_a_call_to_an_offered_tool_is_not_one(text):
    assert find_text_calls(text, OFFERED) == []


def test_with_no_tools_offered_nothing_is_a_call():
    assert find_text_calls('{"name": "search_blocks", "arguments": {"area": "sky"}}', ()) == []


def test_a_reply_full_of_braces_or_nested_deeply_is_read_without_error():
    assert find_text_calls("{" * 100_000, OFFERED) == []
    assert find_text_calls("[" * 50_000 + "]" * 50_000, OFFERED) == []
    assert find_text_calls("{ " * 10_000 + json.dumps({"name": "search_blocks"}), OFFERED) == []


def test_only_the_start_of_a_long_reply_is_read():
    call = '{"name": "search_blocks", "arguments": {"area": "sky"}}'
    assert find_text_calls(call + " " * MAX_SCAN_CHARS, OFFERED) == [SKY]
    assert find_text_calls(" " * MAX_SCAN_CHARS + call, OFFERED) == []
