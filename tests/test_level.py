"""The mock levels: the documented file format, the two tools bound to a level, the map."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from whentostop import LEVELS, connect, load_level, run_agent


def test_shipped_levels_load_and_only_the_clocks_level_hides_no_star():
    stars = {name: load_level(name).star for name in LEVELS}
    assert stars == {"1-1": None, "1-2": ("underground", 7), "1-3": ("castle", 12)}


def test_search_blocks_description_ends_with_the_areas():
    search, mark = load_level("1-1").tools()
    assert search.name == "search_blocks" and mark.name == "mark_star"
    description = search.schema["function"]["description"]
    assert description.startswith("Search the ? blocks in one area of the level. Returns what each one hides.")
    assert description.endswith("Areas: overworld, underground, sky, castle.")
    assert mark.schema["function"]["description"] == (
        "Put a marker on the level map where the star is. Call it once, at the end."
    )


def test_a_search_returns_one_line_per_block():
    search, _ = load_level("1-2").tools()
    result = search('{"area": "underground"}')
    assert result.ok
    assert result.output.splitlines() == ["Block 5: coin", "Block 6: nothing", "Block 7: star", "Block 8: coin"]


def test_an_unknown_area_is_an_error_listing_the_areas():
    search, _ = load_level("1-2").tools()
    result = search('{"area": "moon"}')
    assert not result.ok
    assert result.output == "Error: there is no area called 'moon'. Areas: overworld, underground, sky."


def test_mark_star_schema_demands_the_item_star_and_a_positive_block():
    _, mark = load_level("1-3").tools()
    params = mark.schema["function"]["parameters"]
    assert params["properties"]["item"]["const"] == "star" or params["properties"]["item"].get("enum") == ["star"]
    assert params["properties"]["block"]["exclusiveMinimum"] == 0
    assert sorted(params["required"]) == ["block", "item"]
    for bad in ('{"item": "coin", "block": 3}', '{"item": "star", "block": 0}', '{"item": "star"}'):
        assert not mark(bad).ok


def test_mark_star_answers_and_the_runs_view_knows_if_each_marker_is_right():
    level = load_level("1-3")
    _, mark = level.tools()
    assert mark('{"item": "star", "block": 12}').output == "Marked block 12 (castle) on the level map."
    assert "no block 99" in mark('{"item": "star", "block": 99}').output
    run = run_agent("Find the star.", model=connect("sloppy"), tools=level.tools(),
                    stop_on=["mark_star"])
    assert [(m.block, m.area, m.correct) for m in level.view(run).markers] == [(12, "castle", True)]


def test_a_levels_tools_change_nothing_so_each_view_shows_one_run():
    level = load_level("1-3")
    pipe = run_agent("Find the star.", model=connect("searcher"), tools=level.tools(),
                     stop_on=["mark_star"])
    short = run_agent("Find the star.", model=connect("searcher"), tools=level.tools(), max_turns=1)
    assert level.view(pipe).markers and not level.view(short).markers
    assert level.view(short).searched == ("overworld",) and level.view().searched == ()
    assert "nothing searched yet" in level.view().title


def test_the_map_title_counts_misspelt_searches_apart_from_real_ones():
    level = load_level("1-1")
    run = run_agent("Find the star.", model=connect("loopboros"), tools=level.tools(), max_turns=25)
    view = level.view(run)
    assert view.misspelt > 0 and len(view.searched) + view.misspelt == len(run.tool_calls)
    assert f"{len(view.searched)} searches, no star ({view.misspelt} more misspelt" in view.title


def test_tools_can_be_offered_one_by_one():
    assert [t.name for t in load_level("1-2").tools("search_blocks")] == ["search_blocks"]
    with pytest.raises(ValueError, match="no tool warp"):
        load_level("1-2").tools("warp")


def test_any_file_of_the_documented_format_loads(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"name": "tiny", "areas": {"pipe": {"1": "coin", "2": "star"}}}))
    level = load_level(path)
    assert level.star == ("pipe", 2)
    assert level.tools()[0].schema["function"]["description"].endswith("Areas: pipe.")


@pytest.mark.parametrize("areas,message", [
    ({"a": {"1": "star"}, "b": {"2": "star"}}, "at most one star"),
    ({"a": {"1": "coin"}, "b": {"1": "coin"}}, "unique"),
    ({"a": {"1": "banana"}}, "Input should be"),
    ({}, "at least one area"),
])
def test_a_malformed_level_file_is_refused_with_the_reason(tmp_path, areas, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "bad", "areas": areas}))
    with pytest.raises(ValidationError, match=message):
        load_level(path)


def test_an_unknown_level_name_says_what_exists():
    with pytest.raises(FileNotFoundError, match="1-1, 1-2, 1-3"):
        load_level("9-9")
