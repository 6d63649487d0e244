"""The library's exceptions: one small hierarchy, messages that say what to do next.

Every error raised during a run carries the partial `Run` (`err.run`), so nothing is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .outcome import Run


class WhenToStopError(Exception):
    """Base class of everything this library raises on purpose."""

    run: Run | None
    """The run so far, when the error happened during one."""

    def __init__(self, message: str, *, run: Run | None = None) -> None:
        super().__init__(message)
        self.run = run


class InvalidAPIKey(WhenToStopError, ValueError):
    """An API key that cannot be sent: a character no HTTP header carries (a pasted
    non-breaking space, a line break inside it, a letter outside ASCII). Raised when the model is
    made (`connect()`), before any request; the message says what is wrong, never the key."""


class NoAnswer(WhenToStopError):
    """The run ended without an answer (the clock or the deadline), or was broken."""


class EndpointError(WhenToStopError):
    """The model endpoint failed. `err.run` holds the run up to the failure."""

    url: str
    """The endpoint's URL (never with a key in it)."""

    def __init__(self, message: str, *, url: str = "", run: Run | None = None) -> None:
        super().__init__(message, run=run)
        self.url = url


class EndpointUnreachable(EndpointError):
    """Nothing answered at the URL: wrong address, server not running, unknown host."""


class EndpointTimeout(EndpointError):
    """The endpoint took longer than the request's timeout."""


class DeadlineReached(EndpointTimeout):
    """The run's deadline passed before or during a request: for the loop, an exit
    (`Stop.DEADLINE`), not a failure. Raised only when `complete()` was given a deadline."""


class EndpointHTTPError(EndpointError):
    """The endpoint answered with an HTTP error status."""

    status: int
    """The HTTP status of the last answer."""
    retries: list[str]
    """One line per retried request before the error (429 or 5xx)."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        url: str = "",
        retries: list[str] | None = None,
        run: Run | None = None,
    ) -> None:
        super().__init__(message, url=url, run=run)
        self.status = status
        self.retries = list(retries or [])


class AuthenticationError(EndpointHTTPError):
    """401/403: the API key is missing, wrong, or not allowed this model."""


class NotFound(EndpointHTTPError):
    """404: the model name or the path (the base URL) is wrong."""


class RateLimited(EndpointHTTPError):
    """429, still after the retries."""


class ServerError(EndpointHTTPError):
    """5xx, still after the retries."""


class BadResponse(EndpointError):
    """The endpoint answered, but not with a chat completion we can use."""
