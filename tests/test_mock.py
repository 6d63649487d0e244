"""The mock model behind one OpenAI-compatible path: in-process and over real HTTP, the same."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

import pytest
from conftest import PROMPT, free_port, running

from whentostop import Stop, connect, load_level, run_agent
from whentostop.errors import NotFound
from whentostop.mock import MockServer, handle
from whentostop.models import is_mock


@pytest.fixture(scope="module")
def server():
    with MockServer() as s:
        yield s


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_loop_cannot_tell_the_transport_from_the_socket(server):
    runs = []
    for model in (connect("sloppy"), connect("sloppy", base_url=server.base_url)):
        runs.append(
            run_agent(PROMPT, model=model, tools=load_level("1-3").tools(), stop_on=["mark_star"])
        )
    in_process, over_http = runs
    assert over_http.stop == in_process.stop == Stop.TERMINAL_TOOL
    assert over_http.messages == in_process.messages
    assert [t.prompt_tokens for t in over_http.turns] == [t.prompt_tokens for t in in_process.turns]
    assert is_mock(connect("sloppy")) and not is_mock(connect("sloppy", base_url=server.base_url))


@pytest.mark.parametrize(
    "budget", [{"max_tokens_total": 3000}, {"max_cost_usd": 0.002, "price": "gpt-4o"}]
)
def test_the_budget_stops_the_same_turn_in_process_and_over_the_socket(server, budget):
    runs = [
        run_agent(PROMPT, model=model, tools=load_level("1-1").tools(), max_turns=25, **budget)
        for model in (connect("loopboros"), connect("loopboros", base_url=server.base_url))
    ]
    in_process, over_http = runs
    assert over_http.stop == in_process.stop == Stop.BUDGET
    assert (
        len(over_http.turns) == len(in_process.turns) and over_http.messages == in_process.messages
    )
    assert over_http.budget_stop == in_process.budget_stop


def test_the_personas_accept_generation_settings_and_ignore_them(server):
    plain = run_agent(
        PROMPT,
        model=connect("searcher", base_url=server.base_url),
        tools=load_level("1-3").tools(),
        stop_on=["mark_star"],
    )
    tuned = run_agent(
        PROMPT,
        model=connect("searcher", base_url=server.base_url, max_tokens=8, temperature=1.5, seed=42),
        tools=load_level("1-3").tools(),
        stop_on=["mark_star"],
    )
    assert tuned.messages == plain.messages and tuned.answer == {"item": "star", "block": 12}


def test_the_seeds_from_scratch_loop_works_with_only_base_url_and_model_changed(server):
    """A plain-HTTP loop, no SDK, as a learner would write it from the seed."""
    level = load_level("1-3")
    tools = {t.name: t for t in level.tools()}
    messages = [{"role": "user", "content": PROMPT}]
    for _ in range(10):
        status, reply = post(
            f"{server.base_url}/chat/completions",
            {
                "model": "searcher",
                "messages": messages,
                "tools": [t.schema for t in tools.values()],
            },
        )
        assert status == 200
        message = reply["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            break
        for call in message["tool_calls"]:
            result = tools[call["function"]["name"]](call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result.output})
    marks = [m["content"] for m in messages if m.get("role") == "tool" and "Marked" in m["content"]]
    assert marks == ["Marked block 12 (castle) on the level map."]
    assert messages[-1]["content"].startswith("Done")


def test_personas_know_the_level_only_from_the_conversation(tmp_path):
    path = tmp_path / "lake.json"
    path.write_text(
        json.dumps(
            {
                "name": "lake",
                "areas": {
                    "shore": {"1": "coin"},
                    "reeds": {"2": "nothing", "3": "1-up"},
                    "island": {"4": "star"},
                },
            }
        )
    )
    level = load_level(path)
    run = run_agent(PROMPT, model=connect("searcher"), tools=level.tools(), stop_on=["mark_star"])
    assert run.answer == {"item": "star", "block": 4}
    assert level.view(run).searched == ("shore", "reeds", "island")


def test_models_lists_the_personas(server):
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as response:
        data = json.loads(response.read())
    assert [m["id"] for m in data["data"]] == [
        "searcher",
        "loopboros",
        "sloppy",
        "slow",
        "parallel",
    ]


def test_head_on_the_models_route_answers_like_get_without_a_body(server):
    # A health check (`curl -I`, a hub's probe) asks HEAD; http.server alone answers it 501.
    import http.client

    host, port = server.httpd.server_address[:2]
    connection = http.client.HTTPConnection(str(host), int(port), timeout=10)
    try:
        connection.request("HEAD", "/v1/models")
        response = connection.getresponse()
        assert response.status == 200 and response.read() == b""
        assert int(response.getheader("Content-Length")) > 0  # what GET would send
        connection.request("HEAD", "/v1/chat/completions")
        response = connection.getresponse()
        assert response.status == 405
        assert response.read() == b""
    finally:
        connection.close()


def test_usage_is_counted_from_the_request_received():
    base = {"model": "searcher", "messages": [{"role": "user", "content": "Find the star."}]}
    longer = {
        "model": "searcher",
        "messages": [{"role": "user", "content": "Find the star. " * 50}],
    }
    short_usage = handle("POST", "/v1/chat/completions", json.dumps(base).encode())[1]["usage"]
    long_usage = handle("POST", "/v1/chat/completions", json.dumps(longer).encode())[1]["usage"]
    assert long_usage["prompt_tokens"] > short_usage["prompt_tokens"] + 150
    assert (
        short_usage["total_tokens"]
        == short_usage["prompt_tokens"] + short_usage["completion_tokens"]
    )


def test_content_sent_as_parts_is_read_like_text():
    tools = [t.schema for t in load_level("1-1").tools()]
    body = {
        "model": "searcher",
        "tools": tools,
        "messages": [
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": "If nothing turns up, say you couldn't find it."}
                ],
            },
            {"role": "user", "content": [{"type": "text", "text": PROMPT}]},
        ],
    }
    status, reply = handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert (
        status == 200
        and reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "search_blocks"
    )


def test_without_tools_a_persona_says_it_cannot_search():
    body = {"model": "loopboros", "messages": [{"role": "user", "content": PROMPT}]}
    status, reply = handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200 and reply["choices"][0]["finish_reason"] == "stop"
    assert "no tool" in reply["choices"][0]["message"]["content"]


@pytest.mark.parametrize("result", ["Block \u00b2: star", "Block \u2460: star", "Block 7: star"])
def test_a_tool_result_with_any_kind_of_digit_gets_a_reply_not_a_server_error(result):
    # A learner's own search tool may write what it likes; "²" and "①" are digits to
    # str.isdigit, and int() cannot read them.
    tools = [t.schema for t in load_level("1-1").tools()]
    call = {"id": "c1", "type": "function"}
    call["function"] = {"name": "search_blocks", "arguments": json.dumps({"area": "Cave"})}
    body = {
        "model": "searcher",
        "tools": tools,
        "messages": [
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": result},
        ],
    }
    status, reply = handle("POST", "/v1/chat/completions", json.dumps(body).encode())
    assert status == 200, reply
    calls = [c["function"] for c in reply["choices"][0]["message"].get("tool_calls") or []]
    if result == "Block 7: star":  # a block it can read: the star, marked there
        assert calls == [{"name": "mark_star", "arguments": '{"item": "star", "block": 7}'}]
    else:  # no block number it can read: no star found, it searches on
        assert [c["name"] for c in calls] == ["search_blocks"]


@pytest.mark.parametrize(
    "body,status,code",
    [
        (b"{not json", 400, "invalid_json"),
        (b"[]", 400, "invalid_request"),
        (json.dumps({"model": "searcher"}).encode(), 400, "invalid_request"),
        (
            json.dumps(
                {"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}
            ).encode(),
            404,
            "model_not_found",
        ),
    ],
)
def test_bad_requests_get_an_openai_style_json_error(server, body, status, code):
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == status
    error = json.loads(caught.value.read())["error"]
    assert error["code"] == code and error["message"] and "Traceback" not in error["message"]


def test_python_m_whentostop_serve_answers_on_loopback(tmp_path, jupyter_env):
    port = free_port()
    cmd = [sys.executable, "-m", "whentostop", "serve", "--port", str(port)]
    with running(
        cmd, url=f"http://127.0.0.1:{port}/v1/models", env=jupyter_env, log=tmp_path / "serve.log"
    ):
        model = connect("loopboros", base_url=f"http://127.0.0.1:{port}/v1")
        run = run_agent(PROMPT, model=model, tools=load_level("1-1").tools(), max_turns=4)
        assert run.stop == Stop.MAX_TURNS and len(run.turns) == 4
    assert "127.0.0.1" in (tmp_path / "serve.log").read_text()


def test_a_persona_name_stands_for_the_configured_model_on_a_configured_endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    model = connect("loopboros")
    assert model.name == "llama3.2" and model.base_url == "http://127.0.0.1:11434/v1"
    assert connect("qwen2.5").name == "qwen2.5"  # a real model name is kept
    # An explicit base_url is taken at its word: the loopback mock server knows the personas.
    assert connect("loopboros", base_url="http://127.0.0.1:8765/v1").name == "loopboros"


def test_an_endpoint_without_a_model_asks_which_model(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    with pytest.raises(ValueError, match="Which model at http://127.0.0.1:11434/v1"):
        connect("searcher")


def test_a_real_model_name_without_an_endpoint_says_to_set_one(monkeypatch):
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    with pytest.raises(ValueError, match="set OPENAI_BASE_URL"):
        connect()
    assert connect("loopboros").name == "loopboros"  # an explicit persona still means the mock


@pytest.mark.parametrize(
    "model", ["searcher:3", "loopboros:latest", "sloppy:", "slow:x", "slow:-1"]
)
def test_a_persona_with_an_argument_it_does_not_take_is_no_model_like_any_unknown_name(model):
    with pytest.raises(NotFound) as raised:
        run_agent("Find the star.", model=connect(model), tools=load_level("1-1").tools())
    run = raised.value.run
    assert raised.value.status == 404 and f"The model '{model}' does not exist" in str(raised.value)
    assert run is not None and run.messages[0]["content"] == "Find the star."
