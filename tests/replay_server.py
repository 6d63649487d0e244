"""A loopback stand-in for a small local model behind llama.cpp's server: what Qwen2.5-Coder-0.5B
did when the lesson was tried against it (see tests/real_replies/ and ../shared/REAL_MODEL.md),
replayed in llama.cpp's reply shapes — `usage` with `prompt_tokens_details.cached_tokens`, the
`timings` extension, `system_fingerprint` — so the notebooks can be run against "a real small
model" in CI, where building llama.cpp (15 minutes) is out of the question.

    with ReplayServer() as server:          # OPENAI_BASE_URL=server.base_url
        ...                                  # WHENTOSTOP_MODEL=REPLAYED_MODEL

A model name `replay:<behaviour>` always plays that behaviour; any other name plays them in
turn, one behaviour per run (a run starts with a request that holds no assistant message), so a
notebook that makes a dozen runs meets all of them:

    fenced       the call as text in a Markdown fence (recorded): the run ends on the flag
    bare         the call as bare JSON text
    tagged       the call between <tool_call> tags (Qwen's own format, unparsed)
    empty        an empty reply (recorded), then a guessed answer in text
    guess-pipe   a real tool call: mark_star on a guessed block (4) at once, valid and wrong
    repeat       a real tool call: the same search every turn, until the clock
    guess-text   a guessed answer in text on turn 1 ("block 3")
    echo         an empty reply, then the loop's own request sent back (its last sentence)
    ramble       a story cut off at the length limit, then its end: no block named

and two more, only by name: `story` (a story on turn 1, no block named: an answer the level
cannot judge) and `empty-all` (an empty reply every turn).

The server is deterministic: the same requests in the same order get the same replies.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from whentostop.mock.personas import count_tokens, prompt_tokens

REPLAYED_MODEL = "qwen2.5-0.5b"
BEHAVIOURS = (
    "fenced",
    "bare",
    "tagged",
    "empty",
    "guess-pipe",
    "repeat",
    "guess-text",
    "echo",
    "ramble",
)
RAMBLE = (
    "Once upon a time, in a kingdom of blocks and pipes, a little plumber set out to find a star. "
    * 12
)
"""A reply that runs into the length limit: sent with `finish_reason: "length"`."""
BY_NAME_ONLY = ("story", "empty-all")
FINGERPRINT = "b1-0c1e570"  # what the recorded server reported


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.runs = 0
        self.current = BEHAVIOURS[0]
        self.requests: list[dict[str, Any]] = []


def behaviour_for(model: str, messages: list[dict[str, Any]], state: _State) -> str:
    """The behaviour this request plays: named by the model, or the next one at a run's start."""
    if model.startswith("replay:"):
        name = model.partition(":")[2]
        if name not in BEHAVIOURS + BY_NAME_ONLY:
            raise KeyError(name)
        return name
    if not any(m.get("role") == "assistant" for m in messages):
        state.current = BEHAVIOURS[state.runs % len(BEHAVIOURS)]
        state.runs += 1
    return state.current


def decide(behaviour: str, body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message a small model sends for this behaviour and request."""
    names = [t.get("function", {}).get("name") for t in body.get("tools") or []]
    turn = 1 + sum(m.get("role") == "assistant" for m in body["messages"])
    if not names or body.get("tool_choice") == "none":
        return {"role": "assistant", "content": "I could not find the star."}
    if "mark_star" in names:
        call = {"name": "mark_star", "arguments": {"item": "star", "block": 4}}
    else:
        call = {"name": names[0], "arguments": {"area": "sky"}}
    if behaviour == "fenced":
        return _text(f"```json\n{json.dumps(call)}\n```")
    if behaviour == "bare":
        search = {"name": "search_blocks", "arguments": {"area": "sky"}}
        return _text(json.dumps(search if "search_blocks" in names else call))
    if behaviour == "tagged":
        return _text(f"<tool_call>\n{json.dumps(call)}\n</tool_call>")
    if behaviour == "empty":
        return _text("" if turn == 1 else "The star is in block 3.")
    if behaviour == "empty-all":
        return _text("")
    if behaviour == "story":
        return _text("A little plumber looked high and low, and the story ended happily.")
    if behaviour == "echo":
        if turn == 1:
            return _text("")
        asked = next(m for m in reversed(body["messages"]) if m.get("role") == "user")
        return _text(str(asked.get("content") or "").split(". ")[-1])
    if behaviour == "ramble":
        if turn == 1:
            return {**_text(RAMBLE), "finish_reason": "length"}
        return _text("And so the little plumber went home, happy, and slept until morning.")
    if behaviour == "guess-pipe":
        if turn == 1:
            return _calls(turn, call)
        return _text("I marked the star on block 4.")
    if behaviour == "repeat" and "search_blocks" in names:
        return _calls(turn, {"name": "search_blocks", "arguments": {"area": "sky"}})
    return _text("The star is in block 3.")


def _text(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def _calls(turn: int, call: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
                "id": f"replay{turn:04d}{call['name']}",
            }
        ],
    }


def completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """A whole reply in llama.cpp's shape, its usage counted from the request like the mock's,
    and the history up to the last assistant message reported as cached (llama.cpp keeps the
    prompt of the slot's last request and reuses its common prefix)."""
    messages, tools = body["messages"], body.get("tools")
    prompt = prompt_tokens(messages, tools)
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    cached = min(prompt_tokens(messages[: last + 1], tools), prompt) if last >= 0 else 0
    finish = message.pop("finish_reason", None) or (
        "tool_calls" if message.get("tool_calls") else "stop"
    )
    text = message.get("content") or ""
    produced = count_tokens(text) + (
        count_tokens(json.dumps(message["tool_calls"])) if message.get("tool_calls") else 0
    )
    produced = max(produced, 1)  # an empty reply is still one token: the end of the turn
    return {
        "choices": [{"finish_reason": finish, "index": 0, "message": message}],
        "created": int(time.time()),
        "model": body.get("model", REPLAYED_MODEL),
        "system_fingerprint": FINGERPRINT,
        "object": "chat.completion",
        "usage": {
            "completion_tokens": produced,
            "prompt_tokens": prompt,
            "total_tokens": prompt + produced,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
        "id": f"chatcmpl-replay{len(messages):04d}",
        "timings": {
            "cache_n": cached,
            "prompt_n": prompt - cached,
            "prompt_ms": (prompt - cached) * 4.5,
            "predicted_n": produced,
            "predicted_ms": produced * 40.0,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: _Server

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": REPLAYED_MODEL,
                            "object": "model",
                            "created": 0,
                            "owned_by": "llamacpp",
                        }
                    ],
                },
            )
        else:
            self._send(
                404,
                {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}},
            )

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length))
            state = self.server.state
            with state.lock:
                state.requests.append(body)
                behaviour = behaviour_for(str(body.get("model", "")), body["messages"], state)
            self._send(200, completion(body, decide(behaviour, body)))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._send(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": f"bad request: {exc!r}",
                        "type": "invalid_request_error",
                    }
                },
            )

    def _send(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


class ReplayServer:
    """The replaying server on 127.0.0.1; a context manager that starts and stops it."""

    def __init__(self) -> None:
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.state = _State()
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self.httpd.state.requests

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)
