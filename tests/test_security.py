"""Security: the API key never shows, and `serve` is safe to leave running on a laptop.

A recognisable fake key is set; loopback servers that echo the Authorization header back (in a
401, a 500, even in a successful reply) try to smuggle it into every place a learner looks:
reprs, the transcript, events, exception messages, the partial run, the command line's output.
Searching for a fragment of it catches a key cut in half by an excerpt, too.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, committed_text
from faulty_server import (
    FaultyServer,
    cli_command,
    echo_authorization,
    run_to_end,
    send,
    serving_mock,
)

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
    send(
        h,
        200,
        {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": f"You sent {req.headers['authorization']}",
                    }
                }
            ]
        },
    )


def echo_as_text_call(h, req) -> None:
    """A small model writing a tool call as text, with the header it was sent as an argument:
    the note and the warning quote the reply's text."""
    call = json.dumps(
        {"name": "search_blocks", "arguments": {"area": req.headers["authorization"]}}
    )
    send(h, 200, {"choices": [{"message": {"role": "assistant", "content": call}}]})


def echo_late(status: int):
    """An error whose key starts near character 200, where an excerpt would cut it in half."""
    return lambda h, req: send(
        h,
        status,
        {
            "error": {
                "message": "x" * 185
                + " "
                + req.headers["authorization"]
                + " and more text after it"
            }
        },
    )


def everything_shown(ending, model) -> str:
    """Every string a learner could see from a run or its error."""
    parts = [
        repr(model),
        str(model),
        repr(ending.run),
        str(ending.run),
        ending.run.summary(),
        ending.run.answer_line(),  # the answer, or why there is none: it may quote the reply
        json.dumps(ending.run.messages),
        repr(ending.run.turns),
        repr(ending.events),
        *ending.run.warnings,
        *(note.text for note in ending.run.notes),
    ]
    if ending.error is not None:
        err = ending.error
        parts += [str(err), repr(err), repr(err.args), repr(vars(err)), str(err.run), repr(err.run)]
    return "\n".join(parts)


@pytest.mark.parametrize(
    "act, outcome",
    [
        (echo_authorization(401), AuthenticationError),
        (echo_authorization(403), AuthenticationError),
        (echo_authorization(500), ServerError),
        (echo_late(401), AuthenticationError),
        (echo_late(503), ServerError),
        (echo_in_reply, Stop.END_TURN),
        (echo_as_text_call, Stop.END_TURN),
    ],
)
def test_the_key_never_appears_in_what_a_run_shows(key, act, outcome):
    from whentostop import load_level

    with FaultyServer([act]) as server:
        model = connect("m", base_url=server.base_url, max_retries=1)
        ending = run_to_end(model=model, tools=load_level("1-1").tools())
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"  # it was sent
    if isinstance(outcome, type):
        assert isinstance(ending.error, outcome)
    else:
        assert ending.run.stop == outcome and "***" in ending.run.turns[-1].text
    if act is echo_as_text_call:
        assert ending.run.warnings and ending.run.notes  # they quote the reply: still no key
    assert CANARY not in everything_shown(ending, model)


def test_the_key_is_not_in_the_repr_of_a_connection(key):
    model = connect("m", base_url="http://127.0.0.1:9/v1")
    assert repr(model) == "<OpenAIChat model='m' at http://127.0.0.1:9/v1, api_key=***>"


def test_a_key_in_a_bad_body_is_not_quoted(key):
    with FaultyServer(
        [
            lambda h, req: send(
                h, 200, "garbage " + req.headers["authorization"], content_type="text/plain"
            )
        ]
    ) as server:
        model = connect("m", base_url=server.base_url)
        ending = run_to_end(model=model)
    assert isinstance(ending.error, EndpointError) and "garbage Bearer ***" in str(ending.error)
    assert CANARY not in everything_shown(ending, model)


@pytest.mark.parametrize(
    "act", [echo_authorization(401), echo_late(500), echo_in_reply, echo_as_text_call]
)
@pytest.mark.parametrize("as_json", [False, True])
def test_the_key_never_appears_in_the_command_line_output(act, as_json):
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    env.pop("OPENAI_BASE_URL", None)
    with FaultyServer([act]) as server:
        cmd = cli_command(server.base_url, "--max-turns", "2", as_json=as_json)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 2, 3, 4), done.stderr
    assert server.requests and server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert CANARY not in done.stdout and CANARY not in done.stderr
    assert "Traceback" not in done.stderr


# ---- a key echoed in another spelling, or carried in the URL -------------------------------


SLASHED = "sk-test/LEAKCANARY/1234+567890="  # a key with characters JSON and URLs escape


def json_escaped(text: str, every: bool = True) -> str:
    r"""`text` as a JSON string's inside, its characters as \uXXXX escapes (and `/` as `\/`)."""
    return "".join(
        "\\/" if c == "/" else f"\\u{ord(c):04x}" if every or c.isupper() else c for c in text
    )


def decoded(text: str) -> str:
    """`text` with the escapes of JSON, URLs and HTML undone, twice (an escape of an escape)."""
    for _ in range(2):
        text = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
        text = re.sub(r"\\+x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
        text = html.unescape(urllib.parse.unquote(re.sub(r"\\+/", "/", text)))
    return text


def percent(text: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in text)


def html_refs(text: str) -> str:
    return "".join(f"&#{ord(c)};" if i % 2 else f"&#x{ord(c):x};" for i, c in enumerate(text))


def echo_raw(status: int, template: str, content_type: str = "application/json"):
    """Answer `template` with {key} replaced by the bare key the client sent, as written."""

    def act(h, req):
        key = req.headers["authorization"].removeprefix("Bearer ")
        send(h, status, template.replace("{key}", key), content_type=content_type)

    return act


def spelled(
    status: int, spell, content_type: str = "application/json", template: str | None = None
):
    template = template or '{"error": {"message": "invalid key: {key}"}}'

    def act(h, req):
        key = req.headers["authorization"].removeprefix("Bearer ")
        send(h, status, template.replace("{key}", spell(key)), content_type=content_type)

    act.spell = spell
    return act


ESCAPED_ECHOES = {
    "json \\u escapes": spelled(401, json_escaped),
    "json \\u escapes, upper-case hex": spelled(
        401, lambda k: json_escaped(k).upper().replace("\\U", "\\u")
    ),
    "some characters escaped": spelled(401, lambda k: json_escaped(k, every=False)),
    "json \\/": spelled(401, lambda k: k.replace("/", "\\/")),
    "percent-encoded in a URL": spelled(404, lambda k: "https://gw.example/v1?key=" + percent(k)),
    "html character references": spelled(
        502, html_refs, "text/html", "<html><body>bad upstream key {key}</body></html>"
    ),
    "html page, json-escaped": spelled(
        502, json_escaped, "text/html", '<script>var k = "{key}";</script>'
    ),
    "upper-cased": spelled(403, str.upper),
    "\\x escapes (a script's string)": spelled(
        502,
        lambda k: "".join(f"\\x{ord(c):02x}" for c in k),
        "text/html",
        "<script>var k = '{key}';</script>",
    ),
    "base64, url-safe and unpadded": spelled(
        401, lambda k: base64.urlsafe_b64encode(k.encode()).decode().rstrip("=")
    ),
    "cut by the gateway": spelled(401, lambda k: k[:20] + "..."),
    "its tail, by the gateway": spelled(401, lambda k: "..." + k[6:]),
    "in an error object, not a string": spelled(
        400, json_escaped, template='{"error": {"message": {"detail": "key {key} refused"}}}'
    ),
    "in a reply with no choices": spelled(200, json_escaped, template='{"echo": "{key}"}'),
    "in a 200's text": spelled(
        200,
        json_escaped,
        template=('{"choices": [{"message": {"role": "assistant", "content": "You sent {key}"}}]}'),
    ),
    "in a 200's tool call": spelled(
        200,
        json_escaped,
        template=(
            '{"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c", '
            '"type": "function", "function": {"name": "{key}", "arguments": "{\\"key\\": \\"{key}\\"}"}}]}}]}'
        ),
    ),
}


@pytest.mark.parametrize("secret", [KEY, SLASHED])
@pytest.mark.parametrize("echo", ESCAPED_ECHOES.values(), ids=ESCAPED_ECHOES.keys())
def test_a_key_echoed_in_another_spelling_is_redacted_too(monkeypatch, secret, echo):
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with FaultyServer([echo]) as server:
        model = connect("m", base_url=server.base_url, max_retries=0)
        ending = run_to_end(model=model, max_turns=1)
    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    shown = everything_shown(ending, model)
    assert echo.spell(secret) not in shown  # as the endpoint spelled it
    assert CANARY.lower() not in decoded(shown).lower()  # nor in any spelling undone
    assert "***" in shown


@pytest.mark.parametrize(
    "echo", [ESCAPED_ECHOES["json \\u escapes"], ESCAPED_ECHOES["in a 200's text"]]
)
@pytest.mark.parametrize("as_json", [False, True])
def test_an_escaped_key_never_appears_in_the_command_line_output(echo, as_json):
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    env.pop("OPENAI_BASE_URL", None)
    with FaultyServer([echo]) as server:
        cmd = cli_command(server.base_url, "--max-turns", "1", as_json=as_json)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 2), done.stderr
    assert CANARY.lower() not in decoded(done.stdout + done.stderr).lower()


def with_userinfo(url: str, userinfo: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{userinfo}@{rest}"


@pytest.mark.parametrize(
    "userinfo",
    [f"user:{KEY}", KEY, f"user:{percent(KEY)}"],
    ids=["user:key", "key as user", "percent-encoded"],
)
def test_a_key_in_the_base_urls_userinfo_is_sent_but_never_shown(userinfo):
    with FaultyServer([echo_authorization(401)]) as server:
        model = connect("m", base_url=with_userinfo(server.base_url, userinfo), max_retries=0)
        ending = run_to_end(model=model)
    assert server.requests[0].headers["authorization"].startswith("Basic ")  # httpx sent it
    assert isinstance(ending.error, AuthenticationError)
    assert model.base_url == with_userinfo(server.base_url, "***")
    assert ending.error.url == with_userinfo(server.base_url, "***") + "/chat/completions"
    assert CANARY not in everything_shown(ending, model)
    assert "Basic ***" in str(ending.error)  # the echoed header: base64 of user:key
    assert "refused the API key. Check the credentials in the base URL" in str(ending.error)


@pytest.mark.parametrize("typed", ["/", "?", "#"])
@pytest.mark.parametrize("userinfo", ["user:{key}", "{key}"], ids=["user:key", "key as user"])
def test_a_key_typed_with_a_slash_a_question_mark_or_a_hash_is_refused_and_never_shown(
    typed, userinfo
):
    # a key's "/" typed as it is ends the URL's authority there: the URL is broken (httpx: the
    # port is "sk-ab", quoted) or points at the host "sk-ab"; either way the key stays hidden
    key = f"sk-ab{typed}{KEY}"
    url = with_userinfo("http://127.0.0.1:9/v1", userinfo.format(key=key))
    with pytest.raises(ValueError) as caught:
        connect("m", base_url=url)
    said = str(caught.value)
    assert said.startswith("http://***@127.0.0.1:9/v1 is not a valid URL (a key in it holds")
    assert "sk-ab" not in said and CANARY not in said


def test_a_key_in_the_userinfo_of_an_unreachable_url_is_not_in_the_error():
    from conftest import free_port

    url = f"http://user:{KEY}@127.0.0.1:{free_port()}/v1"
    model = connect("m", base_url=url)
    ending = run_to_end(model=model)
    assert "Could not reach http://***@127.0.0.1:" in str(ending.error)
    assert CANARY not in everything_shown(ending, model)


def test_a_key_in_the_userinfo_of_openai_base_url_is_not_in_a_usage_error(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://user:{KEY}@127.0.0.1:9/v1")
    with pytest.raises(ValueError) as caught:
        connect()
    assert "Which model at http://***@127.0.0.1:9/v1?" in str(caught.value)
    assert CANARY not in str(caught.value)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_key_in_the_userinfo_never_appears_in_the_command_line_output(as_json):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    with FaultyServer([echo_authorization(401)]) as server:
        cmd = cli_command(with_userinfo(server.base_url, f"user:{KEY}"), as_json=as_json)
        done = subprocess.run(
            cmd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert CANARY not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_committed_notebooks_have_no_outputs_and_no_keys():
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not notebooks:
        pytest.skip("no notebooks yet")
    for path in notebooks:
        text = committed_text(path)
        cells = json.loads(text)["cells"]
        code = [c for c in cells if c["cell_type"] == "code"]
        assert all(c.get("outputs") == [] and c.get("execution_count") is None for c in code), path
        assert "sk-" not in text and "OPENAI_API_KEY=" not in text.replace(
            "OPENAI_API_KEY=...", ""
        ), path


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
            length = [
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
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

    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {MAX_REQUEST_BYTES + 1}\r\n\r\n"
    ).encode()
    status, body, headers = raw_request(port, head + b"{")
    assert_openai_error(status, body, 413)
    assert str(MAX_REQUEST_BYTES) in body["error"]["message"]
    assert b"connection: close" in headers.lower()


@pytest.mark.parametrize(
    "method, path, payload, expected, says",
    [
        ("POST", "/v1/chat/completions", b"{not json", 400, "not valid JSON"),
        ("POST", "/v1/chat/completions", b"", 400, "not valid JSON"),
        ("POST", "/v1/chat/completions", b"[1, 2]", 400, "must be a JSON object"),
        (
            "POST",
            "/v1/chat/completions",
            b'{"model": 5, "messages": []}',
            400,
            "'model' is required",
        ),
        (
            "POST",
            "/v1/chat/completions",
            b'{"model": "searcher", "messages": "hi"}',
            400,
            "'messages' is required",
        ),
        (
            "POST",
            "/v1/chat/completions",
            b'{"model": "searcher", "messages": [{"role": "user", "content": 3}]}',
            400,
            "content must be a string",
        ),
        (
            "POST",
            "/v1/chat/completions",
            b'{"model": "searcher", "messages": [{"role": "user", "content": "hi"}], "tools": {}}',
            400,
            "'tools' must be an array",
        ),
        (
            "POST",
            "/v1/chat/completions",
            b'{"model": "gpt-9", "messages": [{"role": "user", "content": "hi"}]}',
            404,
            "The model 'gpt-9' does not exist",
        ),
        ("GET", "/v1/chat/completions", b"", 405, "use POST"),
        ("DELETE", "/v1/models", b"", 405, "use GET"),
        ("PUT", "/v1/chat/completions", b"{}", 405, "use POST"),
        ("GET", "/admin", b"", 404, "no route /admin"),
        ("POST", "/v2/chat/completions", b"{}", 404, "no route"),
    ],
)
def test_serve_answers_malformed_requests_with_an_openai_json_error(
    serve, method, path, payload, expected, says
):
    port, _ = serve
    response = httpx.request(method, f"http://127.0.0.1:{port}{path}", content=payload, timeout=10)
    assert response.headers["content-type"] == "application/json"
    assert_openai_error(response.status_code, response.json(), expected)
    assert says in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET /v1/models HTTP/9.9\r\n\r\n", 505),
        (b"BREW /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", 501),
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: lots\r\n\r\n", 400),
        (
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            411,
        ),
    ],
)
def test_serve_answers_broken_http_with_a_json_error_not_an_html_page(serve, data, expected):
    port, _ = serve
    status, body, headers = raw_request(port, data)
    assert_openai_error(status, body, expected)
    assert b"application/json" in headers


def test_serve_still_answers_after_all_that(serve):
    port, _ = serve
    run = run_to_end(
        model=connect("searcher", base_url=f"http://127.0.0.1:{port}/v1"),
        prompt="Find the star in this level.",
        max_turns=3,
    ).run
    assert run.stop is not None and run.turns


def nested(depth: int, where: str) -> bytes:
    """A request body with `depth` nested arrays: the whole body, or inside a message."""
    deep = "[" * depth + "]" * depth
    if where == "body":
        return deep.encode()
    message = {"role": "user", "content": "<deep>"}
    if where == "tool call":
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "x", "arguments": "<deep>"}}
            ],
        }
    body = json.dumps(
        {"model": "searcher", "messages": [{"role": "user", "content": "hi"}, message]}
    )
    return body.replace('"<deep>"', deep).encode()


@pytest.mark.parametrize(
    "depth, where",
    [
        (100_000, "body"),
        (100_000, "content"),
        (5_000, "content"),
        (900, "content"),
        (900, "tool call"),
    ],
)
def test_serve_answers_a_deeply_nested_body_with_a_json_400(serve, depth, where):
    port, _ = serve
    response = httpx.post(
        f"http://127.0.0.1:{port}/v1/chat/completions", content=nested(depth, where), timeout=10
    )
    assert_openai_error(response.status_code, response.json(), 400)
    assert "nested too deeply" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "persona", ["slow:1e9", "slow:inf", "slow:1e400", "slow:nan", "slow:-1", "slow:601"]
)
def test_serve_refuses_a_slow_persona_beyond_its_cap_at_once(serve, persona):
    from whentostop.mock.personas import MAX_SLOW_S

    port, _ = serve
    body = {"model": persona, "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=10)
    assert_openai_error(response.status_code, response.json(), 404)
    assert f"slow takes 0 to {MAX_SLOW_S:g} seconds" in response.json()["error"]["message"]


def test_a_slow_persona_beyond_the_cap_is_not_found_in_process_too():
    from whentostop import NotFound

    with pytest.raises(NotFound, match="slow takes 0 to 600 seconds"):
        connect("slow:1e9").complete([{"role": "user", "content": "hi"}], [])


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="Linux: SIGSTOP and its TCP backlog")
def test_serve_takes_a_burst_of_a_class_worth_of_connections(tmp_path):
    """A class sharing one `serve`: 100 learners connect at the same moment. The server is
    paused (SIGSTOP) while they connect, so every connection must fit in its listen backlog
    (socketserver's default of 5 drops the rest: their connects wait a second, or fail)."""
    import selectors
    import signal
    import time

    from conftest import free_port, running

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    cmd = [sys.executable, "-m", "whentostop", "serve", "--port", str(port)]
    with running(
        cmd, url=f"http://127.0.0.1:{port}/v1/models", env=env, log=tmp_path / "serve.log"
    ) as proc:
        os.kill(proc.pid, signal.SIGSTOP)
        socks = []
        try:
            with selectors.DefaultSelector() as selector:
                for _ in range(100):
                    sock = socket.socket()
                    sock.setblocking(False)
                    sock.connect_ex(("127.0.0.1", port))
                    selector.register(sock, selectors.EVENT_WRITE)
                    socks.append(sock)
                connected, deadline = set(), time.monotonic() + 3
                while len(connected) < len(socks) and time.monotonic() < deadline:
                    for key, _ in selector.select(timeout=0.1):
                        if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                            connected.add(key.fileobj)
                        selector.unregister(key.fileobj)
            assert len(connected) == 100, f"only {len(connected)} of 100 got through the backlog"
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        try:
            for sock in socks:
                sock.setblocking(True)
                sock.settimeout(10)
                sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answers = [sock.makefile("rb").readline() for sock in socks]
        finally:
            for sock in socks:
                sock.close()
    assert answers == [b"HTTP/1.1 200 OK\r\n"] * 100


@pytest.mark.parametrize(
    "text",
    [
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        "**bold** and _it_ and `code`",
        "cost $0.01 to $0.20",
        "a | b | c",
        "&lt;script&gt;",
    ],
)
def test_markdown_text_leaves_no_markup_for_a_renderer_to_act_on(text: str) -> None:
    from whentostop._text import markdown_text

    shown = markdown_text(text)
    assert "<" not in shown and ">" not in shown
    assert not re.search(r"(?<!\\)[`*_\[\]|$]", shown.replace("&amp;", "").replace("&lt;", ""))
