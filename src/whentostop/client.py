"""The chat client: one `httpx.Client` (keep-alive) speaking OpenAI's `/v1/chat/completions`.

The same code talks to the in-process mock (through an httpx transport given to it), the
loopback mock server, Ollama, LM Studio, vLLM or OpenAI; which one is `connect()`'s business
(`models.py`), not this module's. Failures become the typed errors in `errors.py`, with messages
that say what to check; the API key is never part of any of them.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import ssl

    import httpx

from ._decoding import ACCEPT_ENCODING, MAX_RESPONSE_BYTES, body_text, read_bounded
from ._json import NotJSON, max_digits, read_json
from ._numbers import is_count, is_number, seconds, token_count
from ._options import option
from ._secrets import (
    checked_api_key,
    hidden,
    redactor,
    shown_url,
    trimmed,
    unescaped_userinfo,
    userinfo_secrets,
)
from ._text import excerpt, json_text
from .errors import (
    AuthenticationError,
    BadResponse,
    DeadlineReached,
    EndpointHTTPError,
    EndpointTimeout,
    EndpointUnreachable,
    NotFound,
    RateLimited,
    ServerError,
)
from .i18n import _, ngettext, say
from .outcome import message_text, tool_call

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one request may take before it fails (a real model can be slow; the mock is not).
`connect()` takes another from `timeout_s`, else from `TIMEOUT_VARIABLE` in the environment."""
TIMEOUT_VARIABLE = "WHENTOSTOP_TIMEOUT_S"
DEFAULT_MAX_RETRIES = 2
"""How many times a 429 or 5xx is retried before it becomes an error. Retries are not turns."""
MAX_RETRY_WAIT_S = 20.0
"""The longest wait between retries; a Retry-After longer than this becomes an error at once."""
RETRY_STATUSES = {429, 500, 502, 503, 504}
DEFAULT_MAX_TOKENS = 256
"""The reply-length cap `connect()` gives a real endpoint unless told otherwise (`max_tokens`).

Without a cap, llama.cpp's server (and Ollama) generate until the context is full: a small model
that starts repeating itself once generated 10,596 tokens in 11 minutes for one request, so a
runaway reply cost the whole request timeout and the run broke on an `EndpointTimeout`. The cap
must end a runaway *inside* the default 60 s `timeout_s` on a slow machine. Measured with a 0.5B
model on two CPU cores: 25 tokens/s on a quiet machine, 8.5 and even 4.5 on a busy one, where a
runaway cut at 1,024 tokens took over 120 s and one cut at 512 took 112 s; 256 tokens take
10-57 s. Every reply this lesson needs is far shorter (the model's tool calls were 17-40
tokens); a cut-off reply is reported (`finish_reason: "length"`, `turn.truncated`) and the loop
asks for the rest, which costs a turn but breaks nothing. A model that thinks aloud before it
answers needs more: pass `max_tokens=` (or None for no cap)."""

OnRetry = Callable[[int, str, float], None]
"""`on_retry(attempt, reason, wait_s)`: called before each retried request."""


@dataclass
class Completion:
    """One parsed reply: the assistant message, its usage, and what it took to get it."""

    message: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    latency_s: float
    retries: list[str] = field(default_factory=list)
    cached_tokens: int = 0
    """Prompt tokens the server served from its cache (`usage.prompt_tokens_details.
    cached_tokens`, never more than `prompt_tokens`); 0 when it does not say."""


class ChatModel(Protocol):
    """Anything the loop can ask for a reply. `OpenAIChat` is the one this library ships.

    `complete` raises `DeadlineReached` when `deadline` (a `time.monotonic()` value) passes
    before the reply is in, and another `EndpointError` when the endpoint fails. The loop passes
    `tool_choice` and `parallel_tool_calls` only when a run sets them, so a model of your own
    needs to accept only what your runs use.
    """

    name: str

    def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        tool_choice: str | dict[str, Any] | None = None,
        deadline: float | None = None,
        on_retry: OnRetry | None = None,
    ) -> Completion: ...


class OpenAIChat:
    """A model behind an OpenAI-compatible endpoint, reached through one reused httpx client.

    `transport` replaces the network (an in-process endpoint, a test's); without one, requests
    go over sockets whose every wait is bounded by the request's limit (`transport.py`).
    """

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        transport: httpx.BaseTransport | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        seed: int | None = None,
    ) -> None:
        """`max_tokens`, `temperature` and `seed` are sent with every request when set, and
        only then (a server keeps its own defaults for what is not sent). `max_tokens` caps
        each reply; see `DEFAULT_MAX_TOKENS` for why `connect()` sets one on a real endpoint."""
        import httpx  # imported when first used: it costs ~60 ms at `import whentostop`

        self.name = model
        real_url = trimmed(base_url, "base_url (or OPENAI_BASE_URL)").rstrip("/")
        self.base_url = shown_url(real_url)  # what is shown: a key in the URL is not
        self.url = f"{self.base_url}/chat/completions"
        self.timeout_s = timeout_s = seconds(timeout_s, option("timeout_s"))
        self.max_retries = max_retries
        self.max_tokens, self.temperature, self.seed = _checked_settings(
            max_tokens, temperature, seed
        )
        self._secret = api_key = checked_api_key(api_key)
        self._in_url = userinfo_secrets(real_url)  # credentials in the URL's user-info
        self._safe = redactor((self._secret, *self._in_url))
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        try:
            problem = _base_url_problem(real_url)
        except httpx.InvalidURL as exc:
            problem = self._safe(str(exc))
        if problem:
            shown = self.base_url if self.base_url.isprintable() else repr(self.base_url)
            said = _("{url} is not a valid URL ({reason}). Check OPENAI_BASE_URL / base_url.")
            raise ValueError(said.format(url=shown, reason=problem))
        self._http = httpx.Client(
            base_url=real_url,
            headers={**self._headers, "Accept-Encoding": ACCEPT_ENCODING},
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            transport=transport or _network_transport(),
        )
        self._endpoint = httpx.URL(f"{real_url}/chat/completions")  # parsed once, not per request

    def __repr__(self) -> str:
        key = ", api_key=***" if self._secret else ""
        return f"<OpenAIChat model={self.name!r} at {self.base_url}{key}>"

    @property
    def settings(self) -> dict[str, Any]:
        """The generation settings sent with every request: only those that were set.

        OpenAI's own API takes the reply cap as `max_completion_tokens` (its newer models
        refuse `max_tokens`); llama.cpp, Ollama, LM Studio and vLLM all read `max_tokens`.
        """
        openai = "api.openai.com" in self.base_url or ".openai.azure.com" in self.base_url
        cap = "max_completion_tokens" if openai else "max_tokens"
        given = {cap: self.max_tokens, "temperature": self.temperature, "seed": self.seed}
        return {name: value for name, value in given.items() if value is not None}

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
        tool_choice: str | dict[str, Any] | None = None,
        deadline: float | None = None,
        on_retry: OnRetry | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> Completion:
        """Send the whole history once; retry 429/5xx with backoff; return the parsed reply.

        `tool_choice` and `parallel_tool_calls` go with the tools, and only when set."""
        body: dict[str, Any] = {"model": self.name, "messages": messages, **self.settings}
        if tools:
            body["tools"] = tools
            if tool_choice:
                body["tool_choice"] = tool_choice
            if parallel_tool_calls is not None:
                body["parallel_tool_calls"] = parallel_tool_calls
        start = time.perf_counter()
        retries: list[str] = []
        while True:
            response = self._post(body, deadline)
            wait, why_not = self._retry_wait(response, len(retries), deadline)
            if wait is not None:
                reason = say("retried", status=response.status_code, wait=wait)
                retries.append(reason)
                if on_retry:
                    on_retry(len(retries), reason, wait)
                time.sleep(wait)
                continue
            if response.status_code >= 400:
                raise self._http_error(response, retries, why_not)
            completion = self._parse(response)  # its latency counts the parsing too
            return replace(completion, latency_s=time.perf_counter() - start, retries=retries)

    def _retry_wait(
        self, response: httpx.Response, attempt: int, deadline: float | None
    ) -> tuple[float | None, str]:
        """(seconds to wait before retrying, or None; why not, when a retry was refused)."""
        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
            return None, ""
        wait = _retry_after(response, attempt)
        if wait > MAX_RETRY_WAIT_S:
            return None, " " + say("retry_after_too_long", wait=wait, limit=MAX_RETRY_WAIT_S)
        if deadline is not None and wait >= deadline - time.monotonic():
            return None, " " + say("retry_past_deadline", wait=wait)
        return wait, ""

    def _post(self, body: dict[str, Any], deadline: float | None) -> httpx.Response:
        """One request, bounded in total by `timeout_s` and the run's deadline, whichever is first.

        The limit travels with the request (`transport.STOP_AT`): every socket wait is cut to
        what is left of it, and the body is read in chunks against the same clock.
        """
        import httpx

        from .transport import STOP_AT

        limit, by_deadline = self.timeout_s, False
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                said = _("the run's deadline passed before the request")
                raise DeadlineReached(said, url=self.url)
            limit, by_deadline = min(limit, left), left < limit
        # ASCII-escaped JSON: a lone surrogate a model sent back cannot break the next request.
        content = json.dumps(body).encode()
        stop_at = time.monotonic() + limit
        timeout_error = DeadlineReached if by_deadline else EndpointTimeout
        try:
            with self._http.stream(
                "POST",
                self._endpoint,
                content=content,
                headers={"Content-Type": "application/json"},
                timeout=httpx.Timeout(limit, connect=min(10.0, limit)),
                extensions={STOP_AT: stop_at},
            ) as response:
                still_arriving = timeout_error(self._timed_out("slow_stream", limit), url=self.url)
                # the whole response, read against the wall clock and a size limit
                return read_bounded(response, self.url, stop_at, still_arriving)
        except httpx.TimeoutException as exc:
            which = "timed_out_connecting" if isinstance(exc, httpx.ConnectTimeout) else "timed_out"
            raise timeout_error(self._timed_out(which, limit), url=self.url) from None
        except httpx.ConnectError as exc:
            raise EndpointUnreachable(self._unreachable(str(exc)), url=self.url) from None
        except httpx.DecodingError:  # only a transport of its own decodes before we do
            said = say("not_compressed", url=self.url, encoding="?")
            raise BadResponse(said, url=self.url) from None
        except httpx.TransportError as exc:
            kind, detail = type(exc).__name__, self._safe(str(exc))
            said = say("connection_failed", url=self.url, kind=kind, detail=detail)
            raise EndpointUnreachable(said, url=self.url) from None

    def _timed_out(self, name: str, limit: float) -> str:
        """What `data/said.toml` says by `name` of a request that took `limit` seconds (its
        `{url}` and `{limit}` filled in), and what to change: the timeout or a deadline."""
        names = {"timeout": option("timeout_s"), "deadline": option("deadline_s")}
        advice = say("timeout_advice", variable=TIMEOUT_VARIABLE, **names)
        return f"{say(name, url=self.url, limit=limit)} {advice}"

    def _unreachable(self, detail: str) -> str:
        import httpx

        host = httpx.URL(self.base_url).host
        if any(said in detail for said in _UNKNOWN_HOST):
            return say("unknown_host", url=self.base_url, host=host)
        port = next((p for p in ("11434", "1234", "8000", "8765") if f":{p}" in self.base_url), "")
        hint = say(f"hint_{port}") if port else _("is the server running, and is the port right?")
        return say("unreachable", url=self.base_url, hint=hint, detail=self._safe(detail))

    def _http_error(
        self, response: httpx.Response, retries: list[str], why_not: str
    ) -> EndpointHTTPError:
        status = response.status_code
        if status in (401, 403):  # what it means and what to check, by whose key was refused
            case = "auth_" + ("key" if self._secret else "url" if self._in_url else "none")
        else:
            case = str(status) if status in (404, 429) else "5xx" if status >= 500 else "4xx"
        cls = _HTTP_ERRORS.get(status, ServerError if status >= 500 else EndpointHTTPError)
        n = len(retries)
        tried = ngettext(" after {n} retry", " after {n} retries", n).format(n=n) if n else ""
        message = say(
            "http_error",
            status=status,
            url=self.url,
            tried=tried,
            what=say(f"http_{case}", name=self.name),
            why_not=why_not,
            advice=say(f"http_{case}_advice"),
            said=_error_text(body_text(response), self._safe),
        )
        return cls(message, status=status, url=self.url, retries=retries)

    def _parse(self, response: httpx.Response) -> Completion:
        text = body_text(response)
        try:
            data = read_json(text)
        except NotJSON as exc:
            if exc.kind == "number":
                said = say("reply_long_number", url=self.url, digits=max_digits(), **vars(exc))
                raise BadResponse(said, url=self.url) from None
            said = _("{url} answered with something that is not JSON: {excerpt}")
            # the key hidden before any excerpt is cut: a cut key must not leak either
            shown = excerpt(self._safe(text)) or _("(an empty body)")
            raise BadResponse(said.format(url=self.url, excerpt=shown), url=self.url) from None
        try:
            # the key hidden in what JSON decoded, before anything is quoted or kept
            return parse_completion(hidden(data, self._safe))
        except RecursionError:
            said = _("{url} answered with JSON nested too deeply to read").format(url=self.url)
            raise BadResponse(said, url=self.url) from None
        except BadResponse as exc:
            raise BadResponse(f"{self.url}: {self._safe(str(exc))}", url=self.url) from None


_HTTP_ERRORS = {401: AuthenticationError, 403: AuthenticationError, 404: NotFound, 429: RateLimited}
"""The error of each status that has its own; any other 5xx is a `ServerError`."""
_UNKNOWN_HOST = (
    "Name or service not known",
    "nodename nor servname",
    "getaddrinfo failed",
    "No address associated",
    "Temporary failure in name resolution",
)
"""How the resolvers of Linux, macOS and Windows say a host name is unknown."""


def _network_transport() -> httpx.BaseTransport:
    """Sockets with the shared SSL context, and every wait bounded by the request's limit.

    httpcore sets TCP_NODELAY on every socket it opens (httpx writes a POST's headers and body
    as two sends; with Nagle's algorithm the body could wait for the server's ACK of the
    headers: bench, section 2), so no socket option is added here."""
    from .transport import BoundedTransport

    return BoundedTransport(ssl_context=_ssl_context())


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One SSL context for every client: httpx reads the CA bundle into a new one for each
    (~30 ms, even for http://), which made connect() cost more than a 25-turn mock run."""
    import httpx

    return httpx.create_ssl_context()


def parse_completion(data: Any) -> Completion:
    """Check that `data` is a chat completion and normalise its message; else `BadResponse`."""
    choice = _first_choice(data)
    raw = choice["message"]
    content = raw.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise _bad(_("the message content is neither text nor parts: {excerpt}"), content)
    calls = _normalise_calls(raw.get("tool_calls"))
    text = message_text(raw)
    # No text and no tool call is still the model's reply (a small model does this): the loop
    # records it as a turn and never takes it for an answer (`Turn.empty`).
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
    if calls:
        message["tool_calls"] = calls
    raw_usage = data.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    finish = choice.get("finish_reason")
    prompt_tokens = token_count(usage.get("prompt_tokens"))
    details = usage.get("prompt_tokens_details")
    cached = token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return Completion(
        message=message,
        prompt_tokens=prompt_tokens,
        completion_tokens=token_count(usage.get("completion_tokens")),
        finish_reason=finish if isinstance(finish, str) else None,
        latency_s=0.0,
        cached_tokens=min(cached, prompt_tokens),
    )


def _first_choice(data: Any) -> dict[str, Any]:
    """The completion's first choice, which holds a message object; else `BadResponse`."""
    if not isinstance(data, dict):
        message = _("the reply is not a chat completion (a JSON {kind}): {excerpt}")
        raise _bad(message, data, kind=type(data).__name__)
    if "error" in data and "choices" not in data:
        raise _bad(_("the endpoint sent an error instead of a reply: {excerpt}"), data["error"])
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _bad(_("the reply has no choices: {excerpt}"), data)
    choice: dict[str, Any] = choices[0]
    if not isinstance(choice.get("message"), dict):
        raise _bad(_("the reply's first choice has no message: {excerpt}"), choice)
    return choice


def _bad(message: str, quoted: Any, **fields: Any) -> BadResponse:
    """`BadResponse` with `message`'s `{excerpt}` a short quote of `quoted` (parsed JSON)."""
    return BadResponse(message.format(excerpt=excerpt(json_text(quoted)), **fields))


def _normalise_calls(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _bad(_("tool_calls is not a list: {excerpt}"), raw)
    calls = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("function"), dict):
            raise _bad(_("a tool call has no function: {excerpt}"), item)
        fn, call_id = item["function"], item.get("id")
        arguments = fn.get("arguments")
        if not isinstance(arguments, str):  # some servers send an object, not a string
            arguments = "" if arguments is None else json_text(arguments)
        if not isinstance(call_id, str) or not call_id:
            call_id = f"call_{os.urandom(6).hex()}"
        calls.append(tool_call(call_id, str(fn.get("name") or ""), arguments))
    return calls


def _base_url_problem(url: str) -> str:
    """What makes `url` no endpoint's base URL, in words; "" when it is one. Raises
    `httpx.InvalidURL` where httpx cannot read it."""
    import unicodedata

    import httpx

    if unescaped_userinfo(url):  # checked first: httpx's own error would quote part of the key
        return _("a key in it holds a /, ? or # that must be written %2F, %3F or %23")
    parsed = httpx.URL(url)
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in url):
        return _("it has a space or a control character in it")
    if parsed.scheme not in ("http", "https"):
        return _("it must start with http:// or https://")
    if not parsed.host:
        return _("it has no host")
    if parsed.port is not None and not 0 < parsed.port < 65536:
        return _("its port is not a number from 1 to 65535")
    if parsed.query or parsed.fragment or "?" in url or "#" in url:
        return _("it has a query (?…) or a fragment (#…), which /chat/completions cannot follow")
    return ""


def _checked_settings(
    max_tokens: int | None, temperature: float | None, seed: int | None
) -> tuple[int | None, float | None, int | None]:
    """The generation settings, checked before anything is sent."""
    if max_tokens is not None and not is_count(max_tokens):
        said = _("{name} must be a positive int (or None for no cap), got {value!r}")
        raise ValueError(said.format(name=option("max_tokens"), value=max_tokens))
    if temperature is not None and not (is_number(temperature) and 0 <= temperature <= 2):
        said = _("{name} must be a number from 0 to 2, got {value!r}")
        raise ValueError(said.format(name=option("temperature"), value=temperature))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        said = _("{name} must be an int, got {value!r}")
        raise ValueError(said.format(name=option("seed"), value=seed))
    return max_tokens, None if temperature is None else float(temperature), seed


def _retry_after(response: httpx.Response, attempt: int) -> float:
    """Honour Retry-After (seconds or an HTTP date), else back off 0.5 s, 1 s, 2 s…

    The wait is not capped here: `_retry_wait` refuses to wait longer than MAX_RETRY_WAIT_S.
    """
    import email.utils

    header = response.headers.get("retry-after", "").strip()
    try:
        seconds = float(header)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(header).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return min(0.5 * 2.0**attempt, MAX_RETRY_WAIT_S)  # no usable Retry-After
    return max(seconds, 0.0) if seconds == seconds else 0.5  # NaN: not a wait


def _error_text(text: str, hide: Callable[[str], str]) -> str:
    """A short excerpt of an error body: its `error.message` if it has one. `hide` (the key's
    redaction) runs on the text, or on what JSON decoded, before the excerpt is cut."""
    try:
        data = read_json(text)
    except NotJSON:
        return excerpt(hide(text)) or _("(empty body)")
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return excerpt(hide(str(data["error"].get("message", data["error"]))))
    return excerpt(hide(json_text(data)))


__all__ = [  # the key's and the body's bounds live in _secrets and _decoding; named here too
    "ACCEPT_ENCODING",
    "DEFAULT_MAX_TOKENS",
    "MAX_RESPONSE_BYTES",
    "ChatModel",
    "Completion",
    "OpenAIChat",
    "checked_api_key",
    "parse_completion",
    "shown_url",
    "trimmed",
]
