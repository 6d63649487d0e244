"""The chat client: one `httpx.Client` (keep-alive) speaking OpenAI's `/v1/chat/completions`.

The same code talks to the in-process mock (through an httpx transport), the loopback mock
server, Ollama, LM Studio, vLLM or OpenAI. Failures become the typed errors in `errors.py`,
with messages that say what to check; the API key is never part of any of them.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol


if TYPE_CHECKING:
    import ssl

    import httpx

from ._text import excerpt, json_text
from .errors import (
    AuthenticationError,
    BadResponse,
    EndpointError,
    EndpointHTTPError,
    EndpointTimeout,
    EndpointUnreachable,
    NotFound,
    RateLimited,
    ServerError,
)

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one request may take before it fails (a real model can be slow; the mock is not)."""
DEFAULT_MAX_RETRIES = 2
"""How many times a 429 or 5xx is retried before it becomes an error. Retries are not turns."""
MAX_RETRY_WAIT_S = 20.0
"""The longest wait between retries; a Retry-After longer than this becomes an error at once."""
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""A reply larger than this is not a chat completion we can use (`BadResponse`)."""
MOCK_BASE_URL = "http://whentostop.mock/v1"
RETRY_STATUSES = {429, 500, 502, 503, 504}


@dataclass
class Completion:
    """One parsed reply: the assistant message, its usage, and what it took to get it."""

    message: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    latency_s: float
    retries: list[str] = field(default_factory=list)


class ChatModel(Protocol):
    """Anything the loop can ask for a reply. `OpenAIChat` is the one this library ships."""

    name: str

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        tool_choice: str | None = None,
        deadline: float | None = None,
        on_retry: Callable[[int, str, float], None] | None = None,
    ) -> Completion: ...


class OpenAIChat:
    """A model behind an OpenAI-compatible endpoint, reached through one reused httpx client."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        import httpx  # imported when first used: it costs ~60 ms at `import whentostop`

        self.name = model
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.is_mock = transport is not None and self.base_url == MOCK_BASE_URL
        self._secret = api_key or ""
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._transport = transport
        self._http = self._new_http()
        self._endpoint = httpx.URL(self.url)  # parsed once, not per request

    def __repr__(self) -> str:
        where = "the offline mock" if self.is_mock else self.base_url
        key = ", api_key=***" if self._secret else ""
        return f"<OpenAIChat model={self.name!r} at {where}{key}>"

    def _new_http(self) -> httpx.Client:
        import socket

        import httpx

        transport = self._transport
        if transport is None:
            # TCP_NODELAY: httpx writes a POST's headers and body as two sends; with Nagle's
            # algorithm the body can wait for the server's ACK of the headers (bench, section 2).
            transport = httpx.HTTPTransport(verify=_ssl_context(), socket_options=[
                (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
            _bound_every_read(transport)
        return httpx.Client(
            base_url=self.base_url,
            headers=self._headers,
            timeout=httpx.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s)),
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIChat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        tool_choice: str | None = None,
        deadline: float | None = None,
        on_retry: Callable[[int, str, float], None] | None = None,
    ) -> Completion:
        """Send the whole history once; retry 429/5xx with backoff; return the parsed reply."""
        body: dict[str, Any] = {"model": self.name, "messages": messages}
        if tools:
            body["tools"] = tools
            if tool_choice:
                body["tool_choice"] = tool_choice
        start = time.perf_counter()
        retries: list[str] = []
        attempt = 0
        while True:
            response = self._post(body, deadline)
            why_not = ""
            if response.status_code in RETRY_STATUSES and attempt < self.max_retries:
                wait = _retry_wait(response, attempt)
                left = None if deadline is None else deadline - time.monotonic()
                if wait > MAX_RETRY_WAIT_S:
                    why_not = (f" It asked to wait {wait:g} s (Retry-After), longer than "
                               f"the {MAX_RETRY_WAIT_S:g} s this client waits.")
                elif left is not None and wait >= left:
                    why_not = f" Waiting {wait:.2f} s to retry would pass the run's deadline."
                else:
                    attempt += 1
                    reason = f"HTTP {response.status_code}, waited {wait:.2f} s"
                    retries.append(reason)
                    if on_retry:
                        on_retry(attempt, reason, wait)
                    time.sleep(wait)
                    continue
            if response.status_code >= 400:
                raise self._http_error(response, retries, why_not)
            completion = self._parse(response)
            completion.latency_s = time.perf_counter() - start
            completion.retries = retries
            return completion

    def _post(self, body: dict[str, Any], deadline: float | None) -> httpx.Response:
        """One request, bounded in total by `timeout_s` and the run's deadline, whichever is first.

        httpx's timeouts are per read, so a server that trickles its reply a few bytes at a
        time would never trip them: the body is read in chunks against a wall clock, and on a
        real socket every read waits at most until the request's limit (`_bound_every_read`),
        so headers sent a byte at a time cannot hold it either.
        """
        limit, by_deadline = self.timeout_s, False
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EndpointTimeout("the run's deadline passed before the request", url=self.url,
                                      cut_by_deadline=True)
            limit, by_deadline = min(limit, left), left < limit
        import httpx

        # ASCII-escaped JSON: a lone surrogate a model sent back cannot break the next request.
        content = json.dumps(body).encode()
        stop_at = time.monotonic() + limit
        _limit.stop_at = stop_at
        try:
            with self._http.stream(
                "POST", self._endpoint, content=content,
                headers={"Content-Type": "application/json"},
                timeout=httpx.Timeout(limit, connect=min(10.0, limit)),
            ) as response:
                return self._read_bounded(response, stop_at, limit)
        except EndpointTimeout as exc:
            exc.cut_by_deadline = by_deadline
            raise
        except httpx.TimeoutException as exc:
            kind = "connecting to" if isinstance(exc, httpx.ConnectTimeout) else "waiting for"
            raise EndpointTimeout(
                f"Timed out {kind} {self.url} after {limit:.3g} s. A slow model needs a longer "
                "timeout_s; a stuck one needs a deadline_s.",
                url=self.url, cut_by_deadline=by_deadline,
            ) from None
        except httpx.ConnectError as exc:
            raise EndpointUnreachable(self._unreachable(str(exc)), url=self.url) from None
        except httpx.TransportError as exc:
            raise EndpointUnreachable(
                f"The connection to {self.url} failed ({type(exc).__name__}: {self._safe(str(exc))}). "
                "Is the server still running?",
                url=self.url,
            ) from None
        finally:
            _limit.stop_at = None

    def _read_bounded(
        self, response: httpx.Response, stop_at: float, limit: float
    ) -> httpx.Response:
        """The whole response, read against the wall clock and a size limit."""
        import httpx

        try:
            response.content  # noqa: B018 — an in-process transport has already read it
            return response
        except httpx.ResponseNotRead:
            pass
        still_arriving = EndpointTimeout(
            f"The reply from {self.url} was still arriving after {limit:.3g} s (a slow "
            "stream). A slow model needs a longer timeout_s; a stuck one needs a deadline_s.",
            url=self.url,
        )
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_raw():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise BadResponse(
                        f"{self.url} sent more than {MAX_RESPONSE_BYTES:,} bytes: not a chat "
                        "completion",
                        url=self.url,
                    )
                if time.monotonic() > stop_at:
                    raise still_arriving
                chunks.append(chunk)
        except httpx.TimeoutException:
            raise still_arriving from None
        return httpx.Response(response.status_code, headers=response.headers,
                              content=b"".join(chunks), request=response.request)

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _unreachable(self, detail: str) -> str:
        import httpx

        host = httpx.URL(self.base_url).host
        if any(s in detail for s in ("Name or service not known", "nodename nor servname",
                                      "getaddrinfo failed", "No address associated", "Temporary failure in name resolution")):
            return (f"Could not reach {self.base_url}: the host {host!r} is unknown. "
                    "Check the spelling of OPENAI_BASE_URL / base_url.")
        hint = ""
        if ":11434" in self.base_url:
            hint = " — is Ollama running? (`ollama serve`)"
        elif ":1234" in self.base_url:
            hint = " — is LM Studio's server started?"
        elif ":8000" in self.base_url:
            hint = " — is vLLM running? (`vllm serve MODEL`)"
        elif ":8765" in self.base_url:
            hint = " — is the mock server running? (`python -m whentostop serve`)"
        else:
            hint = " — is the server running, and is the port right?"
        return f"Could not reach {self.base_url}{hint} ({self._safe(detail)})"

    def _http_error(
        self, response: httpx.Response, retries: list[str], why_not: str = ""
    ) -> EndpointHTTPError:
        status = response.status_code
        said = _error_text(self._safe(response.text))
        tried = f" after {len(retries)} retr{'y' if len(retries) == 1 else 'ies'}" if retries else ""
        if status in (401, 403):
            cls: type[EndpointHTTPError] = AuthenticationError
            what = ("the endpoint refused the API key" if self._secret else
                    "the endpoint wants an API key and none was given")
            advice = "Check OPENAI_API_KEY (its value is not shown here)."
        elif status == 404:
            cls, what = NotFound, f"no model {self.name!r}, or no such path"
            advice = "Check the model name and that the base URL ends in /v1."
        elif status == 429:
            cls, what = RateLimited, "rate limited"
            advice = "Wait a little, lower the turn budget, or raise max_retries."
        elif status >= 500:
            cls, what = ServerError, "the server failed"
            advice = "The endpoint is having trouble; try again later."
        else:
            cls, what = EndpointHTTPError, "the endpoint rejected the request"
            advice = "Check the model name and that this endpoint supports tool calling."
        err = cls(
            f"HTTP {status} from {self.url}{tried}: {what}.{why_not} {advice} The endpoint said: {said}",
            url=self.url,
        )
        err.status = status
        err.retries = retries
        return err

    def _parse(self, response: httpx.Response) -> Completion:
        text = self._safe(response.text)  # before any excerpt: a cut key must not leak either
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            raise BadResponse(
                f"{self.url} answered with something that is not JSON: "
                f"{excerpt(text) or '(an empty body)'}",
                url=self.url,
            ) from None
        try:
            return parse_completion(data)
        except BadResponse as exc:
            raise BadResponse(f"{self.url}: {self._safe(str(exc))}", url=self.url) from None

    def _safe(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One SSL context for every client: httpx reads the CA bundle into a new one for each
    (~30 ms, even for http://), which made connect() cost more than a 25-turn mock run."""
    import httpx

    return httpx.create_ssl_context()


_limit = threading.local()
"""`stop_at`: the monotonic time the current thread's request must be done by, or None."""


def _bound_every_read(transport: httpx.HTTPTransport) -> None:
    """Make every socket read and write of `transport` wait at most until the current request's
    limit. httpx's timeouts are per read, so without this a server that sends its headers a byte
    at a time could hold a request, and the run, forever."""
    import httpcore

    pool = getattr(transport, "_pool", None)  # httpx keeps its httpcore pool here
    if isinstance(pool, httpcore.ConnectionPool) and hasattr(pool, "_network_backend"):
        pool._network_backend = _BoundedBackend(pool._network_backend)


def _left(timeout: float | None) -> float | None:
    import httpcore

    stop_at = getattr(_limit, "stop_at", None)
    if stop_at is None:
        return timeout
    left = stop_at - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's time limit passed")
    return left if timeout is None else min(timeout, left)


class _BoundedStream:
    """A socket stream whose every wait is cut to what is left of the request's limit."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> _BoundedStream:
        return _BoundedStream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _BoundedBackend:
    """httpcore's network backend, handing out `_BoundedStream`s."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> _BoundedStream:
        return _BoundedStream(self._inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> _BoundedStream:
        return _BoundedStream(self._inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def parse_completion(data: Any) -> Completion:
    """Check that `data` is a chat completion and normalise its message; else `BadResponse`."""
    if not isinstance(data, dict):
        raise BadResponse(f"the reply is not a chat completion (a JSON {type(data).__name__}): {excerpt(json_text(data))}")
    if "error" in data and "choices" not in data:
        raise BadResponse(f"the endpoint sent an error instead of a reply: {excerpt(json_text(data['error']))}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadResponse(f"the reply has no choices: {excerpt(json_text(data))}")
    choice = choices[0]
    raw = choice.get("message")
    if not isinstance(raw, dict):
        raise BadResponse(f"the reply's first choice has no message: {excerpt(json_text(choice))}")
    content = raw.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise BadResponse(f"the message content is neither text nor parts: {excerpt(json_text(content))}")
    calls = _normalise_calls(raw.get("tool_calls"))
    text = content if isinstance(content, str) else "".join(
        p["text"] for p in content or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
    )
    if not calls and not text.strip():
        raise BadResponse("the reply's message is empty: no text and no tool call")
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        message["tool_calls"] = calls
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    return Completion(
        message=message,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        finish_reason=finish if isinstance(finish, str) else None,
        latency_s=0.0,
    )


def _normalise_calls(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BadResponse(f"tool_calls is not a list: {excerpt(json_text(raw))}")
    calls = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("function"), dict):
            raise BadResponse(f"a tool call has no function: {excerpt(json_text(item))}")
        fn = item["function"]
        arguments = fn.get("arguments")
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            arguments = json_text(arguments)  # some servers send an object, not a string
        call_id = item.get("id")
        calls.append({
            "id": call_id if isinstance(call_id, str) and call_id else f"call_{os.urandom(6).hex()}",
            "type": "function",
            "function": {"name": str(fn.get("name") or ""), "arguments": arguments},
        })
    return calls


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _retry_wait(response: httpx.Response, attempt: int) -> float:
    """Honour Retry-After (seconds or an HTTP date), else back off 0.5 s, 1 s, 2 s…

    The wait is not capped here: `complete` refuses to wait longer than MAX_RETRY_WAIT_S.
    """
    import email.utils

    header = response.headers.get("retry-after", "").strip()
    try:
        seconds = float(header)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(header).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return min(0.5 * 2**attempt, MAX_RETRY_WAIT_S)  # no usable Retry-After
    return max(seconds, 0.0) if seconds == seconds else 0.5  # NaN: not a wait



def _error_text(text: str) -> str:
    """A short excerpt of an error body: its `error.message` if it has one."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return excerpt(text) or "(empty body)"
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return excerpt(str(data["error"].get("message", data["error"])))
    return excerpt(json_text(data))


def connect(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_MAX_RETRIES,
) -> OpenAIChat:
    """The model the loop talks to: the offline mock unless an endpoint is configured.

    `base_url` (or `OPENAI_BASE_URL`) selects a real endpoint; `api_key` defaults to
    `OPENAI_API_KEY` and `model` to `WHENTOSTOP_MODEL`. With neither, `model` names a mock
    persona (`searcher`, `loopboros`, `sloppy`, `slow`), reached in-process.

    So that a notebook switches by configuration alone: when the endpoint comes from
    `OPENAI_BASE_URL`, a persona name stands for `WHENTOSTOP_MODEL` — your model plays the part.
    """
    from .mock.personas import PERSONAS

    def is_persona(name: str | None) -> bool:
        return bool(name) and name.partition(":")[0] in PERSONAS

    configured = os.environ.get("WHENTOSTOP_MODEL") or None
    endpoint = base_url or os.environ.get("OPENAI_BASE_URL") or None
    if endpoint is None:
        from .mock.endpoint import mock_transport

        if model is None and configured and not is_persona(configured):
            raise ValueError(
                f"WHENTOSTOP_MODEL is {configured!r} but no endpoint is set: set OPENAI_BASE_URL "
                "too (for Ollama, http://localhost:11434/v1), or unset WHENTOSTOP_MODEL to use "
                f"the offline mock ({', '.join(PERSONAS)})."
            )
        return OpenAIChat(
            model or configured or "searcher",
            MOCK_BASE_URL,
            timeout_s=timeout_s,
            max_retries=max_retries,
            transport=mock_transport(),
        )
    if base_url is None and is_persona(model):
        model = configured  # a persona is a role on the mock; the configured model plays it
    model = model or configured
    if not model:
        raise ValueError(
            f"Which model at {endpoint}? Pass model=... or set WHENTOSTOP_MODEL "
            "(for Ollama, a name from `ollama list`, such as llama3.2)."
        )
    base_url = endpoint
    api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
    return OpenAIChat(model, base_url, api_key=api_key, timeout_s=timeout_s, max_retries=max_retries)


__all__ = ["ChatModel", "Completion", "EndpointError", "OpenAIChat", "connect", "parse_completion"]
