"""The reader of intent's grammar, part 1: a text's sentences, each cut into clauses, each clause
with the word that opened it ("if", "until", "then", "but") and the conditions it holds on.

    sentences(units) -> [(units, end)]     where a sentence ends, and how ("." "?" "h")
    clauses(sentence, question, lex)       its clauses, conditions joined and split
    attach(clauses)                        each condition given to the instruction it governs
    condition_kind(words)                  what a condition is about: "failure", "count", ...

Every step walks its input once (a sentence is at most `MAX_SENTENCE_UNITS` long).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from .lexicon import Lexicon, Unit

ACTIONS = ("give_up", "keep_searching", "stop", "report", "find", "search")
"""The verbs about giving up, by priority when a phrase is several."""
SAYS_STOP = ("give_up", "stop", "report", "keep_searching", "stop_when_first")
"""The verbs that make a clause an instruction of its own (not "search", not "find")."""
WHEN = ("if", "if_first", "when", "after")
LIMITS = ("until", "before", "without", "unless")
_MARKERS = (*WHEN, *LIMITS, "even_if", "proviso", "then", "otherwise", "cancel")
_LINKS = ("and", "or", "but", "correction")
JUDGEMENT = ("permission", "against", "obligation")
REACHABLE = ("count", "everywhere", "failure", "some", "needed")
"""Kinds of condition a run of empty searches meets, the most telling first."""
MAX_SENTENCE_UNITS = 160
"""A longer run without a full stop is read in pieces of this many words and marks: no one
writes a sentence that long to a model, and the rules then cost a bounded amount per piece."""


@dataclass
class Clause:
    role: str
    """"main", or what opened it: a condition ("if", "when", "after"), a limit ("until",
    "before", "without", "unless"), "even_if", "proviso", "then", "otherwise" or "cancel"."""
    link: str
    """How it joins the clause before: "start", "punct", "colon", "and", "or", "but", "correction"."""
    units: list[Unit]
    opener: int
    """Where its words start, with the word that opened it ("if nothing turns up")."""
    question: bool = False
    conds: list[Clause] = field(default_factory=list)
    negated: int = 0
    """Negations carried from a bare "Never," before it."""
    _action: tuple[int, int | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )

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
        """Where its verb about giving up is, if it has one (not in a quotation, not a noun: "the
        search"). A word that stops only at a clause's start ("para") counts only there."""
        if self._action is None or self._action[0] != len(self.units):
            self._action = (len(self.units), self._find_action())  # (units are only appended)
        return self._action[1]

    def verb(self) -> str:
        """The kind of its verb about giving up (`kind`: "give_up", "report", ...), "" if none."""
        a = self.action()
        return kind(self.units[a]) if a is not None else ""

    def _find_action(self) -> int | None:
        for i, unit in enumerate(self.units):
            if unit.quoted or not kind(unit) or _a_noun(self.units, i):
                continue
            if kind(unit) != "stop" or "stop" in unit.tags:
                return i
            if all(u.has("negation", "you", "only", "and", "then") for u in self.units[:i]):
                return i
        return None


def kind(unit: Unit) -> str:
    """The verb a unit is, by ACTIONS' priority; "" for any other word."""
    return _kind(unit.tags)


@lru_cache(maxsize=4096)
def _kind(tags: frozenset[str]) -> str:
    if "stop_when_first" in tags and tags.isdisjoint(ACTIONS):
        return "stop"
    return next((a for a in ACTIONS if a in tags), "")


def _a_noun(words: list[Unit], i: int) -> bool:
    """ "the search can be ended", "1 busca vazia basta": a noun, not an order ("obrigado a
    continuar": a verb after "a")."""
    unit = words[i]
    if i > 0 and words[i - 1].has("number") and unit.has("unit"):
        return True
    if i == 0 or not words[i - 1].has("determiner") or kind(unit) == "report":
        return False
    return not unit.verbal


def sentences(all_units: list[Unit]) -> list[tuple[list[Unit], str]]:
    """The units of each sentence (marks inside kept), and how it ends: "." (a statement or an
    instruction), "?" (a question) or "h" (a line that heads the lines under it)."""
    out: list[tuple[list[Unit], str]] = []
    current: list[Unit] = []
    for unit in all_units:
        if len(current) >= MAX_SENTENCE_UNITS:
            out.append((current, "."))
            current = []
        if unit.kind in ".?ht":
            if any(u.kind == "w" for u in current):
                out.append((current, "." if unit.kind == "t" else unit.kind))
            if unit.kind == "t":
                out.append(([], "t"))  # a list under a label has ended
            current = []
        else:
            current.append(unit)
    if any(u.kind == "w" for u in current):
        out.append((current, "."))
    return out


def under_heading(topic: list[Unit], sentence: list[Unit]) -> list[Unit]:
    """ "## When to stop / - after 3 empty searches": a line under a heading about giving up or
    saying so, with no such verb of its own, is read as the heading's words and its own."""
    if not topic or any(kind(u) not in ("", "search", "find") for u in sentence if not u.quoted):
        return sentence
    return [*topic, Unit(":", frozenset(), (), sentence[0].start, sentence[0].start), *sentence]


def clauses(sentence: list[Unit], question: bool, lex: Lexicon) -> list[Clause]:
    """A sentence cut into clauses (`split`), lists kept whole, and conditions joined across
    "and" and split where their instruction starts without a comma."""
    return _join_conditions(_enumerations(_restrictions(split(sentence, question))), lex)


def _restrictions(found: list[Clause]) -> list[Clause]:
    """ "You may give up, but only after 50 empty searches": a clause that is only "only" belongs
    to the instruction before it, so the condition after it restricts that instruction."""
    kept: list[Clause] = []
    for clause in found:
        if kept and clause.role == "main" and all(u.has("only") for u in clause.units):
            kept[-1].units.extend(clause.units)
        else:
            kept.append(clause)
    return kept


def split(sentence: list[Unit], question: bool) -> list[Clause]:
    """A sentence cut at punctuation and at the words that open a clause, each clause with the
    word that opened it; a colon that only introduces words ("reply: NOT_FOUND") does not cut;
    a word that only opens the sentence ("Okay so", "Olha:") is left out."""
    sentence = _without_opener(sentence)
    found: list[Clause] = []
    current = Clause("main", "start", [], sentence[0].start)
    colons = _colons_that_cut(sentence)
    for i, unit in enumerate(sentence):
        if unit.kind == "," or (unit.kind == ":" and i in colons):
            if current.units or current.role == "main":  # "otherwise, say so": one clause
                found.append(current)
                stands = not current.units and current.link in ("correction", "but")
                link = "colon" if unit.kind == ":" else "punct"  # ("Actually, if ...": it stands)
                current = Clause("main", current.link if stands else link, [], unit.end)
        elif unit.kind == "w":
            opens = _opens(unit, sentence, i, current)
            if opens is None:
                current.units.append(unit)
                continue
            found.append(current)
            role, link = opens
            if not current.units and current.link != "start":
                link = current.link  # ", if" and ", and if": the break before stands
            elif i > 0 and sentence[i - 1].kind == ":":
                link = "colon"  # "No pressure: if it isn't there, ...": it opens what follows
            current = Clause(role, link, [unit] if role == "cancel" else [], unit.start)
    found.append(current)
    kept = [c for c in found if c.units]
    if question:
        _asked(sentence, kept)
    return kept


def _asked(sentence: list[Unit], kept: list[Clause]) -> None:
    """ "Say so, okay?": the question is what follows the last break; "me avisa que não achou
    ok?", an order ending in a tag word with no comma before it, is an order, not a question."""
    words = [u for u in sentence if u.kind == "w"]
    if len(words) > 2 and words[-1].has("tag") and kept[-1].action() is not None:
        return
    last_break = max((i for i, c in enumerate(kept) if c.link in ("punct", "colon")), default=0)
    for clause in kept[last_break:]:
        clause.question = True


def _without_opener(sentence: list[Unit]) -> list[Unit]:
    if len(sentence) > 1 and sentence[0].has("discourse"):
        follows = sentence[1]
        if follows.kind in ",:" or (len(sentence[0].words) > 1 and follows.kind == "w"):
            return sentence[1:]
    return sentence


def _colons_that_cut(sentence: list[Unit]) -> set[int]:
    """A colon cuts only when what follows it has a verb about giving up of its own."""
    cut: set[int] = set()
    colon: int | None = None
    for i, unit in enumerate(sentence):
        if unit.kind == ":":
            colon = i
        elif colon is not None and unit.has(*SAYS_STOP) and not unit.quoted:
            cut.add(colon)
    return cut


def _opens(unit: Unit, sentence: list[Unit], i: int, current: Clause) -> tuple[str, str] | None:
    """(role, link) when `unit` opens a clause."""
    if unit.quoted:
        return None
    followed = i + 1 < len(sentence) and sentence[i + 1].kind == "w"
    role = next((r for r in _MARKERS if r in unit.tags), None)
    if role is not None:
        return _marker(role, i, followed, current)
    link = next((k for k in _LINKS if k in unit.tags), None)
    if link == "correction" and not _set_apart(sentence, i):
        return None  # "I'd rather wait forever": a verb, not "Wait, ..."
    return ("main", link) if link is not None and followed else None


def _set_apart(sentence: list[Unit], i: int) -> bool:
    """Whether a word opens its sentence or stands between marks ("Wait, ...", "no wait, ...")."""
    before = sentence[i - 1] if i > 0 else None
    after = sentence[i + 1] if i + 1 < len(sentence) else None
    return (
        before is None
        or before.kind != "w"
        or before.words in (("no",), ("nao",))
        or before.has("interjection", "correction", "but", "discourse")
        or (after is not None and after.kind != "w")
    )


def _marker(role: str, i: int, followed: bool, current: Clause) -> tuple[str, str] | None:
    if role == "then" and i == 0 and not followed:
        return "main", "correction"  # "Quer dizer, ...": I mean
    if role in WHEN + LIMITS and not followed:
        return None  # "try once." is a number, not "once ..."
    if role in LIMITS and current.role in WHEN and not current.units:
        return None  # "se até a terceira busca ...": "by the third", inside the condition
    if role == "if_first" and current.units:
        return None  # "you should say so" is not "should you fail"
    return ("if" if role == "if_first" else role), "start"


def _enumerations(found: list[Clause]) -> list[Clause]:
    """ "after checking overworld, underground, sky and castle": the items of a list stay in the
    clause that lists them; a condition that lists three places or more names every area."""
    out: list[Clause] = []
    items = 0
    for clause in found:
        if out and _an_item(clause):
            out[-1].units.extend(clause.units)
            items += 1
            if items == 2 and out[-1].conditional:
                end = clause.units[-1].end
                out[-1].units.append(Unit("w", frozenset({"everywhere"}), ("*",), end, end))
            continue
        out.append(clause)
        items = 0
    return out


def _an_item(clause: Clause) -> bool:
    return (
        clause.role == "main"
        and not clause.question  # "avisa, visse?": a tag, not an item
        and clause.link in ("punct", "and", "or")
        and len(clause.units) <= 2
        and all(not u.meaning and not u.has("demonstrative") for u in clause.units)
    )  # ("if you find it, mark it": "it" ends an instruction, not an item)


def _join_conditions(found: list[Clause], lex: Lexicon) -> list[Clause]:
    """ "if you searched every area and found nothing": an "and" after a condition continues it,
    unless what follows is an instruction of its own; "if nothing turns up say so": a condition
    written without a comma ends where its instruction starts."""
    joined: list[Clause] = []
    for clause in found:
        last = joined[-1] if joined else None
        if (
            last is not None
            and last.conditional
            and clause.role == "main"
            and clause.link in ("and", "or")
            and not starts_instruction(clause.units, 0, lex)
            and not _negated_order(clause.units)
        ):
            at = clause.opener
            if clause.link == "or":  # keep the sides apart: "until you find it or ..."
                last.units.append(Unit("w", frozenset({"or"}), ("or",), at, at))
            last.units.extend(clause.units)
            continue
        joined.append(clause)
    return [part for clause in joined for part in _split_condition(clause, lex)]


def _negated_order(words: list[Unit]) -> bool:
    """ "search until you have it and don't report it missing": after "and", a negation and a
    verb about stopping is an instruction of its own, not more of the condition."""
    if words and words[0].words == ("do",):
        words = words[1:]  # ("don't": "do" "not")
    return (
        len(words) > 1
        and words[0].has("negation")
        and not words[0].has("failure")
        and words[1].has(*SAYS_STOP)
    )


def _split_condition(clause: Clause, lex: Lexicon) -> list[Clause]:
    if not clause.conditional or len(clause.units) < 2:
        return [clause]
    for i in range(1, len(clause.units)):
        after_noun = clause.role == "after" and kind(clause.units[i]) not in ("", "search", "find")
        before = clause.units[i - 1]
        negated = (
            _negated_order(clause.units[i:])
            and before.words != ("do",)
            and not before.has("you", "speaker", "others", "self", "unit", "modal")
        )  # "till u find it dont stop" (not "if you don't stop", "if searches don't stop")
        if after_noun or negated or starts_instruction(clause.units, i, lex):
            i = _auxiliaries_before(clause.units, i)
            head = Clause(clause.role, clause.link, clause.units[:i], clause.opener)
            main = Clause("main", "punct", clause.units[i:], clause.units[i].start)
            return [head, main]
    return [clause]


def _auxiliaries_before(words: list[Unit], i: int) -> int:
    """ "se n achar n pode parar", "if it fails you may not stop": an instruction inside a
    condition written without a comma starts at the modals and negations before its verb (a
    condition's own words, "se não achar", are its failure, not a negation of the instruction)."""
    while (
        i > 1
        and words[i - 1].has("modal", "permission", "obligation", "negation")
        and not words[i - 1].has("failure", *WHEN, *LIMITS)
    ):
        i -= 1
    return i


def starts_instruction(words: list[Unit], i: int, lex: Lexicon) -> bool:
    """Whether an instruction starts at words[i]: a verb about giving up not led by a subject or
    an auxiliary ("say so" in "if it fails say so", not "keep" in "if searches keep failing"),
    "just", "please", "you may", or a judgement said on its own ("no worries", "tudo bem")."""
    unit = words[i]
    before = words[i - 1] if i > 0 else None
    led = before is not None and (
        before.has("you", "speaker", "others", "self", "unit")
        or lex.word_has(before, "lead", at=-1)
    )
    if unit.has(*SAYS_STOP):
        return not led
    if unit.has("interjection"):
        return i > 0 and not led
    if lex.word_has(unit, "softener"):
        return i > 0 and i + 1 < len(words) and bool(kind(words[i + 1]))
    if unit.has("you") and i + 1 < len(words):
        return words[i + 1].has("permission", "obligation")
    if unit.has("modal") and i > 0 and i + 2 < len(words) and words[i + 1].has("you"):
        return words[i + 2].has(*SAYS_STOP)  # "only once ... has been checked may you stop"
    return False


def bare_conditions(found: list[Clause], lex: Lexicon) -> None:
    """ "Não achou, fala que não achou", "two empty searches and you stop": a clause that only
    says the star was not found, before an instruction, is that instruction's condition; so is
    one before what it means ("2 empty searches = the level is bugged, call it")."""
    for clause, following in pairwise(found):
        if (
            clause.role == "main"
            and clause.verb() in ("", "search", "find")
            and bare_negation(clause, lex) is None
            and not any(u.has(*JUDGEMENT) for u in clause.units)
            and following.role in ("main", "then")
            and (following.action() is not None or following.role == "then")
            and any(u.has("failure", "everywhere", "number", "whether") for u in clause.units)
            and condition_kind(clause.units)[0] in ("failure", "everywhere", "count")
        ):
            clause.role = "if"


def bare_negation(clause: Clause, lex: Lexicon) -> int | None:
    """For a clause of negations only ("Never,", "don't.", "não"), how many it says; None for
    any other clause."""
    if clause.role != "main" or clause.conds or not clause.units or clause.action() is not None:
        return None  # ("do not keep searching": "keep" alone is a filler, "keep searching" a verb)
    if not all(
        (u.has("negation") and not u.has("failure", "obligation"))  # ("or 'none'", "optional")
        or u.has("correction", "copula")  # "it's not", "não é": a judgement taken back
        or lex.word_has(u, "filler", "demonstrative")
        or (clause.link == "correction" and not u.meaning - {"others", "speaker"})  # "from HR:"
        for u in clause.units
    ):
        return None
    return sum(1 for u in clause.units if u.has("negation")) or None


def attach(found: list[Clause]) -> None:
    """Each condition goes to the clause it governs: forward when it opens the sentence or follows
    a break ("If X, say so"; "..., and if X, say so"), backward when it trails ("say so if X").
    A condition that opens a sentence holds for each instruction after it, until another."""
    befores, afters = _nearest_instructions(found), _nearest_instructions(found[::-1])[::-1]
    for i, clause in enumerate(found):
        target = _governed(found, i, befores[i], afters[i]) if clause.conditional else None
        if target is not None:
            target.conds.append(clause)
    _leading_conditions(found)


def _governed(
    found: list[Clause], i: int, before: Clause | None, after: Clause | None
) -> Clause | None:
    """The instruction condition i governs: the one after it, unless it trails one ("say so if
    X": no break before it, and the clause before says something)."""
    says = before is not None and (
        before.action() is not None or any(u.has(*JUDGEMENT) for u in before.units)
    )
    chained = i > 0 and found[i - 1].conditional and (found[i - 1].link != "start" or i == 1)
    forward = after is not None and (not says or found[i].link != "start" or chained)
    return after if forward else before


def _leading_conditions(found: list[Clause]) -> None:
    """ "If X, that's fine, just tell me": a condition that opens its instruction holds for the
    instructions after it too, until another."""
    leading: list[Clause] = []
    for clause in found:
        if clause.conditional:
            continue
        ahead = [c for c in clause.conds if c.start < clause.start]
        if ahead:
            leading = ahead
        elif clause.role == "main" and clause.link in ("and", "punct") and not clause.conds:
            clause.conds = list(leading)


def _nearest_instructions(found: list[Clause]) -> list[Clause | None]:
    """For each clause, the nearest clause before it that is not a condition (of the clauses
    reversed: the nearest after it)."""
    nearest: list[Clause | None] = []
    last: Clause | None = None
    for clause in found:
        nearest.append(last)
        last = last if clause.conditional else clause
    return nearest


# ---- what a condition is about ----------------------------------------------------------------


def condition_kind(words: list[Unit]) -> tuple[str, int | None]:
    """What a condition (or a clause used as one) is about, and the number of searches it names:
    "never" (comes true in no run: "if I tell you to"), "success" ("when you find it"), "count"
    ("after 3 searches"), "everywhere", "failure", "some" ("after a few searches"), "needed"
    ("if needed"), "giving up" ("if you give up"), or "other"."""
    tags: set[str] = set().union(*(u.tags for u in words)) if words else set()
    negations = sum(1 for u in words if "negation" in u.tags and "failure" not in u.tags)
    if "never_happens" in tags or (words and words[0].has("speaker")):
        return "never", None
    if "each_time" in tags and not tags & {"failure", "whether", "negation"}:
        return "other", None  # "after each search": every time, not a point to stop at
    failing = bool(tags & {"failure", "whether"}) or negations % 2 == 1
    if not failing and tags & {"find", "appear"}:
        return "success", None  # "until every block is open and the star is in your hands"
    count = count_of(words, trailing="everywhere" not in tags)
    if count is not None:
        return "count", count
    if "everywhere" in tags:
        return "everywhere", None
    return _vaguer_kind(words, tags, failing), None  # (a failure, first)


def _vaguer_kind(words: list[Unit], tags: set[str], failing: bool) -> str:
    if failing:
        return "failure"
    if {"unit", "few"} <= tags:
        return "some"
    if "if_needed" in tags:
        return "needed"
    if "stop" in tags and "give_up" not in tags and not _subject_stops(words):
        finishing = all(u.has("done") for u in words if "stop" in u.tags)
        if finishing and tags.isdisjoint(("search", "unit", "everywhere")):
            return "other"  # "when you're done": the task's end, whatever it brought
        return "everywhere"  # "if you stop searching", "quando terminar as buscas"
    if "give_up" in tags:
        return "giving up"
    return "other"


def _subject_stops(words: list[Unit]) -> bool:
    """ "until the game ends": something else stops, not the search (a determiner before the
    verb)."""
    first = next((u for u in words if u.has("determiner", "stop")), None)
    return first is not None and first.has("determiner")


def count_of(words: list[Unit], trailing: bool = True) -> int | None:
    """The number of searches named: "3 empty searches", "two tries", "twice", "by the third".
    A number with no unit counts searches at the end of a condition ("3 empty = stop") only when
    `trailing`: beside "every area" it says how often each is searched ("each area once", "every
    area first"), not after how many searches."""
    found: list[int] = []
    areas = any(u.has("everywhere") for u in words)
    for i, unit in enumerate(words):
        if unit.number is None or unit.quoted:
            continue
        near = words[i + 1 : i + 4 if unit.number < 100 else i + 2]  # ("200 com a área": a code)
        if _counts_searches(unit, near, areas) or (trailing and i == len(words) - 1):  # "3 empty"
            passes = areas and (unit.has("repeat") or any(u.has("repeat") for u in near[:2]))
            found.append(unit.number * AREAS if passes else unit.number)
    return max(found) if found else None


def _counts_searches(unit: Unit, near: list[Unit], areas: bool) -> bool:
    """Whether the words at and just after a number say it counts searches: a unit ("3
    searches", "twice"), a failure ("3 empty"), or beside "every area" a repeat ("duas voltas")."""
    if "unit" in unit.tags or any("unit" in u.tags for u in near):
        return True
    return bool(near) and (near[0].has("failure") or (areas and near[0].has("repeat")))


AREAS = 4
"""The areas of a level: "every area three times" is this many searches three times over."""


@dataclass(frozen=True)
class When:
    """The conditions on one instruction, summed up."""

    kind: str | None
    """The most telling kind among them (a reachable one first); None without conditions."""
    count: int | None
    clauses: tuple[Clause, ...]

    @property
    def reachable(self) -> bool:
        return self.kind in REACHABLE


NO_CONDITION = When(None, None, ())
_UNLESS = {"success": "failure", "failure": "success"}
"""What "unless" makes of a condition: "unless you find it" holds while the star is not found."""


def when(conditions: list[Clause], invert_unless: bool = True) -> When:
    """Several conditions on one instruction: it holds when any of its alternatives ("if X or
    Y") can come true, and never when one of conditions that must all hold never does ("give up
    after an hour of searching if nothing turns up")."""
    if not conditions:
        return NO_CONDITION
    kinds = []
    for c in conditions:
        each = [condition_kind(alternative) for alternative in _alternatives(c.units)]
        if c.role == "unless" and invert_unless:
            each = [(_UNLESS.get(name, name), count) for name, count in each]
        if all(name == "never" for name, _ in each) and not any(d.link == "or" for d in conditions):
            return When("never", None, tuple(conditions))
        kinds += each
    reachable = [k for k in kinds if k[0] in REACHABLE]
    if reachable:
        name, count = min(reachable, key=lambda k: REACHABLE.index(k[0]))
        count = next((c for _, c in reachable if c is not None), count)
    else:
        name, count = next((k for k in kinds if k[0] in ("never", "success")), kinds[0])
    return When(name, count, tuple(conditions))


def _alternatives(words: list[Unit]) -> list[list[Unit]]:
    """ "until you find it or every area is empty": each side of an "or" on its own."""
    parts: list[list[Unit]] = [[]]
    for unit in words:
        if "or" in unit.tags and parts[-1]:
            parts.append([])
        else:
            parts[-1].append(unit)
    return [p for p in parts if p]
