"""The mock levels: the documented file format, the two tools bound to a level, the map."""

from __future__ import annotations

import json

import pytest

from whentostop import LEVELS, connect, load_level, run_agent


def test_shipped_levels_load_and_only_the_clocks_level_hides_no_star():
    stars = {name: load_level(name).star for name in LEVELS}
    assert stars == {"1-1": None, "1-2": ("underground", 7), "1-3": ("castle", 12)}


def test_search_blocks_description_ends_with_the_areas():
    search, mark = load_level("1-1").tools()
    assert search.name == "search_blocks" and mark.name == "mark_star"
    description = search.schema["function"]["description"]
    assert description.startswith(
        "Search the ? blocks in one area of the level. Returns what each one hides."
    )
    assert description.endswith("Areas: overworld, underground, sky, castle.")
    assert mark.schema["function"]["description"] == (
        "Put a marker on the level map where the star is. Call it once, at the end."
    )


def test_a_search_returns_one_line_per_block():
    search, _ = load_level("1-2").tools()
    result = search('{"area": "underground"}')
    assert result.ok
    assert result.output.splitlines() == [
        "Block 5: coin",
        "Block 6: nothing",
        "Block 7: star",
        "Block 8: coin",
    ]


def test_an_unknown_area_is_an_error_listing_the_areas():
    search, _ = load_level("1-2").tools()
    result = search('{"area": "moon"}')
    assert not result.ok
    assert (
        result.output
        == "Error: there is no area called 'moon'. Areas: overworld, underground, sky."
    )


def test_mark_star_schema_demands_the_item_star_and_a_positive_block():
    _, mark = load_level("1-3").tools()
    params = mark.schema["function"]["parameters"]
    assert params["properties"]["item"]["const"] == "star" or params["properties"]["item"].get(
        "enum"
    ) == ["star"]
    assert params["properties"]["block"]["exclusiveMinimum"] == 0
    assert sorted(params["required"]) == ["block", "item"]
    for bad in ('{"item": "coin", "block": 3}', '{"item": "star", "block": 0}', '{"item": "star"}'):
        assert not mark(bad).ok


def test_mark_star_answers_and_the_runs_view_knows_if_each_marker_is_right():
    level = load_level("1-3")
    _, mark = level.tools()
    assert (
        mark('{"item": "star", "block": 12}').output == "Marked block 12 (castle) on the level map."
    )
    assert "no block 99" in mark('{"item": "star", "block": 99}').output
    run = run_agent(
        "Find the star.", model=connect("sloppy"), tools=level.tools(), stop_on=["mark_star"]
    )
    assert [(m.block, m.area, m.correct) for m in level.view(run).markers] == [(12, "castle", True)]


def test_a_levels_tools_change_nothing_so_each_view_shows_one_run():
    level = load_level("1-3")
    pipe = run_agent(
        "Find the star.", model=connect("searcher"), tools=level.tools(), stop_on=["mark_star"]
    )
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


@pytest.mark.parametrize(
    "areas,message",
    [
        ({"a": {"1": "star"}, "b": {"2": "star"}}, "at most one star"),
        ({"a": {"1": "coin"}, "b": {"1": "coin"}}, "unique"),
        ({"a": {"1": "banana"}}, "Input should be"),
        ({}, "at least one area"),
    ],
)
def test_a_malformed_level_file_is_refused_with_the_reason(tmp_path, areas, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "bad", "areas": areas}))
    with pytest.raises(ValueError, match=message):
        load_level(path)


@pytest.mark.parametrize(
    "areas,message",
    [
        ({"a": {"1": "star"}, "b": {"2": "star"}}, "no máximo uma estrela"),
        ({}, "pelo menos uma área"),
    ],
)
def test_a_malformed_level_file_is_refused_in_the_learners_language(tmp_path, areas, message):
    from whentostop import i18n

    path = tmp_path / "ruim.json"
    path.write_text(json.dumps({"name": "ruim", "areas": areas}))
    with i18n.using("pt"), pytest.raises(ValueError, match=message):
        load_level(path)


def test_an_unknown_level_name_says_what_exists():
    with pytest.raises(FileNotFoundError, match="1-1, 1-2, 1-3"):
        load_level("9-9")


# ---- level files that would silently lose or hide something are refused ------------------


def level_file(tmp_path, areas: str, *, name: str = "my-level.json", head: str = '"name": "mine"'):
    """A level file written by hand (JSON text, so that keys can repeat)."""
    path = tmp_path / name
    path.write_text("{" + head + ', "areas": ' + areas + "}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "areas, says",
    [
        (
            '{"castle": {"1": "coin", "01": "star"}}',
            ["area 'castle'", "block 1 twice", "'1' and '01'"],
        ),
        (
            '{"castle": {"1": "coin", "+1": "star"}}',
            ["area 'castle'", "block 1 twice", "'1' and '+1'"],
        ),
        ('{"castle": {"01": "star"}}', ["area 'castle'", "block '01'", "plain whole number"]),
        ('{"castle": {"1_0": "star"}}', ["area 'castle'", "block '1_0'", "plain whole number"]),
        ('{"castle": {" 2": "star"}}', ["area 'castle'", "block ' 2'", "plain whole number"]),
        (
            '{"castle": {"1": "coin", "2": "coin", "1": "star"}}',
            ["area 'castle'", "block '1'", "twice"],
        ),
        ('{"castle": {"1": "coin"}, "castle": {"2": "star"}}', ["area 'castle'", "twice"]),
        (
            '{"castle": {"1": "coin"}, "sky": {"1": "star"}}',
            ["block 1", "'castle'", "'sky'", "unique"],
        ),
        (
            '{"Castle": {"1": "coin"}, "castle": {"2": "star"}}',
            ["'Castle'", "'castle'", "case or spaces"],
        ),
        (
            '{"castle": {"1": "coin"}, "castle ": {"2": "star"}}',
            ["'castle'", "'castle '", "case or spaces"],
        ),
        ('{" castle": {"1": "star"}}', ["area ' castle'", "spaces around"]),
        ('{"": {"1": "star"}}', ["an area has no name"]),
    ],
)
def test_a_level_file_that_would_lose_or_hide_something_is_refused_naming_what(
    tmp_path, areas, says
):
    path = level_file(tmp_path, areas)
    with pytest.raises(ValueError) as caught:
        load_level(path)
    message = str(caught.value)
    assert message.startswith(str(path)), message
    for words in says:
        assert words in message, message
    assert "\n" not in message


def test_a_key_written_twice_at_the_top_of_a_level_file_is_refused(tmp_path):
    path = level_file(tmp_path, '{"pipe": {"1": "star"}}', head='"name": "a", "name": "b"')
    with pytest.raises(ValueError, match=r"the key 'name' is written twice"):
        load_level(path)


@pytest.mark.parametrize(
    "content, says",
    [
        (b'{"name": "cut", "areas": {"pipe": {"1": "st', "is not valid JSON: Unterminated string"),
        (b"", "is empty"),
        (b"\xff\xfe{}", "is not UTF-8 text"),
        (b'{"name": "x", "areas": {"pipe": {"1": "caf\xe9"}}}', "is not UTF-8 text"),
        (b"[1, 2]", "is not a valid level"),
        (b'{"name": "x", "areas": {"pipe": {"1": "banana"}}}', "areas.pipe.1: Input should be"),
        (b"[" * 100_000, "is nested too deeply"),
    ],
)
def test_a_level_file_that_cannot_be_read_says_which_file_and_why(tmp_path, content, says):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(ValueError) as caught:
        load_level(path)
    assert str(caught.value).startswith(str(path)) and says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_level_file_saved_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"name": "b", "areas": {"pipe": {"1": "star"}}}).encode()
    )
    assert load_level(path).star == ("pipe", 1)


@pytest.mark.parametrize("as_path", [True, False])
def test_an_edited_level_file_is_read_again(tmp_path, as_path):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps({"name": "e", "areas": {"pipe": {"1": "coin", "2": "star"}}}))
    assert load_level(path if as_path else str(path)).star == ("pipe", 2)
    # the same size, the same moment: neither the length nor the time stamp tells them apart
    path.write_text(json.dumps({"name": "e", "areas": {"pipe": {"1": "star", "2": "coin"}}}))
    assert load_level(path if as_path else str(path)).star == ("pipe", 1)


# ---- validated is not correct: the level judges the answer ------------------------------


def flag(text: str):
    """A run that ended on the flag with `text` as its answer."""
    from whentostop import Run, Stop

    return Run(stop=None, messages=[], turns=[], max_turns=10).finish(Stop.END_TURN, text)


@pytest.mark.parametrize(
    "level, text, correct",
    [
        ("1-2", "I found the star! It is in the underground, block 7.", True),
        ("1-2", "A estrela está no subterrâneo, bloco 7.", True),
        ("1-2", "The star is in block 3.", False),
        ("1-2", "Blocks 3 and 4 hide nothing special, the star is in block 9.", False),
        ("1-2", "I could not find the star.", False),
        (
            "1-2",
            "Block 5: coin, Block 6: nothing, Block 7: star.",
            None,
        ),  # several, the star among them
        ("1-2", "The star is somewhere underground.", None),
        ("1-1", "I searched everywhere and couldn't find the star.", True),
        ("1-1", "Não encontrei a estrela em nenhuma área.", True),
        ("1-1", "I searched all four areas and found nothing.", True),
        ("1-1", "The star is in block 4.", False),
        ("1-3", "Done: the star is marked on block 12.", True),
    ],
)
def test_a_text_answer_is_judged_by_the_block_it_names_or_by_saying_none_was_found(
    level, text, correct
):
    assert load_level(level).judge(flag(text)).correct is correct


def test_a_wrong_text_answer_says_where_the_star_is_and_that_a_schema_checks_shape_not_truth():
    judgement = load_level("1-2").judge(flag("The star is in block 3."))
    assert judgement.text == (
        "Wrong: the answer names block 3, but the star is in block 7 "
        "(underground). A schema checks an answer's shape, not its truth."
    )


def test_the_searchers_runs_are_judged_right(play):
    from conftest import MAY_GIVE_UP

    for level, kwargs in [
        ("1-1", {"system": MAY_GIVE_UP}),
        ("1-2", {}),
        ("1-3", {"stop_on": ["mark_star"]}),
        ("1-3", {}),
    ]:
        run, board, _ = play(level, "searcher", **kwargs)
        assert board.judge(run).correct is True, (level, run.summary())


def test_a_run_without_an_answer_is_not_judged(play):
    run, board, _ = play("1-1", "loopboros", max_turns=3)
    judgement = board.judge(run)
    assert (
        judgement.correct is None
        and judgement.text == "No answer to judge: the run ended on the clock."
    )


def marked(level: str, block: int, search_first: bool):
    """A run that opened the pipe with mark_star on `block`, after a search or at once."""
    from whentostop.client import Completion

    def call(name, args, n):
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c{n}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }

    replies = ([call("search_blocks", {"area": "castle"}, 1)] if search_first else []) + [
        call("mark_star", {"item": "star", "block": block}, 2)
    ]

    class Scripted:
        name = "scripted"

        def complete(self, messages, tools, **_):
            return Completion(replies.pop(0), 10, 5, "tool_calls", 0.0)

    board = load_level(level)
    return run_agent(
        "Find the star.", model=Scripted(), tools=board.tools(), stop_on=["mark_star"]
    ), board


def test_a_marker_on_the_star_is_right_and_a_guess_is_called_one():
    run, board = marked("1-3", 12, search_first=True)
    assert board.judge(run).correct is True
    assert "guessed" not in board.judge(run).text
    run, board = marked("1-3", 12, search_first=False)
    judgement = board.judge(run)
    assert judgement.correct is True and "never searched: the model guessed" in judgement.text


def test_a_marker_that_validated_on_the_wrong_block_is_wrong():
    run, board = marked("1-1", 4, search_first=False)
    assert run.answer == {"item": "star", "block": 4}  # it validated: the pipe opened
    judgement = board.judge(run)
    assert judgement.correct is False
    assert judgement.text.startswith(
        "Wrong: the marker is on block 4, but this level hides no star."
    )
