"""The explorer's live SVG views carry the run's real numbers and the level's real state."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from whentostop import connect, load_level, run_agent
from whentostop.usage import DEFAULT_PRICE_MODEL, cumulative_cost, split_prompt
from whentostop.views import charts
from whentostop.views.charts import cost_svg, map_svg

NS = {"svg": "http://www.w3.org/2000/svg"}


def bars(svg: str, kind: str) -> list[ET.Element]:
    return [
        e
        for e in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}rect")
        if kind in (e.get("class") or "").split()
    ]


def test_every_turn_has_its_three_stacked_bars_with_the_runs_numbers():
    run = run_agent(
        "Find the star.",
        model=connect("loopboros"),
        tools=load_level("1-1").tools(),
        max_turns=25,
        on_max_turns="wrap_up",
    )
    svg = cost_svg(run)
    resent = bars(svg, "resent")
    assert len(resent) == len(bars(svg, "new")) == len(bars(svg, "completion")) == 26
    assert [int(b.get("data-value")) for b in resent] == [s.resent for s in split_prompt(run)]
    heights = [float(b.get("height")) for b in resent]
    assert all(b > a for a, b in zip(heights[1:25], heights[2:25]))  # the history grows
    assert "wrap-up" in svg
    assert f"${cumulative_cost(run, DEFAULT_PRICE_MODEL)[-1]:.4f}" in svg


def test_a_run_with_no_turns_says_so():
    from whentostop import Run

    assert "no turns yet" in cost_svg(Run(stop=None, messages=[], turns=[], max_turns=3))


def test_the_map_reveals_searched_areas_and_rings_the_marker():
    level = load_level("1-3")
    run = run_agent(
        "Find the star.", model=connect("searcher"), tools=level.tools(), stop_on=["mark_star"]
    )
    root = ET.fromstring(map_svg(level, run))
    items = {
        int(g.get("data-block")): g.get("data-item")
        for g in root.iter("{http://www.w3.org/2000/svg}g")
    }
    assert items[12] == "star" and items[2] == "mushroom"
    markers = [
        e for e in root.iter("{http://www.w3.org/2000/svg}rect") if e.get("class") == "marker"
    ]
    assert [m.get("data-correct") for m in markers] == ["true"]
    assert "the star is marked" in map_svg(level, run)


def test_unsearched_blocks_stay_question_marks():
    level = load_level("1-2")
    run = run_agent("Find the star.", model=connect("loopboros"), tools=level.tools(), max_turns=1)
    svg = map_svg(level, run)
    assert re.findall(r'data-block="(\d+)" data-item="\?"', svg) == [str(n) for n in range(5, 12)]
    assert "1 search, no star" in svg


def svg_size(svg: str) -> tuple[float, float]:
    root = ET.fromstring(svg)
    return float(root.get("width")), float(root.get("height"))


def test_a_dashboard_columns_chart_is_drawn_narrow_with_its_title_on_two_lines():
    run = run_agent("Find the star.", model=connect("loopboros"), tools=load_level("1-1").tools())
    svg = cost_svg(run, tokens_per_turn=False)
    assert svg_size(svg) == (charts.COMPACT_W, charts.COMPACT_H)
    title = next(e for e in ET.fromstring(svg).iter(f"{{{NS['svg']}}}text") if e.get("x") == "10")
    lines = [t.text for t in title.iter(f"{{{NS['svg']}}}tspan")]
    total = f"{sum(t.prompt_tokens + t.completion_tokens for t in run.turns):,} tokens, $"
    assert lines[0] == "Cumulative cost at gpt-4o:" and lines[1].startswith(total)


def test_a_title_that_fits_stays_one_line():
    run = run_agent("Find the star.", model=connect("loopboros"), tools=load_level("1-1").tools())
    svg = cost_svg(run)  # two panels of their full width
    assert "<tspan" not in svg.split("</text>")[0]


def test_a_narrow_map_names_each_area_above_its_row():
    level = load_level("1-3")
    wide, narrow = map_svg(level), map_svg(level, narrow=True)
    assert svg_size(narrow)[0] < svg_size(wide)[0]
    root = ET.fromstring(narrow)
    areas = [e for e in root.iter(f"{{{NS['svg']}}}text") if e.get("class") == "area"]
    first_row = [
        float(r.get("y"))
        for g in root.iter(f"{{{NS['svg']}}}g")
        if g.get("data-block") in ("1", "2", "3")
        for r in g.iter(f"{{{NS['svg']}}}rect")
    ]
    assert [a.text for a in areas][:2] == ["overworld", "underground"]
    assert float(areas[0].get("y")) < min(first_row)  # the name above its blocks
    assert all(float(a.get("x")) < 20 for a in areas)


def test_the_maps_legend_breaks_between_its_parts_where_the_map_is_narrow():
    level = load_level("1-3")
    legend = next(
        e
        for e in ET.fromstring(map_svg(level, narrow=True)).iter(f"{{{NS['svg']}}}text")
        if e.get("class") == "map-legend"
    )
    lines = [t.text for t in legend.iter(f"{{{NS['svg']}}}tspan")]
    assert len(lines) == 2 and " · ".join(lines).startswith("? not searched yet · grey")
