"""How the mock reads a prompt for permission to give up: a small reader of intent, by rules.

    >>> intent = read_intent("If a few searches come back empty, say you couldn't find it.")
    >>> intent.allowed, intent.quote, intent.condition.text
    (True, "say you couldn't find it", 'If a few searches come back empty')

The words are data (`data/intent/en.toml`, `pt.toml`: what counts as giving up, a permission, a
negation, a condition ...); this module is the grammar a model applies to them, clause by clause:

- **Is it about giving up?** Giving up or stopping, saying the star is not there, searching on,
  having to find it; or a judgement of one of those ("giving up is fine", "an empty result is a
  valid outcome"); or a hint that the star may not be there.
- **Who is addressed, and is it an instruction?** "You may give up" and "Give up" are; "Some
  models give up too early" (someone else), "Last time you gave up" (the past) and "Why would you
  give up?" (a question) are not. A question that sets a condition is: "No star? Say so."
- **Is it negated?** Each negation before the verb flips it once; so do words that judge against
  ("forbidden", "hesitate"): "don't hesitate to say so" allows, "you may not stop" refuses.
  Portuguese negations agree instead ("não desista nunca" refuses once).
- **On what condition?** "If a few searches come back empty", "after 2 empty searches", "once
  every area is searched" come true in a run; "when you find it", "only if I tell you to" do not.
  "Don't stop until you have searched every area" allows after that; "until you find it" refuses.

The last instruction that decides wins, as a model follows the latest one: "Never give up.
Actually, if every area is empty, you may say so." allows. A hint ("the star may not be here"),
an order to find the star, or a plain order to keep searching decides only when no other
instruction does.

The grammar lives in three modules: `clauses` (sentences, clauses, conditions), `meaning` (what
one clause means), `reading` (a whole text, and what later words do to earlier ones); the words
in `lexicon`, read from the data files; the text's tokens and windows in `words`. This module
decides among the readings and says, for the personas and the lesson, what was read.

Rules, not a language model: deterministic, linear in the text, and it reads at most the first
and last few KB of a text (`words.window`). Measured on phrasings written by people who never
saw it: `python -m whentostop.mock.corpus`, and section 9 of `make bench`.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from itertools import takewhile

from ..i18n import N_
from . import gist
from .lexicon import Lexicon, lexicon, text_units
from .meaning import Condition, Stance, quoted
from .reading import read_text
from .words import fold, window

# ---- what the reader returns --------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One clause about giving up, and what the reader took it to mean."""

    stance: Stance
    quote: str
    """The clause's exact words in the prompt."""
    why: str
    """A key of WHY: what kind of clause it is."""
    condition: Condition | None = None
    strong: bool = True
    """False for a hint, an order to find the star or a plain "keep searching": any other
    instruction outweighs it."""


@dataclass(frozen=True)
class Intent:
    """What the conversation says about giving up, in which words, on which condition."""

    allowed: bool
    """Whether the model may stop and say it could not find the star."""
    quote: str
    """The words taken as permission, or as a refusal; "" when nothing decided."""
    condition: Condition | None
    """When to give up (with `allowed`); None means once every area came back without the star."""
    language: str
    """The conversation's language, "en" or "pt": the one the persona answers in."""
    why: str = ""
    """The deciding clause's kind, a key of WHY ("permission", "refusal", ...); "" if none."""
    readings: tuple[Reading, ...] = ()
    """Every clause read as being about giving up, in order, deciding or not."""

    @property
    def refused(self) -> bool:
        """Whether the deciding words forbid giving up (rather than not mention it)."""
        return not self.allowed and bool(self.quote)

    @property
    def searches(self) -> int | None:
        """Give up after this many empty searches; None: once every area was searched."""
        return self.condition.searches if self.allowed and self.condition else None


WHY = {
    "permission": N_("permission to give up"),
    "report": N_("a request to say so when the star cannot be found"),
    "no obligation": N_("it does not have to keep searching"),
    "failure accepted": N_("not finding the star is accepted"),
    "limit": N_("permission to give up once a condition is met"),
    "absence possible": N_("a hint that the star may not be there"),
    "refusal": N_("a refusal to let it give up"),
    "keep searching": N_("an order to keep searching"),
    "must find": N_("an order to find the star, whatever it takes"),
    "description": N_("a description of what someone else does, not an instruction"),
    "past": N_("what happened before, not an instruction for now"),
    "question": N_("a question, not an instruction"),
    "success": N_("what to do once the star is found, not when it cannot be"),
    "nothing to report": N_("a request to report, but not for when the star cannot be found"),
    "gist": N_("what the prompt's words, taken together, most likely mean"),
    "outweighed": N_("a permission that the rest of the prompt speaks against"),
}
"""What each kind of clause means, for a learner: `_()` translates it where it is shown."""

# ---- the intent of a conversation ---------------------------------------------------------------


class _Reader:
    """`read_intent`, with a cache of readings bounded in bytes: every request of a conversation
    sends the same instructions again, and a shared server must not keep them all."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._cache: OrderedDict[tuple[str, str], tuple[Intent, int]] = OrderedDict()
        self._bytes = 0

    def __call__(self, system: str, prompt: str = "") -> Intent:
        """Read the conversation's instructions (the system prompt, then the user's prompt) as a
        model would, for permission to stop and say the star could not be found."""
        key = (_read_part(system or ""), _read_part(prompt or ""))
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit[0]
        intent = _read(system or "", prompt or "")
        size = sys.getsizeof(key[0]) + sys.getsizeof(key[1]) + _intent_bytes(intent)
        if size <= self.max_bytes:
            self._cache[key] = (intent, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, freed) = self._cache.popitem(last=False)
                self._bytes -= freed
        return intent

    def cache_clear(self) -> None:
        self._cache.clear()
        self._bytes = 0

    def cache_bytes(self) -> int:
        """What the cached readings hold, about, in bytes."""
        return self._bytes


CACHE_BYTES = 4 * 1024 * 1024
"""The readings kept, in bytes of the words read and their readings: many conversations' worth."""


def _read_part(text: str) -> str:
    """What is read of a text, as a key: the text, or its two windows."""
    return "\0".join(part for _, part in window(text))


def _intent_bytes(intent: Intent) -> int:
    texts = [intent.quote, *(r.quote for r in intent.readings)]
    texts += [r.condition.text for r in intent.readings if r.condition]
    return 512 + 256 * len(intent.readings) + sum(sys.getsizeof(t) for t in texts)


def texts(system: str, prompt: str) -> list[tuple[str, Lexicon]]:
    """The system prompt and the user's prompt, each with the lexicon of its language (a text
    too short to tell is read in the other's)."""
    first, second = detect_language(system), detect_language(prompt)
    return [(system, lexicon(first or second or "en")), (prompt, lexicon(second or first or "en"))]


def read_rules(system: str, prompt: str = "") -> Intent:
    """`read_intent` by the rules alone, without the words weighed as a whole (`gist`): what
    the tests of each rule and the benchmarks' side-by-side measure read."""
    return _read(system or "", prompt or "", second_opinion=False)


def _read(system: str, prompt: str, *, second_opinion: bool = True) -> Intent:
    read = [(text, lex, text_units(text, lex)) for text, lex in texts(system, prompt)]
    said = [s for text, _, parts in read for s in gist.of(text, parts)] if second_opinion else []
    readings = [
        Reading(f.stance, quoted(text, f.start, f.end), f.why, f.condition, f.strong)
        for text, lex, parts in read
        for f in read_text(text, lex, parts)
    ]
    deciding = [r for r in readings if r.stance != "none"]
    instructions = [r for r in deciding if r.strong]
    orders = [r for r in deciding if r.why != "absence possible"]
    decisive = (instructions or orders or deciding)[-1] if deciding else None
    if second_opinion:
        decisive = _weighed(said, decisive, readings)
    language = read[1][1].language  # the prompt's, else the system prompt's (`texts`)
    if decisive is None:
        return Intent(False, "", None, language, "", tuple(readings))
    allowed = decisive.stance == "allow"
    condition = _counted(readings, decisive) if allowed else None
    return Intent(allowed, decisive.quote, condition, language, decisive.why, tuple(readings))


def _weighed(
    said: list[gist.Sentence], decisive: Reading | None, readings: list[Reading]
) -> Reading | None:
    """The words as a whole (`gist`), where the rules decided nothing or allowed: a text that
    leans far enough to giving up allows, quoting the sentence that leans most; a permission in
    a text that leans far enough the other way is outweighed, unless it counts its searches (the
    gist reads no numbers) or overrides a refusal the rules read before it (the gist reads no
    order). Either is added to `readings`."""
    if decisive is not None and decisive.stance != "allow":
        return decisive
    model = gist.model()
    if decisive is None:
        best = model.most_for(said)
        if best is None or model.allow(said) <= model.allow_above:
            return None
        weighed = Reading("allow", quoted(best.text, best.start, best.end), "gist", None, True)
    elif model.allow(said) < model.outweighs_below and not (
        _counts(readings, decisive) or _after_a_refusal(readings, decisive)
    ):
        weighed = Reading("forbid", decisive.quote, "outweighed", None, True)
    else:
        return decisive
    readings.append(weighed)
    return weighed


def _after_a_refusal(readings: list[Reading], decisive: Reading) -> bool:
    """ "Never give up. EDIT: scratch that, you may stop if it's not there": the words against
    giving up are the refusal's, which the rules read and the permission after it overrides."""
    return any(r.stance == "forbid" for r in readings[: readings.index(decisive)])


def _counts(readings: list[Reading], decisive: Reading) -> bool:
    condition = _counted(readings, decisive)
    return condition is not None and condition.searches is not None


def _counted(readings: list[Reading], decisive: Reading) -> Condition | None:
    """The decisive permission's condition; when it names no number of searches, the number of
    the permission before it ("Budget: 5 searches. Out of budget and no star, say so."; "after
    3 empty searches, stop. On stopping, report it."), unless a refusal came in between."""
    condition = decisive.condition
    if condition is not None and condition.searches is not None:
        return condition
    at = readings.index(decisive)
    for reading in takewhile(lambda r: r.stance != "forbid", reversed(readings[:at])):
        counted = reading.condition
        if counted is None or counted.searches is None:
            continue
        if reading.stance == "allow" or counted.searches == 0:
            return Condition(condition.text if condition else counted.text, counted.searches)
    # "Just say you couldn't find it. Don't search."
    for reading in takewhile(lambda r: r.stance != "forbid", readings[at + 1 :]):
        if reading.condition is not None and reading.condition.searches == 0:
            return reading.condition
    return condition


read_intent = _Reader(CACHE_BYTES)


# ---- the language -------------------------------------------------------------------------

_ACCENTS = "ãõçáéíóúâêô"
_PUNCTUATION = ".,;:!?\"'()[]{}*#-—–…"


def detect_language(text: str) -> str | None:
    """ "pt" or "en" for a text clearly in one of them; None when it cannot tell (empty, or a
    name or two). Accents and each language's common words count twice; a word only one
    lexicon knows, once."""
    (portuguese, only_pt), (english, only_en) = _words("pt"), _words("en")
    pt = en = 0
    for _, part in window(text or ""):
        pt += 2 * sum(map(part.lower().count, _ACCENTS))
        for word in fold(part).split():
            word = word.strip(_PUNCTUATION)
            pt += 2 * (word in portuguese) + (word in only_pt)
            en += 2 * (word in english) + (word in only_en)
    if pt == en:
        return None
    return "pt" if pt > en else "en"


@cache
def _words(language: str) -> tuple[frozenset[str], frozenset[str]]:
    """A language's common words, and the words its lexicon knows that the other's does not."""
    other = lexicon("en" if language == "pt" else "pt").vocabulary
    return lexicon(language).language_words, lexicon(language).vocabulary - other


__all__ = [
    "WHY",
    "Condition",
    "Intent",
    "Reading",
    "detect_language",
    "fold",
    "read_intent",
    "read_rules",
]
