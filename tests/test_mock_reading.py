"""What the mock reads, it reads in linear time and bounded memory (issues 25 and 27): the
prompts (the reader of intent), the tools' descriptions and results (the personas), the whole
request (its token count); one request never keeps a shared `serve` from answering the others;
and a tool's failure is read as a model would read it.

Speed is asserted here only where the issues ask for a bound, in CPU time (`time.thread_time`)
with the margin they give: a megabyte of crafted text in under 0.1 s.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whentostop import Stop, connect, load_level, run_agent
from whentostop.mock import endpoint
from whentostop.mock.endpoint import MAX_REQUEST_BYTES, MockServer
from whentostop.mock.intent import CACHE_BYTES, read_intent
from whentostop.mock.personas import count_tokens, decide, read

MEGABYTE = 1_000_000
BOUND_S = 0.1
"""The issue's bound for one adversarial input, in CPU seconds."""

ADVERSARIAL = {
    "a run of dots": "." * MEGABYTE,
    "unclosed quotes": ('"' + "never give up ") * (MEGABYTE // 15),
    "spaces after Areas:": "Areas:" + " " * MEGABYTE,
    "repeated plain sentences": "If nothing turns up, say so. " * (MEGABYTE // 29),
    "nested brackets": "(" * (MEGABYTE // 2) + ")" * (MEGABYTE // 2),
    "one long word": "a" * MEGABYTE,
    "mixed scripts": "ñ日本語 desista Ω ⭐ " * (MEGABYTE // 16),
    "conditions without an end": ", if" * (MEGABYTE // 4),
    "questions": "No star? " * (MEGABYTE // 9),
    "negations": "not never não " * (MEGABYTE // 14),
    "corrections": "Forget that. Actually, " * (MEGABYTE // 23),
    "struck out and left open": ("~~never give up <del>stop</s> " * (MEGABYTE // 31)),
    "strikes closed": "~~a~~ <s>b</s> " * (MEGABYTE // 15),
}


def cpu_seconds(fn: Any, before: Any = None) -> float:
    """The least CPU time of three calls (`before` each, unmeasured): on a shared machine one
    measurement can be inflated by what else runs, never made smaller."""
    times = []
    for _ in range(3):
        if before is not None:
            before()
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return min(times)


@pytest.fixture(autouse=True)
def lexicons_loaded() -> None:
    """The lexicons are read once per process; that first read is not what is measured."""
    read_intent("Give up.", "Desista.")


PROSE = (
    "You are a careful searcher in a platform game. Search the areas one at a time with "
    "search_blocks and read what each block hides. If every area comes back without the star, "
    "you may stop and say that you could not find it; otherwise mark it with mark_star. "
) * 25
"""About 6 KB of ordinary instructions: the two windows the reader reads of any text, full."""
PROSE_RATIO = 1.5
"""A crafted megabyte may cost at most this much more than reading two full windows of prose."""


def within_bound(seconds: float, reference: float) -> bool:
    """The issue's bound (0.1 s of CPU), or, on a machine so loaded that even ordinary prose
    costs more (CPU time inflates when two processes share a core), the same ratio to that
    prose measured beside it: a crafted text that made the reader super-linear fails both."""
    return seconds < BOUND_S or seconds < PROSE_RATIO * reference


@pytest.fixture(scope="module")
def prose_s() -> float:
    return cpu_seconds(lambda: read_intent(PROSE, PROSE), before=read_intent.cache_clear)


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_a_megabyte_of_crafted_prompt_is_read_in_under_a_tenth_of_a_second(
    name: str, prose_s: float
) -> None:
    text = ADVERSARIAL[name]
    seconds = cpu_seconds(lambda: read_intent(text, text), before=read_intent.cache_clear)
    assert within_bound(seconds, prose_s), f"{seconds:.3f} s; 6 KB of prose: {prose_s:.3f} s"


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_a_megabyte_of_crafted_tool_text_is_read_in_under_a_tenth_of_a_second(
    name: str, prose_s: float
) -> None:
    """A tool's description (where the areas are named) and a tool's result (its blocks, or an
    error) are read by the personas as a prompt is read by the reader of intent."""
    text = ADVERSARIAL[name]
    body = {
        "model": "searcher",
        "messages": [
            {"role": "user", "content": "Find the star in this level."},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "search_blocks")]},
            {"role": "tool", "tool_call_id": "c1", "content": "Block 1: coin\n" + text},
            {"role": "assistant", "content": "", "tool_calls": [_call("c2", "mark_star")]},
            {"role": "tool", "tool_call_id": "c2", "content": text},
        ],
        "tools": [
            _tool("search_blocks", "Search. Areas: sky, castle.\n" + text),
            _tool("mark_star"),
        ],
    }
    seconds = cpu_seconds(lambda: decide("searcher", body), before=read_intent.cache_clear)
    assert within_bound(seconds, prose_s), f"{seconds:.3f} s; 6 KB of prose: {prose_s:.3f} s"


def test_areas_and_blocks_are_read_from_the_lines_that_name_them() -> None:
    body = {
        "model": "searcher",
        "messages": [
            {"role": "user", "content": "Find the star."},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "search_blocks")]},
            {"role": "tool", "tool_call_id": "c1", "content": "Block 4: coin\nBlock 12: star"},
        ],
        "tools": [_tool("search_blocks", "Search one area. Areas: shore, reeds,  island .")],
    }
    view = read(body)
    assert view.areas == ["shore", "reeds", "island"] and view.star == ("castle", 12)


PIECES = st.sampled_from(
    ['"', "'", ".", "?", ",", "(", ")", " ", "\n", "Areas:", "if ", "never ", "give up ",
     "não ", "desista ", "é ", "e ", "until ", "before ", "only ", "Block 3: ", "Error: ",
     "ValueError: ", "⭐", "→", "=", "no star ", "after 3 searches ", "forget that ", "~~",
     "<s>", "</s>", "<del>", "every area 3 times ", "EDIT: change 3 to 12 "]
)  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, min_size=1, max_size=12), st.integers(1, MEGABYTE // 12))
def test_any_repetition_of_crafted_pieces_is_read_in_under_a_tenth_of_a_second(
    prose_s: float, pieces: list[str], times: int
) -> None:
    text = ("".join(pieces) * times)[:MEGABYTE]
    seconds = cpu_seconds(lambda: read_intent(text), before=read_intent.cache_clear)
    assert within_bound(seconds, prose_s), f"{seconds:.3f} s; 6 KB of prose: {prose_s:.3f} s"


def test_tokens_are_counted_in_pieces_and_none_is_counted_twice() -> None:
    text = "one, two three. " * 40_000  # more than one piece of 64 KB
    assert count_tokens(text) == 5 * 40_000
    assert count_tokens("Block 3: coin") == 4


def test_the_cache_of_readings_is_bounded_in_bytes_not_entries() -> None:
    read_intent.cache_clear()
    for n in range(200):  # each prompt is read in two windows of a few KB: the cache keeps those
        read_intent(f"{n} " + "x" * 200_000 + " Give up.")
    assert 0 < read_intent.cache_bytes() <= CACHE_BYTES
    prompt = "If nothing turns up, say so."
    assert read_intent(prompt) is read_intent(prompt)  # a later request of a conversation is a hit


# --- one request never stalls a shared serve ---------------------------------------------------


def test_models_is_answered_while_big_crafted_requests_are_being_read(monkeypatch) -> None:
    """Maximal requests of crafted text (unclosed quotes, conditions without an end) arrive
    together and are held inside the server's handling; a `GET /v1/models` is answered meanwhile,
    and then every one of them is read to its answer. (That a reading never holds the CPU for
    long is the CPU-time bound above: together, one paste never stalls a class's serve.)"""
    inside = threading.Semaphore(0)
    answered = threading.Event()
    original = endpoint.handle

    def handle(method: str, path: str, body: bytes, **kwargs: Any) -> Any:
        if method == "POST":
            inside.release()
            answered.wait(
                timeout=30
            )  # each big request stays in the server until models is answered
        return original(method, path, body, **kwargs)

    monkeypatch.setattr(endpoint, "handle", handle)
    finished: list[str] = []
    with MockServer() as server:
        host, port = server.httpd.server_address[:2]
        big = [
            threading.Thread(target=_post, args=(str(host), port, _maximal_body(n), finished))
            for n in range(4)
        ]
        for thread in big:
            thread.start()
        for _ in big:
            assert inside.acquire(timeout=30)  # all four are being handled at once
        connection = http.client.HTTPConnection(str(host), port, timeout=30)
        connection.request("GET", "/v1/models")
        assert connection.getresponse().status == 200
        finished.append("models")
        answered.set()
        for thread in big:
            thread.join(timeout=60)
    assert finished[0] == "models" and finished.count("big") == 4, finished


def _maximal_body(n: int) -> bytes:
    """A chat request of crafted text, as large as the server accepts; `n` makes each distinct."""
    half = (MAX_REQUEST_BYTES - 400) // 2
    filler = (f"{n} " + '"' + "never give up, if " * half)[:half]
    body = json.dumps(
        {
            "model": "searcher",
            "messages": [
                {"role": "system", "content": filler},
                {"role": "user", "content": filler},
            ],
        }
    ).encode()
    assert MAX_REQUEST_BYTES - 1000 < len(body) <= MAX_REQUEST_BYTES
    return body


def _post(host: str, port: int, body: bytes, finished: list[str]) -> None:
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    assert connection.getresponse().status == 200
    finished.append("big")


# --- a tool's failure, read as a model reads it -------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        "Error: block must be a number",
        "Erro: o bloco tem que ser um número",
        "ValueError: invalid literal for int() with base 10: 'the 12th block'",
        "KeyError: 'block'",
        "RuntimeError",
        "ToolInputError: 1 validation error for MarkStarInput",
        "httpx.ReadTimeout: the tool took too long",
        "Falhou: o bloco não existe",
        "The call failed: block 'the 12th block' is not a number",
        "Could not mark the block.",
        '{"error": "block must be a positive integer"}',
        '{"ok": false, "reason": "bad block"}',
    ],
)
def test_a_result_that_says_the_call_failed_is_read_as_a_failure(result: str) -> None:
    """The sloppy caller's first mark_star fails validation in the learner's loop; whatever words
    the loop reports the failure in, the caller reads it and tries again with a fixed input."""
    body = _after_a_bad_mark(result)
    message = decide("sloppy", body)
    call = (message.get("tool_calls") or [{}])[0].get("function", {})
    assert call.get("name") == "mark_star", message
    assert json.loads(call["arguments"]) == {"item": "star", "block": 12}


@pytest.mark.parametrize(
    "result",
    ["Marked block 12 (castle) on the level map.", "Done.", "Warning: the map is old, marked."],
)
def test_a_result_that_reports_success_is_not_read_as_a_failure(result: str) -> None:
    message = decide("sloppy", _after_a_bad_mark(result))
    assert not message.get("tool_calls") and "12" in message["content"]


def test_words_of_failure_inside_a_searchs_data_are_data() -> None:
    body = {
        "model": "searcher",
        "messages": [
            {"role": "user", "content": "Find the star in this level."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("c1", "search_blocks", "sky")],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "Block 1: nothing\nBlock 2: failed"},
        ],
        "tools": [_tool("search_blocks", "Search. Areas: sky, castle.")],
    }
    assert read(body).searched == ["sky"]


def test_exercise_1_4_b_reads_1_4_a_s_exception_lines_as_failures() -> None:
    """1-4.a accepts `f"{type(exc).__name__}: {exc}"` as run_call's error line; with it, the
    solution loop of 1-4.b must still pass every case (the mock retries a failed mark_star)."""
    from answers import defined, scratch, solution_of

    from whentostop.lesson.checks import by_tag

    run_call = solution_of("1-4.a")
    typed = run_call.replace('f"Error: {exc}"', 'f"{type(exc).__name__}: {exc}"')
    assert typed != run_call
    assert by_tag("exercise-1-4-a").result(defined(typed, "run_call")).status == "correct"
    loop = defined(solution_of("1-4.b"), "my_loop", scratch() + "\n\n" + typed)
    verdict = by_tag("exercise-1-4-b").result(loop)
    assert verdict.status == "correct", verdict.message


def test_the_sloppy_caller_still_ends_on_the_pipe_through_the_library_loop() -> None:
    run = run_agent(
        "Find the star in this level.",
        model=connect("sloppy"),
        tools=load_level("1-3").tools(),
        stop_on=["mark_star"],
    )
    assert run.stop == Stop.TERMINAL_TOOL and run.answer == {"item": "star", "block": 12}


def _call(call_id: str, name: str, area: str = "castle") -> dict[str, Any]:
    arguments = {"area": area} if name == "search_blocks" else {"item": "Star", "block": "12th"}
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _tool(name: str, description: str = "") -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description}}


def _after_a_bad_mark(result: str) -> dict[str, Any]:
    """A conversation where the star was found in block 12 and the first mark_star got `result`."""
    return {
        "model": "sloppy",
        "messages": [
            {"role": "user", "content": "Find the star in this level."},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "search_blocks")]},
            {"role": "tool", "tool_call_id": "c1", "content": "Block 11: coin\nBlock 12: star"},
            {"role": "assistant", "content": "", "tool_calls": [_call("c2", "mark_star")]},
            {"role": "tool", "tool_call_id": "c2", "content": result},
        ],
        "tools": [_tool("search_blocks", "Areas: castle."), _tool("mark_star")],
    }
