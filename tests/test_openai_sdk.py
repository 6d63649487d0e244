"""`python -m whentostop serve`, driven by the official `openai` Python client: if the SDK
people actually use can run a tool loop against the mock, list its models and read its errors,
the mock speaks the protocol, not just our own client's idea of it."""

from __future__ import annotations

import openai
import pytest
from faulty_server import serving_mock

from whentostop import load_level
from whentostop.tools import as_tools, call_tool

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with serving_mock(tmp_path_factory.mktemp("serve") / "serve.log") as port:
        with openai.OpenAI(
            base_url=f"http://127.0.0.1:{port}/v1", api_key="not-needed", max_retries=0, timeout=30
        ) as sdk:
            yield sdk


def test_a_tool_loop_through_the_sdk_ends_when_the_searcher_calls_mark_star(client):
    level = load_level("1-3")
    tools = as_tools(level.tools())
    messages: list[dict] = [{"role": "user", "content": "Find the star in this level."}]
    prompt_tokens: list[int] = []
    for _ in range(10):
        reply = client.chat.completions.create(
            model="searcher", messages=messages, tools=[t.schema for t in tools.values()]
        )
        prompt_tokens.append(reply.usage.prompt_tokens)
        message = reply.choices[0].message
        assert message.tool_calls, f"the searcher stopped calling tools: {message.content!r}"
        assert reply.choices[0].finish_reason == "tool_calls"
        messages.append(message.model_dump(exclude_none=True))
        results = {
            c.function.name: call_tool(tools, c.function.name, c.function.arguments)
            for c in message.tool_calls
        }
        for c in message.tool_calls:
            messages.append(
                {"role": "tool", "tool_call_id": c.id, "content": results[c.function.name].output}
            )
        if "mark_star" in results and results["mark_star"].ok:
            break
    else:
        pytest.fail("no mark_star in 10 turns")
    assert results["mark_star"].input == {"item": "star", "block": 12}
    assert results["mark_star"].output == f"Marked block 12 ({level.star[0]}) on the level map."
    assert len(prompt_tokens) == 5  # the searcher's path on 1-3, as through our own client
    assert prompt_tokens == sorted(set(prompt_tokens))  # the history grows every turn


def test_models_list_names_the_personas(client):
    ids = [m.id for m in client.models.list()]
    assert {"searcher", "loopboros", "sloppy", "slow"} <= set(ids)


def test_an_unknown_model_is_a_not_found_error_with_the_openai_error_body(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "hi"}])
    err = caught.value
    assert err.status_code == 404 and err.code == "model_not_found"
    assert err.body["message"].startswith("The model 'gpt-9' does not exist. Personas: searcher")
    assert err.response.json()["error"]["type"] == "not_found_error"


def test_a_malformed_request_is_a_bad_request_error_with_the_openai_error_body(client):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="searcher", messages="hello")  # type: ignore[arg-type]
    err = caught.value
    assert err.status_code == 400 and err.code == "invalid_request"
    assert "'messages' is required and must be a non-empty array" in err.body["message"]
    assert err.body["type"] == "invalid_request_error"
