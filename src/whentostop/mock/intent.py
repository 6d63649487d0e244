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

Rules, not a language model: deterministic, linear in the text, and it reads at most the first
and last few KB of a text (`words.window`). Measured on phrasings written by people who never
saw it: `python -m whentostop.mock.corpus`, and section 9 of `make bench`.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from ..i18n import N_
from .lexicon import Lexicon, Unit, lexicon, units
from .words import fold, scan, window

Stance = Literal["allow", "forbid", "none"]

# ---- 1. what the reader returns --------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """When the permission applies, in the prompt's own words."""

    text: str
    """The exact words ("If a few searches come back empty", "after 2 empty searches")."""
    searches: int | None = None
    """Give up after this many empty searches; None: once every area came back without the star."""


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
}
"""What each kind of clause means, for a learner: `_()` translates it where it is shown."""

# ---- 2. clauses ------------------------------------------------------------------------------

ACTIONS = ("give_up", "keep_searching", "stop", "report", "find", "search")
"""The verbs about giving up, by priority when a phrase is several."""
_WHEN = ("if", "if_first", "when", "after")
_LIMITS = ("until", "before", "without", "unless")
_MARKERS = (*_WHEN, *_LIMITS, "even_if", "proviso", "then", "otherwise", "cancel")
_LINKS = ("and", "or", "but", "correction")
_JUDGEMENT = ("permission", "against", "obligation")
_REACHABLE = ("count", "everywhere", "failure", "some", "needed")
"""Kinds of condition a run of empty searches meets."""
_HINT_WORDS = frozenset(
    "be exist is are here there in this that the a an level star one at all anywhere fase "
    "nesta neste nessa nesse aqui la estrela estar existir haver ter tenha exista esteja".split()
)
"""What may follow "may not" in a hint that the star may not be there ("may not be here")."""
_HINT_ANCHORS = frozenset("here there level star exist fase aqui la estrela existir".split())
"""Words that make it a hint about the star whatever follows ("may not be here, sorry")."""


@dataclass
class _Clause:
    role: str
    """"main", or what opened it: a condition ("if", "when", "after"), a limit ("until",
    "before", "without", "unless"), "even_if", "then", "otherwise" or "cancel"."""
    link: str
    """How it joins the clause before: "start", "punct", "colon", "and", "or", "but", "correction"."""
    units: list[Unit]
    opener: int
    """Where its words start, with the word that opened it ("if nothing turns up")."""
    question: bool = False
    conds: list[_Clause] = field(default_factory=list)
    negated: int = 0
    """Negations carried from a bare "Never," before it."""

    @property
    def start(self) -> int:
        return self.units[0].start if self.units else self.opener

    @property
    def end(self) -> int:
        return self.units[-1].end if self.units else self.opener

    @property
    def conditional(self) -> bool:
        return self.role not in ("main", "then", "otherwise", "cancel")

    def action(self) -> int | None:
        """Where its verb about giving up is, if it has one (not in a quotation). A word that
        stops only at a clause's start ("para") counts only there."""
        for i, unit in enumerate(self.units):
            if unit.quoted or not _kind(unit):
                continue
            if _after_determiner(self.units, i):
                continue  # "the search can be ended": a noun, not an order
            if _kind(unit) == "stop" and "stop" not in unit.tags:
                if any(not u.has("negation", "you", "only", "and", "then") for u in self.units[:i]):
                    continue
            return i
        return None


def _after_determiner(words: list[Unit], i: int) -> bool:
    unit = words[i]
    if i > 0 and words[i - 1].has("number") and unit.has("unit"):
        return True  # "1 busca vazia basta": a count of searches
    if i == 0 or not words[i - 1].has("determiner") or _kind(unit) == "report":
        return False
    return not unit.verbal  # "obrigado a continuar": a verb after "a"


def _kind(unit: Unit) -> str:
    if "stop_when_first" in unit.tags and not unit.has(*ACTIONS):
        return "stop"
    return next((a for a in ACTIONS if a in unit.tags), "")


_MAX_SENTENCE_UNITS = 160
"""A longer run without a full stop is read in pieces of this many words and marks: no one
writes a sentence that long to a model, and the rules then cost a bounded amount per piece."""


def _sentences(all_units: list[Unit]) -> list[tuple[list[Unit], str]]:
    """The units of each sentence (marks inside kept), and how it ends: "." (a statement or an
    instruction), "?" (a question) or "h" (a line that heads the lines under it)."""
    out: list[tuple[list[Unit], str]] = []
    current: list[Unit] = []
    for unit in all_units:
        if len(current) >= _MAX_SENTENCE_UNITS:
            out.append((current, "."))
            current = []
        if unit.kind in ".?h":
            if any(u.kind == "w" for u in current):
                out.append((current, unit.kind))
            current = []
        else:
            current.append(unit)
    if any(u.kind == "w" for u in current):
        out.append((current, "."))
    return out


def _under_heading(topic: list[Unit], sentence: list[Unit]) -> list[Unit]:
    """ "## When to stop / - after 3 empty searches": a line under a heading about giving up or
    saying so, with no such verb of its own, is read as the heading's words and its own."""
    if not topic or any(_kind(u) not in ("", "search", "find") for u in sentence if not u.quoted):
        return sentence
    return topic + [Unit(":", frozenset(), (), sentence[0].start, sentence[0].start), *sentence]


def _split(sentence: list[Unit], question: bool) -> list[_Clause]:
    """A sentence cut at punctuation and at the words that open a clause, each clause with the
    word that opened it; a colon that only introduces words ("reply: NOT_FOUND") does not cut;
    a word that only opens the sentence ("Okay so", "Olha:") is left out."""
    if len(sentence) > 1 and sentence[0].has("discourse"):
        follows = sentence[1]
        if follows.kind in ",:" or (len(sentence[0].words) > 1 and follows.kind == "w"):
            sentence = sentence[1:]
    clauses: list[_Clause] = []
    current = _Clause("main", "start", [], sentence[0].start)
    colons = _colons_that_cut(sentence)
    for i, unit in enumerate(sentence):
        opens = _opens(unit, sentence, i, current)
        if unit.kind in ",:" and (unit.kind == "," or i in colons):
            if not current.units and current.role != "main":
                continue  # "otherwise, say so": the comma does not end "otherwise"
            clauses.append(current)
            link = "colon" if unit.kind == ":" else "punct"
            if not current.units and current.link in ("correction", "but"):
                link = current.link  # "Actually, if ...": the correction stands
            current = _Clause("main", link, [], unit.end)
        elif unit.kind == "w" and opens:
            clauses.append(current)
            role, link = opens
            if not current.units and current.link != "start":
                link = current.link  # ", if" and ", and if": the break before stands
            current = _Clause(role, link, [], unit.start)
            if role == "cancel":
                current.units.append(unit)
        elif unit.kind == "w":
            current.units.append(unit)
    clauses.append(current)
    kept = [c for c in clauses if c.units]
    if question:
        last_break = max((i for i, c in enumerate(kept) if c.link in ("punct", "colon")), default=0)
        for c in kept[last_break:]:
            c.question = True
    return _enumerations(kept)


def _enumerations(clauses: list[_Clause]) -> list[_Clause]:
    """ "after checking overworld, underground, sky and castle": the items of a list stay in the
    clause that lists them; a condition that lists three places or more names every area."""
    out: list[_Clause] = []
    items = 0
    for clause in clauses:
        item = (
            clause.role == "main"
            and not clause.question  # "avisa, visse?": a tag, not an item
            and clause.link in ("punct", "and", "or")
            and len(clause.units) <= 2
            and all(not (u.tags - {"determiner"}) for u in clause.units)
        )
        if item and out:
            out[-1].units.extend(clause.units)
            items += 1
            if items == 2 and out[-1].conditional:
                end = clause.units[-1].end
                out[-1].units.append(Unit("w", frozenset({"everywhere"}), ("*",), end, end))
            continue
        out.append(clause)
        items = 0
    return out


def _colons_that_cut(sentence: list[Unit]) -> set[int]:
    """A colon cuts only when what follows it has a verb about giving up of its own."""
    cut: set[int] = set()
    colon: int | None = None
    for i, unit in enumerate(sentence):
        if unit.kind == ":":
            colon = i
        elif colon is not None and unit.has(
            "give_up", "stop", "report", "keep_searching", "stop_when_first"
        ):
            if not unit.quoted:
                cut.add(colon)
    return cut


def _opens(unit: Unit, sentence: list[Unit], i: int, current: _Clause) -> tuple[str, str] | None:
    """(role, link) when `unit` opens a clause."""
    followed = i + 1 < len(sentence) and sentence[i + 1].kind == "w"
    for role in _MARKERS:
        if role in unit.tags and not unit.quoted:
            if role == "then" and i == 0 and not followed:
                return "main", "correction"  # "Quer dizer, ...": I mean
            if role in _WHEN + _LIMITS and not followed:
                return None  # "try once." is a number, not "once ..."
            if role in _LIMITS and current.role in _WHEN and not current.units:
                return None  # "se até a terceira busca ...": "by the third", inside the condition
            if role == "if_first" and current.units:
                return None  # "you should say so" is not "should you fail"
            return ("if" if role == "if_first" else role), "start"
    for link in _LINKS:
        if link in unit.tags and not unit.quoted and followed:
            return "main", link
    return None


def _join_conditions(clauses: list[_Clause]) -> list[_Clause]:
    """ "if you searched every area and found nothing": an "and" after a condition continues it,
    unless what follows is an instruction of its own; "if nothing turns up say so": a condition
    written without a comma ends where its instruction starts."""
    joined: list[_Clause] = []
    for clause in clauses:
        last = joined[-1] if joined else None
        if (
            last is not None
            and last.conditional
            and clause.role == "main"
            and clause.link in ("and", "or")
            and not _starts_instruction(clause.units, 0)
        ):
            if clause.link == "or":  # keep the sides apart: "until you find it or ..."
                last.units.append(
                    Unit("w", frozenset({"or"}), ("or",), clause.opener, clause.opener)
                )
            last.units.extend(clause.units)
            continue
        joined.append(clause)
    return [part for clause in joined for part in _split_condition(clause)]


def _split_condition(clause: _Clause) -> list[_Clause]:
    if not clause.conditional or len(clause.units) < 2:
        return [clause]
    for i in range(1, len(clause.units)):
        noun_phrase = clause.role == "after" and _kind(clause.units[i]) not in (
            "",
            "search",
            "find",
        )
        if noun_phrase or _starts_instruction(clause.units, i):
            head = _Clause(clause.role, clause.link, clause.units[:i], clause.opener)
            main = _Clause("main", "punct", clause.units[i:], clause.units[i].start)
            return [head, main]
    return [clause]


_AUX = frozenset(
    "to can could will would should do does did have has had be been keep keeps still ever "
    "not never you they we i searches search nothing everything".split()
)


def _starts_instruction(words: list[Unit], i: int) -> bool:
    """Whether an instruction starts at words[i]: a verb about giving up not led by a subject or
    an auxiliary ("say so" in "if it fails say so", not "keep" in "if searches keep failing"),
    "just", "please", "you may", or a judgement ("that's fine", "tudo bem")."""
    unit = words[i]
    before = words[i - 1] if i > 0 else None
    led = before is not None and (
        before.has("you", "speaker", "others", "self", "unit")
        or (before.words and before.words[-1] in _AUX)
    )
    if unit.has("give_up", "stop", "report", "keep_searching", "stop_when_first"):
        return not led
    if unit.has("interjection"):
        return i > 0 and not led
    if unit.words and unit.words[0] in ("just", "please", "simply", "so", "then", "apenas"):
        return i > 0 and i + 1 < len(words) and bool(_kind(words[i + 1]))
    if unit.has("you") and i + 1 < len(words):
        return words[i + 1].has("permission", "obligation")
    return False


def _bare_conditions(clauses: list[_Clause]) -> None:
    """ "Não achou, fala que não achou", "two empty searches and you stop": a clause that only
    says the star was not found, before an instruction, is that instruction's condition."""
    for i, clause in enumerate(clauses[:-1]):
        following = clauses[i + 1]
        a = clause.action()
        if (
            clause.role == "main"
            and (a is None or _kind(clause.units[a]) in ("search", "find"))
            and _bare_negation(clause) is None
            and not any(u.has(*_JUDGEMENT) for u in clause.units)
            and following.role in ("main", "then")
            and following.action() is not None
            and any(u.has("failure", "everywhere", "number", "whether") for u in clause.units)
            and _condition_kind(clause.units)[0] in ("failure", "everywhere", "count")
        ):
            clause.role = "if"


def _attach(clauses: list[_Clause]) -> None:
    """Each condition goes to the clause it governs: forward when it opens the sentence or follows
    a break ("If X, say so"; "..., and if X, say so"), backward when it trails ("say so if X").
    A condition that opens a sentence holds for each instruction after it, until another."""
    mains = [c for c in clauses if not c.conditional]
    befores: list[_Clause | None] = []
    last: _Clause | None = None
    for clause in clauses:  # the nearest instruction before and after each clause, in two passes
        befores.append(last)
        last = last if clause.conditional else clause
    afters: list[_Clause | None] = []
    last = None
    for clause in reversed(clauses):
        afters.append(last)
        last = last if clause.conditional else clause
    afters.reverse()
    for i, clause in enumerate(clauses):
        if not clause.conditional:
            continue
        before, after = befores[i], afters[i]
        says = before is not None and (before.action() is not None or _has_judgement(before.units))
        forward = after is not None and (not says or clause.link != "start" or _chained(clauses, i))
        target = after if forward else before
        if target is not None:
            target.conds.append(clause)
    leading: list[_Clause] = []
    for clause in mains:
        ahead = [c for c in clause.conds if c.start < clause.start]
        if ahead:
            leading = ahead
        elif clause.role == "main" and clause.link in ("and", "punct") and not clause.conds:
            clause.conds = list(leading)


def _chained(clauses: list[_Clause], i: int) -> bool:
    """ "If X, after Y, do Z": a condition right after another that opened forward goes forward."""
    return (
        i > 0
        and clauses[i - 1].conditional
        and clauses[i - 1].link != "start"
        or (i > 0 and clauses[i - 1].conditional and i == 1)
    )


# ---- 3. what a condition is about ------------------------------------------------------------


def _condition_kind(words: list[Unit]) -> tuple[str, int | None]:
    """What a condition (or a clause used as one) is about, and the number of searches it names:
    "never" (comes true in no run: "if I tell you to"), "count" ("after 3 searches"),
    "everywhere", "failure", "some" ("after a few searches"), "needed" ("if needed"),
    "giving up" ("if you give up"), "success" ("when you find it"), or "other"."""
    count = _count(words)
    tags = set().union(*(u.tags for u in words)) if words else set()
    negations = sum(1 for u in words if "negation" in u.tags and "failure" not in u.tags)
    if "never_happens" in tags or (words and words[0].has("speaker")):
        return "never", None
    clean = not (tags & {"failure", "whether"}) and negations % 2 == 0
    if clean and ("find" in tags or "appear" in tags):
        return "success", None  # "until every block is open and the star is in your hands"
    if count is not None:
        return "count", count
    if "everywhere" in tags:
        return "everywhere", None
    if "failure" in tags or "whether" in tags or negations % 2:
        return "failure", None
    if "unit" in tags and "few" in tags:
        return "some", None
    if "if_needed" in tags:
        return "needed", None
    if "stop" in tags and "give_up" not in tags and not _subject_stops(words):
        return "everywhere", None  # "when you're done", "quando terminar as buscas"
    if "give_up" in tags:
        return "giving up", None
    if "find" in tags or "appear" in tags:
        return "success", None
    return "other", None


def _subject_stops(words: list[Unit]) -> bool:
    """ "until the game ends": something else stops, not the search."""
    for unit in words:
        if unit.has("determiner"):
            return True
        if unit.has("stop"):
            return False
    return False


def _count(words: list[Unit]) -> int | None:
    """The number of searches named: "3 empty searches", "two tries", "twice", "by the third"."""
    found: list[int] = []
    for i, unit in enumerate(words):
        if unit.number is None or unit.quoted:
            continue
        near = words[i : i + 4]
        if "unit" in unit.tags or any("unit" in u.tags for u in near[1:]) or i == len(words) - 1:
            found.append(unit.number)
    return max(found) if found else None


@dataclass(frozen=True)
class _When:
    """The conditions on one instruction, summed up."""

    kind: str | None
    """The most telling kind among them (a reachable one first); None without conditions."""
    count: int | None
    clauses: tuple[_Clause, ...]

    @property
    def reachable(self) -> bool:
        return self.kind in _REACHABLE


_NO_CONDITION = _When(None, None, ())


def _when(clauses: list[_Clause], invert_unless: bool = True) -> _When:
    """Several conditions on one instruction: it holds when any of them can come true."""
    if not clauses:
        return _NO_CONDITION
    kinds = []
    for c in clauses:
        for alternative in _alternatives(c.units):
            kind, count = _condition_kind(alternative)
            if c.role == "unless" and invert_unless:
                kind = {"success": "failure", "failure": "success"}.get(kind, kind)
            kinds.append((kind, count))
    reachable = [k for k in kinds if k[0] in _REACHABLE]
    order = ["count", "everywhere", "failure", "some", "needed", "giving up"]
    if reachable:
        kind, count = min(reachable, key=lambda k: order.index(k[0]))
        count = next((c for k, c in reachable if c is not None), count)
    else:
        kind, count = next((k for k in kinds if k[0] in ("never", "success")), kinds[0])
    return _When(kind, count, tuple(clauses))


def _alternatives(words: list[Unit]) -> list[list[Unit]]:
    """ "until you find it or every area is empty": each side of an "or" on its own."""
    parts: list[list[Unit]] = [[]]
    for unit in words:
        if "or" in unit.tags and parts[-1]:
            parts.append([])
        else:
            parts[-1].append(unit)
    return [p for p in parts if p]


# ---- 4. how an instruction is said -----------------------------------------------------------


@dataclass(frozen=True)
class _Modality:
    stance: str
    """"permit" (may, fine, not forbidden), "forbid" (don't, may not, forbidden), "order" (must),
    "noneed" (don't have to), or "plain" (an imperative or a statement)."""
    judged: bool
    """Whether a word judges it ("don't worry about", "not a problem"), not only a modal."""
    subject: str
    """The last subject before the verb: "you", "speaker", "others", or "" (an imperative)."""
    modal: bool
    past: bool


def _modality(head: list[Unit], lex: Lexicon, carried: int = 0) -> _Modality:
    """How the words before a verb (or a judgement's words) say it: each negation and each word
    against it flips it once (Portuguese negations in one clause agree: they flip once)."""
    negations, against, permit, oblige, past = carried, 0, False, False, False
    concord_open = lex.concord and carried > 0
    subject = ""
    if len(head) > 1 and head[0].words == ("no",) and head[1].words[0] in ("you", "i", "we"):
        head = head[1:]  # "No you can't": an answer, then the instruction
    for unit in head:
        if unit.quoted:
            continue
        if "negation" in unit.tags:
            if not (lex.concord and concord_open):
                negations += 1
            concord_open = lex.concord
        if unit.words == ("que",):
            concord_open = False
        against += "against" in unit.tags
        permit = permit or ("permission" in unit.tags)
        oblige = oblige or ("obligation" in unit.tags)
        past = past or ("past" in unit.tags)
        for who in ("you", "speaker", "others", "self"):
            if who in unit.tags:
                subject = who
    flips = negations + against
    if permit or against:
        stance = "forbid" if flips % 2 else "permit"
    elif oblige:
        stance = "noneed" if flips % 2 else "order"
    else:
        stance = "forbid" if flips % 2 else "plain"
    return _Modality(stance, against > 0, subject, permit or oblige or against > 0, past)


# ---- 5. reading one clause -------------------------------------------------------------------


@dataclass
class _Found:
    """A reading before it is quoted: its span in the text."""

    stance: Stance
    why: str
    start: int
    end: int
    condition: Condition | None = None
    strong: bool = True
    action: str = ""


@dataclass
class _Context:
    """What a clause is read with: its text and lexicon, its sentence, and the clause before."""

    text: str
    lex: Lexicon
    clauses: list[_Clause]
    previous: list[_Clause]
    """The clauses of the sentence before (for "then" and "only then")."""
    forever: bool
    """Whether the sentence insists: "forever", "no matter what", "custe o que custar"."""


_RELEVANT = frozenset(
    [
        *ACTIONS,
        *_JUDGEMENT,
        "stop_when_first",
        "failure",
        "whether",
        "maybe",
        "doubt",
        "budget",
        "negation",
        "modal",
        "everywhere",
        "interjection",
    ]
)
"""A clause with none of these says nothing about giving up: it is not read further."""


def _read_clause(clause: _Clause, i: int, ctx: _Context) -> _Found | None:
    if clause.role == "cancel" or not any(u.tags & _RELEVANT for u in clause.units):
        return None
    a = clause.action()
    if a is None and clause.question:
        return None  # "..., okay?": a tag, or a question that says nothing about giving up
    before = _before_giving_up(clause, a, ctx) or _elliptical(clause, i, ctx)
    if before is not None:
        return before
    topic = (
        a is not None
        and not clause.question
        and (_judged_topic(clause, a, ctx.lex) or _is_topic(clause, a, ctx.lex))
    )
    found = _read_judged(clause, i, a, ctx) if a is None or topic else None
    if found is None and a is not None and not (topic and _is_topic(clause, a, ctx.lex)):
        found = _read_action(clause, i, a, ctx)
    if found is None or (found.stance == "none" and found.why == "nothing to report"):
        found = _read_statement(clause, i, ctx) or found
    return found


def _elliptical(clause: _Clause, i: int, ctx: _Context) -> _Found | None:
    """ "The other agents may stop; you may not.": a modal with its verb left out takes the verb
    of the clause before it."""
    if clause.action() is not None or not any(
        u.has("modal", "permission", "obligation") for u in clause.units
    ):
        return None
    if not all(
        u.has("you", "modal", "negation", "permission", "obligation", "copula")
        or u.words[0] in _FILLERS | _DEMONSTRATIVES
        for u in clause.units
    ):
        return None
    earlier = _recent(ctx.clauses, i, lambda c: not c.conditional and c.action() is not None)
    if earlier is None:
        return None
    verb = earlier.units[earlier.action() or 0]
    m = _modality(clause.units, ctx.lex, clause.negated)
    if _kind(verb) in ("find", "keep_searching"):  # "finding it would be nice, but not necessary"
        return _decide_search_like(_kind(verb), m, _NO_CONDITION, _NO_CONDITION, False, clause, ctx)
    if _kind(verb) not in ("give_up", "stop"):
        return None
    if m.stance == "forbid":
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx)
    if m.stance in ("permit", "order"):
        return _found(clause, "allow", "permission", _when(clause.conds), ctx)
    return None


def _before_giving_up(clause: _Clause, a: int | None, ctx: _Context) -> _Found | None:
    """ "Search every area before you give up": giving up is allowed once this clause is done
    (unless the clause itself refuses: "never give up before ..." is read with its verb)."""
    if not any(
        c.role == "before" and any(u.has("give_up", "stop", "report") for u in c.units)
        for c in clause.conds
    ):
        return None
    head = clause.units[:a] if a is not None else clause.units
    if a is not None and _kind(clause.units[a]) in ("give_up", "stop", "report"):
        return None
    if _modality(head, ctx.lex, clause.negated).stance in ("forbid", "noneed"):
        return None
    kind, count = _condition_kind(clause.units)
    if kind == "success":  # "you need to find the star before you stop": only with it
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx)
    quote = _quote(ctx.text, clause.start, clause.end)
    end = max([clause.end] + [c.end for c in clause.conds])
    return _Found("allow", "limit", clause.start, end, Condition(quote, count), True, "")


def _judged_topic(clause: _Clause, a: int, lex: Lexicon) -> bool:
    """ "Giving up is fine", "desistir não é permitido": the verb is the subject of a judgement."""
    if any(u.tags - {"determiner"} for u in clause.units[:a] if not u.quoted):
        return False  # "you are not prohibited from reporting ...": a head, not a subject
    if _copula_next(clause.units, a):
        return True  # "quit is not in your vocabulary"
    copula = _last_copula(clause.units)
    if copula is None:
        return a == 0 and _noun_form(clause.units[0], lex) and _has_judgement(clause.units[1:])
    return a < copula and (
        _has_judgement(clause.units[copula:]) or _noun_form(clause.units[a], lex)
    )


def _is_topic(clause: _Clause, a: int, lex: Lexicon) -> bool:
    """ "Giving up is never the answer", "stopping early means failure": a verb as a noun before
    "is", or (in English) opening its clause, is a subject, never an imperative."""
    if any(u.tags - {"determiner"} for u in clause.units[:a] if not u.quoted):
        return False
    copula = _last_copula(clause.units)
    noun = _noun_form(clause.units[a], lex) and not _kind_is(clause.units[a], "failure")
    first = a == 0 and noun and lex.noun_first_is_subject
    return (copula is not None and a < copula and noun) or first or _copula_next(clause.units, a)


def _kind_is(unit: Unit, tag: str) -> bool:
    return tag in unit.tags and not _kind(unit)


def _copula_next(words: list[Unit], a: int) -> bool:
    """Whether "is" (or "is not") follows the verb: then the verb is a subject."""
    rest = [u for u in words[a + 1 : a + 3] if not u.has("negation")]
    return bool(rest) and rest[0].has("copula") and not _kind(words[a]) == "report"


def _last_copula(words: list[Unit]) -> int | None:
    return next(
        (
            i
            for i in range(len(words) - 1, 0, -1)
            if "copula" in words[i].tags and not words[i].quoted
        ),
        None,
    )


def _noun_form(unit: Unit, lex: Lexicon) -> bool:
    return unit.verbal or "failure" in unit.tags


def _has_judgement(words: list[Unit]) -> bool:
    return any(u.has(*_JUDGEMENT) and not u.quoted for u in words)


def _predicate(words: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """(topic, predicate) around the last copula; a negation just before it belongs to the
    predicate ("not finding it | doesn't count as a failure")."""
    copula = _last_copula(words)
    if copula is None:
        return words[:1], words[1:]
    start = copula
    while start > 0 and (
        (words[start - 1].has("negation") and not words[start - 1].has("failure"))
        or words[start - 1].words[-1] in ("do", "does", "did")
    ):
        start -= 1
    predicate = words[start:]
    # right after the verb, "a failure" judges against: "doesn't count as a failure"
    near = [u for u in words[copula + 1 :] if u.tags or len(u.words[0]) > 2][:2]
    judged = [
        replace(u, tags=u.tags | {"against"}) if "failure" in u.tags and u in near else u
        for u in predicate
    ]
    return words[:start], judged


def _failure_topic(words: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """ "Not finding it | doesn't count as a failure": a judgement of failure, split at its verb."""
    copula = _last_copula(words)
    if copula is not None and any(u.has("failure") for u in words[:copula]):
        return _predicate(words)
    return [], words


def _read_judged(clause: _Clause, i: int, a: int | None, ctx: _Context) -> _Found | None:
    """A judgement: "giving up is allowed", "an empty result is a valid outcome", "if you can't
    find it, that's fine", "I won't accept 'not found'", "no need to search forever"."""
    topic, predicate = _predicate(clause.units) if a is not None else _failure_topic(clause.units)
    if any(u.has("past", "think") and not u.quoted for u in clause.units):
        return None  # "giving up was allowed before", "you may think it isn't there"
    m = _modality(
        [u for u in predicate if not u.has("failure") or u.has("negation", "against")], ctx.lex
    )
    kind = _kind(topic[a]) if a is not None and a < len(topic) else ""
    limits = _limits(clause)
    when = _when_of(clause, i, ctx)
    if kind in ("find", "keep_searching", "search"):
        return _decide_search_like(kind, m, when, limits, _insists(clause, ctx), clause, ctx)
    failure = kind in ("give_up", "stop") or any(
        u.has("failure") or (kind == "report" and u.has("whether")) for u in clause.units
    )
    if not failure and a is None and _refers_back(clause):
        antecedent = ctx.clauses[i - 1] if i > 0 else ctx.previous[-1] if ctx.previous else None
        failure = antecedent is not None and _absent(antecedent.units)
    if not (failure or when.reachable or when.kind == "giving up"):
        return None
    if when.kind in ("success", "never", "other"):
        if kind in ("give_up", "stop") and any(u.has("only") for u in clause.units):
            return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx)
        if kind in ("give_up", "stop") or not failure:
            return None  # "stopping is allowed once you have found it"
    if m.stance == "permit":
        why = (
            "permission"
            if kind in ("give_up", "stop")
            else "report"
            if kind == "report"
            else "failure accepted"
        )
        return _found(clause, "allow", why, when if when.kind else _NO_CONDITION, ctx)
    if m.stance == "forbid" and m.modal:
        if limits.reachable:
            return _found(clause, "allow", "limit", limits, ctx)
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx)
    return None


def _refers_back(clause: _Clause) -> bool:
    """ "Sometimes there's no star, and that's fine": "that" judges the clause before."""
    return bool(clause.units) and clause.units[0].words[0] in _DEMONSTRATIVES


_DEMONSTRATIVES = frozenset("that this it thats isso isto tudo ok okay which o que".split())


def _read_action(clause: _Clause, i: int, a: int, ctx: _Context) -> _Found | None:
    """What the clause's verb about giving up means here: allow, forbid, or a mention."""
    head, verb, tail = clause.units[:a], clause.units[a], clause.units[a + 1 :]
    kind = _kind(verb)
    inherited = _inherited_head(clause, i, ctx)
    m = _modality(inherited + head, ctx.lex, clause.negated)
    lex = ctx.lex
    if m.past or (lex.word_has(verb, "past") and not m.modal):
        return _found(clause, "none", "past", _NO_CONDITION, ctx, a)
    rule = not m.subject and kind == "stop" and _condition_kind(head)[0] in _REACHABLE
    if not rule and (
        m.subject == "others"
        or (m.subject in ("speaker", "self") and not m.modal)
        or (lex.word_has(verb, "third_person") and m.subject != "you")
    ):
        return _found(clause, "none", "description", _NO_CONDITION, ctx, a)
    if clause.question and not _request(head, verb):
        return _found(clause, "none", "question", _NO_CONDITION, ctx, a)
    when = _when_of(clause, i, ctx)
    limits = _limits(clause)
    if _gives_up_without(clause):
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx, a)  # "without giving up"
    if kind in ("find", "keep_searching", "search"):
        return _decide_search_like(kind, m, when, limits, _insists(clause, ctx), clause, ctx, a)
    content = tail + [u for c in clause.conds if c.role == "even_if" for u in c.units]
    failure = any(
        u.has("failure", "whether") or (u.quoted and u.has("give_up")) for u in content + head
    ) or _negated_content(tail)
    if kind == "report":
        return _decide_report(m, when, limits, failure, tail, clause, ctx, a)
    return _decide_stop(kind, m, when, limits, failure, tail, clause, ctx, a)


def _limits(clause: _Clause, unless: bool = False) -> _When:
    """ "until every area is searched", "before you give up" (and, for a refusal, "unless you've
    searched them all"): how long a refusal or an order holds."""
    roles = _LIMITS if unless else ("until", "before", "without")
    return _when([c for c in clause.conds if c.role in roles], invert_unless=False)


def _gives_up_without(clause: _Clause) -> bool:
    return any(
        c.role == "without" and any(u.has("give_up", "stop") for u in c.units) for c in clause.conds
    )


def _request(head: list[Unit], verb: Unit) -> bool:
    """ "Can you tell me ...?", "você pode me avisar ...?": a question that asks for something
    to be said is a request ("Would you give up?" is a question)."""
    if not verb.has("report"):
        return False
    if head and head[0].has("request", "modal"):
        return True  # "can you tell me", "pode me avisar?"
    return len(head) >= 2 and head[0].has("you") and head[1].has("modal")


def _inherited_head(clause: _Clause, i: int, ctx: _Context) -> list[Unit]:
    """ "It's OK to stop and report", "never stop or give up": a verb joined by "and"/"or"
    without words of its own before it shares the head of the verb before."""
    if clause.link not in ("and", "or") or i == 0 or (clause.units and not _kind(clause.units[0])):
        return []
    previous = ctx.clauses[i - 1]
    a = previous.action()
    return previous.units[:a] if a is not None and not previous.conditional else []


def _when_of(clause: _Clause, i: int, ctx: _Context) -> _When:
    """The conditions an instruction holds on: its own, or for "then", the clause before it,
    and for "otherwise", the star not found."""
    own = [c for c in clause.conds if c.role in (*_WHEN, "unless")]
    if own:
        return _when(own)
    if clause.role == "otherwise":
        return _When("failure", None, ())
    if clause.role == "then":
        source = _recent(
            ctx.clauses,
            i,
            lambda c: (
                c.role in ("main", "if", "when", "after", "unless", "until", "before")
                and _says_something(c)
            ),
        )
        if source is None and ctx.previous:
            source = ctx.previous[-1]
        if source is not None:
            kind, count = _condition_kind(source.units)
            return _When(kind, count, (source,))
    return _NO_CONDITION


_NEAR = 6
"""How far back (or ahead) a clause looks for the one it refers to: "..., you may not"."""


def _recent(clauses: list[_Clause], i: int, wanted: Callable[[_Clause], bool]) -> _Clause | None:
    """The nearest clause before clauses[i] that is `wanted`, among the last few."""
    for j in range(i - 1, max(-1, i - 1 - _NEAR), -1):
        if wanted(clauses[j]):
            return clauses[j]
    return None


def _says_something(clause: _Clause) -> bool:
    return any(u.tags - {"only", "correction", "and", "then", "determiner"} for u in clause.units)


def _insists(clause: _Clause, ctx: _Context) -> bool:
    return ctx.forever or any(c.role == "even_if" for c in clause.conds)


def _negated_content(tail: list[Unit]) -> bool:
    """ "say that it isn't in any area": what is to be said denies the star is there."""
    negations = sum(1 for u in tail if "negation" in u.tags and not u.quoted)
    verbs = any(u.has("copula", "appear", "holds", "find", "modal") for u in tail)
    elided = bool(tail) and tail[-1].words[-1] == "not" and len(tail[-1].words) == 1
    return negations % 2 == 1 and (verbs or elided)  # "explain why you couldn't"


def _decide_stop(
    kind: str,
    m: _Modality,
    when: _When,
    limits: _When,
    failure: bool,
    tail: list[Unit],
    clause: _Clause,
    ctx: _Context,
    a: int,
) -> _Found | None:
    """give up, stop: allowed on a condition a run meets; refused, unless only until one."""
    head = clause.units[:a]
    if tail and (tail[0].has("other_activity") or _other_gerund(tail, ctx.lex)):
        return None  # "stop wasting time", "pare de enrolar": stopping something else
    if kind == "stop" and not tail and _pauses(ctx, clause):
        return None  # "stop and rethink your plan": a pause, not the end
    if m.stance == "noneed":
        return None
    if m.stance == "forbid":
        limits = _limits(clause, unless=True)
        if limits.reachable and not _insists(clause, ctx):
            return _found(clause, "allow", "limit", limits, ctx, a)
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx, a)
    if when.kind is not None and not when.reachable:
        return _unreachable(clause, when, ctx, a)
    if limits.kind == "success" and not limits.reachable:
        return None  # "stop only when you have found it"
    if _with_the_star(tail):
        return _unreachable(clause, _When("success", None, ()), ctx, a)  # "stop with the star"
    for words in (
        tail,
        head,
    ):  # "stop criteria: all 4 areas exhausted"; "1 busca vazia basta pra parar"
        if when.kind is None and _condition_kind(words)[0] in ("count", "everywhere", "failure"):
            kind_, count = _condition_kind(words)
            when = _When(kind_, count, ())
    searching = bool(tail) and tail[0].has("search", "keep_searching")
    if kind == "stop" and not (
        when.kind or m.stance in ("permit", "order") or failure or searching
    ):
        return None  # a bare "stop": of what, when?
    return _found(clause, "allow", "permission", when, ctx, a)


def _unreachable(clause: _Clause, when: _When, ctx: _Context, a: int) -> _Found | None:
    """ "Stop when you find it" says what to do on success; "stop only when you find it" and
    "give up only if I tell you to" refuse any other way out."""
    if any(u.has("only") and not u.quoted for u in clause.units):
        return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx, a)
    return (
        _found(clause, "none", "success", _NO_CONDITION, ctx, a) if when.kind == "success" else None
    )


def _pauses(ctx: _Context, clause: _Clause) -> bool:
    """Whether "stop" is followed by "and" and something to do other than saying so."""
    at = next((j for j, c in enumerate(ctx.clauses) if c is clause), None)
    if at is None or at + 1 >= len(ctx.clauses):
        return False
    following = ctx.clauses[at + 1]
    if following.link != "and" or not following.units:
        return False
    first = following.units[0]
    return not first.has("report", "give_up", "stop", "you") and (
        first.has("search", "keep_searching", "other_activity") or not first.tags
    )


def _with_the_star(tail: list[Unit]) -> bool:
    """ "Só pode parar com a estrela na mão": the star in hand is the condition."""
    return any(u.has("find") and not u.has("failure") for u in tail) and not any(
        u.has("negation", "failure") for u in tail
    )


def _other_gerund(tail: list[Unit], lex: Lexicon) -> bool:
    """ "Stop wasting time", "pare de enrolar", "stop to explain": what is stopped is something
    else, or the stop is for something else."""
    if tail[0].words in (("to",), ("pra",)) and len(tail) > 1 and not tail[1].tags:
        return True
    unit = tail[1] if tail[0].words in (("de",), ("of",)) and len(tail) > 1 else tail[0]
    if unit.has("search", "keep_searching", "failure", "find", "report"):
        return False
    return unit.surface.endswith(lex.verb_as_noun) and len(unit.surface) > 4


def _decide_report(
    m: _Modality,
    when: _When,
    limits: _When,
    failure: bool,
    tail: list[Unit],
    clause: _Clause,
    ctx: _Context,
    a: int,
) -> _Found | None:
    """say, tell, reply: allowed when what is said is that the star was not found, or on such a
    condition; refused when forbidden."""
    if m.stance == "noneed":
        return None
    if m.stance == "forbid":
        limits = _limits(clause, unless=True)
        if limits.reachable:
            return _found(clause, "allow", "limit", limits, ctx, a)
        if failure or when.kind == "failure" or limits.kind == "success":
            return _found(clause, "forbid", "refusal", _NO_CONDITION, ctx, a)
        return None
    if when.kind in ("success", "never") and clause.role != "otherwise":
        return _unreachable(clause, when, ctx, a)
    if when.kind == "other" and not failure:
        return None
    if limits.kind == "success" and not limits.reachable and not failure:
        return _found(clause, "none", "success", _NO_CONDITION, ctx, a)
    if failure or when.reachable or when.kind == "giving up":  # "tell me when you give up"
        return _found(clause, "allow", "report", when, ctx, a)
    if all(u.words[0] in ("so", "it", "that", "isso", "this", "me", "us") for u in tail):
        return _found(clause, "none", "nothing to report", _NO_CONDITION, ctx, a)
    return None


def _decide_search_like(
    kind: str,
    m: _Modality,
    when: _When,
    limits: _When,
    insists: bool,
    clause: _Clause,
    ctx: _Context,
    a: int | None = None,
) -> _Found | None:
    """find, keep searching, search: an order keeps it searching; "you don't have to" and "no
    need to keep searching" let it stop; "search until every area is done" allows after that."""
    if m.stance in ("noneed",) or (m.stance == "forbid" and kind == "keep_searching"):
        if kind == "search" and not (insists or _everywhere(clause, a)):
            return None  # "no need to search the same area twice" allows nothing
        return _found(clause, "allow", "no obligation", when, ctx, a)
    if m.stance == "forbid":
        if kind == "search" and insists:
            return _found(clause, "allow", "no obligation", when, ctx, a)
        return None
    if m.stance == "permit":
        if kind == "find" and m.judged:  # "don't worry about finding it"
            return _found(clause, "allow", "failure accepted", when, ctx, a)
        return None  # "you may keep searching" forbids nothing
    if not limits.reachable:
        limits = _limits(clause, unless=True)  # "keep searching unless every area is empty"
    if limits.reachable and not insists:
        return _found(clause, "allow", "limit", limits, ctx, a, strong=False)
    if kind == "find":
        if m.stance == "order" or insists:
            return _found(clause, "forbid", "must find", _NO_CONDITION, ctx, a, strong=insists)
        return None
    strong = insists or limits.kind == "success" or when.kind == "failure"
    if kind == "search" and not strong:
        return None
    return _found(clause, "forbid", "keep searching", _NO_CONDITION, ctx, a, strong=strong)


def _everywhere(clause: _Clause, a: int | None) -> bool:
    """ "You don't need to search every area": what need not be done is the whole search."""
    return any(u.has("everywhere", "forever") for u in clause.units[(a or 0) :])


def _read_statement(clause: _Clause, i: int, ctx: _Context) -> _Found | None:
    """A clause with no verb about giving up may still judge failure ("an honest 'no star' beats
    an endless search"), set a budget of searches ("at most 3 searches") or hint that the star
    may not be there ("the star might not be in this level")."""
    if clause.question:
        return None
    a = clause.action()
    if a is not None and _kind(clause.units[a]) not in ("search", "find"):
        return None
    judged = _read_judged(clause, i, None, ctx)
    if judged is not None and judged.stance != "none":
        return judged
    units_ = clause.units
    m = _modality(units_, ctx.lex, clause.negated)
    if (m.stance == "noneed" or (m.stance == "permit" and m.judged)) and any(
        u.has("everywhere", "find", "star") for u in units_
    ):  # "nobody demands the star", "a estrela é opcional"
        return _found(
            clause, "allow", "no obligation", _NO_CONDITION, ctx
        )  # "no need to exhaust every area"
    if any(u.has("budget") for u in units_):
        count = _count(units_)  # "at most 3 searches", "one pass through every area is enough"
        if count is not None or any(u.has("everywhere") for u in units_):
            quote = _quote(ctx.text, clause.start, clause.end)
            return _Found("allow", "limit", clause.start, clause.end, Condition(quote, count))
    maybe = any(u.has("maybe") for u in units_)
    if _hints_absence(units_) or (maybe and _recent(ctx.clauses, i, lambda c: _absent(c.units))):
        when = _when([c for c in clause.conds if c.role in _WHEN])
        return _found(clause, "allow", "absence possible", when, ctx, strong=False)
    return None


def _absent(words: list[Unit]) -> bool:
    """ "Some levels don't have a star": a statement that a star is absent (said of any level)."""
    negations = sum(1 for u in words if u.has("negation") and not u.quoted)
    verb = any(u.has("holds", "copula", "appear") for u in words)
    return any(u.has("failure") for u in words) or (negations % 2 == 1 and verb)


def _hints_absence(words: list[Unit]) -> bool:
    """ "The star might not be here", "there may be no star", "talvez não exista estrela"."""
    if any(u.has("think") for u in words):
        return False  # "you may think it isn't there": a belief, not a hint
    if any(u.has("doubt") and not u.quoted for u in words):
        return True
    maybe = next((i for i, u in enumerate(words) if u.has("maybe") and not u.quoted), None)
    if maybe is None:
        return False
    rest = words[maybe + 1 :]
    if any(u.has("failure") for u in rest):
        return True
    negation = next((i for i, u in enumerate(rest) if u.has("negation")), None)
    if negation is None:
        return False
    after = rest[negation + 1 :]  # "may not be here (thanks!)", not "may not be easy"
    if any(set(u.words) & _HINT_ANCHORS or u.has("appear", "holds", "star") for u in after):
        return True
    return all(set(u.words) <= _HINT_WORDS or u.has("copula") for u in after)


def _found(
    clause: _Clause,
    stance: Stance,
    why: str,
    when: _When,
    ctx: _Context,
    a: int | None = None,
    strong: bool = True,
) -> _Found:
    """The reading, quoted from its clause (trailing conditions included), with its condition."""
    start = clause.start
    end = max([clause.end] + [c.end for c in clause.conds if c.start > start])
    condition = None
    if when.clauses:
        opener = min(c.opener for c in when.clauses)
        last = max(c.end for c in when.clauses)
        count = when.count if when.kind == "count" or when.count else None
        condition = Condition(_quote(ctx.text, opener, last), count)
    kind = _kind(clause.units[a]) if a is not None else ""
    return _Found(stance, why, start, end, condition, strong, kind)


def _quote(text: str, start: int, end: int) -> str:
    """The original words between two offsets, without the punctuation around them."""
    return text[start:end].lstrip(" \t\n,;:.-—–*•#>").rstrip(" \t\n,;:.!?-—–*")


# ---- 6. reading a text -----------------------------------------------------------------------


@dataclass
class _Readings:
    """The readings of one text so far; a "forget that" sets aside every decision before it."""

    found: list[_Found] = field(default_factory=list)
    floor: int = 0
    """Readings before this index were taken back ("forget that"): they decide nothing."""

    def kept(self) -> list[_Found]:
        return [f for f in self.found[: self.floor] if f.stance == "none"] + self.found[
            self.floor :
        ]


def _read_text(text: str, lex: Lexicon) -> list[_Found]:
    """Every reading of one text (a system prompt or a task), in order; a later correction or a
    bare "don't" acts on the readings before it. Each step is linear in the text read."""
    readings = _Readings()
    before = 0  # how many readings there were before the previous sentence
    merged = False  # whether the previous sentence already took in the one after it
    previous: list[_Clause] = []
    pending: _Clause | None = None
    topic: list[Unit] = []  # the words of the heading the lines are under, if it is about stopping
    for offset, part in window(text):
        for sentence, end in _sentences(units(part, lex, offset, last=offset > 0)):
            question = end == "?"
            if end == "h":
                topic = [u for u in sentence if u.kind == "w"]
                if not any(_kind(u) in ("give_up", "stop", "report") for u in topic):
                    topic = []
            else:
                sentence = _under_heading(topic, sentence)
            clauses = _join_conditions(_split(sentence, question))
            if question and _condition_question(clauses):
                words = [u for c in clauses for u in c.units]
                pending = _Clause("if", "start", words, clauses[0].opener)
                continue  # "No star? Say so.": the question is the next sentence's condition
            if pending is not None:
                clauses.insert(0, pending)
                pending = None
            _bare_conditions(clauses)
            if previous and not merged and all(c.conditional for c in clauses):
                # "Never give up. Unless every area is empty.": the condition of the sentence before
                merged = True
                clauses = previous + clauses
                for c in clauses:
                    c.conds, c.negated = [], 0
                del readings.found[max(before, readings.floor) :]
            else:
                before, merged = len(readings.found), False
            _attach(clauses)
            _read_sentence(clauses, previous, readings, text, lex)
            previous = clauses
    return readings.kept()


def _condition_question(clauses: list[_Clause]) -> bool:
    """ "No star?", "Can't find it?", "Everything empty?": a question that states a condition
    (not a request, not about giving up itself) sets the condition of what follows."""
    words = [u for c in clauses for u in c.units]
    asked = [u for c in clauses if c.question for u in c.units]
    if not asked or _condition_kind(asked)[0] not in ("failure", "everywhere", "count", "some"):
        return False  # "An empty result is fine, okay?": the question is only the tag
    if not words or words[0].has("request", "question"):
        return False
    if any(u.has("give_up", "stop", "report", "keep_searching") and not u.quoted for u in words):
        return False
    return _condition_kind(words)[0] in ("failure", "everywhere", "count", "some")


def _read_sentence(
    clauses: list[_Clause], previous: list[_Clause], readings: _Readings, text: str, lex: Lexicon
) -> None:
    ctx = _Context(
        text, lex, clauses, previous, any(u.has("forever") for c in clauses for u in c.units)
    )
    found = readings.found
    here: list[_Found] = []
    corrected = False  # "Actually, keep searching": a correction is meant, however it is said
    for i, clause in enumerate(clauses):
        corrected = corrected or clause.link == "correction" or _is_correction(clause)
        corrected = corrected or (i + 1 < len(clauses) and _lone_no(clause))  # "No — keep going"
        if clause.role == "cancel":
            readings.floor, here = len(found), []
            continue
        bare = _bare_negation(clause)
        if bare is not None:
            following = next(
                (c for c in clauses[i + 1 : i + 1 + _NEAR] if c.action() is not None), None
            )
            if following is not None and following.link == "colon":
                continue  # "Meu bot dizia isso. Você não: segue procurando" sets one against another
            if following is not None and not following.conditional:
                following.negated += bare if _negates_what_follows(clause) else 0
            elif following is None and bare:
                _reverse(here, 0, clause) if here else _reverse(found, readings.floor, clause)
            continue
        if clause.conditional:
            continue
        last = here[-1] if here else found[-1] if len(found) > readings.floor else None
        reading = (
            _answer(last, clause, ctx)
            or _read_clause(clause, i, ctx)
            or _report_continued(clause, i, ctx, here)
        )
        if reading is not None:
            reading.strong = reading.strong or (corrected and reading.stance != "none")
            here.append(reading)
    found.extend(_merged(here))


_FILLERS = _AUX | {
    "ever",
    "please",
    "just",
    "really",
    "absolutely",
    "definitely",
    "ok",
    "okay",
    "anymore",
    "again",
    "are",
    "is",
    "am",
    "voce",
    "tu",
    "mais",
    "agora",
    "now",
    "esta",
    "ɛ",
    "that",
    "isso",
    "it",
}


def _lone_no(clause: _Clause) -> bool:
    return [w for u in clause.units for w in u.words] in (["no"], ["nao"], ["nope"])


def _is_correction(clause: _Clause) -> bool:
    return bool(clause.units) and all(u.has("correction") for u in clause.units)


def _bare_negation(clause: _Clause) -> int | None:
    """For a clause of negations only ("Never,", "don't.", "não"), how many it says; None for
    any other clause."""
    if clause.role != "main" or clause.conds or not clause.units:
        return None
    if not all(u.has("negation", "correction") or u.words[0] in _FILLERS for u in clause.units):
        return None
    negations = sum(1 for u in clause.units if u.has("negation"))
    return negations or None


def _negates_what_follows(clause: _Clause) -> bool:
    """ "Never, ever give up" carries its negation on; "No, don't give up" answers: a lone
    "no" or "não" before an instruction says it again, it does not flip it."""
    words = [w for u in clause.units for w in u.words]
    return words not in (["no"], ["nao"])


def _answer(last: _Found | None, clause: _Clause, ctx: _Context) -> _Found | None:
    """ "Give up? Sure, once every area is empty.": a yes to a question about giving up."""
    if last is None or last.why != "question" or last.action not in ("give_up", "stop"):
        return None
    if clause.action() is not None or not all(
        u.has("permission") or u.words[0] in _FILLERS for u in clause.units
    ):
        return None
    return _found(clause, "allow", "permission", _when(clause.conds), ctx)


def _reverse(found: list[_Found], floor: int, clause: _Clause) -> None:
    """ "You may give up. On second thought, don't.": a bare negation at the end takes back the
    reading before it (not one already taken back)."""
    if len(found) <= floor:
        return
    last = found[-1]
    if last.stance == "allow" or (last.stance == "none" and last.action in ("give_up", "stop")):
        found[-1] = _Found("forbid", "refusal", last.start, clause.end, None, True, last.action)


def _report_continued(clause: _Clause, i: int, ctx: _Context, here: list[_Found]) -> _Found | None:
    """ "Tell me where the star is, or that it isn't there": a clause joined by "or" with no
    verb of its own, after a verb of saying, is more of what to say."""
    own = clause.action()
    if clause.link not in ("or", "and", "punct") or i == 0:
        return None
    if own is not None and _kind(clause.units[own]) not in ("find", "search"):
        return None
    failing = any(u.has("failure", "whether") for u in clause.units) or _negated_content(
        clause.units
    )
    if not (failing or _when(clause.conds).kind == "failure"):
        kind, _ = _condition_kind(clause.units)
        if kind not in ("everywhere", "count") or clause.link != "or":
            return None  # "stop when you find it or every area is empty": the second way out
    before = ctx.clauses[i - 1]
    a = before.action()
    if a is None or _kind(before.units[a]) not in ("report", "stop") or before.conditional:
        return None
    m = _modality(before.units[:a], ctx.lex, before.negated)
    if m.stance in ("forbid", "noneed") or (here and here[-1].stance == "forbid"):
        return None
    end = max([clause.end] + [c.end for c in clause.conds])
    return _Found("allow", "report", before.start, end, None, True, "report")


def _merged(found: list[_Found]) -> list[_Found]:
    """ "Stop after a few empty searches and report failure": two clauses, one permission."""
    out: list[_Found] = []
    for f in found:
        last = out[-1] if out else None
        if (
            last
            and last.stance == f.stance != "none"
            and last.strong == f.strong
            and f.start >= last.end
        ):
            out[-1] = replace(last, end=f.end, condition=last.condition or f.condition)
        else:
            out.append(f)
    return out


# ---- 7. the intent of a conversation ---------------------------------------------------------


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
    parts = window(text)
    return parts[0][1] if len(parts) == 1 else "\0".join(p for _, p in parts)


def _intent_bytes(intent: Intent) -> int:
    texts = [intent.quote, *(r.quote for r in intent.readings)]
    texts += [r.condition.text for r in intent.readings if r.condition]
    return 512 + 256 * len(intent.readings) + sum(sys.getsizeof(t) for t in texts)


def _read(system: str, prompt: str) -> Intent:
    readings: list[Reading] = []
    languages: list[str | None] = []
    for text in (system, prompt):
        language = _language_of(text)
        languages.append(language)
        lex = lexicon(language or languages[0] or _language_of(prompt) or "en")
        readings += [
            Reading(f.stance, _quote(text, f.start, f.end), f.why, f.condition, f.strong)
            for f in _read_text(text, lex)
        ]
    deciding = [r for r in readings if r.stance != "none"]
    instructions = [r for r in deciding if r.strong]
    orders = [r for r in deciding if r.why != "absence possible"]
    decisive = (instructions or orders or deciding)[-1] if deciding else None
    language = languages[1] or languages[0] or "en"
    if decisive is None:
        return Intent(False, "", None, language, "", tuple(readings))
    allowed = decisive.stance == "allow"
    condition = decisive.condition if allowed else None
    return Intent(allowed, decisive.quote, condition, language, decisive.why, tuple(readings))


read_intent = _Reader(CACHE_BYTES)


# ---- 8. the language -------------------------------------------------------------------------

_ACCENTS = "ãõçáéíóúâêô"
_PUNCTUATION = ".,;:!?\"'()[]{}*#-—–…"


def detect_language(text: str) -> str | None:
    """ "pt" or "en" for a text clearly in one of them; None when it cannot tell (empty, or a
    name or two)."""
    return _language_of(text or "")


def _language_of(text: str) -> str | None:
    portuguese, english = lexicon("pt").language_words, lexicon("en").language_words
    pt = en = 0
    for _, part in window(text):
        lowered = part.lower()
        pt += 2 * sum(lowered.count(c) for c in _ACCENTS)
        for word in fold(part).split():
            word = word.strip(_PUNCTUATION)
            pt += word in portuguese
            en += word in english
    if pt == en:
        return None
    return "pt" if pt > en else "en"


__all__ = ["WHY", "Condition", "Intent", "Reading", "detect_language", "fold", "read_intent"]
