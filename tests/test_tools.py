"""`tool(...)`: a typed function or a pydantic model becomes an OpenAI tool; every bad call
becomes one readable error line, never an exception."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from whentostop import tool
from whentostop.tools import MAX_OUTPUT_CHARS, as_tools, call_tool


@tool
def add(a: int, b: Annotated[int, Field(ge=0, description="never negative")] = 1) -> int:
    """Add two numbers."""
    return a + b


class Order(BaseModel):
    item: Literal["star", "coin"]
    count: int = Field(gt=0)


def test_schema_comes_from_type_hints_and_docstring():
    schema = add.schema
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "add" and fn["description"] == "Add two numbers."
    assert fn["parameters"]["required"] == ["a"]
    assert fn["parameters"]["properties"]["b"]["minimum"] == 0


def test_a_pydantic_model_parameter_becomes_the_schema_and_the_argument():
    @tool
    def place(order: Order) -> str:
        """Place an order."""
        return f"{order.count} x {order.item}"

    assert place.schema["function"]["parameters"]["properties"]["item"]["enum"] == ["star", "coin"]
    result = place('{"item": "coin", "count": 3}')
    assert (
        result.ok and result.output == "3 x coin" and result.input == {"item": "coin", "count": 3}
    )


def test_valid_call_returns_output_as_text():
    result = add('{"a": 2, "b": 3}')
    assert result.ok and result.output == "5" and result.input == {"a": 2, "b": 3}


@pytest.mark.parametrize(
    "arguments,expected",
    [
        ('{"a": 2', "not valid JSON"),
        ("[1, 2]", "must be a JSON object, got list"),
        ('"a"', "must be a JSON object, got str"),
        ('{"a": "two"}', "a: Input should be a valid integer"),
        ("{}", "a: Field required"),
        ('{"a": 1, "b": -1}', "b: Input should be greater than or equal to 0"),
    ],
)
def test_bad_arguments_become_one_readable_error_line(arguments, expected):
    result = add(arguments)
    assert not result.ok
    assert result.output.startswith("Error: ")
    assert expected in result.output
    assert "\n" not in result.output


def test_an_exception_in_the_body_becomes_an_error_result():
    @tool
    def explode(x: int) -> str:
        """Always fails."""
        raise KeyError("boom")

    result = explode('{"x": 1}')
    assert not result.ok and result.output == "Error: explode failed: KeyError: 'boom'"
    assert result.input == {"x": 1}


def test_unknown_tool_lists_the_tools_there_are():
    result = call_tool(as_tools([add]), "subtract", "{}")
    assert (
        not result.ok and result.output == "Error: there is no tool named 'subtract'. Tools: add."
    )


def test_non_text_outputs_are_sent_as_json_text():
    @tool
    def data(n: int) -> dict:
        """Returns a dict."""
        return {"n": n, "items": ["a"]}

    assert data('{"n": 1}').output == '{"n": 1, "items": ["a"]}'


def test_a_huge_output_is_cut_with_a_note():
    @tool
    def flood(n: int) -> str:
        """Returns a lot."""
        return "x" * n

    result = flood(f'{{"n": {MAX_OUTPUT_CHARS * 3}}}')
    assert result.ok
    assert result.output.startswith("x" * 100)
    assert "[output cut:" in result.output and len(result.output) < MAX_OUTPUT_CHARS + 200


def test_two_tools_with_one_name_are_refused():
    with pytest.raises(ValueError, match="two tools are named 'add'"):
        as_tools([add, add])


def test_plain_functions_are_wrapped():
    def shout(text: str) -> str:
        """Upper-case."""
        return text.upper()

    tools = as_tools([shout])
    assert call_tool(tools, "shout", '{"text": "hi"}').output == "HI"


def test_a_parameter_without_a_type_hint_is_a_clear_error():
    def vague(x):
        return x

    with pytest.raises(TypeError, match="parameter 'x' needs a type hint"):
        tool(vague)


def test_tool_mistakes_are_said_in_the_learners_language():
    from whentostop import i18n

    def vague(x):
        return x

    def shout(text: str) -> str:
        return text.upper()

    with i18n.using("pt"):
        with pytest.raises(TypeError, match="o parâmetro 'x' precisa de uma anotação de tipo"):
            tool(vague)
        with pytest.raises(ValueError, match="duas ferramentas se chamam 'shout'"):
            as_tools([shout, shout])
