"""Prices and the per-turn ledger: cost per turn, cumulative cost, history sent again."""

from __future__ import annotations

import pytest

from whentostop import connect, load_level, run_agent
from whentostop.usage import (
    cost_per_turn,
    cumulative_cost,
    cumulative_tokens,
    price,
    prices,
    split_prompt,
)


@pytest.fixture(scope="module")
def long_run():
    return run_agent("Find the star.", model=connect("loopboros"), tools=load_level("1-1").tools(), max_turns=20)


def test_every_price_has_a_source_and_a_date():
    table = prices()
    assert len(table) >= 4
    for p in table.values():
        assert p.source.startswith("https://") and p.as_of[:4].isdigit()
        assert p.output_per_million >= p.input_per_million > 0


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(KeyError, match="gpt-4o-mini"):
        price("gpt-99")


def test_cost_per_turn_is_tokens_times_price(long_run):
    p = price("gpt-4o")
    t = long_run.turns[3]
    assert cost_per_turn(long_run, p)[3] == pytest.approx(
        (t.prompt_tokens * 2.50 + t.completion_tokens * 10.00) / 1e6
    )


def test_cumulative_cost_grows_faster_than_linearly(long_run):
    total = cumulative_cost(long_run, "gpt-4o-mini")
    assert total[-1] == pytest.approx(sum(cost_per_turn(long_run, "gpt-4o-mini")))
    # Twice the turns costs well over twice as much: the history is paid for again every turn.
    assert total[19] > 2.5 * total[9]
    tokens = cumulative_tokens(long_run)
    assert tokens[-1] == long_run.total_tokens


def test_split_prompt_separates_history_sent_again_from_what_is_new(long_run):
    splits = split_prompt(long_run)
    assert splits[0].resent == 0 and splits[0].new == long_run.turns[0].prompt_tokens
    for split, turn in zip(splits, long_run.turns):
        assert split.resent + split.new == turn.prompt_tokens
    resent = [s.resent for s in splits]
    assert all(b > a for a, b in zip(resent, resent[1:]))
    assert splits[-1].resent > 10 * splits[-1].new
