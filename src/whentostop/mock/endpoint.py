"""The mock's OpenAI-compatible endpoint, two ways: an httpx transport (in-process, no socket)
and a real HTTP server on loopback. Both go through `handle`, so they answer identically.

    POST /v1/chat/completions   the request's `model` picks the persona
    GET  /v1/models             the personas

A bad request gets an OpenAI-style JSON error (`{"error": {"message", "type", "code"}}`),
never a stack trace.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from ..i18n import _
from .choice import choice_problem
from .personas import MAX_SLOW_S, PERSONAS, persona_of, reply
from .protocol import breach

MAX_REQUEST_BYTES = 256 * 1024
"""The loopback server refuses bodies larger than this (HTTP 413). A lesson's largest request is
a 60-turn Loopboros run on the castle with a 1 KB system prompt: about 26 KB, measured; ten times
that leaves room for any prompt a learner pastes, and bounds what one request can make a shared
`serve` read (the mock reads a few KB of each text, but parses and counts the whole body)."""
_ROUTES = {"/models": "GET", "/chat/completions": "POST"}
"""Each route (after an optional /v1) and the one method it answers."""
MAX_JSON_DEPTH = 100
"""A request nested deeper than this is refused (HTTP 400): a chat request is a few levels deep,
and a deep one would break the parser, or the persona reading it, with a RecursionError."""
_TOO_DEEP = f"the request body is nested too deeply (more than {MAX_JSON_DEPTH} levels)"
Answer = tuple[int, dict[str, Any]]
"""What a request gets: its HTTP status and its JSON body."""


def handle(method: str, path: str, body: bytes, sleep=time.sleep) -> Answer:
    """One request in, (status, JSON body) out. Never raises for anything a client sends."""
    path = path.split("?", 1)[0].rstrip("/")
    allowed = _ROUTES.get(path.removeprefix("/v1"))
    if allowed is None:
        routes = "this mock serves /v1/chat/completions and /v1/models"
        return _error(404, f"no route {path}; {routes}", "not_found", kind="not_found_error")
    if method != allowed and (method, allowed) != ("HEAD", "GET"):  # HEAD: a GET without a body
        use = f"{method} is not allowed on {path}; use {allowed}"
        return _error(405, use, "method_not_allowed")
    if allowed == "GET":
        entry = {"object": "model", "created": 0, "owned_by": "whentostop-mock"}
        return 200, {"object": "list", "data": [{"id": p, **entry} for p in PERSONAS]}
    request, refused = _request(body)
    if refused is not None:
        return refused
    try:
        return 200, reply(request, sleep=sleep)
    except httpx.TimeoutException:
        raise
    except Exception as exc:  # noqa: BLE001 — a persona's bug is still a JSON error, never a traceback
        failed = f"the mock model failed: {type(exc).__name__}"
        return _error(500, failed, "server_error", kind="server_error")


def _request(body: bytes) -> tuple[Any, Answer | None]:
    """The chat request in `body`, or the error a real endpoint answers it with: not JSON, too
    deep, not a request, a conversation that breaks its rules, a persona that does not exist."""
    try:
        request = json.loads(body or b"")
    except ValueError:  # UnicodeDecodeError is one
        return None, _error(400, "the request body is not valid JSON", "invalid_json")
    except RecursionError:  # deeper than the parser goes
        return None, _error(400, _TOO_DEEP, "invalid_json")
    if _too_deep(request):  # or deep enough to break a persona reading it
        return None, _error(400, _TOO_DEEP, "invalid_json")
    if problem := _check(request):
        return None, _error(400, problem, "invalid_request")
    if broken := breach(request["messages"]):  # the conversation rules a real endpoint enforces
        error = {"message": broken.message, "type": "invalid_request_error"}
        return None, (400, {"error": {**error, "param": broken.param, "code": broken.code}})
    try:
        persona_of(request["model"])
    except ValueError:  # the learner reads it (the client quotes it), in the language in effect
        unknown = _(
            "The model {model!r} does not exist. Personas: {personas} (slow takes 0 to "
            "{max_s:g} seconds: slow:0.5)."
        ).format(model=request["model"], personas=", ".join(PERSONAS), max_s=MAX_SLOW_S)
        return None, _error(404, unknown, "model_not_found", kind="not_found_error")
    return request, None


def _too_deep(value: Any) -> bool:
    """Whether `value` (parsed JSON) nests deeper than MAX_JSON_DEPTH; without recursion."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            todo.extend((child, depth + 1) for child in children)
    return False


def _check(request: Any) -> str | None:
    """What makes `request` no chat-completions request, in the words an API error uses."""
    if not isinstance(request, dict):
        return "the request body must be a JSON object"
    if not isinstance(request.get("model"), str) or not request["model"]:
        return "'model' is required and must be a string (a persona: " + ", ".join(PERSONAS) + ")"
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' is required and must be a non-empty array"
    problem = next(filter(None, (_message_problem(i, m) for i, m in enumerate(messages))), None)
    if problem:
        return problem
    tools = request.get("tools")
    if tools is not None and not _functions(tools):
        return "'tools' must be an array of {type: function, function: {...}}"
    return choice_problem(request)


def _message_problem(i: int, message: Any) -> str | None:
    """What is wrong with `messages[i]`, or None."""
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        return f"messages[{i}] must be an object with a 'role'"
    content = message.get("content")
    if content is not None and not isinstance(content, (str, list)):
        return f"messages[{i}].content must be a string or an array of parts"
    calls = message.get("tool_calls")
    if calls is not None and not _functions(calls):
        return f"messages[{i}].tool_calls must be an array of function calls"
    return None


def _functions(items: Any) -> bool:
    """Whether `items` is a list of objects that each carry a `function` object."""
    return isinstance(items, list) and all(
        isinstance(item, dict) and isinstance(item.get("function"), dict) for item in items
    )


def _error(status: int, message: str, code: str, kind: str = "invalid_request_error") -> Answer:
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


def mock_transport() -> httpx.MockTransport:
    """An httpx transport that answers like the server, in-process.

    It honours the request's read timeout the way a socket would: a `slow` reply that would take
    longer than the timeout waits for the timeout, then raises `httpx.ReadTimeout`.
    """

    def respond(request: httpx.Request) -> httpx.Response:
        limit = (request.extensions.get("timeout") or {}).get("read")

        def sleep(delay: float) -> None:
            if limit is not None and delay > limit:
                time.sleep(limit)
                raise httpx.ReadTimeout(
                    "the mock model took longer than the timeout", request=request
                )
            time.sleep(delay)

        status, data = handle(request.method, request.url.path, request.content, sleep=sleep)
        return httpx.Response(status, json=data)

    return httpx.MockTransport(respond)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real server
    disable_nagle_algorithm = True  # headers and body go out as two writes: without this, a
    # keep-alive client waits ~40 ms per reply for a delayed ACK (Nagle); see bench/RESULTS.md
    server_version = "whentostop-mock"
    timeout = 30  # a client that stops sending mid-request does not hold a thread forever

    def do_POST(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            refused = _error(
                411, "send the body with a Content-Length, not chunked", "length_required"
            )
        elif length < 0:
            refused = _error(
                400, "the Content-Length header is not a number of bytes", "invalid_content_length"
            )
        elif length > MAX_REQUEST_BYTES:
            limit = f"the request body must be at most {MAX_REQUEST_BYTES} bytes"
            refused = _error(413, limit, "request_too_large")
        else:
            self._answer(*handle("POST", self.path, self.rfile.read(length)))
            return
        self._answer(*refused, close=True)  # a body the server will not read: and no more requests

    def _without_body(self) -> None:
        """GET (and HEAD, its headers alone), and every method but POST: `handle` answers it, or
        says which method to use."""
        self._answer(*handle(self.command, self.path, b""))

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _without_body

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What http.server answers by itself (a malformed request line, headers too long):
        the same JSON error shape as everything else, not its HTML page."""
        text = message or self.responses.get(code, ("error",))[0]
        self.request_version = "HTTP/1.1"  # an unparsed request line would leave 0.9: no headers
        self._answer(*_error(code, text, "bad_request"), close=True)

    def _answer(self, status: int, data: dict[str, Any], close: bool = False) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # quiet, like a library
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # A room's kernels open their connections in the same instant. socketserver's listen backlog
    # of 5 then overflows: connections past it wait a second for a SYN retry, or are reset
    # (bench/NOTES.md, the class simulation). The OS caps this at net.core.somaxconn.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-request is not worth a traceback on the console."""


class MockServer:
    """The mock endpoint on a real socket. `with MockServer() as server: server.base_url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.httpd = _QuietServer((host, port), _Handler)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> MockServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
