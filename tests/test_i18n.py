"""The Portuguese edition: one language setting for the library's words, catalogues that are
complete, and notebooks that share their code with the English ones and run, every word a learner
reads in Portuguese."""

from __future__ import annotations

import ast
import re
import sys

import pytest
from conftest import NOTEBOOKS, ROOT

from whentostop import NoAnswer, set_language
from whentostop.i18n import _, language, normalize, translator, using
from whentostop.lesson.checks import by_tag
from whentostop.lesson.classroom import EDITIONS

sys.path.insert(0, str(ROOT / "tools"))
import i18n as library_catalogue
import lesson_i18n
from test_notebooks import LESSONS, errors, execute, read, solved, tagged, text_of

PAIRS = {
    f"{english.removesuffix('.ipynb')}": f"pt/{EDITIONS['pt'][short].removesuffix('.ipynb')}"
    for short, english in EDITIONS["en"].items()
}
"""English notebook -> its Portuguese edition, as `read()` names them."""
PT_LESSONS = {PAIRS[name]: level for name, level in LESSONS.items()}


# --- the setting ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given, code",
    [("pt", "pt"), ("pt-BR", "pt"), ("pt_BR", "pt"), ("PT", "pt"), ("en", "en"), ("en_US", "en")],
)
def test_a_language_is_named_as_people_write_it(given, code):
    assert normalize(given) == code


def test_a_language_the_lesson_lacks_is_a_clear_error():
    with pytest.raises(ValueError, match="no 'fr' edition: the lesson is written in en"):
        set_language("fr")


def test_english_is_the_default_and_the_environment_or_the_notebook_choose(monkeypatch):
    monkeypatch.delenv("WHENTOSTOP_LANG", raising=False)
    assert language() == "en" and _("the clock") == "the clock"
    monkeypatch.setenv("WHENTOSTOP_LANG", "pt")
    assert language() == "pt" and _("the clock") == "o relógio"
    try:
        set_language("en")  # the notebook's first cell wins over the environment
        assert _("the clock") == "the clock"
    finally:
        set_language(None)


def test_numbers_are_written_the_languages_way():
    with using("pt"):
        assert _("{n} turns, {tokens:,} tokens").format(n=3, tokens=1326) == "3 turns, 1.326 tokens"
        assert (
            _("Cumulative cost at {model}: {tokens:,} tokens, ${usd:.4f}").format(
                model="gpt-4o", tokens=1326, usd=0.0123
            )
            == "Custo acumulado com gpt-4o: 1.326 tokens, US$0,0123"
        )
    assert _("{tokens:,} tokens").format(tokens=1326) == "1,326 tokens"


def test_a_run_tells_how_it_ended_in_portuguese(play):
    with using("pt"):
        run = play("1-1", "loopboros", max_turns=3).run
        assert run.exit_name == "o relógio"
        assert "sem resposta" in run.summary()
        with pytest.raises(NoAnswer, match="Sem resposta: a execução parou em max_turns=3"):
            run.answer


# --- the catalogues ---------------------------------------------------------------------------


def test_the_librarys_catalogue_is_complete_and_compiled():
    """Every string the library marks, and every shipped level's title and story, has its
    Portuguese, and the .mo the wheel ships is compiled from the .po as it is."""
    assert library_catalogue.problems() == []


def test_the_lessons_catalogue_is_complete_and_the_editions_are_built_from_it():
    """Every paragraph of the notebooks and of the guide has its Portuguese (numbers, code,
    links and table shapes kept), and the Portuguese files are exactly what it builds."""
    assert lesson_i18n.problems() == []


def test_portuguese_words_leave_no_english_sentence_of_the_library_behind():
    """Through the catalogue, none of the library's English sentences (three words or more)
    reaches a Portuguese learner: each has a translation that differs from it."""
    catalog = translator("pt")
    same = []
    for message in library_catalogue.extract():
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        if catalog.gettext(msgid) == msgid and len(re.findall(r"[A-Za-z]{3,}", prose(msgid))) >= 3:
            same.append(msgid)
    assert not same, same[:5]


def prose(text: str) -> str:
    """The words of a message that are not code: placeholders, backticked code and lines of
    Python (a solution's code, a blank) left out."""
    try:
        ast.parse(text)
    except SyntaxError:
        pass
    else:  # code (a solution, a blank): only its comments are words
        return " ".join(re.findall(r"#([^\n]*)", text))
    text = re.sub(r"\{[^{}]*\}|`[^`]*`", " ", text)
    code = re.compile(r"^\s*(def |import |from |return |if |for |try:|except|\w+ = |\w+\(|#)")
    return "\n".join(line for line in text.split("\n") if not code.match(line))


# --- the notebooks share their code -----------------------------------------------------------


def code_shape(source: str) -> str:
    """The code as Python sees it, with every string's words left out (they may be translated),
    but every f-string field and every other token kept; comments never count."""
    tree = ast.parse(lesson_i18n.without_magics(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


@pytest.mark.parametrize("english, portuguese", PAIRS.items())
def test_each_portuguese_notebook_has_the_english_ones_cells_tags_and_code(english, portuguese):
    en, pt = read(english), read(portuguese)
    assert [(c.cell_type, c.get("id"), c.metadata.get("tags", [])) for c in en.cells] == [
        (c.cell_type, c.get("id"), c.metadata.get("tags", [])) for c in pt.cells
    ]
    for a, b in zip(en.cells, pt.cells):
        if a.cell_type == "code":
            assert code_shape(a.source) == code_shape(b.source), (a.source, b.source)
    first = next(c for c in pt.cells if c.cell_type == "code").source.splitlines()
    chooses = first.index("from whentostop import set_language")  # after the install lines
    assert first[chooses + 1].startswith('set_language("pt")')


@pytest.mark.parametrize("name", PT_LESSONS)
def test_each_portuguese_exercise_cell_is_the_exercise_in_portuguese(name):
    with using("pt"):
        for cell, tag in tagged(read(name)):
            assert cell.source == by_tag(tag).cell()
            assert cell.source.startswith("# Exercício ")


@pytest.mark.parametrize("english, portuguese", [(e, p) for e, p in PAIRS.items() if e in LESSONS])
def test_each_portuguese_lesson_keeps_its_minutes_and_sections(english, portuguese):
    en, pt = read(english).cells, read(portuguese).cells
    minutes = re.compile(r"(\d+) min")
    assert minutes.findall(en[0].source) == minutes.findall(pt[0].source)
    for word in ("**Perguntas**", "**Objetivos**", "**Ensino:**", "**Exercícios:**"):
        assert word in pt[0].source
    assert "## Pontos-chave" in pt[-1].source
    others = [f"{other.split('/')[-1]}.ipynb" for other in PT_LESSONS if other != portuguese]
    assert all(f"]({link})" in pt[-1].source for link in others)


@pytest.mark.parametrize("name", PAIRS.values())
def test_portuguese_links_point_to_files_that_exist(name):
    for cell in read(name).cells:
        if cell.cell_type != "markdown":
            continue
        for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", cell.source):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            assert (NOTEBOOKS / "pt" / target.split("#")[0]).exists(), target


# --- the notebooks run, in Portuguese ---------------------------------------------------------

_done: dict[tuple[str, bool], object] = {}


def ran(name: str, with_solutions: bool, env: dict[str, str]):
    if (name, with_solutions) not in _done:
        nb = read(name)
        if with_solutions:
            with using("pt"):
                nb = solved(nb)
        _done[(name, with_solutions)] = execute(nb, env)
    return _done[(name, with_solutions)]


@pytest.mark.parametrize("name", PAIRS.values())
def test_portuguese_notebook_runs_top_to_bottom_as_committed(name, jupyter_env):
    nb = ran(name, False, jupyter_env)
    assert not errors(nb)
    shown = "\n".join(text_of(c) for c in nb.cells)
    if name in PT_LESSONS:
        assert "Ainda não tentado" in shown and "Not attempted yet" not in shown


@pytest.mark.parametrize("name", PT_LESSONS)
def test_portuguese_notebook_with_solutions_filled_in_passes_every_check(name, jupyter_env):
    nb = ran(name, True, jupyter_env)
    assert not errors(nb)
    for cell, tag in tagged(nb):
        assert "Correto" in text_of(cell), (tag, text_of(cell))


@pytest.mark.parametrize("name", PAIRS.values())
def test_what_a_portuguese_notebook_shows_holds_no_english_sentence_of_the_library(
    name, jupyter_env
):
    shown = "\n".join(text_of(c) for c in ran(name, False, jupyter_env).cells)
    english = [
        m.id
        for m in library_catalogue.extract()
        if isinstance(m.id, str) and len(m.id.split()) >= 4 and "{" not in m.id
    ]
    leaked = [msgid for msgid in english if msgid in shown]
    assert not leaked, leaked[:5]
