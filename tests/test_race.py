"""The race between the stops (issue 20): the clock, the deadline and the budget on one run, on the
mock's slow persona. Where each limit falls is read from the track with the loop's own rules (the
budget through `usage.Budget.over`, ties as `run_agent` checks), and the race's real run — with
every limit at once — says which one fired; the badge, the chart, the words and the live region
all name it. The controls are driven in plain pytest, as a learner moves them."""

from __future__ import annotations

import base64
import re
from html import unescape

import pytest
from words import says

from whentostop import Stop, connect, load_level, run_agent
from whentostop.i18n import using
from whentostop.lesson import PROMPT_TEXT
from whentostop.lesson.race import Limits, falls, first, race, track_of
from whentostop.models import mock
from whentostop.views.controls import NumberSlider
from whentostop.views.widgets import Race
from whentostop.views.widgets import race as race_widget

GENEROUS = 30_000
"""A token budget the 25-turn track stays under until its last turns."""


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


@pytest.fixture(scope="module")
def track():
    """The lesson's track: the slow persona on level 1-1, search_blocks only, 25 turns."""
    return track_of(
        PROMPT_TEXT, model=mock("slow:0.05"), tools=load_level("1-1").tools("search_blocks")
    )


@pytest.fixture
def starting_line() -> Race:
    """The race as notebook 1-1 opens it: max_turns=15, deadline_s=1.0, 6,000 tokens."""
    return race_widget("1-1")


# -- where each limit falls, and who fires ------------------------------------------------------


def test_at_the_starting_line_the_budget_fires_before_the_clock(starting_line: Race) -> None:
    result = starting_line.result
    assert result.fired == Stop.BUDGET and result.predicted.stop == Stop.BUDGET
    assert len(result.run.run.turns) == 10 and result.run.run.max_turns == 15
    assert says(text_of(starting_line.badge.value), "budget", "no answer", "10 of 15 turns")


def test_a_clock_below_the_budgets_turn_takes_the_race(starting_line: Race) -> None:
    starting_line.max_turns.value = 8
    assert starting_line.result.fired == Stop.MAX_TURNS
    assert says(text_of(starting_line.badge.value), "clock", "no answer", "8 of 8 turns")


def test_a_short_deadline_takes_the_race() -> None:
    race = race_widget("1-1", max_turns=25, deadline_s=0.2, budget=GENEROUS)
    assert race.result.fired == Stop.DEADLINE == race.result.predicted.stop
    assert "the deadline — No answer" in text_of(race.badge.value)


def test_a_tie_goes_to_the_clock_as_the_loop_checks(track) -> None:
    limits = Limits(10, None, 6_000)  # the budget would stop the run before turn 11 too
    found = {f.stop: f.kept for f in falls(track, limits)}
    assert found == {Stop.MAX_TURNS: 10, Stop.BUDGET: 10}
    assert first(falls(track, limits)).stop == Stop.MAX_TURNS
    ran = race(
        PROMPT_TEXT,
        model=mock("slow:0.05"),
        tools=load_level("1-1").tools("search_blocks"),
        limits=limits,
        track=track,
    )
    assert ran.fired == Stop.MAX_TURNS


@pytest.mark.parametrize("budget", [1_000, 2_500, 6_000, 12_000, 20_000])
def test_the_budget_falls_where_the_loops_own_check_stops_a_run(track, budget: int) -> None:
    (fall,) = [f for f in falls(track, Limits(25, None, budget)) if f.stop == Stop.BUDGET]
    run = run_agent(
        PROMPT_TEXT,
        model=connect("loopboros"),
        tools=load_level("1-1").tools("search_blocks"),
        max_turns=25,
        max_tokens_total=budget,
    )
    assert run.stop == Stop.BUDGET and fall.kept == len(run.turns)
    assert fall.why == run.budget_stop.text()


def test_a_dollar_budget_runs_as_max_cost_usd_at_the_races_price(starting_line: Race) -> None:
    kept = len(starting_line.result.run.run.turns)
    starting_line.unit.value = "USD"
    run = starting_line.result.run.run
    assert starting_line.budget.description == "max_cost_usd"
    assert run.max_cost_usd == starting_line.budget.value and run.max_tokens_total is None
    assert run.stop == Stop.BUDGET and run.budget_stop.unit == "usd"
    assert abs(len(run.turns) - kept) <= 1  # the same spend, in dollars: about the same place
    starting_line.unit.value = "tokens"
    assert starting_line.budget.description == "max_tokens_total"
    assert starting_line.result.run.run.max_tokens_total == starting_line.budget.value


def test_changing_the_unit_runs_the_race_once(starting_line: Race) -> None:
    before = starting_line.runs
    starting_line.unit.value = "USD"
    assert starting_line.runs == before + 1


def test_a_track_that_answers_leaves_no_limit_to_fire() -> None:
    board = load_level("1-2")  # the slow searcher finds the star and answers on turn 3
    model = mock("slow:0.05")
    result = race(
        PROMPT_TEXT,
        model=model,
        tools=board.tools("search_blocks"),
        limits=Limits(10, 1.5, GENEROUS),
    )
    assert result.track.run.stop == Stop.END_TURN and result.fired == Stop.END_TURN
    assert result.predicted is None and all(f.kept is None for f in result.falls)


def test_the_race_runs_on_the_mock_whatever_endpoint_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("WHENTOSTOP_MODEL", "llama3.2")
    race = race_widget("1-1", max_turns=3)
    assert race.result.fired == Stop.MAX_TURNS and race.result.run.run.model == "slow:0.05"


# -- what a learner sees and hears --------------------------------------------------------------


def svg_of(html: str) -> str:
    found = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    assert found, "no inline SVG"
    return base64.b64decode(found.group(1)).decode()


def test_the_chart_draws_every_limit_and_marks_the_one_that_fires_first(
    starting_line: Race,
) -> None:
    svg = svg_of(starting_line.chart.value)
    assert svg == starting_line.chart_svg
    for name in ("max_turns", "deadline", "budget"):
        assert f'class="limit {name}"' in svg
    assert re.search(r'class="fall budget first" data-kept="10"', svg)
    assert 'class="fall max_turns" data-kept="15"' in svg
    assert "max_turns=15" in svg and "deadline_s=1" in svg and "a budget of 6,000 tokens" in svg
    assert 'class="track turns"' in svg and 'class="run seconds"' in svg


def test_the_charts_words_say_what_raced_where_each_limit_falls_and_who_fired(
    starting_line: Race,
) -> None:
    alt = unescape(re.search(r'alt="([^"]*)"', starting_line.chart.value).group(1))
    first, *sentences = alt.split(". ")
    assert says(first, "race", "tokens", "turns", "seconds")
    assert says(alt, "max_turns=15", "deadline_s=1", "budget of 6,000 tokens")
    assert any(says(s, "clock", "turn 15") for s in sentences)
    budget = next(s for s in sentences if s.startswith("The budget"))
    assert says(budget, "turn 10", "6,761 tokens", "budget of 6,000", "fires first")
    run = next(s for s in sentences if s.startswith("The run"))
    assert says(run, "budget fired first", "10 of 15 turns", "no answer", "5,766 tokens")
    assert "<title" in starting_line.chart_svg and alt in unescape(starting_line.chart_svg)


def test_the_falls_are_listed_in_words_under_the_chart(starting_line: Race) -> None:
    listed = starting_line.falls.value
    assert listed.count("<li") == 3 and '<li class="wts-fall wts-first"><b>the budget' in listed
    assert says(text_of(listed), "deadline", "at 1 s")


def test_the_live_region_announces_each_race(starting_line: Race) -> None:
    assert starting_line.status.text.startswith(
        "Race on level 1-1, run 1: the budget fired first, after 10 of 15 turns: no answer; "
    )
    starting_line.max_turns.value = 5
    assert starting_line.status.text.startswith(
        "Race on level 1-1, run 2: the clock fired first, after 5 of 5 turns"
    )
    assert "wts-status" in starting_line.status._dom_classes


def test_the_controls_are_named_as_run_agents_arguments(starting_line: Race) -> None:
    assert (
        starting_line.max_turns.description,
        starting_line.deadline.description,
        starting_line.budget.description,
    ) == ("max_turns", "deadline_s", "max_tokens_total")
    assert starting_line.deadline.suffix == " s" and starting_line.deadline.step == 0.1
    for control in (starting_line.max_turns, starting_line.deadline, starting_line.budget):
        assert control.continuous_update is False
    assert "wts-race" in starting_line.widget._dom_classes
    assert (
        "wts-explorer" not in starting_line.widget._dom_classes
    )  # the levels' explorers stay .first


def test_the_race_follows_the_language() -> None:
    with using("pt"):
        race = race_widget("1-1", max_turns=4)
        said, budget = race.status.text, race.budget.locale
    assert said.startswith("Corrida na fase 1-1, execução 1: o relógio")
    assert budget == "pt-BR"


def test_a_number_slider_keeps_to_its_steps_and_range() -> None:
    slider = NumberSlider(min=0.1, max=1.5, step=0.1, value=1.0)
    slider.value = 0.33
    assert slider.value == 0.3
    slider.value = 9
    assert slider.value == 1.5
    assert 'input.step = String(model.get("step") ?? 1)' in slider._esm


def test_notebook_1_1s_prediction_is_what_the_starting_line_shows(starting_line: Race) -> None:
    from whentostop.lesson.checks import predictions

    p5 = predictions("1-1")[4]
    right = p5.text.options["abcd".index(p5.answer)]
    assert "budget" in right and "10 turns" in right
    track = starting_line.result.track.spent("tokens")
    assert 150 <= track[0] <= 210  # "its first turn costs about 180 tokens"
    assert 11_000 <= track[14] <= 13_500  # "15 turns would spend about 12,000 tokens"
    assert 5_300 <= track[9] <= 6_000  # "ten turns spend about 5,800 tokens together"
    assert (
        4.5 <= (track[9] - track[8]) / track[0] <= 6
    )  # "the tenth costs about five times the first"


def test_in_dollars_the_chart_has_dollar_ticks_and_names_the_budget_in_its_legend(
    starting_line: Race,
) -> None:
    starting_line.unit.value = "USD"
    svg = starting_line.chart_svg
    ticks = re.findall(r'text-anchor="end">(\d[\d,]*\.\d{3})</text>', svg)
    assert len(set(ticks)) >= 5, ticks  # 0.000, 0.040, ... not one "0"
    assert "cumulative cost (USD)" in svg and "dollars against turns" in svg
    assert re.search(r"a budget of \$0\.0\d+ at gpt-4o prices</text>", svg)
