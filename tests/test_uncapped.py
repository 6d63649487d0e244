"""The uncapped loop of notebook 1-1 (issue 20), shown safely: a `while True` tool loop as
tutorials write it is stopped from outside by the mock after N requests — visibly, with an HTTP
429 that says who stopped it — never by a configured real endpoint; and its bill at 10 and 100
times the turns follows the run's own usage growth."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from whentostop import load_level
from whentostop.i18n import using
from whentostop.lesson import PROMPT_TEXT
from whentostop.lesson.castle import http_post
from whentostop.lesson.uncapped import bill, cut_off_after
from whentostop.models import MOCK_BASE_URL
from whentostop.usage import price


def tutorial_loop(post, tools) -> tuple[list[dict], httpx.HTTPStatusError | None]:
    """The loop notebook 1-1 shows: no exit but the flag. Returns each reply's usage, and the
    error that stopped it (None if the model raised the flag)."""
    messages, usage = [{"role": "user", "content": PROMPT_TEXT}], []
    try:
        while True:
            reply = post({"messages": messages, "tools": [t.schema for t in tools.values()]})
            usage.append(reply["usage"])
            message = reply["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                return usage, None
            for call in message["tool_calls"]:
                output = tools[call["function"]["name"]](call["function"]["arguments"]).output
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    except httpx.HTTPStatusError as stopped:
        return usage, stopped


@pytest.fixture
def search_only():
    return {t.name: t for t in load_level("1-1").tools("search_blocks")}


def test_the_mock_stops_the_loop_from_outside_after_n_requests(search_only) -> None:
    usage, stopped = tutorial_loop(http_post(*cut_off_after(7, "loopboros")), search_only)
    assert len(usage) == 7 and stopped is not None
    assert stopped.response.status_code == 429
    error = stopped.response.json()["error"]
    assert error["code"] == "cut_off"
    assert error["message"].startswith("Stopped from outside: the mock refused request 8, after 7")


def test_a_model_that_raises_the_flag_leaves_the_loop_by_itself(search_only) -> None:
    level = {t.name: t for t in load_level("1-2").tools("search_blocks")}
    usage, stopped = tutorial_loop(http_post(*cut_off_after(20, "searcher")), level)
    assert stopped is None and len(usage) == 3


def test_the_cut_off_is_always_the_mock_whatever_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    where = cut_off_after(3)
    assert where.base_url == MOCK_BASE_URL and where.model == "loopboros"
    assert repr(where) == (
        "CutOff('loopboros' on the mock, in process: it refuses every request after the first 3)"
    )


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_a_cut_off_needs_a_positive_number_of_requests(bad) -> None:
    with pytest.raises(ValueError, match="requests must be a positive int"):
        cut_off_after(bad)


def test_a_cut_off_needs_a_mock_persona() -> None:
    with pytest.raises(ValueError, match="not a mock persona"):
        cut_off_after(3, "gpt-4o")


def test_the_bills_measured_row_is_what_the_loop_spent(search_only) -> None:
    usage, _ = tutorial_loop(http_post(*cut_off_after(12)), search_only)
    measured = bill(usage).rows[0]
    assert measured.measured and measured.turns == 12
    assert measured.tokens == sum(u["prompt_tokens"] + u["completion_tokens"] for u in usage)
    p = price("gpt-4o")
    assert measured.usd == pytest.approx(
        sum(p.cost(u["prompt_tokens"], u["completion_tokens"]) for u in usage)
    )


def test_the_projected_rows_follow_the_runs_own_growth() -> None:
    usage = [{"prompt_tokens": 100 + 10 * i, "completion_tokens": 5} for i in range(3)]
    found = bill(usage, times=(10, 100))
    assert (found.growth, found.reply) == (10.0, 5.0)
    assert [row.turns for row in found.rows] == [3, 30, 300]
    for row in found.rows:
        n = row.turns
        assert row.tokens == sum(100 + 10 * i + 5 for i in range(n))
        assert row.last_prompt == 100 + 10 * (n - 1)
    assert not found.rows[1].measured


def test_the_bill_grows_faster_than_the_turns(search_only) -> None:
    usage, _ = tutorial_loop(http_post(*cut_off_after(20)), search_only)
    measured, ten, hundred = bill(usage).rows
    assert ten.tokens > 10 * 5 * measured.tokens / 5  # more than 10x: each turn costs more
    assert hundred.usd > 50 * ten.usd


def test_the_bill_reads_as_a_table_in_the_language_in_effect(search_only) -> None:
    usage, _ = tutorial_loop(http_post(*cut_off_after(5)), search_only)
    shown = html.unescape(re.sub(r"\\(.)", r"\1", bill(usage)._repr_markdown_()))  # as read
    assert shown.startswith("| turns | tokens in all | USD at gpt-4o | the last prompt (tokens) |")
    assert "| 5 (measured) |" in shown and "| 50 (projected) |" in shown
    with using("pt"):
        in_pt = bill(usage)._repr_markdown_()
        assert "\\(projetado\\)" in in_pt
        assert "US$" not in in_pt  # "US$ com" and "US$0,12" on one line would be read as maths


def test_no_usage_is_no_bill() -> None:
    with pytest.raises(ValueError, match="no usage to bill"):
        bill([])
