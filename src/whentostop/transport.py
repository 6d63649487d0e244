"""The network transport: httpx over httpcore's public connection pool, where every socket wait
is bounded by the request's own time limit.

httpx's timeouts apply to each socket read on its own, so a server that trickles its headers a
byte at a time never trips them and can hold a request, and the run, for ever. Here a request
may carry an absolute limit (`extensions={STOP_AT: time.monotonic() + seconds}`); the transport
hands it to httpcore inside the request's `timeout` extension (each value an `Until`, a float
that remembers the limit), and the network stream cuts every connect, read and write to what
is left of it. Only public API is used: `httpx.BaseTransport`, `httpcore.ConnectionPool(
network_backend=...)`, `httpcore.NetworkBackend` and `httpcore.NetworkStream`.
"""

from __future__ import annotations

import math
import ssl
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

STOP_AT = "whentostop.stop_at"
"""The request extension holding the `time.monotonic()` value the whole request must end by."""


class Until(float):
    """A timeout (seconds per socket wait, as httpcore expects) that also knows the request's
    absolute limit, so each wait can be cut to what is left of it."""

    stop_at: float

    def __new__(cls, seconds: float | None, stop_at: float) -> Until:
        value = super().__new__(cls, math.inf if seconds is None else seconds)
        value.stop_at = stop_at
        return value


def _left(timeout: float | None) -> float | None:
    """The wait allowed now: the timeout, cut to what is left of the request's limit."""
    if not isinstance(timeout, Until):
        return timeout
    left = timeout.stop_at - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's time limit passed")
    return min(float(timeout), left)


class BoundedStream(httpcore.NetworkStream):
    """A socket stream whose every wait is cut to what is left of the request's limit."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        return BoundedStream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class BoundedBackend(httpcore.SyncBackend):
    """httpcore's synchronous socket backend (which sets TCP_NODELAY on every socket), handing
    out `BoundedStream`s. TCP only: the pool of `BoundedTransport` is given no Unix socket
    (`uds`) and no connect retries (which sleep), so the base class's `connect_unix_socket` and
    `sleep`, not bounded, are never called."""

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = super().connect_tcp(host, port, _left(timeout), local_address, socket_options)
        return BoundedStream(stream)


class BoundedTransport(httpx.BaseTransport):
    """An httpx transport on one keep-alive `httpcore.ConnectionPool` whose sockets honour
    the request's `STOP_AT` limit on every wait."""

    def __init__(self, *, ssl_context: ssl.SSLContext) -> None:
        self._connections = httpcore.ConnectionPool(
            ssl_context=ssl_context, network_backend=BoundedBackend()
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.SyncByteStream)
        extensions = dict(request.extensions)
        stop_at = extensions.pop(STOP_AT, None)
        if stop_at is not None:
            extensions["timeout"] = {
                name: Until(value, stop_at)
                for name, value in (extensions.get("timeout") or {}).items()
            }
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=extensions,
        )
        with _as_httpx_errors(request):
            response = self._connections.handle_request(core)
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream, request),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._connections.close()


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, inner: Iterable[bytes], request: httpx.Request) -> None:
        self._inner, self._request = inner, request

    def __iter__(self) -> Iterator[bytes]:
        with _as_httpx_errors(self._request):
            yield from self._inner

    def close(self) -> None:
        if (close := getattr(self._inner, "close", None)) is not None:
            close()


@contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    """httpcore's errors as httpx's public ones of the same name (`httpcore.ReadTimeout` as
    `httpx.ReadTimeout`), the most specific first: what the client catches."""
    try:
        yield
    except Exception as exc:
        for core in type(exc).__mro__:
            public = getattr(httpx, core.__name__, None) if core.__module__ == "httpcore" else None
            if isinstance(public, type) and issubclass(public, httpx.TransportError):
                raise public(str(exc), request=request) from exc
        raise
