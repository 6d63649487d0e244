"""The runs being compared: the library's, and the loops a learner would write without it.

All of them do the same work: the Loopboros on level 1-1, which never finds the star and never
gives up, so every run lasts exactly `max_turns` requests, each resending the growing history.
The bare loops call the level's two tool functions directly and send the same messages; the
benchmark checks that (`same_messages`) before it times anything.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from whentostop import OpenAIChat, Run, connect, load_level, run_agent
from whentostop.mock import mock_transport
from whentostop.models import MOCK_BASE_URL

PROMPT = "Find the star in this level."
PERSONA = "loopboros"
LEVEL = "1-1"
TURNS = 25

# The bare loops' tool list, as a learner would paste it from the docs: fixed JSON, built once.
SCHEMAS: list[dict[str, Any]] = json.loads(
    json.dumps([t.schema for t in load_level(LEVEL).tools()])
)


def library_run(
    model: OpenAIChat, max_turns: int = TURNS, tools: Callable[..., list] | None = None
) -> Run:
    """What a learner writes with the library: load the level, offer its tools, run."""
    level = load_level(LEVEL)
    offered = tools(level) if tools else level.tools()
    return run_agent(PROMPT, model=model, tools=offered, max_turns=max_turns)


def bare_httpx_loop(client: httpx.Client, max_turns: int = TURNS) -> list[dict[str, Any]]:
    """The same loop with plain httpx and no library code; returns the messages it sent."""
    level = load_level(LEVEL)
    functions = {"search_blocks": level.search_blocks, "mark_star": level.mark_star}
    messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
    for _ in range(max_turns):
        reply = client.post(
            "/chat/completions", json={"model": PERSONA, "messages": messages, "tools": SCHEMAS}
        )
        reply.raise_for_status()
        if not _take_turn(reply.json(), messages, functions):
            break
    return messages


def seed_loop(base_url: str, max_turns: int = TURNS) -> list[dict[str, Any]]:
    """The seed's from-scratch loop: standard library only, a new connection for every request."""
    level = load_level(LEVEL)
    functions = {"search_blocks": level.search_blocks, "mark_star": level.mark_star}
    messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
    for _ in range(max_turns):
        body = json.dumps({"model": PERSONA, "messages": messages, "tools": SCHEMAS}).encode()
        request = urllib.request.Request(
            f"{base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            data = json.loads(response.read())
        if not _take_turn(data, messages, functions):
            break
    return messages


def _take_turn(
    data: dict[str, Any], messages: list[dict[str, Any]], functions: dict[str, Callable[..., str]]
) -> bool:
    """Append the reply and its tool results; False when the model asked for no tool."""
    message = data["choices"][0]["message"]
    messages.append(message)
    calls = message.get("tool_calls") or []
    for call in calls:
        try:
            output = functions[call["function"]["name"]](
                **json.loads(call["function"]["arguments"])
            )
        except Exception as exc:  # the level's tools raise for a wrong area: the model reads it
            output = f"Error: {exc}"
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return bool(calls)


def mock_client(transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """A plain httpx client on the in-process mock, the way the bare loop would make one."""
    return httpx.Client(base_url=MOCK_BASE_URL, transport=transport or mock_transport())


class TimedTransport(httpx.BaseTransport):
    """The in-process mock, with a stopwatch around it: what is left of a run's time is ours."""

    def __init__(self) -> None:
        self.inner = mock_transport()
        self.seconds = 0.0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        start = time.perf_counter()
        response = self.inner.handle_request(request)
        self.seconds += time.perf_counter() - start
        return response


def same_messages(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def mock_model(transport: httpx.BaseTransport | None = None) -> OpenAIChat:
    """The library's model on the in-process mock (`connect(PERSONA)`, or on a given transport)."""
    if transport is None:
        return connect(PERSONA)
    return OpenAIChat(PERSONA, MOCK_BASE_URL, transport=transport)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The mock server as shipped before the fix this benchmark led to (Nagle left on), for "before".
NAGLE_ON = (
    "import sys; from whentostop.mock.endpoint import MockServer, _Handler; "
    "_Handler.disable_nagle_algorithm = False; "
    "s = MockServer('127.0.0.1', int(sys.argv[1])); print('at', s.base_url, flush=True); "
    "s.serve_forever()"
)


# The same server behind TLS, as a hosted endpoint is (certificate and key: argv[2], argv[3]).
TLS = (
    "import ssl, sys; from whentostop.mock.endpoint import MockServer; "
    "s = MockServer('127.0.0.1', int(sys.argv[1])); "
    "ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[2], sys.argv[3]); "
    "s.httpd.socket = ctx.wrap_socket(s.httpd.socket, server_side=True); s.serve_forever()"
)


@contextmanager
def serving(
    nagle: bool = False, tls: tuple[str, str] | None = None, start_timeout_s: float = 30.0
) -> Iterator[str]:
    """`python -m whentostop serve` on a free loopback port; yields its base URL, then stops it.

    `tls=(certificate, key)` serves HTTPS with them (the client must trust the certificate)."""
    port = free_port()
    if tls:
        cmd = [sys.executable, "-c", TLS, str(port), *tls]
    elif nagle:
        cmd = [sys.executable, "-c", NAGLE_ON, str(port)]
    else:
        cmd = [
            sys.executable,
            "-m",
            "whentostop",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base_url = f"{'https' if tls else 'http'}://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(proc, base_url, start_timeout_s)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def trusted_certificate(folder: str) -> Iterator[tuple[str, str] | None]:
    """A self-signed certificate for 127.0.0.1, trusted by this process (httpx and urllib both
    read SSL_CERT_FILE) while the block runs; None when `openssl` is not installed."""
    import os
    import shutil

    import whentostop.client as client

    if shutil.which("openssl") is None:
        yield None
        return
    cert, key = f"{folder}/cert.pem", f"{folder}/key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            key,
            "-out",
            cert,
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    before = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = cert
    client._ssl_context.cache_clear()  # the library's one shared context, built anew with it
    try:
        yield cert, key
    finally:
        if before is None:
            os.environ.pop("SSL_CERT_FILE", None)
        else:
            os.environ["SSL_CERT_FILE"] = before
        client._ssl_context.cache_clear()


def _wait_until_up(proc: subprocess.Popen, base_url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"the mock server exited with {proc.returncode}: "
                f"{proc.stderr.read().decode(errors='replace') if proc.stderr else ''}"
            )
        try:
            if httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"the mock server did not answer at {base_url} within {timeout_s:g} s")
