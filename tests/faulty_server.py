"""A small, configurable, misbehaving OpenAI-compatible server on 127.0.0.1, for fault tests.

Each request to `/v1/chat/completions` takes the next *act* from a script (the last act repeats
when the script runs out). An act is a function `act(handler, request) -> None` that writes
whatever it likes to the socket: a good completion, an HTTP error, garbage, nothing for a
while, or a trickle. Every request is recorded (`server.requests`) so tests can assert what
the client sent.

    with FaultyServer([hang(5), completion("hi")]) as server:
        model = connect("m", base_url=server.base_url, timeout_s=0.5)

Everything is bounded: a hanging act waits on the server's stop event, so stopping the server
releases it; handler sockets time out after 30 s.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from whentostop import EndpointError, Run, SessionEnd, run_agent, tool


@dataclass
class Request:
    """What the client sent: method, path, headers (lower-cased names) and the JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


Act = Callable[["_Handler", Request], None]


@dataclass
class _State:
    script: list[Act]
    keep_alive: bool = True
    requests: list[Request] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_act(self) -> Act:
        with self.lock:
            index = min(len(self.requests) - 1, len(self.script) - 1)
            return self.script[index]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        request = Request("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        state = self.server.state
        with state.lock:
            state.requests.append(request)
        state.next_act()(self, request)

    def do_GET(self) -> None:
        send(self, 200, {"object": "list", "data": [{"id": "m", "object": "model"}]})

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-trickle is expected here, not news


class FaultyServer:
    """The misbehaving server; a context manager that starts and stops it."""

    def __init__(self, script: Sequence[Act], *, keep_alive: bool = True) -> None:
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.state = _State(list(script), keep_alive=keep_alive)
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[Request]:
        return self.httpd.state.requests

    def __enter__(self) -> FaultyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.state.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)


# ---- writing answers ----------------------------------------------------------------------


def send(
    h: _Handler,
    status: int,
    data: Any,
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
) -> None:
    """Write one whole response: JSON for anything but bytes/str, which go out as they are."""
    if isinstance(data, bytes):
        payload = data
    elif isinstance(data, str):
        payload = data.encode()
    else:
        payload = json.dumps(data).encode()
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(payload)))
    for name, value in (headers or {}).items():
        h.send_header(name, value)
    if not h.server.state.keep_alive:
        h.send_header("Connection", "close")
        h.close_connection = True
    h.end_headers()
    h.wfile.write(payload)
    h.wfile.flush()


def chat(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    prompt_tokens: int = 10,
    completion_tokens: int = 3,
) -> dict[str, Any]:
    """A well-formed chat completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-faulty",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def cli_command(base_url: str, *args: str, as_json: bool = False) -> list[str]:
    """The real command line, `python -m whentostop run` against `base_url` with the model `m`,
    for a child process: `args` after it, then `--json` if asked."""
    cmd = [sys.executable, "-m", "whentostop", "run", "--base-url", base_url, "--model", "m"]
    return cmd + list(args) + (["--json"] if as_json else [])


def call(name: str, arguments: Any, call_id: str = "call_1") -> dict[str, Any]:
    """One tool call; `arguments` that is not a string is sent as JSON text."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


# ---- acts ---------------------------------------------------------------------------------


def reply(
    data: Any,
    status: int = 200,
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
) -> Act:
    """Answer at once with `data` (a dict becomes JSON; str/bytes are sent raw)."""
    return lambda h, req: send(h, status, data, headers, content_type)


def completion(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
) -> Act:
    return reply(chat(content, tool_calls, finish_reason))


def error(
    status: int, message: str = "something went wrong", headers: dict[str, str] | None = None
) -> Act:
    """An OpenAI-style JSON error."""
    body = {"error": {"message": message, "type": "error", "code": status}}
    return reply(body, status, headers)


def echo_authorization(status: int = 401) -> Act:
    """An error whose message repeats the Authorization header: a careless server does this."""
    return lambda h, req: send(
        h, status, {"error": {"message": f"bad key: {req.headers.get('authorization', '')}"}}
    )


def hang(seconds: float) -> Act:
    """Read the request, then say nothing for `seconds` (or until the server stops)."""

    def act(h: _Handler, req: Request) -> None:
        h.server.state.stopping.wait(seconds)
        h.close_connection = True

    return act


def hang_up() -> Act:
    """Read the request and close the connection without a word: a server that crashed."""

    def act(h: _Handler, req: Request) -> None:
        h.close_connection = True

    return act


def trickle(data: Any, chunk: int = 8, delay_s: float = 0.2) -> Act:
    """Send headers at once, then the body `chunk` bytes every `delay_s`: a slow stream."""
    payload = json.dumps(data).encode()

    def act(h: _Handler, req: Request) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.flush()
        for start in range(0, len(payload), chunk):
            if h.server.state.stopping.wait(delay_s):
                break
            try:
                h.wfile.write(payload[start : start + chunk])
                h.wfile.flush()
            except OSError:
                break  # the client gave up: that is what the test wanted
        h.close_connection = True

    return act


def trickle_headers(delay_s: float = 0.2) -> Act:
    """Send the status line and headers a byte every `delay_s`, and never finish them: each
    read is quick, so a per-read timeout never fires."""

    def act(h: _Handler, req: Request) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"." * 10_000
        for i in range(len(head)):
            if h.server.state.stopping.wait(delay_s):
                break
            try:
                h.wfile.write(head[i : i + 1])
                h.wfile.flush()
            except OSError:
                break
        h.close_connection = True

    return act


def timed(act: Act, log: list[float]) -> Act:
    """Record when each request arrived (monotonic), then play `act`."""

    def wrapped(h: _Handler, req: Request) -> None:
        log.append(time.monotonic())
        act(h, req)

    return wrapped


# ---- running against it -------------------------------------------------------------------


@dataclass
class Ending:
    """How a run under a fault ended: the run (whole or partial), the error if any, the events."""

    run: Run
    error: EndpointError | None
    events: list[Any]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def run_to_end(prompt: str = "Look up the key 'a'.", **kwargs: Any) -> Ending:
    """Run the loop and check the promise that holds under every fault: it ends with exactly one
    outcome or one `EndpointError` carrying the run, and exactly one SessionEnd that agrees."""
    events: list[Any] = []
    error: EndpointError | None = None
    try:
        run = run_agent(prompt, on_event=events.append, **kwargs)
    except EndpointError as exc:
        error, run = exc, exc.run
    ends = [e for e in events if isinstance(e, SessionEnd)]
    assert len(ends) == 1, f"expected one SessionEnd, got {ends}"
    assert run is not None, "an EndpointError must carry the partial run"
    if error is None:
        assert run.stop is not None and ends[0].reason == run.stop
    else:
        assert run.stop is None and ends[0].reason is None and ends[0].error == str(error)
        assert run.error == str(error)
        assert run.messages[0]["role"] in ("system", "user")  # the transcript is kept
    return Ending(run, error, events)


@contextmanager
def serving_mock(log: Path) -> Iterator[int]:
    """`python -m whentostop serve --port P` as a learner starts it (no --host); yields P."""
    from conftest import free_port, running

    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    cmd = [sys.executable, "-m", "whentostop", "serve", "--port", str(port)]
    with running(cmd, url=f"http://127.0.0.1:{port}/v1/models", env=env, log=log):
        yield port


def lookup(key: str) -> str:
    """Look a key up."""
    return f"the value of {key} is 42"


LOOKUP_TOOLS = [tool(lookup)]
"""One harmless tool for the fault tests: what the scripted replies ask for."""
ASK_LOOKUP = completion(tool_calls=[call("lookup", {"key": "a"})])
ANSWER = completion("It is 42.")
