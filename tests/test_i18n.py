"""The Portuguese edition: one language setting for the library's words, catalogues that are
complete, and notebooks that share their code with the English ones and run, every word a learner
reads in Portuguese."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import NOTEBOOKS, ROOT
from lessonparts import split_at_going_further

from whentostop import NoAnswer, set_language
from whentostop.i18n import (
    NC_,
    _,
    language,
    money,
    normalize,
    number,
    pgettext,
    ratio,
    seconds,
    translator,
    using,
)
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
            == "Custo acumulado com gpt-4o: 1.326 tokens, US$ 0,0123"
        )
    assert _("{tokens:,} tokens").format(tokens=1326) == "1,326 tokens"


@pytest.mark.parametrize(
    "lang, shown",
    [
        ("en", ["7,684", "3.3", "3.3×", "$0.025", "1.0 s", "-$1.50"]),
        ("pt", ["7.684", "3,3", "3,3×", "US$ 0,025", "1,0 s", "-US$ 1,50"]),
    ],
)
def test_one_formatter_writes_every_number_the_languages_way(lang, shown):
    with using(lang):
        assert [
            number(7684),
            number(3.3, 1),
            ratio(25704 / 7684),
            money(0.0245, 3),
            seconds(1.0),
            money(-1.5),
        ] == shown


ENGLISH_NUMBER = re.compile(
    r"(?<![\w.:=/#\\-])(?:"
    r"\$\s?\d"  # a dollar amount the English way: $0.0245 (Portuguese: US$ 0,0245)
    r"|(?<!\$ )[1-9]\d{0,2}(?:,\d{3})+(?![\d.])"  # 7,684: thousands grouped with a comma
    r"|\d+\.\d+\s?[x×]"  # 3.3x
    r"|\d+\.(?!\d{3}(?![\d.]))\d+(?![\d.])"  # 1.0, 2.5: a decimal point (1.138 is 1138)
    r"|0\.\d+(?![\d.])"  # 0.025, 0.111
    r")"
)
"""A number written the English way. Not one in code (`deadline_s=1.0`), an identifier (1-1.p4),
a persona (slow:0.3), a version (0.1.0) or a date: see `english_numbers`."""
_CODE = re.compile(
    r"`[^`\n]*`|https?://\S+|\b[\w.-]+\.(?:py|toml|json|ipynb|md)\b"
    r"|\b(?:Python|Pyodide|Jupyter\w*|Voila|v|versão|version) \d[\d.]*"  # a version
    r"|\b(?:Qwen|Llama|Gemma|Phi|Mistral)[\w-]*\s?\d[\w.-]*|\b\d+(?:\.\d+)?[BM]\b"  # a model
)


def english_numbers(text: str) -> list[str]:
    """Each number in `text` a Brazilian would misread (7,684 read as seven point six), with its
    surroundings; code spans, addresses and file names left out."""
    text = _CODE.sub("`code`", text)
    return [text[max(0, m.start() - 30) : m.end() + 15] for m in ENGLISH_NUMBER.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "10 turnos: 7,684 tokens",
        "razão 3.3x (um crescimento linear daria 2.0x)",
        "US$0.025 (1.0x o custo de 10)",
        "depois de 1.0 s",
        "$0.0245 ao preço do gpt-4o",
        "$0.00190 ao preço do gpt-4o",
        "a bandeira 5 turnos 1,667 tokens",
        "gpt-4o: US$2.5 / US$10.0 por milhão",
        "entre 0.5 e 5 segundos",
    ],
)
def test_the_number_check_catches_each_english_number_the_review_found(text):
    assert english_numbers(text)


@pytest.mark.parametrize(
    "text",
    [
        "10 turnos: 7.684 tokens, razão 3,3× (um crescimento linear daria 2,0×)",
        "US$ 0,025 ao preço do gpt-4o; US$ 0,0245; 142.780 tokens; depois de 1,0 s",
        'Previsão 1-1.p4: max_turns=10 e deadline_s=1.0, connect("slow:0.3")',
        "`cumulative_cost(run)[-1]` e 2.029.004 tokens; a 0.1.0 em 2026-05-07, Python 3.11+",
        "a fase 1-1 e o bloco 12, https://example.org/v1.2/x e tests/test_x.py",
    ],
)
def test_the_number_check_passes_portuguese_numbers_and_code(text):
    assert english_numbers(text) == []


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
        context = message.context  # a msgid in a context (msgctxt) is translated in it
        said = catalog.gettext(msgid) if context is None else catalog.pgettext(context, msgid)
        if said == msgid and len(re.findall(r"[A-Za-z]{3,}", prose(msgid))) >= 3:
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
    for word in ("**Perguntas**", "**Objetivos**", "**Núcleo:**", "**Para ir além:**"):
        assert word in pt[0].source
    core, _ = split_at_going_further(pt, "pt")
    assert "## Pontos-chave" in core[-1].source
    others = [f"{other.split('/')[-1]}.ipynb" for other in PT_LESSONS if other != portuguese]
    assert all(f"]({link})" in core[-1].source for link in others)


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


@pytest.mark.parametrize("with_solutions", [False, True])
@pytest.mark.parametrize("name", PAIRS.values())
def test_a_portuguese_notebook_writes_every_number_the_portuguese_way(
    name, with_solutions, jupyter_env
):
    """What a Portuguese notebook shows on the mock, blank and solved — the library's words and
    the cells' own f-strings — and its own prose: no number written the English way."""
    if with_solutions and name not in PT_LESSONS:
        pytest.skip("no exercises")
    nb = ran(name, with_solutions, jupyter_env)
    shown = "\n".join(text_of(c) for c in nb.cells)
    prose = "\n".join(c.source for c in read(name).cells if c.cell_type == "markdown")
    assert english_numbers(shown) == []
    assert english_numbers(prose) == []


@pytest.mark.parametrize("guide", sorted(lesson_i18n.EDITIONS["pt"].docs.values()))
def test_the_portuguese_guides_write_numbers_the_portuguese_way(guide):
    text = (ROOT / "docs" / "pt" / guide).read_text(encoding="utf-8")
    assert english_numbers(lesson_i18n._FENCED.sub("", text)) == []


# --- the terms ------------------------------------------------------------------------------

REJECTED = {
    r"\bn[íi]vel\b(?! 4\b| superior| da execução)": "“fase” for a game level (the original "
    "lesson's “nível” is a lesson within the track)",
    r"\bmocks?\b": "“modelo simulado”",
    r"\bsearcher\b": "“buscador” (the persona's name stays as code)",
    r"\bexecuç(?:ão|ões) honestas?": "“execução que dá certo”, as the original lesson says",
    r"\blhes?\b": "“te”, as the original lesson talks to the learner",
    r"\bfracass": "“falha”, as “Trate o relógio como uma falha”",
    r"\bschemas?\b": "“esquema”",
    r"\bpróximo pedido\b|\bpedido (?:opcional )?de fechamento|\bpedido do loop": "“requisição”",
    r"\bcomo dado\b": "“como dados”",
    r"\blaços?\b": "“loop”",
    r"\b(?:a|as|uma|a mesma) chaves? (?:\*\*|ligada|de que)|\baté as chaves": "“interruptor” "
    "for a toggle (“chave” is the API key)",
    r"\bQual limite (?:a |o )?para\b|\b(?:relógio|prazo|orçamento|limite) (?:[ao] para\b|para "
    r"(?:a|uma|esta) execução)|\bferramenta terminal (?:só )?para o loop": "“interrompe” (“para” "
    "also reads as “for”)",
    r"\bvoltas novas\b|\bcompactação e as voltas": "the track's own names, “A mochila enche” and "
    "“Voltas limpas”",
}
"""Forms a Brazilian teacher's review rejected, each with what the lesson says instead."""
_NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\{[^{}\n]*\}|\]\([^)]*\)|\b\w+=\S+|https?://\S+|\b[\w/.-]+\.\w{2,5}\b",
    re.S,
)


def rejected_forms(text: str) -> list[str]:
    """Each rejected form in the prose of `text` (code, fields, links and settings left out)."""
    prose = _NOT_PROSE.sub(" ", text)
    return [
        f"{m.group(0)!r} (say {instead}): …{prose[max(0, m.start() - 40) : m.end() + 20]}…"
        for pattern, instead in REJECTED.items()
        for m in re.finditer(pattern, prose, re.I)
    ]


def portuguese_texts() -> dict[str, str]:
    """Every Portuguese text a learner or a teacher reads: both catalogues' translations, the
    Portuguese notebooks' prose and the Portuguese guides."""
    texts: dict[str, str] = {}
    for name, path in [
        ("library", ROOT / "src/whentostop/locale/pt_BR/LC_MESSAGES/whentostop.po"),
        ("lesson", lesson_i18n.po_path(lesson_i18n.EDITIONS["pt"])),
    ]:
        for m in library_catalogue.read(path, "pt_BR"):
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            for i, s in enumerate(strings):
                texts[f"{name}: {str(m.id)[:50]!r}[{i}]"] = s or ""
    for name in PAIRS.values():
        for i, cell in enumerate(read(name).cells):
            if cell.cell_type == "markdown":
                texts[f"{name} cell {i}"] = cell.source
    for guide in lesson_i18n.EDITIONS["pt"].docs.values():
        texts[f"docs/pt/{guide}"] = (ROOT / "docs" / "pt" / guide).read_text(encoding="utf-8")
    return texts


def test_the_portuguese_edition_uses_the_lessons_terms_everywhere():
    found = [
        f"{where}: {hit}"
        for where, text in portuguese_texts().items()
        for hit in rejected_forms(text)
    ]
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize(
    "text",
    [
        "A largada da corrida, no mock: o modelo lento no nível 1-1.",
        "com o seu prompt, o searcher continuou procurando",
        "Um orçamento é a execução honesta mais longa mais uma margem.",
        "O que on_max_turns lhe dá?",
        "um relato de fracasso",
        "Um schema confere a forma da resposta",
        "o próximo pedido levaria a execução a 7.684 tokens",
        "A fase 1-3 entrega o bloco como dado.",
        "um laço sem saída?",
        "Ligue a chave **permitir desistir**",
        "Qual limite para a execução primeiro?",
        "a compactação e as voltas novas",
        "o prazo a para",
        "Quando uma ferramenta terminal para o loop?",
    ],
)
def test_the_terms_check_catches_each_form_the_review_rejected(text):
    assert rejected_forms(text)


def test_the_terms_check_leaves_code_keys_and_the_track_alone():
    text = (
        "Esta lição segue o nível 4 da trilha. `connect(\"searcher\")`, model='searcher', "
        "`mock()`: a chave de API fica no ambiente; as chaves do JSON; o loop para. Dimensionando "
        "o orçamento para a sua tarefa; um prazo para um modelo lento."
    )
    assert rejected_forms(text) == []


# --- one msgid, several meanings (msgctxt) ---------------------------------------------------


@pytest.mark.parametrize(
    "tag, shown",
    [
        ("question-1-3-c2", "(c) None."),  # run.answer: Python's None
        ("question-1-4-p2", "(a) None."),  # what the loop returns: Python's None
        ("question-1-4-c3", "(c) Nenhuma."),  # which runs: none of them
        ("question-1-3-p3", "(a) Nenhum."),  # how many turns: none
    ],
)
def test_the_same_english_words_keep_each_meaning_in_portuguese(tag, shown):
    from whentostop.lesson.checks import question_by_tag

    with using("pt"):
        assert shown in question_by_tag(tag).options_text()


def test_the_catalogue_check_tells_a_msgid_apart_by_its_context():
    """The template holds "None." once per meaning, and each has its own translation."""
    contexts = {m.context for m in library_catalogue.extract() if m.id == "None."}
    assert contexts == {"Python's None", "no runs", "no turns"}
    with using("pt"):
        assert _(NC_("no runs", "None.")) == "Nenhuma."
        assert _(NC_("Python's None", "None.")) == "None."
        assert pgettext("no turns", "None.") == "Nenhum."


# --- the Portuguese edition opened by hand ------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize(
    "args, env_lang, start",
    [
        (["LANG=pt"], "C.UTF-8", "pt/00_comece_aqui.ipynb"),
        ([], "pt_BR.UTF-8", "00_start_here.ipynb"),  # the shell's locale is not the edition
        ([], "C.UTF-8", "00_start_here.ipynb"),
    ],
)
def test_make_lab_lang_pt_opens_the_portuguese_edition(args, env_lang, start):
    shown = subprocess.run(
        ["make", "-n", "lab", *args],
        cwd=ROOT,
        env={**os.environ, "LANG": env_lang},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"--LabApp.default_url=/lab/tree/{start} " in shown
    assert (NOTEBOOKS / start).is_file()


def test_the_portuguese_guide_sends_teachers_to_the_portuguese_edition():
    guide = (ROOT / "docs" / "pt" / "oficina.md").read_text(encoding="utf-8")
    english_files = [f for f in EDITIONS["en"].values() if f in guide]
    assert not english_files, english_files
    assert "notebooks/pt/00_comece_aqui.ipynb" in guide
    assert "make lab LANG=pt" in guide
    commands = re.findall(r"python -m whentostop (?:link|lesson|lab|dashboard)\b[^`\n]*", guide)
    assert commands and all("--lang pt" in c for c in commands), commands
    for english_button in ("Launch on Binder", "Try it in your browser", "YOU/", "YOUR-HUB"):
        assert english_button not in guide
    assert "Abrir no Binder" in guide and "Experimente no navegador" in guide


def test_the_reviews_english_leftovers_read_in_portuguese():
    """The review's examples: one-word literals a learner reads, 1-4's placeholders, the guides'
    last paragraphs, and the note in 00 on what stays English (what the model is sent)."""
    start = "\n".join(c.source for c in read(PAIRS["00_start_here"]).cells)
    assert "pede: {asked or 'nada'}" in start and "'nothing'" not in start
    assert "fica em inglês de propósito" in start and "“Block …: star”" in start
    castle = "\n".join(c.source for c in read(PAIRS["1-4_the_castle"]).cells)
    assert "`(False, None, uma linha de erro)`" in castle and "an error line" not in castle
    assert '`("answer", a resposta, runs)`' in castle and "the answer, runs" not in castle
    assert "entre 0,5 e 5 segundos" in castle
    guide = (ROOT / "docs" / "pt" / "oficina.md").read_text(encoding="utf-8")
    assert guide.rstrip().endswith("ao iniciar.")  # its last paragraph, once left in English
    faults = (ROOT / "docs" / "pt" / "falhas.md").read_text(encoding="utf-8")
    known = faults.split("## Limites conhecidos", 1)[1]
    assert "The budget is checked" not in known and "O orçamento" in known
    assert "`erro: interrompida por KeyboardInterrupt`" in faults  # the message as pt prints it


def test_the_librarys_own_outputs_write_numbers_the_portuguese_way(play):
    """What the library shows of a long run in Portuguese — its summary, a chart's ticks and
    words, the figures' text alternatives, the uncapped loop's bill — has no English number."""
    import html

    from whentostop.lesson.uncapped import bill
    from whentostop.views import charts, plots

    run = play("1-1", "loopboros", max_turns=25).run
    with using("pt"):
        usage = [
            {"prompt_tokens": t.prompt_tokens, "completion_tokens": t.completion_tokens}
            for t in run.turns
        ]
        shown = [
            run.summary(),
            plots.tokens_per_turn(run).alt_text,
            plots.cumulative_cost(run, model="gpt-4o").alt_text,
            html.unescape(re.sub(r"<[^>]+>", " ", charts.cost_svg(run))),
            html.unescape(re.sub(r"\\(.)", r"\1", bill(usage)._repr_markdown_())),
        ]
    assert [english_numbers(text) for text in shown] == [[]] * len(shown)
    assert re.search(r"\d\.\d{3} tokens", shown[0])  # a grouped number was there to check
