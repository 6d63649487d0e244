"""What a learner reads has no mechanical slips: no doubled word ("the the clock"), no sentence that
starts in lower case after a full stop (". the same over a real socket"), no double space inside
prose, in every learner-facing string of the catalogues (the library's and the lesson's), English
and Portuguese. Code in a string (a blank, a solution, `run.answer`) is left to the code's rules;
its comments are prose and are read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from conftest import ROOT

CATALOGUES = {
    "library, English": (ROOT / "src/whentostop/locale/whentostop.pot", "id"),
    "library, Portuguese": (ROOT / "src/whentostop/locale/pt_BR/LC_MESSAGES/whentostop.po", "str"),
    "lesson, English": (ROOT / "lesson/locale/lesson.pot", "id"),
    "lesson, Portuguese": (ROOT / "lesson/locale/pt_BR/LC_MESSAGES/lesson.po", "str"),
}
"""Each catalogue, and which side of it holds the words in its language (an English msgid, a
Portuguese msgstr)."""

PRINT_TEMPLATE = re.compile(r"\{[^{}]*(?:[.\[(]|:\d)[^{}]*\}")
"""A placeholder with an expression or a width in it (`{r.total_tokens:6,}`, `{name:14}`): the
string is a notebook's `print(f"...")` line, whose spaces line up a table's columns."""
ALIGNED = {
    "        user:  {text}",
    "        tool:  {output}",
    "turn {n}  model: {said}",
    "        usuário:  {text}",
    "        ferramenta:  {output}",
    "turno {n}  modelo: {said}",
}
"""The command line's transcript lines, whose double space lines its columns up on purpose."""
ABBREVIATIONS = {"e.g", "i.e", "vs", "etc", "cf", "ex", "p", "approx"}
"""Words whose full stop ends no sentence (lower case after them is right)."""

DOUBLED = re.compile(r"(?<![\w.\-/'])(\w+)[ \t]+\1\b", re.IGNORECASE)
LOWER_AFTER_STOP = re.compile(r"(\S+)\. +(?=[a-zà-ÿ])")
DOUBLE_SPACE = re.compile(r"\S {2,}(?=[^\s#])")
FENCED = re.compile(r"```.*?```", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
CODE_LINE = re.compile(r"^(?: {4}|\t)|^(?:def|return|if|for|while|try|except|import|from) ")


def prose(text: str) -> str:
    """The prose of a catalogue string: without code spans; of code (a fenced block, a string of
    code lines, a line of code with a comment), only its comments' words."""
    text = INLINE_CODE.sub("`…`", FENCED.sub(lambda m: comments(m.group()), text))
    lines = text.split("\n")
    if len(lines) > 1 and any(CODE_LINE.match(line) for line in lines):
        return comments(text)
    return "\n".join(line.split("  # ", 1)[1] if "  # " in line else line for line in lines)


def comments(code: str) -> str:
    """The words of the comments in `code`, a line each."""
    return "\n".join(line.split("# ", 1)[1] for line in code.split("\n") if "# " in line)


def slips(text: str) -> list[str]:
    """Each mechanical slip in `text`, with a few words around it."""
    found: list[str] = []
    words = prose(text)

    def around(match: re.Match[str]) -> str:
        return words[max(0, match.start() - 30) : match.end() + 30].replace("\n", "⏎")

    found += [f"doubled word: …{around(m)}…" for m in DOUBLED.finditer(words)]
    for m in LOWER_AFTER_STOP.finditer(words):
        before = m.group(1)
        line_start = m.start() == 0 or words[m.start() - 1] == "\n"
        if before.lower().strip("(") in ABBREVIATIONS or before.endswith((".", "…")):
            continue  # "e.g. the", "model=... or"
        if line_start and before.isdigit():
            continue  # a numbered list: "1. the package"
        found.append(f"lower case after a full stop: …{around(m)}…")
    if text not in ALIGNED and not PRINT_TEMPLATE.search(text):
        found += [f"double space: …{around(m)}…" for m in DOUBLE_SPACE.finditer(words)]
    return found


def learner_strings(path: Path, side: str) -> Iterator[str]:
    """Every string of a catalogue in its language: msgids of a template, msgstrs of a `.po`
    (each plural form)."""
    with path.open("rb") as f:
        catalog = read_po(f)
    for message in catalog:
        if not message.id:
            continue
        value = message.id if side == "id" else message.string
        for text in value if isinstance(value, (tuple, list)) else (value,):
            if text:
                yield text


@pytest.mark.parametrize("name", list(CATALOGUES))
def test_the_catalogues_have_no_doubled_words_lower_case_sentences_or_double_spaces(
    name: str,
) -> None:
    path, side = CATALOGUES[name]
    found = {text: slips(text) for text in learner_strings(path, side)}
    found = {text[:80]: shown for text, shown in found.items() if shown}
    assert found == {}, f"{name}: {found}"


@pytest.mark.parametrize(
    "text",
    [
        "on the the clock run, your recipe raised KeyError",
        "the loop went on. the same over a real socket (http://127.0.0.1:8000/v1)",
        "the loop went on.  The same over a real socket",
        "o loop continuou. o mesmo por um socket real",
        "o que que o modelo pediu",
        "```python\nwhile True:\n    break   # the the exit\n```",
        "    return run   # the clock. the flag",
    ],
)
def test_the_scan_finds_each_kind_of_slip(text: str) -> None:
    assert slips(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "Wrap `run.answer` in `try: ... except NoAnswer: return None`.",
        "Which model at {endpoint}? Pass model=... or set WHENTOSTOP_MODEL.",
        "1. the package and nbgitpuller\n2. the default interface",
        "tokens per turn (history sent again vs. new), then the cumulative chart",
        "| 1-4 o castelo | 20 | 25 (de 1-4.a a 1-4.e) | 45 |",
        "budget_c = 6   # the searcher's longest run",
        "def f(x):\n    return x   # one call: the pipe",
        "turn {n}  model: {said}",
        "{name:14} {len(r.turns)} turns  {r.total_tokens:,} tokens  answer: {answer}",
    ],
)
def test_the_scan_leaves_code_lists_and_abbreviations_alone(text: str) -> None:
    assert slips(text) == []
