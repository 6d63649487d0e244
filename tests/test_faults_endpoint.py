"""Endpoint faults, provoked for real on 127.0.0.1: nothing listening, an unknown host, a hang,
a trickle, HTTP 401/403/404/400, and 429/5xx with their bounded, recorded retries.

Every test goes through `run_to_end`, which checks the promise that holds under all of them:
exactly one outcome or one typed error carrying the partial run, and one SessionEnd.
"""

from __future__ import annotations

import socket

import pytest
from conftest import free_port
from faulty_server import (
    ANSWER,
    ASK_LOOKUP,
    LOOKUP_TOOLS,
    FaultyServer,
    chat,
    error,
    hang,
    hang_up,
    reply,
    run_to_end,
    timed,
    trickle,
    trickle_headers,
)

from whentostop import (
    AuthenticationError,
    EndpointHTTPError,
    EndpointTimeout,
    EndpointUnreachable,
    NoAnswer,
    NotFound,
    RateLimited,
    RetryEvent,
    ServerError,
    Stop,
    connect,
    tool,
)

pytestmark = pytest.mark.timeout(30)


TOOLS = LOOKUP_TOOLS


def model(server: FaultyServer, **kwargs) -> object:
    return connect("m", base_url=server.base_url, **kwargs)


# ---- nothing answers --------------------------------------------------------------------


def test_nothing_listening_is_unreachable_naming_the_url_and_what_to_check():
    url = f"http://127.0.0.1:{free_port()}/v1"
    ending = run_to_end(model=connect("m", base_url=url), tools=TOOLS)
    assert isinstance(ending.error, EndpointUnreachable)
    message = str(ending.error)
    assert url in message and "is the server running, and is the port right?" in message
    assert ending.run.turns == [] and ending.run.messages[-1]["role"] == "user"


def test_ollama_port_not_listening_asks_whether_ollama_is_running():
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("something listens on 11434 here")
    ending = run_to_end(model=connect("llama3.2", base_url="http://127.0.0.1:11434/v1"))
    assert isinstance(ending.error, EndpointUnreachable)
    assert "Could not reach http://127.0.0.1:11434/v1 — is Ollama running?" in str(ending.error)


def test_unknown_host_says_the_host_is_unknown():
    url = "http://whentostop-nowhere.invalid/v1"  # the reserved TLD: resolution fails locally
    ending = run_to_end(model=connect("m", base_url=url))
    assert isinstance(ending.error, EndpointUnreachable)
    assert "the host 'whentostop-nowhere.invalid' is unknown" in str(ending.error)
    assert "OPENAI_BASE_URL" in str(ending.error)


def test_server_that_goes_away_mid_run_keeps_the_turns_before_it():
    with FaultyServer([ASK_LOOKUP, ANSWER], keep_alive=False) as server:

        def lookup(key: str) -> str:
            """Look a key up (and take the server down)."""
            server.__exit__(None, None, None)
            return "42"

        ending = run_to_end(model=model(server), tools=[tool(lookup)])
    assert isinstance(ending.error, EndpointUnreachable)
    assert len(ending.run.turns) == 1 and ending.run.turns[0].tool_calls[0].output == "42"
    assert ending.run.messages[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}


def test_a_server_that_hangs_up_without_answering_is_a_connection_error():
    with FaultyServer([ASK_LOOKUP, hang_up()]) as server:
        ending = run_to_end(model=model(server), tools=TOOLS)
    assert isinstance(ending.error, EndpointUnreachable) and len(ending.run.turns) == 1
    assert f"The connection to {server.base_url}/chat/completions failed" in str(ending.error)
    assert "Server disconnected without sending a response" in str(ending.error)


# ---- too slow ---------------------------------------------------------------------------


def test_a_hanging_endpoint_is_a_timeout_error_naming_the_limit():
    with FaultyServer([hang(20)]) as server:
        ending = run_to_end(model=model(server, timeout_s=0.4), tools=TOOLS)
    assert isinstance(ending.error, EndpointTimeout)
    assert f"Timed out waiting for {server.base_url}/chat/completions after 0.4 s" in str(
        ending.error
    )
    assert "deadline_s" in str(ending.error)


def test_a_hang_on_turn_two_keeps_turn_one_in_the_error():
    with FaultyServer([ASK_LOOKUP, hang(20)]) as server:
        ending = run_to_end(model=model(server, timeout_s=0.4), tools=TOOLS)
    assert isinstance(ending.error, EndpointTimeout)
    assert [t.index for t in ending.run.turns] == [1]
    assert ending.run.total_tokens == 13 and ending.run.tool_calls[0].ok


def test_a_hang_past_the_run_deadline_is_the_deadline_exit_not_an_error():
    with FaultyServer([ASK_LOOKUP, hang(20)]) as server:
        ending = run_to_end(model=model(server, timeout_s=30), tools=TOOLS, deadline_s=0.6)
    assert ending.run.stop == Stop.DEADLINE and len(ending.run.turns) == 1
    with pytest.raises(
        NoAnswer, match="deadline of 0.6 s after 1 turn while the model was asking for lookup"
    ):
        ending.run.answer


def test_a_trickling_reply_is_cut_by_the_timeout_although_every_read_is_quick():
    # 8 bytes every 0.1 s: each read is far inside the 0.5 s limit, the whole reply is not.
    with FaultyServer([trickle(chat("x" * 400), chunk=8, delay_s=0.1)]) as server:
        ending = run_to_end(model=model(server, timeout_s=0.5))
    assert isinstance(ending.error, EndpointTimeout)
    assert "was still arriving after 0.5 s (a slow stream)" in str(ending.error)


def test_a_trickling_reply_is_cut_by_the_run_deadline():
    with FaultyServer([trickle(chat("x" * 400), chunk=8, delay_s=0.1)]) as server:
        ending = run_to_end(model=model(server, timeout_s=30), deadline_s=0.5)
    assert ending.run.stop == Stop.DEADLINE and ending.run.turns == []


@pytest.mark.timeout(30)
def test_headers_sent_a_byte_at_a_time_are_cut_by_the_timeout():
    # One header byte every 0.05 s, for ten minutes: no single read ever waits long.
    with FaultyServer([trickle_headers(0.05), reply(chat("It is 42."))]) as server:
        chat_model = model(server, timeout_s=0.5)
        ending = run_to_end(model=chat_model)
        assert isinstance(ending.error, EndpointTimeout)
        assert "Timed out waiting for" in str(ending.error) and "after 0.5 s" in str(ending.error)
        # The client is still usable: the next request gets a fresh connection and an answer.
        again = run_to_end(model=chat_model)
    assert again.run.stop == Stop.END_TURN and again.run.answer == "It is 42."


@pytest.mark.timeout(30)
def test_headers_sent_a_byte_at_a_time_are_cut_by_the_run_deadline():
    with FaultyServer([trickle_headers(0.05)]) as server:
        ending = run_to_end(model=model(server, timeout_s=60), deadline_s=0.5)
    assert ending.run.stop == Stop.DEADLINE and ending.run.turns == []


def test_a_slow_reply_that_finishes_inside_the_limit_is_a_normal_answer():
    with FaultyServer([trickle(chat("It is 42."), chunk=64, delay_s=0.05)]) as server:
        ending = run_to_end(model=model(server, timeout_s=10))
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "It is 42."


# ---- HTTP errors that retrying cannot fix -----------------------------------------------


@pytest.mark.parametrize(
    "status, cls, says",
    [
        (401, AuthenticationError, "Check OPENAI_API_KEY (its value is not shown here)"),
        (403, AuthenticationError, "Check OPENAI_API_KEY (its value is not shown here)"),
        (404, NotFound, "Check the model name and that the base URL ends in /v1"),
        (400, EndpointHTTPError, "supports tool calling"),
    ],
)
def test_client_errors_are_typed_not_retried_and_say_what_to_check(status, cls, says):
    with FaultyServer([error(status, "nope")]) as server:
        ending = run_to_end(model=model(server, max_retries=3), tools=TOOLS)
    assert type(ending.error) is cls and ending.error.status == status
    message = str(ending.error)
    assert message.startswith(f"HTTP {status} from {server.base_url}/chat/completions")
    assert says in message and "The endpoint said: nope" in message
    assert len(server.requests) == 1 and ending.of(RetryEvent) == []


def test_no_key_and_a_401_says_the_endpoint_wants_a_key():
    with FaultyServer([error(401)]) as server:
        ending = run_to_end(model=model(server))
    assert "the endpoint wants an API key and none was given" in str(ending.error)


def test_an_error_page_in_html_is_quoted_short():
    page = "<html><body>" + "Bad Gateway " * 500 + "</body></html>"
    with FaultyServer([reply(page, 502, content_type="text/html")]) as server:
        ending = run_to_end(model=model(server, max_retries=0))
    assert isinstance(ending.error, ServerError)
    said = str(ending.error).split("The endpoint said: ")[1]
    assert said.startswith("<html><body>Bad Gateway") and len(said) <= 200


# ---- 429 and 5xx: bounded retries, recorded, not turns ----------------------------------


def test_a_429_with_retry_after_is_waited_out_recorded_on_the_turn_and_not_a_turn():
    arrivals: list[float] = []
    script = [
        timed(error(429, "slow down", {"Retry-After": "0.3"}), arrivals),
        timed(ANSWER, arrivals),
    ]
    with FaultyServer(script) as server:
        ending = run_to_end(model=model(server), max_turns=1)
    assert ending.run.stop == Stop.END_TURN and len(ending.run.turns) == 1
    assert ending.run.turns[0].retries == ["HTTP 429, waited 0.30 s"]
    assert [(e.turn, e.attempt, e.wait_s) for e in ending.of(RetryEvent)] == [(1, 1, 0.3)]
    assert arrivals[1] - arrivals[0] >= 0.3  # Retry-After was honoured
    assert len(server.requests) == 2


def test_retries_do_not_use_up_the_turn_budget():
    busy = error(503, "busy", {"Retry-After": "0"})
    with FaultyServer([ASK_LOOKUP, busy, busy, ANSWER]) as server:
        ending = run_to_end(model=model(server), tools=TOOLS, max_turns=2)
    assert ending.run.stop == Stop.END_TURN and len(ending.run.turns) == 2
    assert ending.run.turns[0].retries == [] and len(ending.run.turns[1].retries) == 2
    assert len(server.requests) == 4


def test_retries_are_not_counted_by_the_budget_only_the_usage_of_replies_is():
    busy = error(503, "busy", {"Retry-After": "0"})
    with FaultyServer([ASK_LOOKUP, busy, busy, ASK_LOOKUP]) as server:
        ending = run_to_end(model=model(server), tools=TOOLS, max_turns=10, max_tokens_total=30)
    # two replies of 13 tokens; the third request would send at least 13 more: refused
    assert ending.run.stop == Stop.BUDGET and len(ending.run.turns) == 2
    assert len(server.requests) == 4 and len(ending.run.turns[1].retries) == 2


def test_a_budget_does_not_hide_an_endpoint_failure_the_partial_run_is_kept():
    with FaultyServer([ASK_LOOKUP, error(500, "down")]) as server:
        ending = run_to_end(model=model(server, max_retries=0), tools=TOOLS, max_tokens_total=1000)
    assert isinstance(ending.error, ServerError) and len(ending.run.turns) == 1
    assert ending.run.max_tokens_total == 1000 and ending.run.budget_stop is None


def test_the_deadline_still_cuts_a_hang_when_a_budget_is_set():
    with FaultyServer([ASK_LOOKUP, hang(10)]) as server:
        ending = run_to_end(
            model=model(server, timeout_s=30), tools=TOOLS, deadline_s=1.0, max_tokens_total=1000
        )
    assert ending.run.stop == Stop.DEADLINE and len(ending.run.turns) == 1


def test_a_429_that_never_ends_becomes_rate_limited_after_the_retries():
    with FaultyServer([error(429, "quota", {"Retry-After": "0"})]) as server:
        ending = run_to_end(model=model(server, max_retries=2))
    assert isinstance(ending.error, RateLimited)
    assert len(server.requests) == 3 and len(ending.of(RetryEvent)) == 2
    assert ending.error.retries == ["HTTP 429, waited 0.00 s"] * 2
    assert "after 2 retries: rate limited" in str(ending.error)


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried_then_a_server_error(status):
    with FaultyServer([error(status, "down", {"Retry-After": "0"})]) as server:
        ending = run_to_end(model=model(server, max_retries=1))
    assert isinstance(ending.error, ServerError) and ending.error.status == status
    assert len(server.requests) == 2 and "try again later" in str(ending.error)


def test_without_retry_after_the_client_backs_off():
    arrivals: list[float] = []
    with FaultyServer([timed(error(500), arrivals), timed(ANSWER, arrivals)]) as server:
        ending = run_to_end(model=model(server))
    assert ending.run.stop == Stop.END_TURN
    assert arrivals[1] - arrivals[0] >= 0.5  # the first backoff step
    assert ending.run.turns[0].retries == ["HTTP 500, waited 0.50 s"]


def test_an_unreadable_retry_after_falls_back_to_backoff():
    with FaultyServer([error(429, headers={"Retry-After": "soon"}), ANSWER]) as server:
        ending = run_to_end(model=model(server))
    assert ending.run.turns[0].retries == ["HTTP 429, waited 0.50 s"]


def test_a_retry_after_longer_than_the_client_waits_fails_at_once_saying_so():
    with FaultyServer([error(429, "come back in an hour", {"Retry-After": "3600"})]) as server:
        ending = run_to_end(model=model(server))
    assert isinstance(ending.error, RateLimited) and len(server.requests) == 1
    assert "It asked to wait 3600 s (Retry-After), longer than the 20 s this client waits" in str(
        ending.error
    )


def test_a_retry_after_past_the_deadline_fails_at_once_saying_so():
    with FaultyServer([error(503, "busy", {"Retry-After": "5"})]) as server:
        ending = run_to_end(model=model(server), deadline_s=2)
    assert isinstance(ending.error, ServerError) and len(server.requests) == 1
    assert "Waiting 5.00 s to retry would pass the run's deadline" in str(ending.error)


@pytest.mark.parametrize("model", ["searcher", "llama3.2"])
def test_a_malformed_openai_base_url_is_a_value_error_naming_it(monkeypatch, model):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://[::1/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    with pytest.raises(ValueError, match=r"http://\[::1/v1 is not a valid URL"):
        connect(model)
