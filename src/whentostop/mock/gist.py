"""The reader of intent's second opinion: which way a prompt's words lean, learned from the corpora.

The rules (`reading`) read what each clause says. Where they find nothing that decides, or a
permission that the rest of the text speaks strongly against, the reader weighs the words as a
whole: a logistic regression over the lexicon's units, trained on the labelled development
corpora (`data/intent/*.jsonl`, never the held-out file) by `tools/intent_model.py`. Its weights
are data (`data/intent/gist.json`); reading is one pass over the units the rules read.

Each unit gives a few features: its words, what the lexicon says it is (its tags), its pair with
the unit before, and its meaning after a negation, a condition, someone else or a permission in
its sentence. A sentence's features are what it is quoted by: the one that leans most.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import groupby

from .._data import data_file
from .lexicon import LISTS, WORD_CLASSES, Lexicon, Unit, text_units

_ENDS = frozenset(".?!;:")
"""Marks that end a sentence for the features' context (a unit's `kind`)."""
_CONTEXTS = tuple(LISTS["gist_contexts"].items())
"""What a unit's meaning is read after, in its sentence, and the tags that open each
(data/intent/lists.toml: a change there makes the weights stale)."""


@dataclass(frozen=True)
class Sentence:
    """A sentence's span in its text, and the features it gives."""

    text: str
    start: int
    end: int
    features: frozenset[str]


def of(text: str, parts: list[list[Unit]]) -> Iterator[Sentence]:
    """The sentences of a text (the parts `words.window` reads), with their features, from its
    units (`lexicon.text_units`) found before the rules read them: the rules change a pronoun's
    tags as they go."""
    for found in parts:
        for _, run in groupby(found, key=lambda unit: unit.kind in _ENDS):
            words = [unit for unit in run if unit.kind == "w"]  # (none in a run of ends)
            if words:
                yield _sentence(text, words)


def _sentence(text: str, words: list[Unit]) -> Sentence:
    """A sentence of its words in order (the marks between them left out), with its features."""
    features: set[str] = set()
    before_word, before_meaning = "<s>", "<s>"
    context: set[str] = set()
    for unit in words:
        word = "_".join(unit.words)
        meaning = "+".join(sorted(unit.tags - _NO_MEANING)) or "_"
        features.add("w:" + word)
        features.update("t:" + tag for tag in unit.tags)
        features.add(f"tt:{before_meaning}|{meaning}")
        features.add(f"ww:{before_word}|{word}")
        features.update(f"c:{name}|{meaning}" for name in context)
        context.update(name for name, tags in _CONTEXTS if unit.has(*tags))
        before_word, before_meaning = word, meaning
    return Sentence(text, words[0].start, words[-1].end, frozenset(features))


_NO_MEANING = WORD_CLASSES - {"cast", "pronoun", "compare", "than", "hint_word"}
"""Word classes left out of a unit's meaning in its pairs: they say how a word works, not what."""


def features(texts: Iterable[tuple[str, Lexicon]]) -> frozenset[str]:
    """Every feature of the texts together: what the model is trained on and weighs."""
    found = (s for text, lex in texts for s in of(text, text_units(text, lex)))
    return frozenset().union(*(s.features for s in found))


@dataclass(frozen=True)
class Model:
    """The learned weights and the two thresholds the reader applies them with."""

    bias: float
    weights: dict[str, float]
    allow_above: float
    """Where the rules decide nothing, the words allow when they lean above this."""
    outweighs_below: float
    """Where the rules read a permission, the words take it back when they lean below this."""

    def allow(self, found: list[Sentence]) -> float:
        """The probability that the words of these sentences (`of`) let the model
        give up."""
        every = frozenset().union(*(s.features for s in found))
        z = self.bias + sum(self.weights.get(f, 0.0) for f in every)
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    def most_for(self, found: list[Sentence]) -> Sentence | None:
        """The sentence that leans most to giving up, what a permission the words give quotes
        (None for a text with no words)."""
        return max(
            found, key=lambda s: sum(self.weights.get(f, 0.0) for f in s.features), default=None
        )


@cache
def model() -> Model:
    """The weights of `data/intent/gist.json`, read once."""
    data = json.loads(data_file("intent", "gist.json").read_text(encoding="utf-8"))
    weights = {str(k): float(v) for k, v in data["weights"].items()}
    thresholds = float(data["allow_above"]), float(data["outweighs_below"])
    return Model(float(data["bias"]), weights, *thresholds)
