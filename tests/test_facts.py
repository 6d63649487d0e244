"""The facts tables (issue 33, content as data): what other libraries do, row by row with the version
read, its release date, the day it was read and its sources, in `data/lesson/<notebook>.toml`;
shown in the learner's language by `facts_table`, checked by `python -m whentostop lesson check`."""

from __future__ import annotations

import copy
import datetime as dt
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, committed_text

from whentostop._data import data_file
from whentostop._text import markdown_text
from whentostop.i18n import NC_, has_translation, using
from whentostop.lesson.classroom import EDITIONS, page_address
from whentostop.lesson.content import notebook_data
from whentostop.lesson.facts import context, facts_table, markdown, problems
from whentostop.lesson.folder import shipped_notebooks
from whentostop.lesson.validate import problems as lesson_problems

TABLES = [(nb, name) for nb in ("1-1", "1-3") for name in notebook_data(nb).get("facts", {})]
URL = re.compile(r"\]\((https://[^)\s]+)\)")


def table(notebook: str, name: str) -> dict:
    return copy.deepcopy(notebook_data(notebook)["facts"][name])


def rows_of(shown: str) -> list[str]:
    """The body rows of a rendered table: its lines after the header and the rule."""
    return [line for line in shown.splitlines() if line.startswith("| ")][1:]


def test_every_notebook_with_facts_has_its_tables() -> None:
    assert ("1-1", "clocks") in TABLES and ("1-1", "budgets") in TABLES
    assert ("1-3", "terminal_tools") in TABLES


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize(("notebook", "name"), TABLES)
def test_the_table_shows_every_row_with_its_version_dates_and_links(notebook, name, lang) -> None:
    data = table(notebook, name)
    with using(lang):
        shown = markdown(notebook, name)
    rows = rows_of(shown)
    assert len(rows) == len(data["row"])
    for line, row in zip(rows, data["row"], strict=True):
        assert line.count(" | ") == len(data["columns"]) - 1, line  # one cell per column
        if "version" in row:
            assert markdown_text(row["version"]) in line
        if "released" in row:
            assert row["released"].isoformat() in line
        assert sorted(URL.findall(line)) == sorted(row.get("sources", {}).values())
    days = {row["as_of"].isoformat() for row in data["row"]}
    assert all(day in shown.rsplit("\n\n", 1)[1] for day in days)  # the line under the table


@pytest.mark.parametrize(("notebook", "name"), TABLES)
def test_both_languages_show_the_same_table_each_in_its_words(notebook, name) -> None:
    english = markdown(notebook, name)
    with using("pt"):
        portuguese = markdown(notebook, name)
    assert URL.findall(english) == URL.findall(portuguese)
    assert len(rows_of(english)) == len(rows_of(portuguese))
    assert portuguese.splitlines()[0].startswith("| biblioteca")
    assert english.endswith(".") and "As read on 2026-11-30." in english
    assert "Conforme lido em 2026-11-30." in portuguese
    data = table(notebook, name)
    with using("pt"):
        assert not [
            c for row in data["row"] for c in row["cells"] if len(c) > 40 and c in portuguese
        ]


def test_the_notebook_cell_shows_it_as_markdown() -> None:
    shown = facts_table("1-1", "clocks")
    assert type(shown).__name__ == "Markdown" and shown.data == markdown("1-1", "clocks")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_each_edition_shows_each_table_from_a_code_cell_and_holds_no_copy(lang) -> None:
    for notebook in ("1-1", "1-3"):
        folder = ROOT / "notebooks" / ("" if lang == "en" else lang)
        cells = nbformat.reads(
            committed_text(folder / EDITIONS[lang][notebook]), as_version=4
        ).cells
        code = "\n".join(c.source for c in cells if c.cell_type == "code")
        prose = "\n".join(c.source for c in cells if c.cell_type == "markdown")
        for nb, name in TABLES:
            if nb == notebook:
                assert f'facts_table("{nb}", "{name}")' in code
        assert "| smolagents" not in prose and "github.com/huggingface" not in prose


# --- a data file broken the ways a teacher's edit can break it -----------------------------------


def broken(change) -> list[str]:
    """The problems of 1-1's clocks table after `change(table)`, as `markdown` raises them."""
    data = table("1-1", "clocks")
    change(data)
    with pytest.raises(ValueError) as raised:
        markdown("1-1", "clocks", data)
    return str(raised.value).splitlines()


def test_a_date_not_written_as_a_date_is_named_by_row_and_field() -> None:
    def change(data):
        data["row"][2]["released"] = "31/03/2026"

    assert broken(change) == [
        "data/lesson/1-1.toml: facts.clocks.row[2].released: must be a date, written 2026-11-30 "
        "without quotes, not '31/03/2026'"
    ]


def test_a_date_in_quotes_and_a_release_after_the_reading_are_reported() -> None:
    def change(data):
        data["row"][0]["as_of"] = "2026-11-30"
        data["row"][1]["released"] = dt.date(2027, 1, 1)

    found = broken(change)
    assert any("row[0].as_of: must be a date, written 2026-11-30 without" in x for x in found)
    assert (
        "data/lesson/1-1.toml: facts.clocks.row[1].released: is after the day it was read, "
        "2026-11-30" in found
    )


def test_a_row_without_its_library_or_reading_day_is_reported() -> None:
    def change(data):
        del data["row"][3]["library"]
        del data["row"][3]["as_of"]
        data["row"][3]["verison"] = "v2"

    found = broken(change)
    assert "data/lesson/1-1.toml: facts.clocks.row[3].library: missing" in found
    assert "data/lesson/1-1.toml: facts.clocks.row[3].as_of: missing" in found
    assert any(
        line.startswith("data/lesson/1-1.toml: facts.clocks.row[3].verison: unknown")
        for line in found
    )


def test_a_missing_cell_is_reported() -> None:
    def change(data):
        data["row"][1]["cells"].pop()

    assert broken(change) == [
        "data/lesson/1-1.toml: facts.clocks.row[1].cells: 3 cells for 4 columns"
    ]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://github.com/aralde/astorLM", "not a public https address"),
        ("github.com/aralde/astorLM", "must be a full http(s) URL"),
        ("https://github.com/aralde/astor LM", "not a public https address"),
        ('https://github.com/aralde/"astorLM', "not a public https address"),
        ("https://github.com/aralde/astorLM\n", "a newline"),
        ("https://localhost/astorLM", "not a public https address"),
        ("https://me:secret@github.com/aralde/astorLM", "not a public https address"),
        ("https://github.com:99999/aralde", "not a public https address"),
    ],
)
def test_a_source_that_is_not_a_well_formed_https_address_is_reported(url, why) -> None:
    def change(data):
        data["row"][4]["sources"]["repository"] = url

    found = broken(change)
    assert len(found) == 1 and "facts.clocks.row[4].sources.repository: " in found[0]
    assert why in found[0]


def test_an_address_in_the_words_and_a_link_to_no_source_are_reported() -> None:
    def change(data):
        data["row"][0]["cells"][0] = "see https://example.org/x"
        data["row"][0]["cells"][1] = "**10** ([`run_config.py`](run_cofnig))"

    found = broken(change)
    assert any("row[0].cells[0]: an address in the words" in line for line in found)
    assert any("row[0].cells[1]: links to 'run_cofnig'" in line for line in found)
    assert any("row[0].sources.run_config: no cell links it" in line for line in found)


def test_an_unknown_table_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"no table \[facts.clock\] \(it has: clocks, budgets\)"):
        markdown("1-1", "clock")


def test_what_a_cell_holds_cannot_break_the_table_or_its_links() -> None:
    data = table("1-1", "clocks")
    data["row"][0]["cells"][0] = "a | b\non two lines"
    data["row"][0]["sources"]["run_config"] = "https://example.org/a_(b)"
    data["row"][0]["version"] = "*v1* | <b>"
    shown = markdown("1-1", "clocks", data)
    line = rows_of(shown)[0]
    assert "a \\| b on two lines" in line
    assert "](https://example.org/a_%28b%29)" in line
    assert "\\*v1\\* \\| &lt;b&gt;" in line
    assert line.count(" | ") == len(data["columns"]) - 1


def test_a_page_address_is_refused_or_made_safe_for_a_link() -> None:
    assert page_address("https://ai.pydantic.dev/agent/#usage-limits").endswith("#usage-limits")
    for url in ("https://example.org/\u202e", "https://example.org/a\\b", "ftp://example.org"):
        with pytest.raises(ValueError):
            page_address(url)


# --- lesson check -------------------------------------------------------------------------------


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(Path(str(data_file("lesson"))), tmp_path / "lesson"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}: the test's data moved"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def check(data: Path) -> list[str]:
    return [str(p) for p in lesson_problems(data, Path(str(shipped_notebooks())))]


def test_lesson_check_names_a_broken_row_and_field(data_copy) -> None:
    edit(data_copy / "1-3.toml", "released = 2026-05-29", 'released = "May 2026"')
    assert check(data_copy) == [
        "lesson/1-3.toml: facts.terminal_tools.row[2].released: must be a date, written "
        "2026-11-30 without quotes, not 'May 2026'"
    ]


def test_lesson_check_says_which_words_no_catalogue_translates(data_copy) -> None:
    edit(data_copy / "1-3.toml", '"its argument, as the final answer"', '"its argument, as is"')
    assert check(data_copy) == [
        "lesson/1-3.toml: facts.terminal_tools.row[2].cells[1]: no translation into Português "
        "(Brasil) in the catalogue: `make i18n`, then translate it"
    ]


def test_lesson_check_finds_a_table_no_cell_shows_and_a_cell_with_no_table(data_copy) -> None:
    path = data_copy / "1-3.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("[facts.terminal_tools", "[facts.stops"), encoding="utf-8")
    found = check(data_copy)
    assert any(line.startswith("lesson/1-3.toml: facts.stops: no cell of") for line in found)
    assert (
        "1-3_the_warp_pipe.ipynb: facts_table('1-3', 'terminal_tools'): a cell shows this "
        "table, and lesson/1-3.toml has no [facts.terminal_tools]" in found
    )
    # the words are the catalogue's in the context of the table they sit in: a new name is new
    assert any("no translation into Português" in line for line in found)


def test_a_facts_entry_that_is_not_a_table_of_tables_is_reported() -> None:
    assert list(problems("1-1", {"clocks": "a table"})) == [
        ("facts", "must hold one table per facts table, [facts.<name>]")
    ]


def test_the_catalogue_is_asked_whether_it_translates_each_word_in_its_context() -> None:
    ctx = context("1-1", "budgets")
    assert has_translation("pt", NC_(ctx, "none"))
    assert not has_translation("pt", NC_("facts 1-1 nowhere", "none"))
    assert not has_translation("pt", "Words that no catalogue has ever held.")
    assert has_translation("en", "Words that no catalogue has ever held.")
