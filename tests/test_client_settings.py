"""Generation settings (`max_tokens`, `temperature`, `seed`): sent with every request only when
set, a reply cap by default on a real endpoint, OpenAI's own name for the cap on OpenAI, and the
mock accepts them all."""

from __future__ import annotations

import json

import httpx
import pytest
from faulty_server import ANSWER, FaultyServer, chat

from whentostop import OpenAIChat, connect, load_level, run_agent
from whentostop.client import DEFAULT_MAX_TOKENS
from whentostop.mock.endpoint import mock_transport
from whentostop.models import MOCK_BASE_URL

pytestmark = pytest.mark.timeout(30)
SETTINGS = ("max_tokens", "max_completion_tokens", "temperature", "seed")


def sent_settings(**options) -> dict:
    """What a request to a loopback endpoint carried, for `connect(...)` with these options."""
    with FaultyServer([ANSWER]) as server:
        run_agent("Hi.", model=connect("m", base_url=server.base_url, **options))
    body = server.requests[0].body
    return {k: body[k] for k in SETTINGS if k in body}


def test_a_real_endpoint_gets_a_reply_cap_and_nothing_else_by_default():
    assert sent_settings() == {"max_tokens": DEFAULT_MAX_TOKENS}


def test_no_cap_when_asked_for_none():
    assert sent_settings(max_tokens=None) == {}


def test_settings_that_are_set_are_sent_with_every_request():
    assert sent_settings(max_tokens=64, temperature=0.2, seed=7) == {
        "max_tokens": 64,
        "temperature": 0.2,
        "seed": 7,
    }
    assert sent_settings(temperature=0) == {"max_tokens": DEFAULT_MAX_TOKENS, "temperature": 0.0}


def test_openais_own_api_gets_the_cap_as_max_completion_tokens():
    seen = []

    def respond(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=chat("Hello."))

    model = OpenAIChat(
        "gpt-4o-mini",
        "https://api.openai.com/v1",
        max_tokens=50,
        transport=httpx.MockTransport(respond),
    )
    run_agent("Hi.", model=model)
    assert seen[0]["max_completion_tokens"] == 50 and "max_tokens" not in seen[0]


def test_the_in_process_mock_gets_no_settings_unless_given_and_ignores_them():
    seen = []
    inner = mock_transport()

    class Spy(httpx.BaseTransport):
        def handle_request(self, request):
            seen.append(json.loads(request.content))
            return inner.handle_request(request)

    level = load_level("1-3")
    plain = run_agent(
        "Find the star.",
        model=OpenAIChat("searcher", MOCK_BASE_URL, transport=Spy()),
        tools=level.tools(),
        stop_on=["mark_star"],
    )
    assert not any(k in seen[0] for k in SETTINGS)
    assert not any(k in connect("searcher").settings for k in SETTINGS)
    tuned = run_agent(
        "Find the star.",
        model=connect("searcher", max_tokens=5, temperature=2, seed=1),
        tools=level.tools(),
        stop_on=["mark_star"],
    )
    assert tuned.messages == plain.messages


@pytest.mark.parametrize(
    "options, says",
    [
        ({"max_tokens": 0}, "max_tokens must be a positive int"),
        ({"max_tokens": True}, "max_tokens must be a positive int"),
        ({"max_tokens": 10.5}, "max_tokens must be a positive int"),
        ({"temperature": 2.5}, "temperature must be a number from 0 to 2"),
        ({"temperature": "hot"}, "temperature must be a number from 0 to 2"),
        ({"seed": "7"}, "seed must be an int"),
    ],
)
def test_bad_settings_are_refused_before_anything_is_sent(options, says):
    with pytest.raises(ValueError, match=says):
        connect("m", base_url="http://127.0.0.1:9/v1", **options)
