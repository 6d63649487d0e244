"""The explorer's live SVG views carry the run's real numbers and the level's real state."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from whentostop import connect, load_level, run_agent
from whentostop.usage import DEFAULT_PRICE_MODEL, cumulative_cost, split_prompt
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
