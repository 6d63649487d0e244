"""A lesson that fits its hour (issue 28): each notebook's core, its words and minutes, the
instructor's guide's plans built from those minutes, one word per limit, and one table of the
exits' names — in both editions. How the parts, minutes and words are read: tests/lessonparts.py."""

from __future__ import annotations

import ast
import re

import nbformat
import pytest
from babel.messages.pofile import read_po
from conftest import ROOT, committed_text
from lessonparts import Minutes, minutes, prose_words, split_at_going_further

from whentostop.lesson.classroom import EDITIONS
from whentostop.outcome import EXIT_NAMES, Stop

LEVELS = ("00", "1-1", "1-2", "1-3", "1-4")
LANGS = ("en", "pt")
FOLDER = {"en": ROOT / "notebooks", "pt": ROOT / "notebooks" / "pt"}
CORE_WORDS = 5_000
"""At most this many words of English prose in the cores of 00 to 1-4 together."""
START_WORDS = 600
"""At most this many in 00's core."""


def cells(level: str, lang: str = "en") -> list:
    path = FOLDER[lang] / EDITIONS[lang][level]
    return nbformat.reads(committed_text(path), as_version=4).cells


def stated(level: str, lang: str = "en") -> Minutes:
    return minutes(cells(level, lang)[0].source, lang)


# --- the core: words and minutes ------------------------------------------------------------------


def test_the_cores_hold_at_most_5000_words_of_prose_and_00s_at_most_600() -> None:
    core_words = {level: prose_words(split_at_going_further(cells(level))[0]) for level in LEVELS}
    assert core_words["00"] <= START_WORDS, core_words
    assert sum(core_words.values()) <= CORE_WORDS, core_words


def test_the_word_count_is_of_prose_not_code_links_or_tables_rules() -> None:
    from lessonparts import words

    assert words("The **flag** — `end_turn` — is [the exit](https://example.com/a-b)!") == 5
    assert words("| a | b |\n|---|---|\n| don't | 1-4 |") == 4
    assert words("Run it:\n\n```bash\nmake lab BASE_URL=http://x/v1\n```\n<br> done") == 3


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("level", LEVELS)
def test_each_header_states_the_cores_and_the_depths_minutes(level: str, lang: str) -> None:
    """The Portuguese header is the English one's translation: the same minutes."""
    assert stated(level, lang) == stated(level, "en")
    core, depth = split_at_going_further(cells(level, lang), lang)
    english_core, english_depth = split_at_going_further(cells(level))
    assert (len(core), len(depth)) == (len(english_core), len(english_depth))


@pytest.mark.parametrize("level", LEVELS)
def test_no_core_code_cell_uses_a_name_only_the_going_further_part_makes(level: str) -> None:
    """A learner who stops at the key points has run every cell the core needs."""
    core, depth = split_at_going_further(cells(level))
    made_in_core = set().union(*(_made(c.source) for c in core if c.cell_type == "code"))
    made_in_depth = set().union(*(_made(c.source) for c in depth if c.cell_type == "code"))
    only_in_depth = made_in_depth - made_in_core
    used = {name for c in core if c.cell_type == "code" for name in _used(c.source)}
    assert not used & only_in_depth, f"{level}: the core uses {sorted(used & only_in_depth)}"
    assert only_in_depth, f"{level}: the depth part makes nothing of its own; is the split read?"


def _tree(source: str) -> ast.Module:
    """The cell as Python: an IPython magic line becomes `pass`, at its indentation."""
    lines = [re.sub(r"^(\s*)%.*", r"\1pass", line) for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def _made(source: str) -> set[str]:
    made: set[str] = set()
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            made.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            made.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            made.update((a.asname or a.name).split(".")[0] for a in node.names)
    return made


def _used(source: str) -> set[str]:
    return {
        node.id
        for node in ast.walk(_tree(source))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


# --- the instructor's guide: its plans, from the headers' minutes ---------------------------------

GUIDE = {"en": ROOT / "docs" / "workshop.md", "pt": ROOT / "docs" / "pt" / "oficina.md"}
HEADINGS = {
    "en": {"table": "## Two plans", "100": "### 100 minutes", "180": "### 3 hours"},
    "pt": {"table": "## Dois planos", "100": "### 100 minutos", "180": "### 3 horas"},
}


def table_after(lang: str, heading: str) -> list[list[str]]:
    """The cells of each row of the first table after `heading` in the guide."""
    text = GUIDE[lang].read_text().split(heading, 1)[1]
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([c.strip().strip("*") for c in line.strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]


def number(cell: str) -> int:
    return int(cell.split(" ")[0]) if cell else 0


def level_of(part: str) -> str | None:
    first = part.split(" ")[0]
    return first if first in LEVELS else None


@pytest.mark.parametrize("lang", LANGS)
def test_the_guides_minutes_table_is_the_notebooks_headers(lang: str) -> None:
    from whentostop.lesson.checks import by_tag

    rows = {level_of(r[0]): r for r in table_after(lang, HEADINGS[lang]["table"])}
    for level in LEVELS:
        m = stated(level)
        row = rows[level]
        assert [number(c) for c in row[1:5]] == [
            m.teaching,
            m.exercises,
            m.further,
            m.core + m.further,
        ], (
            level,
            row,
        )
        core, depth = split_at_going_further(cells(level))
        for part, allowed in ((core, m.exercises), (depth, m.further)):
            tags = {
                t for c in part for t in c.metadata.get("tags", []) if t.startswith("exercise-")
            }
            assert 5 * len(tags) <= allowed, (level, tags, allowed)
            for tag in tags:
                by_tag(tag)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("plan, length", [("100", 100), ("180", 180)])
def test_each_plan_adds_up_and_gives_every_level_its_core(
    lang: str, plan: str, length: int
) -> None:
    """Every plan teaches every core, whole; what it adds from a Going further fits in it; its
    rows add up to its length (cores, depth and breaks) and its clock times follow."""
    rows = table_after(lang, HEADINGS[lang][plan])
    parts, total = rows[:-1], rows[-1]
    assert total[1] == "total"
    assert sum(number(r[4]) for r in parts) == number(total[4]) == length
    assert sum(number(r[2]) for r in parts) == number(total[2])
    assert sum(number(r[3]) for r in parts) == number(total[3])
    elapsed = 0
    for start, *_, spent in parts:
        assert start == f"{elapsed // 60}:{elapsed % 60:02d}", (start, elapsed)
        elapsed += number(spent)
    by_level = {level_of(r[1]): r for r in parts if level_of(r[1])}
    assert sorted(by_level) == sorted(LEVELS), f"{plan}: every level's core, once"
    for level, row in by_level.items():
        m = stated(level)
        assert number(row[2]) == m.core, (plan, level)
        assert number(row[3]) <= m.further, (plan, level)
        assert number(row[4]) == number(row[2]) + number(row[3]), (plan, level)
    breaks = [r for r in parts if not level_of(r[1])]
    assert sum(number(r[4]) for r in breaks) == length - sum(
        number(r[4]) for r in by_level.values()
    )


@pytest.mark.parametrize("lang", LANGS)
def test_the_100_minute_plan_is_the_cores_with_the_loop_written_in_the_room(lang: str) -> None:
    rows = table_after(lang, HEADINGS[lang]["100"])
    by_level = {level_of(r[1]): r for r in rows if level_of(r[1])}
    assert all(number(r[3]) == 0 for r in by_level.values()), "the 100 minutes are the cores"
    assert "1-4.b" in by_level["1-4"][1], "the loop (1-4.b) is written in the room"
    core_minutes = sum(stated(level).core for level in LEVELS)
    assert core_minutes <= 100 and number(rows[-1][2]) == core_minutes


@pytest.mark.parametrize("lang", LANGS)
def test_the_3_hour_plan_goes_further(lang: str) -> None:
    rows = table_after(lang, HEADINGS[lang]["180"])
    assert number(rows[-1][3]) > 0


# --- one word per limit -----------------------------------------------------------------------

MIXED = {
    "en": re.compile(
        r"\bturn budget\b|\bbudget of (?:\d+ )?turns\b|\bbudgeted turns\b|\bdefault budget\b"
        r"|\b(?:siz(?:e|ing)|pick) (?:the|a) budget\b|\bbigger budget\b"
        r"|\bbudget (?:stops mattering|buys no answer)\b|\bbudget_run\b",
        re.IGNORECASE,
    ),
    "pt": re.compile(
        r"orçamento de (?:\d+ )?turnos|orçamento padrão|dimension\w* (?:o|um) orçamento"
        r"|orçamento\s+maior não compra",
        re.IGNORECASE,
    ),
}
"""The old uses of "budget" for `max_turns`, which is the turn limit (limite de turnos)."""


def learner_text(lang: str) -> dict[str, str]:
    """Every learner-facing text in `lang`: the notebooks' markdown and code, both catalogues'
    strings, the README and the guides."""
    texts: dict[str, str] = {}
    for level in (*LEVELS, "explorer"):
        for i, cell in enumerate(cells(level, lang)):
            texts[f"{EDITIONS[lang][level]}[{i}]"] = cell.source
    catalogues = {
        "en": [ROOT / "src/whentostop/locale/whentostop.pot", ROOT / "lesson/locale/lesson.pot"],
        "pt": [
            ROOT / "src/whentostop/locale/pt_BR/LC_MESSAGES/whentostop.po",
            ROOT / "lesson/locale/pt_BR/LC_MESSAGES/lesson.po",
        ],
    }[lang]
    for path in catalogues:
        with path.open("rb") as f:
            for message in read_po(f):
                value = message.id if lang == "en" else message.string
                for text in value if isinstance(value, (tuple, list)) else (value,):
                    if message.id and text:
                        texts[f"{path.name}: {str(message.id)[:40]}"] = text
    docs = {"en": ["README.md", "docs/workshop.md"], "pt": ["docs/pt/oficina.md"]}[lang]
    for name in docs:
        texts[name] = (ROOT / name).read_text()
    return texts


@pytest.mark.parametrize("lang", LANGS)
def test_budget_is_only_the_token_or_dollar_budget(lang: str) -> None:
    found = {
        where: match.group(0)
        for where, text in learner_text(lang).items()
        for match in MIXED[lang].finditer(text)
    }
    assert found == {}, found


def test_the_scan_for_mixed_budget_words_finds_the_old_ones() -> None:
    assert MIXED["en"].search("Only one thing can stop it: the clock, the turn budget max_turns.")
    assert MIXED["en"].search("the same budget of 5 turns")
    assert MIXED["en"].search("and the budget stops mattering above 5")
    assert MIXED["pt"].search("o relógio, o orçamento de turnos `max_turns`")
    assert not MIXED["en"].search("a budget of one cent; the budget stops the Loopboros")
    assert not MIXED["pt"].search("um orçamento de 6.000 tokens")


# --- one table of the exits' names ----------------------------------------------------------------

CODES = {
    Stop.END_TURN: {"end_turn"},
    Stop.TERMINAL_TOOL: {"terminal_tool", "stop_on"},
    Stop.MAX_TURNS: {"max_turns"},
    Stop.DEADLINE: {"deadline", "deadline_s"},
    Stop.BUDGET: {"budget", "max_tokens_total", "max_cost_usd"},
}
"""What the code calls each exit: its `run.stop` value and the `run_agent` arguments that set it."""


def exit_names(lang: str) -> dict[Stop, str]:
    """Each exit's name in the lesson, as the library says it in `lang` (`EXIT_NAMES`)."""
    from whentostop.i18n import _, using

    with using(lang):  # and back to the language before, not to English chosen for good
        return {stop: _(name) for stop, name in EXIT_NAMES.items()}


@pytest.mark.parametrize("lang", LANGS)
def test_00s_core_maps_each_exits_name_to_its_run_stop_value(lang: str) -> None:
    """One table, in 00's core: a row per `Stop`, naming the exit as the library does and giving
    its `run.stop` value; the clock's row calls `max_turns` the turn limit."""
    core, _ = split_at_going_further(cells("00", lang), lang)
    tables = [c.source for c in core if c.cell_type == "markdown" and "| `run.stop` |" in c.source]
    assert len(tables) == 1, "00's core shows the table once"
    rows = [line for line in tables[0].splitlines() if line.startswith("| **")]
    assert len(rows) == len(Stop)
    names = exit_names(lang)
    for stop in Stop:
        row = next(r for r in rows if f"| `{stop.value}` |" in r)
        assert row.startswith(f"| **{names[stop]}**"), (stop, row)
        assert set(re.findall(r"`([^`]+)`", row)) <= CODES[stop], (stop, row)
    clock = next(r for r in rows if f"| `{Stop.MAX_TURNS.value}` |" in r)
    assert ("the turn limit" if lang == "en" else "o limite de turnos") in clock


@pytest.mark.parametrize("lang", LANGS)
def test_every_exit_named_beside_code_is_named_as_the_table_says(lang: str) -> None:
    """Wherever the notebooks put an exit's name beside code ("the clock, `max_turns`", "the
    flag (`end_turn`)"), the code is that exit's own."""
    names = exit_names(lang)
    code_of = {code: stop for stop, codes in CODES.items() for code in codes}
    pairing = re.compile(
        r"\*{0,2}\b(" + "|".join(re.escape(n) for n in names.values()) + r")\b\*{0,2}"
        r"[\s(:,—-]*(?:(?:the turn limit|o limite de turnos|a terminal tool|uma ferramenta terminal)"
        r"[\s,:]*)?\(?`([a-z_]+)`",
        re.IGNORECASE,
    )
    by_name = {name.lower(): stop for stop, name in names.items()}
    seen = 0
    wrong = []
    for level in LEVELS:
        for cell in cells(level, lang):
            if cell.cell_type != "markdown":
                continue
            for name, code in pairing.findall(cell.source):
                if code in code_of:
                    seen += 1
                    if code_of[code] != by_name[name.lower()]:
                        wrong.append((level, name, code))
    assert not wrong
    assert seen >= 10, f"only {seen} pairings read: is the scan still reading the notebooks?"
