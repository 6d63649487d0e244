"""The guide's and notebooks' translation tool (tools/lesson_i18n.py): what it extracts, how it
looks each piece up, and what its check reports."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import lesson_i18n

PT = lesson_i18n.EDITIONS["pt"]
TABLE = {"One.": "Um.", "Two.": "Dois.", "nothing": "nada", "asks for:": "pede:"}


def looked_up(missed: set[str]):
    def translate(text: str) -> str:
        if text not in TABLE:
            missed.add(text)
        return TABLE.get(text, text)

    return translate


@pytest.mark.parametrize(
    "english, built",
    [
        ("One.\n\nTwo.\n", "Um.\n\nDois.\n"),  # a file's last paragraph ends with its newline
        ("One.\n\nTwo.", "Um.\n\nDois."),
        ("\n\nOne.\n\n\nTwo.\n\n", "\n\nUm.\n\n\nDois.\n\n"),
    ],
)
def test_every_paragraph_is_found_wherever_it_sits_in_the_file(english, built):
    missed: set[str] = set()
    assert lesson_i18n.translate_markdown(english, looked_up(missed)) == built
    assert missed == set()


def test_the_build_says_what_it_looked_up_and_the_catalogue_lacks():
    missed: set[str] = set()
    translate = lesson_i18n.translator(PT, missed)
    assert translate("A paragraph no catalogue has.") == "A paragraph no catalogue has."
    assert missed == {"A paragraph no catalogue has."}


def test_the_editions_build_finds_every_piece_it_looks_up():
    """What the check reports: a piece the build looks up and the catalogue lacks (as a file's
    last paragraph was, looked up with the file's newline) is English in the edition."""
    missed: set[str] = set()
    lesson_i18n.outputs(PT, missed)
    assert missed == set()


def pieces(source: str) -> list[tuple[str, str]]:
    return [(kind, text) for kind, text, _start, _end in lesson_i18n.code_pieces(source)]


def test_a_one_word_literal_the_learner_reads_is_extracted():
    assert ("word", "nothing") in pieces("print(f\"asks for: {asked or 'nothing'}\")\n")
    assert ("string", "tokens") in pieces('print("the wrap-up cost", n, "tokens")\n')
    assert ("string", "none") in pieces('shown = answer if answer else "none"\n')


def test_a_one_word_literal_that_is_code_stays_code():
    source = (
        'model = connect("searcher")\n'
        'reply = post({"messages": messages})["choices"][0]\n'
        'run = run_agent(PROMPT, stop_on=["mark_star"], tool_choice="required")\n'
    )
    assert [text for kind, text in pieces(source) if kind != "comment"] == []


def test_the_word_a_field_shows_is_translated_and_the_field_kept():
    source = "print(f\"asks for: {asked or 'nothing'}\")"
    assert (
        lesson_i18n.translate_code(
            source,
            lambda t: {
                "asks for: {asked or 'nothing'}": "pede: {asked or 'nothing'}",
                "nothing": "nada",
            }.get(t, t),
        )
        == "print(f\"pede: {asked or 'nada'}\")"
    )


@pytest.mark.parametrize(
    "english, portuguese",
    [
        ("`(False, None, an error line)`", "`(False, None, uma linha de erro)`"),
        ('`("answer", the answer, runs)`', '`("answer", a resposta, runs)`'),
        ('`("deadline", why, runs)`', '`("deadline", o motivo, runs)`'),
    ],
)
def test_a_tuple_written_with_words_may_have_them_translated(english, portuguese):
    assert lesson_i18n.mismatches(english, portuguese) == []


@pytest.mark.parametrize(
    "english, portuguese",
    [
        ("`(False, None, an error line)`", "`(True, None, uma linha de erro)`"),
        ('`("answer", the answer, runs)`', '`("resposta", a resposta, runs)`'),
        ("`make lab`", "`faça lab`"),
        ("`tool(fn)`", "`tool(função)`"),
    ],
)
def test_the_code_around_the_words_must_stay(english, portuguese):
    assert "its `code` changed" in lesson_i18n.mismatches(english, portuguese)


def test_a_guide_may_quote_the_librarys_message_as_the_language_prints_it():
    english = "| Ctrl-C | `error: interrupted by KeyboardInterrupt` |"
    assert lesson_i18n.library_says("error: interrupted by KeyboardInterrupt", "pt_BR") == (
        "erro: interrompida por KeyboardInterrupt"
    )
    said = "| Ctrl-C | `erro: interrompida por KeyboardInterrupt` |"
    assert lesson_i18n.mismatches(english, said, "pt_BR") == []
    made_up = "| Ctrl-C | `erro: interrompido pelo teclado` |"
    assert "its `code` changed" in lesson_i18n.mismatches(english, made_up, "pt_BR")


def test_a_sentence_the_catalogue_cannot_say_is_not_made_up():
    assert lesson_i18n.library_says("python -m whentostop run", "pt_BR") is None
    assert lesson_i18n.library_says("Error: there is no tool named 'x'.", "pt_BR") is None


def test_the_guides_commands_and_notebooks_are_the_editions():
    english = (
        "| `00_start_here.ipynb` | … |\n"
        "`python -m whentostop link --hub https://hub.example.edu --notebook 00`, then `make lab`;\n"
        "urlpath=lab%2Ftree%2Fnotebooks%2F1-1_the_clock.ipynb and `make lab-lite`, "
        "`python -m whentostop run --level 1-1`, `python -m whentostop lab --lang en`"
    )
    assert lesson_i18n.for_the_edition(english, PT) == (
        "| `notebooks/pt/00_comece_aqui.ipynb` | … |\n"
        "`python -m whentostop link --lang pt --hub https://hub.example.edu --notebook 00`, then "
        "`make lab LANG=pt`;\n"
        "urlpath=lab%2Ftree%2Fnotebooks%2Fpt%2F1-1_o_relogio.ipynb and `make lab-lite`, "
        "`python -m whentostop run --level 1-1`, `python -m whentostop lab --lang en`"
    )


def test_a_placeholder_in_an_address_is_the_readers_to_name():
    assert (
        lesson_i18n.mismatches(
            "`link --repo https://github.com/YOU/when-to-stop`",
            "`link --repo https://github.com/SEU-USUARIO/when-to-stop`",
        )
        == []
    )
    assert lesson_i18n.mismatches("`--hub https://YOUR-HUB`", "`--hub https://SEU-HUB`") == []
