"""Security: the API key never shows, and `serve` is safe to leave running on a laptop.

A recognisable fake key is set; loopback servers that echo the Authorization header back (in a
401, a 500, even in a successful reply) try to smuggle it into every place a learner looks:
reprs, the transcript, events, exception messages, the partial run, the command line's output.
Searching for a fragment of it catches a key cut in half by an excerpt, too.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, committed_text
from faulty_server import FaultyServer, echo_authorization, run_to_end, send, serving_mock

from whentostop import AuthenticationError, EndpointError, ServerError, Stop, connect

pytestmark = pytest.mark.timeout(60)

KEY = "sk-test-LEAKCANARY-1234567890"
CANARY = "LEAKCANARY"  # a fragment: a key cut by an excerpt must not leak either


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return KEY


def echo_in_reply(h, req) -> None:
    """A 'successful' reply in which the model repeats the header it was sent."""
    send(h, 200, {"choices": [{"message": {"role": "assistant",
                                           "content": f"You sent {req.headers['authorization']}"}}]})


def echo_late(status: int):
    """An error whose key starts near character 200, where an excerpt would cut it in half."""
    return lambda h, req: send(h, status, {"error": {
        "message": "x" * 185 + " " + req.headers["authorization"] + " and more text after it"}})


def everything_shown(ending, model) -> str:
    """Every string a learner could see from a run or its error."""
    parts = [repr(model), str(model), repr(ending.run), str(ending.run), ending.run.summary(),
             json.dumps(ending.run.messages), repr(ending.run.turns), repr(ending.events)]
    if ending.error is not None:
        err = ending.error
        parts += [str(err), repr(err), repr(err.args), repr(vars(err)), str(err.run), repr(err.run)]
    return "\n".join(parts)


@pytest.mark.parametrize("act, outcome", [
    (echo_authorization(401), AuthenticationError),
    (echo_authorization(403), AuthenticationError),
    (echo_authorization(500), ServerError),
    (echo_late(401), AuthenticationError),
    (echo_late(503), ServerError),
    (echo_in_reply, Stop.END_TURN),
])
def test_the_key_never_appears_in_what_a_run_shows(key, act, outcome):
    with FaultyServer([act]) as server:
        model = connect("m", base_url=server.base_url, max_retries=1)
        ending = run_to_end(model=model)
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"  # it was sent
    if isinstance(outcome, type):
        assert isinstance(ending.error, outcome)
    else:
        assert ending.run.stop == outcome and "***" in ending.run.answer
    assert CANARY not in everything_shown(ending, model)


def test_the_key_is_not_in_the_repr_of_a_connection(key):
    model = connect("m", base_url="http://127.0.0.1:9/v1")
    assert repr(model) == "<OpenAIChat model='m' at http://127.0.0.1:9/v1, api_key=***>"


def test_a_key_in_a_bad_body_is_not_quoted(key):
    with FaultyServer([lambda h, req: send(h, 200, "garbage " + req.headers["authorization"],
                                           content_type="text/plain")]) as server:
        model = connect("m", base_url=server.base_url)
        ending = run_to_end(model=model)
    assert isinstance(ending.error, EndpointError) and "garbage Bearer ***" in str(ending.error)
    assert CANARY not in everything_shown(ending, model)


@pytest.mark.parametrize("act", [echo_authorization(401), echo_late(500), echo_in_reply])
@pytest.mark.parametrize("as_json", [False, True])
def test_the_key_never_appears_in_the_command_line_output(act, as_json):
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    env.pop("OPENAI_BASE_URL", None)
    with FaultyServer([act]) as server:
        cmd = [sys.executable, "-m", "whentostop", "run", "--base-url", server.base_url,
               "--model", "m", "--max-turns", "2"] + (["--json"] if as_json else [])
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 2), done.stderr
    assert server.requests and server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert CANARY not in done.stdout and CANARY not in done.stderr
    assert "Traceback" not in done.stderr


def test_committed_notebooks_have_no_outputs_and_no_keys():
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not notebooks:
        pytest.skip("no notebooks yet")
    for path in notebooks:
        text = committed_text(path)
        cells = json.loads(text)["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        assert all(c.get("outputs") == [] and c.get("execution_count") is None for c in code), path
        assert "sk-" not in text and "OPENAI_API_KEY=" not in text.replace("OPENAI_API_KEY=...", ""), path


# ---- serve: loopback by default, bounded requests, JSON errors only ----------------------


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory):
    """The mock server as a learner starts it; its log must hold no traceback at the end."""
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with serving_mock(log) as port:
        yield port, log
    assert "Traceback" not in log.read_text(), log.read_text()


def listening_addresses(port: int) -> list[str]:
    """Local addresses of sockets listening on `port`, from the kernel's own table."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, _, state = line.split()[1:4]
            address, port_hex = local.split(":")
            if int(port_hex, 16) == port and state == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def test_serve_listens_on_loopback_only_by_default(serve):
    port, _ = serve
    if not Path("/proc/net/tcp").exists():
        pytest.skip("needs Linux's /proc/net/tcp")
    assert listening_addresses(port) == ["0100007F"]  # 127.0.0.1, nothing else


def raw_request(port: int, data: bytes) -> tuple[int, dict, bytes]:
    """Send bytes as they are (a client httpx would never be), read the response."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
            head, _, body = response.partition(b"\r\n\r\n")
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")]
            if length and len(body) >= length[0]:
                break
    status = int(response.split(b" ", 2)[1])
    head, _, body = response.partition(b"\r\n\r\n")
    return status, json.loads(body), head


def assert_openai_error(status: int, body: dict, expected: int) -> None:
    assert status == expected
    assert set(body) == {"error"} and isinstance(body["error"]["message"], str)
    assert {"type", "code"} <= set(body["error"])
    assert "Traceback" not in body["error"]["message"]


def test_serve_refuses_a_body_over_its_size_limit_with_a_json_413(serve):
    port, _ = serve
    from whentostop.mock.endpoint import MAX_REQUEST_BYTES

    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {MAX_REQUEST_BYTES + 1}\r\n\r\n").encode()
    status, body, headers = raw_request(port, head + b"{")
    assert_openai_error(status, body, 413)
    assert str(MAX_REQUEST_BYTES) in body["error"]["message"]
    assert b"connection: close" in headers.lower()


@pytest.mark.parametrize("method, path, payload, expected, says", [
    ("POST", "/v1/chat/completions", b"{not json", 400, "not valid JSON"),
    ("POST", "/v1/chat/completions", b"", 400, "not valid JSON"),
    ("POST", "/v1/chat/completions", b"[1, 2]", 400, "must be a JSON object"),
    ("POST", "/v1/chat/completions", b'{"model": 5, "messages": []}', 400, "'model' is required"),
    ("POST", "/v1/chat/completions", b'{"model": "searcher", "messages": "hi"}', 400, "'messages' is required"),
    ("POST", "/v1/chat/completions", b'{"model": "searcher", "messages": [{"role": "user", "content": 3}]}',
     400, "content must be a string"),
    ("POST", "/v1/chat/completions", b'{"model": "searcher", "messages": [{"role": "user", "content": "hi"}], "tools": {}}',
     400, "'tools' must be an array"),
    ("POST", "/v1/chat/completions", b'{"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}',
     404, "The model 'gpt-9' does not exist"),
    ("GET", "/v1/chat/completions", b"", 405, "use POST"),
    ("DELETE", "/v1/models", b"", 405, "use GET"),
    ("PUT", "/v1/chat/completions", b"{}", 405, "use POST"),
    ("GET", "/admin", b"", 404, "no route /admin"),
    ("POST", "/v2/chat/completions", b"{}", 404, "no route"),
])
def test_serve_answers_malformed_requests_with_an_openai_json_error(serve, method, path, payload, expected, says):
    port, _ = serve
    response = httpx.request(method, f"http://127.0.0.1:{port}{path}", content=payload, timeout=10)
    assert response.headers["content-type"] == "application/json"
    assert_openai_error(response.status_code, response.json(), expected)
    assert says in response.json()["error"]["message"]


@pytest.mark.parametrize("data, expected", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /v1/models HTTP/9.9\r\n\r\n", 505),
    (b"BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 501),
    (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n", 400),
    (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
])
def test_serve_answers_broken_http_with_a_json_error_not_an_html_page(serve, data, expected):
    port, _ = serve
    status, body, headers = raw_request(port, data)
    assert_openai_error(status, body, expected)
    assert b"application/json" in headers


def test_serve_still_answers_after_all_that(serve):
    port, _ = serve
    run = run_to_end(model=connect("searcher", base_url=f"http://127.0.0.1:{port}/v1"),
                     prompt="Find the star in this level.", max_turns=3).run
    assert run.stop is not None and run.turns
