"""Every figure and view says in words what it shows (issue 17): the text alternatives come from
the run — what was run, how it ended, the totals, the shape of the growth, the areas searched and
the marker's verdict — in every language the lesson has; and cached prompt tokens are drawn as
their own part of each turn's bar, with a legend entry and a mention in the words."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from whentostop import Run, ToolCall, Turn, load_level
from whentostop.i18n import using
from whentostop.usage import DEFAULT_PRICE_MODEL, cumulative_cost, price, split_prompt
from whentostop.views import charts, describe, figure, plots

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def clock(play) -> Run:
    return play("1-1", "loopboros", max_turns=10).run


@pytest.fixture(scope="module")
def pipe(play):
    return play("1-3", "searcher", stop_on=["mark_star"])


def build(name: str, run: Run):
    level = load_level("1-1")
    return {
        "tokens_per_turn": lambda: plots.tokens_per_turn(run),
        "cumulative_cost": lambda: plots.cumulative_cost(run),
        "compare_runs": lambda: plots.compare_runs({"the Loopboros": run}),
        "level_map": lambda: plots.level_map(level, run),
    }[name]()


@pytest.mark.parametrize("name", plots.BUILDERS)
def test_every_figure_builder_emits_alt_text_from_the_run(name: str, clock: Run) -> None:
    fig = build(name, clock)
    alt = fig.alt_text
    assert alt and len(alt) > 60
    shown = fig._repr_mimebundle_()["text/html"]
    assert shown.startswith('<img class="wts-figure"') and 'alt="' in shown
    if name == "level_map":
        assert "Searched 4 of 4 areas" in alt and "hides no star" in alt
    else:
        assert "the clock" in alt
        assert "10 of 10 turns" in alt or f"{clock.total_tokens:,} tokens" in alt


def test_the_cost_words_give_the_totals_and_the_shape_of_the_growth(clock: Run) -> None:
    alt = figure.cumulative_cost_chart(clock, price(DEFAULT_PRICE_MODEL)).alt
    usd = cumulative_cost(clock, DEFAULT_PRICE_MODEL)[-1]
    assert f"{clock.total_tokens:,} tokens, ${usd:.4f}" in alt
    assert "loopboros, max_turns=10" in alt and "still asking for search_blocks" in alt
    assert f"from {clock.turns[0].prompt_tokens:,} tokens at turn 1" in alt
    assert "faster than linearly" in alt


def test_a_short_run_is_said_to_grow_about_linearly(play) -> None:
    run = play("1-1", "loopboros", max_turns=2).run
    assert "about linearly" in describe.growth_text(figure.growth(run))
    assert describe.growth_text(figure.growth(Run.empty())) == "No turns yet, so nothing was spent."


def test_the_map_words_give_the_searched_areas_and_the_markers_verdict(pipe) -> None:
    run, level, _ = pipe
    alt = figure.level_map(level, run).alt
    assert "the star is marked" in alt
    assert "A marker on block 12 (castle): right, the star is there" in alt
    assert figure.level_map(level, None).alt.count("No area searched yet") == 1


def test_a_wrong_marker_is_said_to_be_wrong() -> None:
    level = load_level("1-3")
    call = ToolCall(
        id="c1",
        name="mark_star",
        arguments='{"item": "star", "block": 5}',
        input={"item": "star", "block": 5},
        output="",
        ok=True,
    )
    turn = Turn(
        index=1,
        prompt_tokens=10,
        completion_tokens=5,
        latency_s=0.0,
        message={"role": "assistant", "content": None},
        tool_calls=[call],
    )
    alt = figure.level_map(level, Run(stop=None, messages=[], turns=[turn], max_turns=3)).alt
    assert "block 5 (underground): wrong, the star is not there" in alt


def test_the_map_words_count_misspelt_searches_apart(play) -> None:
    run, level, _ = play("1-1", "loopboros", max_turns=25)
    alt = figure.level_map(level, run).alt
    misspelt = level.view(run).misspelt
    assert f"{misspelt} searches named an area the level does not have" in alt


@pytest.mark.parametrize("view", ["cost", "map"])
def test_every_svg_view_carries_a_title_and_a_description(view: str, pipe) -> None:
    run, level, _ = pipe
    svg = charts.cost_svg(run) if view == "cost" else charts.map_svg(level, run)
    root = ET.fromstring(svg)
    assert root.get("role") == "img" and root.get("aria-labelledby") == "wts-title wts-desc"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text and desc is not None and desc.text
    assert desc.text.startswith(title.text)
    assert ("the warp pipe" in desc.text) if view == "cost" else ("block 12" in desc.text)


def test_the_words_exist_in_portuguese(clock: Run, pipe) -> None:
    run, level, _ = pipe
    with using("pt"):
        cost = ET.fromstring(charts.cost_svg(clock)).findtext(f"{SVG}desc")
        said = describe.announcement("1-1", 2, clock)
        where = figure.level_map(level, run).alt
        fig = plots.tokens_per_turn(clock)
    assert "o relógio — Sem resposta após 10 de 10 turnos" in said
    assert said.startswith("Fase 1-1, execução 2:")
    assert "O prompt cresceu de" in cost and "Custo acumulado" in cost
    assert "Um marcador no bloco 12 (castle): certo, a estrela está lá" in where
    assert "Tokens por turno" in fig.alt_text


def cached_run() -> Run:
    """A run built by hand whose turns report cached prompt tokens, as a server with prompt
    caching does (`usage.prompt_tokens_details.cached_tokens`)."""
    turns = [
        Turn(
            index=i,
            prompt_tokens=p,
            completion_tokens=20,
            latency_s=0.0,
            message={"role": "assistant", "content": "…"},
            cached_tokens=c,
        )
        for i, (p, c) in enumerate([(100, 0), (150, 96), (220, 160)], start=1)
    ]
    return Run(stop=None, messages=[], turns=turns, max_turns=3, model="cached-model")


def test_cached_tokens_are_their_own_part_of_each_bar_in_svg() -> None:
    run = cached_run()
    svg = charts.cost_svg(run)
    root = ET.fromstring(svg)
    cached = [e for e in root.iter(f"{SVG}rect") if "cached" in (e.get("class") or "").split()]
    assert [int(e.get("data-value")) for e in cached] == [96, 160]  # turn 1 has none to draw
    resent = [e for e in root.iter(f"{SVG}rect") if "resent" in (e.get("class") or "").split()]
    splits = split_prompt(run)
    assert [int(e.get("data-value")) for e in resent] == [s.resent - s.cached for s in splits]
    assert "history, cached by the server" in svg
    assert "The server reported 256 of the prompt tokens as cached." in svg
    assert "cached by the server" not in charts.cost_svg(Run.empty())


def test_cached_tokens_are_their_own_part_of_each_bar_in_matplotlib() -> None:
    run = cached_run()
    fig = plots.tokens_per_turn(run)
    ax = fig.axes[0]
    heights = {
        gid: [p.get_height() for p in ax.patches if p.get_gid() == gid]
        for gid in ("cached", "resent", "new", "completion")
    }
    assert heights["cached"] == [0, 96, 160]
    assert [c + r + n for c, r, n in zip(heights["cached"], heights["resent"], heights["new"])] == [
        t.prompt_tokens for t in run.turns
    ]
    assert "history, cached by the server" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert "256 of the prompt tokens as cached" in fig.alt_text


def test_the_maps_words_judge_an_answer_given_in_text(play) -> None:
    run, level, _ = play("1-2", "searcher", tools=load_level("1-2").tools("search_blocks"))
    assert run.stop.value == "end_turn"
    alt = figure.level_map(level, run).alt
    assert level.judge(run).text in alt and "Right: the answer names block" in alt


def test_the_ending_with_a_wrong_judgement_says_validated_but_wrong(play) -> None:
    from whentostop.level import Judgement

    run, _, _ = play("1-3", "searcher", stop_on=["mark_star"])
    wrong = Judgement(False, "Wrong.")
    assert describe.ending(run, judgement=wrong).startswith(
        "the warp pipe — validated, but the wrong block (5 of 10 turns): "
    )
    assert describe.ending(run, judgement=Judgement(None, "?")) == describe.ending(run)
