"""Which model the loop talks to: `connect()` chooses between the offline mock and a real
endpoint, by argument or by the OpenAI ecosystem's configuration.

    connect("searcher")                                   # the mock persona, in-process
    connect("llama3.2", base_url="http://localhost:11434/v1")
    # OPENAI_BASE_URL / OPENAI_API_KEY / WHENTOSTOP_MODEL set: the same notebook, a real model

The client (`client.py`) knows nothing of the mock; this module is where the two meet.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any, Literal

from ._options import option
from .client import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    TIMEOUT_VARIABLE,
    OpenAIChat,
    shown_url,
    trimmed,
)
from .i18n import _, say

MOCK_BASE_URL = "http://whentostop.mock/v1"
"""The base URL of the in-process mock: never resolved, the transport answers it."""


def mock(
    persona: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_tokens: int | None = None,
    temperature: float | None = None,
    seed: int | None = None,
) -> OpenAIChat:
    """A mock persona reached in-process, whatever the environment says: what the exercise
    checks use, so that a verdict never depends on a configured real endpoint.

    The personas accept `max_tokens`, `temperature` and `seed` and ignore them: they are rules,
    the same every time, and their replies are short."""
    from .mock.endpoint import mock_transport

    return OpenAIChat(
        persona,
        MOCK_BASE_URL,
        timeout_s=timeout_s,
        max_retries=max_retries,
        transport=mock_transport(),
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
    )


def is_mock(model: Any) -> bool:
    """Whether `model` is the in-process mock: a run costs nothing and takes milliseconds."""
    return getattr(model, "base_url", None) == MOCK_BASE_URL


def is_persona(name: str | None) -> bool:
    """Whether `name` names a mock persona (`searcher`, `slow:0.5`, ...)."""
    from .mock.personas import PERSONAS

    return bool(name) and str(name).partition(":")[0] in PERSONAS


def connect(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout_s: float | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_tokens: int | Literal["default"] | None = "default",
    temperature: float | None = None,
    seed: int | None = None,
) -> OpenAIChat:
    """The model the loop talks to: the offline mock unless an endpoint is configured.

    `base_url` (or `OPENAI_BASE_URL`) selects a real endpoint; `api_key` defaults to
    `OPENAI_API_KEY` and `model` to `WHENTOSTOP_MODEL`. With neither, `model` names a mock
    persona (`searcher`, `loopboros`, `sloppy`, `slow`), reached in-process.

    Generation settings, sent with every request only when set: `temperature`, `seed`, and
    `max_tokens`, the cap on each reply. A real endpoint gets `DEFAULT_MAX_TOKENS` (256)
    unless you pass a number, or `None` for no cap: without one, a small local model that
    starts repeating itself can generate for minutes and fail on the timeout (see
    `client.DEFAULT_MAX_TOKENS`). The mock gets a cap only when you pass one, and ignores it.

    `timeout_s`, the seconds one request may take, defaults to `WHENTOSTOP_TIMEOUT_S` from the
    environment, else 60: a slow local model may need more, set once for every notebook.

    So that a notebook switches by configuration alone: when the endpoint comes from
    `OPENAI_BASE_URL`, a persona name stands for `WHENTOSTOP_MODEL` — your model plays the
    part — unless that endpoint serves the personas itself (`python -m whentostop serve`: its
    `/v1/models` lists them), which then gets the persona asked for.
    """
    from .mock.personas import PERSONAS

    # what the mock and a real endpoint are given alike
    common: dict[str, Any] = {"max_retries": max_retries, "temperature": temperature, "seed": seed}
    common["timeout_s"] = configured_timeout() if timeout_s is None else timeout_s
    configured = setting("WHENTOSTOP_MODEL")
    endpoint = base_url or setting("OPENAI_BASE_URL")
    if endpoint is None:
        if model is None and configured and not is_persona(configured):
            personas = ", ".join(PERSONAS)
            raise ValueError(say("model_without_endpoint", model=configured, personas=personas))
        cap = None if max_tokens == "default" else max_tokens
        return mock(model or configured or "searcher", max_tokens=cap, **common)
    if base_url is None and is_persona(model) and not _serves(endpoint, model):
        model = configured  # a persona is a role on the mock; the configured model plays it
    model = model or configured
    if not model:
        raise ValueError(say("which_model", endpoint=shown_url(endpoint), model=option("model")))
    api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
    cap = DEFAULT_MAX_TOKENS if max_tokens == "default" else max_tokens
    return OpenAIChat(model, endpoint, api_key=api_key, max_tokens=cap, **common)


def configured_timeout() -> float:
    """The request timeout the environment sets (`WHENTOSTOP_TIMEOUT_S`), else the default."""
    if not (said := setting(TIMEOUT_VARIABLE)):
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(said)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0:
        refused = _("{variable} must be a positive number of seconds, got {value!r}")
        raise ValueError(refused.format(variable=TIMEOUT_VARIABLE, value=said))
    return seconds


def setting(name: str) -> str | None:
    """The environment variable `name` as a setting: None when unset or empty; spaces or a line
    break around it (a `.env` file's CRLF, a paste) removed, with a warning that says so."""
    value = os.environ.get(name)
    return trimmed(value, name) or None if value else None


def serves_personas(base_url: str | None = None) -> bool:
    """Whether the endpoint (`base_url`, else `OPENAI_BASE_URL`) is the mock served over HTTP
    (`python -m whentostop serve`): its `/v1/models` lists every persona, and it plays them."""
    from .mock.personas import PERSONAS

    endpoint = base_url or setting("OPENAI_BASE_URL")
    return endpoint is not None and set(PERSONAS) <= _listed_models(endpoint.rstrip("/"))


def _serves(endpoint: str, persona: str | None) -> bool:
    """Whether the endpoint's `/v1/models` lists the persona (it is the mock server)."""
    return bool(persona) and str(persona).partition(":")[0] in _listed_models(endpoint.rstrip("/"))


@cache
def _listed_models(endpoint: str) -> frozenset[str]:
    """The model ids an endpoint lists, asked once per endpoint; none if it does not answer
    quickly (a real model server that is down fails at the first request instead, clearly)."""
    import httpx

    try:
        data = httpx.get(f"{endpoint}/models", timeout=2.0).json()
        return frozenset(str(m.get("id")) for m in data.get("data", []) if isinstance(m, dict))
    except (httpx.HTTPError, httpx.InvalidURL, ValueError, AttributeError, TypeError):
        return frozenset()  # an invalid URL: the client says so, naming it
