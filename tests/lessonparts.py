"""A lesson notebook's two parts, its header's minutes and its words, as the tests read them
(issue 28: a core that fits the hour, depth on request).

Each lesson notebook opens with its **core** and puts everything else after one heading cell,
`## Going further` (`## Para ir além` in the Portuguese edition). The first cell states both
parts' minutes:

    **Core:** 20 min (teaching 15, exercises 5) · **Going further:** 35 min

The words of the prose are counted in the markdown cells with what is not prose taken out:
fenced code blocks, inline code spans, link targets and bare URLs, HTML tags. A word is then a
run of letters or digits, joined by inner apostrophes or hyphens ("don't", "1-4", "re-sends");
punctuation, table rules and emoji are not words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GOING_FURTHER = {"en": "## Going further", "pt": "## Para ir além"}
"""The heading cell that ends the core, in each edition (the Portuguese is built from the
lesson catalogue's translation of the English heading)."""

MINUTES = {
    "en": re.compile(
        r"\*\*Core:\*\* (?P<core>\d+) min \(teaching (?P<teaching>\d+), exercises (?P<exercises>\d+)\)"
        r" · \*\*Going further:\*\* (?P<further>\d+) min"
    ),
    "pt": re.compile(
        r"\*\*Núcleo:\*\* (?P<core>\d+) min \(ensino (?P<teaching>\d+), exercícios (?P<exercises>\d+)\)"
        r" · \*\*Para ir além:\*\* (?P<further>\d+) min"
    ),
}

_FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
_URL = re.compile(r"https?://\S+")
_TAG = re.compile(r"<[^>\n]+>")
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")


def words(markdown: str) -> int:
    """The words of a markdown text's prose, counted as the module docstring says."""
    text = _FENCED.sub(" ", markdown)
    text = _CODE.sub(" ", text)
    text = _LINK_TARGET.sub("]", text)
    text = _URL.sub(" ", text)
    text = _TAG.sub(" ", text)
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class Minutes:
    teaching: int
    exercises: int
    further: int

    @property
    def core(self) -> int:
        return self.teaching + self.exercises


def minutes(first_cell: str, lang: str = "en") -> Minutes:
    """The minutes the notebook's first cell states; AssertionError if it states none, or if its
    core is not its teaching plus its exercises."""
    found = MINUTES[lang].search(first_cell)
    assert found, f"no '{MINUTES[lang].pattern}' in the first cell"
    stated = Minutes(int(found["teaching"]), int(found["exercises"]), int(found["further"]))
    assert stated.core == int(found["core"]), f"core {found['core']} is not teaching + exercises"
    return stated


def split_at_going_further(cells: list, lang: str = "en") -> tuple[list, list]:
    """(core, depth): the cells before the one "Going further" heading cell, and that cell with
    everything after it. AssertionError unless there is exactly one such cell."""
    heading = GOING_FURTHER[lang]
    at = [
        i
        for i, cell in enumerate(cells)
        if cell.cell_type == "markdown" and cell.source.split("\n", 1)[0].strip() == heading
    ]
    assert len(at) == 1, f"{len(at)} cells open with {heading!r}; a lesson has one"
    return cells[: at[0]], cells[at[0] :]


def prose_words(cells: list) -> int:
    return sum(words(cell.source) for cell in cells if cell.cell_type == "markdown")
