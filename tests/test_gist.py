"""The reader of intent's second opinion (`whentostop.mock.gist`, issue 25): its weights are data
trained on the development corpora alone, stay in step with them, and decide only where the
rules decide nothing or allow; what it decides is quoted from the prompt's own words."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import ROOT

from whentostop.mock import gist, intent

sys.path.insert(0, str(ROOT / "tools"))
import intent_model  # tools/intent_model.py: the trainer


def test_the_weights_are_trained_on_the_corpora_and_lexicons_as_they_are() -> None:
    assert intent_model.stale() == [], "a corpus or lexicon changed: run `make intent-model`"


def test_the_weights_never_learn_from_the_held_out_or_ambiguous_files() -> None:
    trained_on = json.loads(intent_model.OUT.read_text(encoding="utf-8"))["trained_on"]
    assert "dev.jsonl" in trained_on and "en.toml" in trained_on
    assert not [n for n in trained_on if n.startswith("heldout") or "ambiguous" in n]


def test_training_again_gives_the_same_weights_byte_for_byte() -> None:
    """Fixed order, fixed seed, rounded weights: any machine retrains the committed file."""
    assert intent_model.model_json() == intent_model.OUT.read_text(encoding="utf-8")


@pytest.fixture
def weights(monkeypatch: pytest.MonkeyPatch):
    """`weights(bias, {feature: weight})` makes the reader weigh words with these."""

    def use(bias: float, table: dict[str, float]) -> None:
        model = gist.Model(bias, table, allow_above=0.8, outweighs_below=0.2)
        monkeypatch.setattr(gist, "model", lambda: model)

    return use


def test_where_the_rules_read_nothing_words_that_lean_to_giving_up_allow_quoting_them(
    weights,
) -> None:
    text = "The sky is blue today. Potato season is here."
    assert intent.read_rules(text).quote == ""
    weights(-6.0, {"w:potato": 12.0})
    read = intent._read(text, "")
    assert read.allowed and read.why == "gist"
    assert read.quote == "Potato season is here" and read.quote in text
    assert read.condition is None  # after every area, as the searcher gives up on a hint


def test_words_that_lean_only_a_little_leave_the_rules_reading_alone(weights) -> None:
    weights(-6.0, {"w:potato": 6.5})  # 62 %: below the 80 % it takes
    assert not intent._read("Potato season is here.", "").allowed


def test_a_permission_in_words_that_lean_far_against_it_is_outweighed(weights) -> None:
    permission = "If you can't find it, say so."
    weights(-9.0, {})
    read = intent._read(permission, "")
    assert not read.allowed and read.refused and read.why == "outweighed"
    assert read.quote == intent.read_rules(permission).quote
    assert intent.WHY["outweighed"] and intent.WHY["gist"]


def test_a_permission_that_counts_its_searches_is_never_outweighed(weights) -> None:
    """The second opinion reads no numbers: a count the rules read is theirs to keep."""
    weights(-9.0, {})
    read = intent._read("Give up after 2 empty searches.", "")
    assert read.allowed and read.searches == 2


def test_a_refusal_is_never_overturned_by_the_words(weights) -> None:
    weights(9.0, {})
    assert intent._read("Never give up.", "").refused
    assert intent._read("Never give up.", "").why == "refusal"


def test_the_features_are_the_lexicons_units_so_both_languages_share_what_words_do() -> None:
    english = gist.features(intent.texts("You may give up.", ""))
    portuguese = gist.features(intent.texts("Você pode desistir.", ""))
    shared = {f for f in english & portuguese if f.startswith("t:")}
    assert {"t:permission", "t:give_up"} <= shared
