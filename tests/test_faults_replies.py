"""Replies that are not what a chat completion should be — not JSON, not a completion, no
choices, no message, cut off by `length`, empty — and tool calls a small model gets wrong:
broken JSON, arguments that are not an object, an unknown tool, one call id used twice, a call
written as text.

The first group ends in `BadResponse` quoting a short excerpt; `length` is reported on the
turn; an empty reply is the model's turn (never an answer: the loop asks again); broken tool
calls go back to the model as error results and the loop goes on; a call written as text is
noted. The budget holds against a server whatever it reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import tracemalloc
import zlib

import pytest
from faulty_server import (
    ANSWER,
    LOOKUP_TOOLS,
    FaultyServer,
    call,
    chat,
    cli_command,
    completion,
    reply,
    run_to_end,
    send,
)

from whentostop import BadResponse, EndpointTimeout, NoAnswer, Stop, ToolResultEvent, connect
from whentostop.client import DEFAULT_MAX_TOKENS
from whentostop.loop import CONTINUE_PROMPT, EMPTY_PROMPT

pytestmark = pytest.mark.timeout(30)


TOOLS = LOOKUP_TOOLS


def run_script(script, **kwargs):
    with FaultyServer(script) as server:
        ending = run_to_end(model=connect("m", base_url=server.base_url), tools=TOOLS, **kwargs)
    return ending, server


# ---- bodies that are not a usable completion --------------------------------------------


@pytest.mark.parametrize(
    "body, says",
    [
        (
            "<html>Welcome to nginx!</html>",
            "answered with something that is not JSON: <html>Welcome to nginx!</html>",
        ),
        ("", "answered with something that is not JSON: (an empty body)"),
        ([1, 2, 3], "the reply is not a chat completion (a JSON list): [1, 2, 3]"),
        (
            {"object": "list", "data": []},
            'the reply has no choices: {"object": "list", "data": []}',
        ),
        ({"choices": []}, 'the reply has no choices: {"choices": []}'),
        ({"choices": [{"index": 0}]}, 'the reply\'s first choice has no message: {"index": 0}'),
        (
            {"error": {"message": "model overloaded"}},
            "the endpoint sent an error instead of a reply",
        ),
        (
            {"choices": [{"message": {"content": 7}}]},
            "the message content is neither text nor parts: 7",
        ),
    ],
)
def test_a_body_that_is_not_a_completion_is_bad_response_quoting_it(body, says):
    ending, server = run_script([reply(body)])
    assert isinstance(ending.error, BadResponse)
    assert str(ending.error).startswith(f"{server.base_url}/chat/completions")
    assert says in str(ending.error)
    assert ending.run.turns == []


def test_the_quote_of_a_huge_bad_body_is_short():
    ending, _ = run_script([reply("oops " * 200_000, content_type="text/plain")])
    assert isinstance(ending.error, BadResponse) and len(str(ending.error)) < 400
    assert str(ending.error).endswith("…")


def test_a_bad_reply_on_turn_two_keeps_turn_one():
    ending, _ = run_script(
        [completion(tool_calls=[call("lookup", {"key": "a"})]), reply("not json")]
    )
    assert isinstance(ending.error, BadResponse)
    assert len(ending.run.turns) == 1 and ending.run.messages[-1]["role"] == "tool"
    assert ending.run.total_tokens == 13


def test_a_deeply_nested_body_is_bad_response_not_a_recursion_error():
    ending, _ = run_script([reply("[" * 100_000 + "]" * 100_000)])
    assert isinstance(ending.error, BadResponse) and "not JSON" in str(ending.error)


def test_content_given_as_parts_is_joined_into_text():
    parts = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "It is "},
                        {"type": "text", "text": 42},
                        {"type": "text", "text": "42."},
                    ],
                }
            }
        ]
    }
    ending, _ = run_script([reply(parts)])
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "It is 42."


# ---- finish_reason "length" ------------------------------------------------------------


def test_a_reply_cut_by_length_is_reported_and_not_taken_as_the_answer():
    ending, server = run_script([completion("The value is", finish_reason="length"), ANSWER])
    first, second = ending.run.turns
    assert first.truncated and first.finish_reason == "length" and not second.truncated
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "It is 42."
    assert server.requests[1].body["messages"][-1] == {"role": "user", "content": CONTINUE_PROMPT}


def test_a_reply_cut_by_length_on_the_last_turn_is_the_clock_with_no_answer():
    ending, _ = run_script([completion("The value is", finish_reason="length")], max_turns=1)
    assert ending.run.stop == Stop.MAX_TURNS and ending.run.turns[0].truncated
    with pytest.raises(NoAnswer, match="max_turns=1"):
        ending.run.answer


def test_tool_arguments_cut_by_length_go_back_as_an_error():
    cut = completion(tool_calls=[call("lookup", '{"key": "a')], finish_reason="length")
    ending, _ = run_script([cut, ANSWER])
    assert ending.run.turns[0].truncated
    assert ending.run.tool_calls[0].output.startswith(
        "Error: the arguments for lookup are not valid JSON"
    )
    assert ending.run.stop == Stop.END_TURN


# ---- tool calls a model gets wrong ----------------------------------------------------


@pytest.mark.parametrize(
    "arguments, says",
    [
        (
            '{"key": ',
            'Error: the arguments for lookup are not valid JSON (Expecting value at character 8): {"key": ',
        ),
        ("{'key': 'a'}", "Error: the arguments for lookup are not valid JSON"),
        ("[1, 2]", "Error: the arguments for lookup must be a JSON object, got list: [1, 2]"),
        ('"a"', 'Error: the arguments for lookup must be a JSON object, got str: "a"'),
        ("42", "Error: the arguments for lookup must be a JSON object, got int: 42"),
        ("null", "Error: the arguments for lookup must be a JSON object, got NoneType: null"),
        (
            '{"key": 5}',
            "Error: invalid input for lookup: key: Input should be a valid string (got 5)",
        ),
        ("{}", "Error: invalid input for lookup: key: Field required"),
    ],
)
def test_bad_tool_arguments_go_back_to_the_model_and_the_loop_goes_on(arguments, says):
    ending, server = run_script([completion(tool_calls=[call("lookup", arguments)]), ANSWER])
    (bad,) = ending.run.tool_calls
    assert not bad.ok and bad.input is None and bad.arguments == arguments
    assert bad.output.startswith(says)
    sent_back = server.requests[1].body["messages"][-1]
    assert sent_back == {"role": "tool", "tool_call_id": "call_1", "content": bad.output}
    assert ending.run.stop == Stop.END_TURN and len(ending.run.turns) == 2


def test_arguments_sent_as_an_object_instead_of_a_string_still_work():
    raw = {
        "id": "c1",
        "type": "function",
        "function": {"name": "lookup", "arguments": {"key": "a"}},
    }
    ending, _ = run_script([completion(tool_calls=[raw]), ANSWER])
    (good,) = ending.run.tool_calls
    assert good.ok and good.input == {"key": "a"} and json.loads(good.arguments) == {"key": "a"}


def test_an_unknown_tool_goes_back_listing_the_tools_there_are():
    ending, server = run_script([completion(tool_calls=[call("lokup", {"key": "a"})]), ANSWER])
    (bad,) = ending.run.tool_calls
    assert bad.output == "Error: there is no tool named 'lokup'. Tools: lookup."
    assert not bad.ok and ending.run.stop == Stop.END_TURN


def test_a_duplicated_call_id_runs_once_and_the_second_is_an_error():
    twice = [call("lookup", {"key": "a"}, "same"), call("lookup", {"key": "b"}, "same")]
    ending, _ = run_script([completion(tool_calls=twice), ANSWER])
    first, second = ending.run.tool_calls
    assert first.ok and first.output == "the value of a is 42"
    assert (
        not second.ok
        and second.output == "Error: tool call id 'same' was used twice in one reply; not run."
    )
    results = [e for e in ending.events if isinstance(e, ToolResultEvent)]
    assert [e.ok for e in results] == [True, False]
    assert ending.run.stop == Stop.END_TURN


def test_a_tool_call_without_a_function_is_bad_response():
    ending, _ = run_script([completion(tool_calls=[{"id": "x", "type": "function"}])])
    assert isinstance(ending.error, BadResponse) and "a tool call has no function" in str(
        ending.error
    )


def test_a_tool_call_without_an_id_gets_one():
    nameless = {"type": "function", "function": {"name": "lookup", "arguments": '{"key": "a"}'}}
    ending, server = run_script([completion(tool_calls=[nameless]), ANSWER])
    (good,) = ending.run.tool_calls
    assert good.ok and good.id.startswith("call_")
    assert server.requests[1].body["messages"][-1]["tool_call_id"] == good.id


def test_a_lone_surrogate_in_tool_arguments_does_not_break_the_next_request():
    # JSON allows "\ud800"; Python decodes it to a lone surrogate, which UTF-8 cannot encode.
    weird = completion(tool_calls=[call("lookup", '{"key": "\ud800"}')])
    ending, server = run_script([weird, ANSWER])
    assert ending.run.stop == Stop.END_TURN and len(server.requests) == 2


# ---- compressed and mislabelled bodies ---------------------------------------------------


def gzipped(data: bytes | str, *, wbits: int = 31) -> bytes:
    """`data` compressed as gzip (wbits 31), zlib-wrapped deflate (15) or raw deflate (-15)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data.encode() if isinstance(data, str) else data) + packer.flush()


def padded_bomb(decoded_size: int) -> bytes:
    """A valid chat completion followed by whitespace up to `decoded_size` bytes, gzipped: a
    few hundred kilobytes on the wire that a careless client inflates in full."""
    head = json.dumps(chat("It is 42.")).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(head)]
    block = b" " * (1 << 20)
    for _ in range((decoded_size - len(head)) // len(block)):
        parts.append(packer.compress(block))
    return b"".join(parts) + packer.flush()


def encoded(body: bytes, encoding: str):
    return reply(body, headers={"Content-Encoding": encoding})


GOOD = json.dumps(chat("It is 42.")).encode()


@pytest.mark.parametrize(
    "body, encoding",
    [
        (gzipped(GOOD), "gzip"),
        (gzipped(GOOD), "x-gzip"),
        (gzipped(GOOD, wbits=15), "deflate"),
        (gzipped(GOOD, wbits=-15), "deflate"),  # raw deflate, as some servers send it
        (gzipped(gzipped(GOOD), wbits=15), "gzip, deflate"),  # listed in the order applied
        (GOOD, "identity"),
    ],
)
def test_a_compressed_reply_is_decoded(body, encoding):
    ending, server = run_script([encoded(body, encoding)])
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "It is 42."
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize("encoding", ["gzip", None])
def test_a_reply_with_a_header_outside_ascii_is_read(encoding):
    """HTTP lets a header value hold bytes outside ASCII (obs-text: httpx reads them as
    Latin-1); a server that sends one ("X-Server: café") is still answered, compressed or not
    (the body read off the network was a UnicodeEncodeError, not even an `EndpointError`)."""
    headers = {"X-Server": "café", **({"Content-Encoding": encoding} if encoding else {})}
    body = gzipped(GOOD) if encoding else GOOD
    ending, _ = run_script([reply(body, headers=headers)])
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "It is 42."


def test_a_small_compressed_reply_that_inflates_past_the_cap_is_bad_response():
    from whentostop.client import MAX_RESPONSE_BYTES

    bomb = padded_bomb(40 << 20)  # 40 MiB once inflated, about 40 kB on the wire
    assert len(bomb) < MAX_RESPONSE_BYTES // 100
    ending, _ = run_script([encoded(bomb, "gzip")])
    assert isinstance(ending.error, BadResponse)
    assert f"sent more than {MAX_RESPONSE_BYTES:,} bytes" in str(ending.error)


def test_a_stacked_compression_bomb_is_cut_without_inflating_it_whole():
    """gzip inside gzip multiplies the ratios: a few kilobytes that inflate to 128 MiB in one
    step of a per-chunk decoder. Memory must stay near the cap, not near the bomb."""
    from whentostop.client import MAX_RESPONSE_BYTES

    bomb = gzipped(padded_bomb(128 << 20))
    assert len(bomb) < 64 * 1024
    tracemalloc.start()
    try:
        ending, _ = run_script([encoded(bomb, "gzip, gzip")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(ending.error, BadResponse) and "sent more than" in str(ending.error)
    assert peak < 3 * MAX_RESPONSE_BYTES, f"{peak:,} bytes held at once"


@pytest.mark.parametrize(
    "body, encoding, says",
    [
        (GOOD, "gzip", "says it is compressed (Content-Encoding: gzip) but is not"),
        (GOOD, "deflate", "says it is compressed (Content-Encoding: deflate) but is not"),
        (gzipped(GOOD), "deflate", "says it is compressed (Content-Encoding: deflate) but is not"),
        (
            gzipped(GOOD),
            "gzip, gzip",
            "says it is compressed (Content-Encoding: gzip, gzip) but is not",
        ),
        (gzipped(GOOD)[:-12], "gzip", "the compressed reply is cut short (Content-Encoding: gzip)"),
        (gzipped(GOOD, wbits=15)[:20], "deflate", "the compressed reply is cut short"),
        (b"", "gzip", "answered with something that is not JSON: (an empty body)"),
        (GOOD, "br", "Content-Encoding: br, which this client did not ask for"),
        (GOOD, "zstd", "Content-Encoding: zstd, which this client did not ask for"),
        (GOOD, "compress", "Content-Encoding: compress, which this client did not ask for"),
        (
            gzipped(GOOD),
            "gzip, snappy",
            "Content-Encoding: gzip, snappy, which this client did not ask for",
        ),
    ],
)
def test_a_reply_whose_content_encoding_lies_is_bad_response(body, encoding, says):
    ending, server = run_script([encoded(body, encoding)])
    assert isinstance(ending.error, BadResponse)
    assert str(ending.error).startswith(f"{server.base_url}/chat/completions")
    assert says in str(ending.error)


def test_a_lying_encoding_on_turn_two_keeps_turn_one():
    ending, _ = run_script(
        [completion(tool_calls=[call("lookup", {"key": "a"})]), encoded(GOOD, "gzip")]
    )
    assert isinstance(ending.error, BadResponse)
    assert len(ending.run.turns) == 1 and ending.run.messages[-1]["role"] == "tool"


def test_a_lying_encoding_on_an_error_status_is_bad_response():
    ending, _ = run_script(
        [reply(b'{"error": {"message": "nope"}}', status=400, headers={"Content-Encoding": "gzip"})]
    )
    assert isinstance(ending.error, BadResponse) and "but is not" in str(ending.error)


def test_a_compressed_reply_that_trickles_still_times_out():
    body = gzipped(GOOD)
    with FaultyServer([lambda h, req: _trickle_bytes(h, body)]) as server:
        ending = run_to_end(
            model=connect("m", base_url=server.base_url, timeout_s=0.5), tools=TOOLS
        )
    assert isinstance(ending.error, EndpointTimeout)
    assert "still arriving" in str(ending.error)


def _trickle_bytes(h, payload: bytes, delay_s: float = 0.2) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Encoding", "gzip")
    h.send_header("Content-Length", str(len(payload)))
    h.end_headers()
    h.wfile.flush()
    for start in range(0, len(payload), 4):
        if h.server.state.stopping.wait(delay_s):
            break
        try:
            h.wfile.write(payload[start : start + 4])
            h.wfile.flush()
        except OSError:
            break
    h.close_connection = True


@pytest.mark.parametrize("as_json", [False, True])
def test_the_command_line_reports_a_lying_encoding_in_one_line_and_exits_2(as_json):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    with FaultyServer([encoded(GOOD, "gzip")]) as server:
        cmd = cli_command(server.base_url, as_json=as_json)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "but is not" in lines[0]
    if as_json:
        assert json.loads(done.stdout)["error"].endswith(lines[0].removeprefix("error: "))


CAFE = json.dumps(chat("café"), ensure_ascii=False).encode()


@pytest.mark.parametrize("charset", ["utf-16", "utf-32", "latin-1", "nonsense", "utf-8"])
def test_a_reply_whose_charset_lies_is_read_as_json_is_written_utf_8(charset):
    ending, _ = run_script([reply(CAFE, content_type=f"application/json; charset={charset}")])
    assert ending.run.stop == Stop.END_TURN and ending.run.answer == "café"


def test_a_reply_in_the_charset_it_names_is_still_read():
    body = json.dumps(chat("café"), ensure_ascii=False).encode("latin-1")
    ending, _ = run_script([reply(body, content_type="application/json; charset=latin-1")])
    assert ending.run.answer == "café"


def test_an_error_body_whose_charset_lies_is_still_an_http_error():
    from whentostop import EndpointHTTPError

    ending, _ = run_script(
        [
            reply(
                b'{"error": {"message": "no"}}',
                status=400,
                content_type="application/json; charset=utf-16",
            )
        ]
    )
    assert isinstance(ending.error, EndpointHTTPError) and "The endpoint said: no" in str(
        ending.error
    )


# ---- an empty reply: the model's turn, not an endpoint failure --------------------------


@pytest.mark.parametrize(
    "empty",
    [
        chat(""),
        chat(None),
        chat("  \n "),
        {"choices": [{"message": {"role": "assistant"}, "finish_reason": "stop"}]},
        {"choices": [{"message": {"role": "assistant", "content": []}}]},
    ],
)
def test_an_empty_reply_is_a_turn_and_the_loop_asks_again(empty):
    ending, server = run_script([reply(empty), ANSWER])
    assert ending.error is None and ending.run.stop == Stop.END_TURN
    first, second = ending.run.turns
    assert first.empty and first.notes[0].kind == "empty_reply" and not second.empty
    assert ending.run.answer == "It is 42."
    assert server.requests[1].body["messages"][-1] == {"role": "user", "content": EMPTY_PROMPT}


def test_replies_that_stay_empty_end_on_the_clock_with_no_answer():
    ending, server = run_script([reply(chat(""))], max_turns=3)
    assert ending.run.stop == Stop.MAX_TURNS and len(server.requests) == 3
    with pytest.raises(NoAnswer, match="its last reply was empty"):
        ending.run.answer


def test_a_choice_whose_message_is_not_an_object_is_still_bad_response():
    ending, _ = run_script([reply({"choices": [{"message": "hello"}]})])
    assert isinstance(ending.error, BadResponse) and "has no message" in str(ending.error)


# ---- a tool call written as text ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "lookup", "arguments": {"key": "a"}}',
        '```json\n{"name": "lookup", "arguments": {"key": "a"}}\n```',
        '<tool_call>\n{"name": "lookup", "arguments": {"key": "a"}}\n</tool_call>',
        '{"function": {"name": "lookup", "parameters": {"key": "a"}}}',
    ],
)
def test_a_call_written_as_text_ends_on_the_flag_noted_or_runs_when_accepted(text):
    noted, _ = run_script([completion(text)])
    assert noted.run.stop == Stop.END_TURN and noted.run.answer_is_text_tool_call
    accepted, server = run_script([completion(text), ANSWER], text_tool_calls="accept")
    assert accepted.run.stop == Stop.END_TURN and accepted.run.answer == "It is 42."
    (call,) = accepted.run.tool_calls
    assert call.ok and call.input == {"key": "a"}
    sent = server.requests[1].body["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["name"] == "lookup"  # the model sees a call
    assert sent[-1] == {"role": "tool", "tool_call_id": call.id, "content": call.output}


# ---- the budget against a server ----------------------------------------------------------


def test_the_budget_refuses_the_request_that_would_pass_it_it_is_never_sent():
    # each reply: 10 prompt + 3 completion tokens; the second request costs at least 13 more
    ending, server = run_script(
        [completion(tool_calls=[call("lookup", {"key": "a"})])], max_turns=10, max_tokens_total=30
    )
    assert ending.run.stop == Stop.BUDGET and len(ending.run.turns) == 2
    assert len(server.requests) == 2  # the third was refused before it was sent
    with pytest.raises(NoAnswer, match="take the run to 39 tokens, over the budget of 30"):
        ending.run.answer


def test_a_server_that_reports_huge_usage_is_stopped_after_one_request():
    huge = chat(tool_calls=[call("lookup", {"key": "a"})], prompt_tokens=10**12)
    ending, server = run_script([reply(huge)], max_tokens_total=1_000_000)
    assert ending.run.stop == Stop.BUDGET and len(server.requests) == 1


def test_a_server_that_reports_no_usage_cannot_be_budgeted_and_the_run_says_so():
    no_usage = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [call("lookup", {"key": "a"})],
                }
            }
        ]
    }
    ending, _ = run_script([reply(no_usage)], max_turns=3, max_tokens_total=10)
    assert ending.run.stop == Stop.MAX_TURNS
    assert len(ending.run.warnings) == 1 and "reported no token usage" in ending.run.warnings[0]


# ---- a runaway reply: the default reply cap cuts it ---------------------------------------


def runaway(h, req):
    """A model that repeats itself until its context is full: it stops only at max_tokens."""
    cap = (req.body or {}).get("max_tokens")
    if cap is None:
        h.server.state.stopping.wait(10)  # still generating
        h.close_connection = True
        return
    send(h, 200, chat("and so " * (cap // 2), finish_reason="length", completion_tokens=cap))


def test_a_runaway_reply_is_cut_by_the_default_cap_and_reported_not_taken_for_an_answer():
    with FaultyServer([runaway]) as server:
        ending = run_to_end(
            model=connect("m", base_url=server.base_url, timeout_s=5), tools=TOOLS, max_turns=2
        )
    assert ending.run.stop == Stop.MAX_TURNS and all(t.truncated for t in ending.run.turns)
    assert ending.run.turns[0].completion_tokens == DEFAULT_MAX_TOKENS


def test_without_a_cap_a_runaway_reply_costs_the_whole_timeout():
    with FaultyServer([runaway]) as server:
        ending = run_to_end(
            model=connect("m", base_url=server.base_url, timeout_s=0.5, max_tokens=None),
            tools=TOOLS,
        )
    assert isinstance(ending.error, EndpointTimeout)
