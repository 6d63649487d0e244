"""Prices and the per-turn ledger: cost per turn, cumulative cost, history sent again."""

from __future__ import annotations

import datetime

import pytest

from whentostop import connect, load_level, run_agent
from whentostop.usage import (
    DEFAULT_PRICE_MODEL,
    Budget,
    Price,
    cost_per_turn,
    cumulative_cost,
    cumulative_tokens,
    next_prompt_floor,
    price,
    prices,
    quadratic_fit,
    split_prompt,
)


def as_date(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text, "%Y-%m-%d")


@pytest.fixture(scope="module")
def long_run():
    return run_agent(
        "Find the star.", model=connect("loopboros"), tools=load_level("1-1").tools(), max_turns=20
    )


def test_every_price_has_a_source_and_a_date():
    table = prices()
    assert len(table) >= 4
    for p in table.values():
        assert p.source.startswith("https://") and p.as_of[:4].isdigit()
        assert p.output_per_million >= p.input_per_million > 0
        if p.cached_input_per_million is not None:
            assert 0 < p.cached_input_per_million < p.input_per_million


def test_the_default_price_and_the_notebooks_prices_have_a_cached_rate_and_are_not_retired():
    for name in (DEFAULT_PRICE_MODEL, "gpt-4o"):
        assert price(name).cached_input_per_million is not None and price(name).retired is None


def test_retired_models_say_when():
    retired = {p.model: p.retired for p in prices().values() if p.retired}
    assert retired and all(
        as_date(day) <= datetime.datetime(2026, 11, 30) for day in retired.values()
    )


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


# ---- cached prompt tokens -----------------------------------------------------------------


def cheap(cached: float | None = 0.05) -> Price:
    return Price(
        model="m",
        input_per_million=1.0,
        output_per_million=4.0,
        cached_input_per_million=cached,
        source="https://example.org",
        as_of="2026-11",
    )


def test_cached_prompt_tokens_cost_the_cached_rate():
    assert cheap().cost(1000, 100, cached_tokens=600) == pytest.approx(
        (400 * 1.0 + 600 * 0.05 + 100 * 4.0) / 1e6
    )


def test_without_a_cached_rate_cached_tokens_cost_the_input_rate():
    assert cheap(None).cost(1000, 100, cached_tokens=600) == cheap(None).cost(1000, 100)


def test_a_cached_count_larger_than_the_prompt_is_capped_at_the_prompt():
    assert cheap().cost(100, 0, cached_tokens=10**6) == pytest.approx(100 * 0.05 / 1e6)


def run_with_cache(cached: list[int]):
    """A finished run whose turns report these cached counts (the history grows by 100)."""
    from whentostop import Run, Stop, Turn

    turns = [
        Turn(
            index=i + 1,
            prompt_tokens=300 + 100 * i,
            completion_tokens=20,
            latency_s=0.0,
            message={"role": "assistant", "content": "x"},
            cached_tokens=c,
        )
        for i, c in enumerate(cached)
    ]
    return Run(stop=None, messages=[], turns=turns, max_turns=10).finish(Stop.MAX_TURNS)


def test_cost_per_turn_prices_the_cached_part_at_the_cached_rate():
    run = run_with_cache([0, 250, 390])
    p = price("gpt-4o-mini")
    assert cost_per_turn(run, p) == pytest.approx(
        [p.cost(t.prompt_tokens, t.completion_tokens, t.cached_tokens) for t in run.turns]
    )
    assert cost_per_turn(run, p)[2] < p.cost(500, 20)
    assert run.cached_tokens == 640


def test_split_prompt_shows_the_cached_part_of_the_history_sent_again():
    splits = split_prompt(run_with_cache([0, 250, 10_000]))
    assert [s.cached for s in splits] == [0, 250, 420]  # never more than what was sent again
    assert all(s.cached <= s.resent for s in splits)
    assert [s.resent for s in splits] == [0, 320, 420]


# ---- the budget's arithmetic -------------------------------------------------------------


def test_the_next_prompt_is_at_least_the_last_prompt_and_reply_and_zero_at_first(long_run):
    last = long_run.turns[-1]
    assert next_prompt_floor(long_run) == last.prompt_tokens + last.completion_tokens
    assert next_prompt_floor(run_with_cache([])) == 0
    # it is a lower bound: each turn's prompt really was at least the one before plus its reply
    for before, after in zip(long_run.turns, long_run.turns[1:]):
        assert after.prompt_tokens >= before.prompt_tokens + before.completion_tokens


def test_no_budget_is_none_and_a_dollar_budget_gets_a_price():
    assert Budget.of(None, None, "gpt-4o") is None
    assert Budget.of(100, None, None).price is None
    assert Budget.of(None, 1.0, None).price.model == DEFAULT_PRICE_MODEL


def test_a_dollar_budget_counts_the_history_at_the_cheapest_rate_the_price_has():
    run = run_with_cache([0, 0])
    p = cheap()
    spent = sum(cost_per_turn(run, p))
    floor = next_prompt_floor(run)
    at_least = spent + floor * 0.05 / 1e6
    assert Budget(max_cost_usd=at_least, price=p).over(run) is None
    over = Budget(max_cost_usd=at_least * 0.999, price=p).over(run)
    assert over.unit == "usd" and over.would_reach == pytest.approx(at_least)


def test_the_quadratic_fit_is_numpys_least_squares_fit(play) -> None:
    """Notebook 1-1 fits the cumulative tokens with `quadratic_fit` (no numpy in the browser)."""
    import numpy as np  # matplotlib's dependency: here in the tests, not in the browser

    tokens = cumulative_tokens(play("1-1", "loopboros", max_turns=25).run)
    expected = np.polyfit(np.arange(1, len(tokens) + 1), tokens, 2)
    assert quadratic_fit(tokens) == pytest.approx(list(expected), rel=1e-9)
    assert quadratic_fit([2 * n * n + 3 * n + 1 for n in range(1, 6)]) == pytest.approx((2, 3, 1))


def test_a_quadratic_fit_of_fewer_than_three_values_says_why() -> None:
    with pytest.raises(ValueError, match="at least 3 values, got 2"):
        quadratic_fit([1, 2])
