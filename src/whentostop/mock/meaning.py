"""The reader of intent's grammar, part 2: what one clause means about giving up.

A clause with a verb about giving up is read for how it is said (`modality`: permitted,
ordered, forbidden, not needed, or plain) and on what condition; the verb's kind then decides
(`decide_stop`, `decide_report`, `decide_search_like`). A clause whose verb is its subject
("giving up is fine") or that has no verb is read as a judgement, a budget of searches, or a
hint that the star may not be there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

from .clauses import (
    AREAS,
    JUDGEMENT,
    LIMITS,
    NO_CONDITION,
    REACHABLE,
    WHEN,
    Clause,
    When,
    condition_kind,
    count_of,
    kind,
    when,
)
from .lexicon import LISTS, Lexicon, Unit, says

Stance = Literal["allow", "forbid", "none"]
_UNREACHABLE = ("success", "never")
"""Kinds of condition no run of empty searches meets: "when you find it", "if I say so"."""


@dataclass(frozen=True)
class Condition:
    """When the permission applies, in the prompt's own words."""

    text: str
    """The exact words ("If a few searches come back empty", "after 2 empty searches")."""
    searches: int | None = None
    """Give up after this many empty searches; None: once every area came back without the star."""


@dataclass
class Found:
    """A reading before it is quoted: its span in the text."""

    stance: Stance
    why: str
    start: int
    end: int
    condition: Condition | None = None
    strong: bool = True
    action: str = ""


@dataclass
class Context:
    """What a clause is read with: its text and lexicon, its sentence, and the sentence before."""

    text: str
    lex: Lexicon
    clauses: list[Clause]
    previous: list[Clause]
    """The clauses of the sentence before (for "then" and "only then")."""
    forever: bool
    """Whether the sentence insists: "forever", "no matter what", "custe o que custar"."""
    cast: bool = False
    """Whether the model plays a role named in the third person ("Toad ... tells the princess")."""

    def nearest(self, i: int, wanted: Callable[[Clause], bool]) -> Clause | None:
        """The nearest clause before clause i that is `wanted` (`recent`), else the nearest among
        the last clauses of the sentence before."""
        return recent(self.clauses, i, wanted) or recent(self.previous, len(self.previous), wanted)


# ---- how it is said ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Modality:
    stance: str
    """"permit" (may, fine, not forbidden), "forbid" (don't, may not, forbidden), "order" (must),
    "noneed" (don't have to), or "plain" (an imperative or a statement)."""
    judged: bool
    """Whether a word judges it ("don't worry about", "not a problem"), not only a modal."""
    subject: str
    """The last subject before the verb: "you", "speaker", "others", "self", or "" (none)."""
    modal: bool
    past: bool


def modality(head: list[Unit], lex: Lexicon, carried: int = 0) -> Modality:
    """How the words before a verb (or a judgement's words) say it: each negation and each word
    against it flips it once (Portuguese negations in one clause agree: they flip once)."""
    said = [u for u in _without_answer(head) if not u.quoted]
    tags: set[str] = set().union(*(u.tags for u in said)) if said else set()
    against = sum(1 for u in said if "against" in u.tags)
    if lex.concord and against:
        carried = 0  # "Nunca, é proibido desistir": a negation carried agrees with "proibido"
    flips = (carried + _negations(said, lex, carried > 0) + against) % 2
    permit, oblige = "permission" in tags or against > 0, "obligation" in tags
    stance = _STANCES[(permit, oblige and not permit)][flips]
    if stance == "noneed" and all(u.has("must") for u in said if u.has("obligation")):
        stance = "forbid"  # "you should never give up" ("you should not need to" frees)
    past = any("past" in u.tags and not passive(said, j) for j, u in enumerate(said))
    return Modality(stance, against > 0, _subject(said), permit or oblige, past)


def _without_answer(head: list[Unit]) -> list[Unit]:
    """ "No you can't", "🚫 don't": a "no" before the instruction answers or signs it."""
    answered = len(head) > 1 and head[0].words == ("no",)
    if answered and (head[1].words[0] in ("you", "i", "we") or says(head[1:3], ("negation",))):
        return head[1:]
    return head


def passive(words: list[Unit], j: int) -> bool:
    """Whether words[j], a participle ("reported", "encerrada"), follows a "be" of the present
    ("is reported", "must be stopped", "é informado"): a rule for now, not the past."""
    return j > 0 and words[j - 1].has("copula") and "past" not in words[j - 1].tags


_STANCES = {
    (True, False): ("permit", "forbid"),
    (False, True): ("order", "noneed"),
    (False, False): ("plain", "forbid"),
}
"""(permitted?, ordered?) -> (the stance, the stance negated)."""


def _subject(said: list[Unit]) -> str:
    """The last subject named: "you", "speaker", "others", "self", or "" (an imperative)."""
    whos = ("you", "speaker", "others", "self")
    return next((who for unit in reversed(said) for who in whos if who in unit.tags), "")


def _negations(said: list[Unit], lex: Lexicon, open_run: bool) -> int:
    """How many negations flip: each, or (Portuguese) one per run that no "que" breaks."""
    count = 0
    run = lex.concord and open_run
    for unit in said:
        if "negation" in unit.tags and unit.has(*JUDGEMENT):
            count += 1  # "opcional", "sem pressão": a word that negates by its meaning never agrees
        elif "negation" in unit.tags:
            count += not run
            run = lex.concord
        if unit.words[-1:] == ("que",):  # (and "não ache que", "nunca pense que")
            run = False
    return count


# ---- one clause ------------------------------------------------------------------------------

_RELEVANT = frozenset(LISTS["relevant"])
"""A clause with none of these says nothing about giving up: it is not read further."""


def read_clause(clause: Clause, i: int, ctx: Context) -> Found | None:
    """What clause i of the sentence says about giving up, if anything."""
    if clause.role == "cancel" or not any(u.tags & _RELEVANT for u in clause.units):
        return None
    a = clause.action()
    if a is None and clause.question:
        return None  # "..., okay?": a tag, or a question that says nothing about giving up
    if _negated_after(clause, a, ctx):
        clause.negated += 1  # "desistir não", "para nunca": Brazilian Portuguese negates after
    if (special := _first(_SPECIAL, clause, i, ctx)) is not None:
        return special
    subject = "" if a is None or clause.question else _as_subject(clause, a, ctx.lex)
    if a is not None and subject != "subject":
        found = read_judged(clause, i, a, ctx) if subject == "judged" else None
        found = found or _read_action(clause, i, a, ctx)
    else:  # no verb, or "giving up is never the answer": a subject, judged or not
        found = read_judged(clause, i, a, ctx)
    if found is None or found.why == "nothing to report":
        found = _read_statement(clause, i, ctx) or found
    return found


def _extended(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "The other agent may stop if nothing's there, and so may you", "Players can quit on an
    empty level. You can too.": what someone else may do, said to be the model's as well, is read
    as said to the model (in its sentence, or the sentence before)."""
    if clause.action() is not None or not any(u.has("you_too") for u in clause.units):
        return None
    if clause.conds and not when_of(clause, i, ctx).reachable:
        return None  # ("and so may you, once the star is marked")
    told = recent(ctx.clauses, i, _said_of_others)
    if told is None:  # the sentence before: read in its own clauses
        ctx = replace(ctx, clauses=ctx.previous)
        told = recent(ctx.clauses, len(ctx.clauses), _said_of_others)
    if told is None:
        return None
    at = next(j for j, c in enumerate(ctx.clauses) if c is told)
    yours = replace(told, units=[u for u in told.units if not u.has("others", "third_person")])
    found = read_clause(yours, at, ctx)
    if found is None or found.stance != "allow":
        return None
    return Found("allow", found.why, told.start, clause.end, found.condition, found.strong)


def _said_of_others(clause: Clause) -> bool:
    a = clause.action()
    return a is not None and any(u.has("others", "third_person") for u in clause.units[:a])


def _negated_after(clause: Clause, a: int | None, ctx: Context) -> bool:
    """Whether a negation closes the clause after its verb with none before it, in a language
    whose negations agree: "DESISTIR NÃO", "Desiste não, hein!", "Pode parar não, sô" (not a
    tag after a comma, which asks: "pode parar, não?")."""
    if not ctx.lex.concord or a is None or clause.question:
        return False
    units = clause.units[: len(clause.units)]

    def comma_before(k: int) -> bool:
        return "," in ctx.text[units[k - 1].end : units[k].start]

    # an interjection, or a word after a comma: an address ("sô")
    while len(units) > a + 1 and (
        not units[-1].meaning or (len(units) > a + 2 and comma_before(len(units) - 1))
    ):
        units.pop()
    last = units[-1]
    if last is clause.units[a] or comma_before(len(units) - 1):
        return False
    if not (last.has("negation") and last.has("lead")) or last.has("failure", *JUDGEMENT):
        return False  # (an adverb, "não", "nunca", not "negativo" or "nada")
    return not any(u.has("negation") for u in clause.units[:a])


def _elliptical(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "The other agents may stop; you may not.": a modal with its verb left out takes the verb
    of the clause before it."""
    if clause.action() is not None or not says(clause.units, ("modal", "permission", "obligation")):
        return None
    if not all(
        u.has("you", "modal", "negation", "permission", "obligation", "copula")
        or ctx.lex.word_has(u, "filler", "demonstrative")
        for u in clause.units
    ):
        return None
    # the verb of this sentence, or of the last one ("Pode parar. Não pode.")
    earlier = ctx.nearest(i, lambda c: not c.conditional and c.action() is not None)
    if earlier is None:
        return None
    verb = earlier.verb()
    m = modality(clause.units, ctx.lex, clause.negated)
    if verb in ("find", "keep_searching"):  # "finding it would be nice, but not necessary"
        return decide_search_like(Search(verb, m, NO_CONDITION, NO_CONDITION, False, clause), ctx)
    if verb not in ("give_up", "stop"):
        return None
    if m.stance == "forbid":
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)
    if m.stance in ("permit", "order") and modality(earlier.units, ctx.lex).subject == "others":
        return found_in(clause, "allow", "permission", when(clause.conds), ctx)
    return None  # ("don't give up, you can do it!" encourages)


def _before_giving_up(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "Search every area before you give up": giving up is allowed once this clause is done
    (unless the clause itself refuses: "never give up before ..." is read with its verb)."""
    stopping = ("give_up", "stop", "report")
    if clause.verb() in stopping or not _conditioned(clause, "before", *stopping):
        return None
    head = clause.units[: clause.action()]
    if modality(head, ctx.lex, clause.negated).stance in ("forbid", "noneed"):
        return None
    name, count = condition_kind(clause.units)
    if name == "success":  # "you need to find the star before you stop": only with it
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)
    quote = quoted(ctx.text, clause.start, clause.end)
    end = max([clause.end] + [c.end for c in clause.conds])
    return Found("allow", "limit", clause.start, end, Condition(quote, count), True, "")


def _only_success(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "The only acceptable ending is the star", "finding it is the only reason to stop" (or
    "..., unless you found it, which is the only reason to stop"): a way to end said to be the
    only one, and that way is the star found, refuses every other."""
    said = [u for u in clause.units if not u.quoted]
    if said and i > 0 and ctx.lex.word_has(said[0], "demonstrative"):
        said += ctx.clauses[i - 1].units  # "which", "o que": the clause before is its subject
    ending = ("give_up", "stop", "permission"), ("star", "find", "never_happens")
    only = says(said, ("only",), ("copula",), *ending, without=("failure", "negation", "report"))
    if not only or when([c for c in clause.conds if c.role in WHEN]).reachable:
        return None
    return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)


def _preference(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "I'd rather wait forever than hear 'not found'", "um 'não achei' não é melhor que uma
    busca sem fim": of two things compared, failing is the one not wanted (a refusal), or the
    one wanted over searching on (it is accepted)."""
    sides = _compared(clause.units)
    if sides is None:
        return None
    wanted, not_wanted = (_fails(side) for side in sides)
    if not_wanted and not wanted:
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)
    if wanted and not not_wanted:
        return found_in(clause, "allow", "failure accepted", when_of(clause, 0, ctx), ctx)
    return None


def _fails(part: list[Unit]) -> bool:
    """Whether one side of a comparison is failing: giving up, saying so, or a negated finding
    ("um 'não tem' honesto", "a 'didn't find it'")."""
    negated = next((j for j, u in enumerate(part) if u.has("negation")), len(part))
    failing = any(u.has("failure", "give_up", "stop", "report") for u in part)
    return failing or says(part[negated:], ("find", "appear", "holds"))


def _compared(words: list[Unit]) -> tuple[list[Unit], list[Unit]] | None:
    """(what is wanted, what is not) in a preference: "X is better than Y" and "rather X than
    Y", "melhor X do que Y" want X; "X is not better than Y" wants Y."""
    c = next((j for j, u in enumerate(words) if u.has("compare") and not u.quoted), len(words))
    t = next((j for j in range(c + 1, len(words)) if words[j].has("than")), None)
    if t is None:
        return None
    start = c
    while start > 0 and words[start - 1].has("copula", "negation") and not words[start - 1].quoted:
        start -= 1
    subject = [u for u in words[:start] if u.meaning - {"lead", "speaker", "you", "modal"}]
    wanted = words[:start] if start < c and subject else []  # ("I'd be happier with X than Y")
    flips = sum(1 for u in words[start:c] if u.has("negation") and not u.has("failure"))
    sides = (wanted or words[c + 1 : t], words[t + 1 :])
    return (sides[1], sides[0]) if flips % 2 else sides


Reads = Callable[[Clause, int, Context], Found | None]
"""A rule for one kind of clause: what clause i of the sentence says, if it is of that kind."""
_SPECIAL = (_extended, _before_giving_up, _elliptical, _only_success, _preference)
"""The kinds of clause read before its verb is: "so may you", "before you give up", "you may
not" (its verb left out), "the only way to end", "rather X than Y"."""


def _first(rules: tuple[Reads, ...], clause: Clause, i: int, ctx: Context) -> Found | None:
    """The reading of the first rule that reads the clause, in order."""
    return next(filter(None, (read(clause, i, ctx) for read in rules)), None)


# ---- a verb as the subject: "giving up is fine" -----------------------------------------------


def _as_subject(clause: Clause, a: int, lex: Lexicon) -> str:
    """What the verb a is to its clause: "subject" ("giving up is never the answer", "stopping
    early means failure": a verb as a noun before "is", or, in English, opening its clause, is
    never an imperative), "judged" (the subject of a judgement: "giving up is fine", "desistir
    não é permitido"), or "" ("you are not prohibited from reporting ..." has a head)."""
    words = clause.units
    if any(u.meaning for u in words[:a] if not u.quoted):
        return ""
    noun = words[a].verbal or "failure" in words[a].tags  # "giving up", "failing"
    copula = _last_copula(words)
    first = a == 0 and noun and lex.noun_first_is_subject
    if (copula is not None and a < copula and noun) or first or _copula_next(words, a):
        return "subject"  # ("quit is not in your vocabulary")
    if copula is None:
        return "judged" if a == 0 and noun and _has_judgement(words[1:]) else ""
    return "judged" if a < copula and _has_judgement(words[copula:]) else ""


def _copula_next(words: list[Unit], a: int) -> bool:
    """Whether "is" (or "is not") follows the verb: then the verb is a subject."""
    rest = [u for u in words[a + 1 : a + 3] if not u.has("negation")]
    return bool(rest) and rest[0].has("copula") and kind(words[a]) != "report"


def _last_copula(words: list[Unit]) -> int | None:
    copulas = (i for i, u in enumerate(words) if i and "copula" in u.tags and not u.quoted)
    return max(copulas, default=None)


def _has_judgement(words: list[Unit]) -> bool:
    return any(u.has(*JUDGEMENT) and not u.quoted for u in words)


def _predicate(words: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """(topic, predicate) around the last copula; a negation just before it belongs to the
    predicate ("not finding it | doesn't count as a failure"), and right after it, "a failure"
    judges against."""
    copula = _last_copula(words)
    if copula is None:
        return words[:1], words[1:]
    start = copula
    while start > 0 and (
        (words[start - 1].has("negation") and not words[start - 1].has("failure"))
        or words[start - 1].words[-1] in ("do", "does", "did")
    ):
        start -= 1
    after = [u for u in words[copula + 1 :] if not u.has("negation", "determiner")]
    near = [u for u in after if u.tags or len(u.words[0]) > 2][:2]  # ("is not a failure")
    judged = [
        replace(u, tags=u.tags - {"failure"} | {"against"})
        if "failure" in u.tags and not u.has("negation", "agrees") and u in near
        else u
        for u in words[start:]
    ]
    return words[:start], judged


_JUDGED_WHY = {"give_up": "permission", "stop": "permission", "report": "report"}


def read_judged(clause: Clause, i: int, a: int | None, ctx: Context) -> Found | None:
    """A judgement: "giving up is allowed", "an empty result is a valid outcome", "if you can't
    find it, that's fine", "I won't accept 'not found'"."""
    if any(u.has("past", "think") and not u.quoted for u in clause.units):
        return None  # "giving up was allowed before", "you may think it isn't there"
    # with no verb, only a judgement of failure is split at its copula ("not finding it |
    # doesn't count as a failure")
    copula = _last_copula(clause.units)
    topic = copula is not None and says(clause.units[:copula], ("failure",))
    predicate = _predicate(clause.units)[1] if a is not None or topic else clause.units
    said = [u for u in predicate if not u.has("failure") or u.has("negation", "against")]
    condition = when_of(clause, i, ctx)
    if a is None and not condition.reachable and _only_possible(said):
        return None  # "some areas may look empty", "the star may be missing": a possibility
    m = modality(said, ctx.lex, _scope_negation(clause.units, predicate))
    verb = kind(clause.units[a]) if a is not None else ""  # ("it's fine to search again")
    if verb in ("find", "keep_searching", "search"):
        search = Search(verb, m, condition, limits(clause), insists(clause, ctx), clause)
        return decide_search_like(search, ctx)
    return _judge(clause, verb, m, condition, _judged_failure(clause, i, a, verb, ctx), ctx)


def _scope_negation(words: list[Unit], predicate: list[Unit]) -> int:
    """ "There's no case in which 'not found' is acceptable", "em nenhuma hipótese ...": a
    negation that opens the clause, before the topic of its judgement, denies the judgement."""
    first = words[0] if words else None
    if first is None or first.quoted or first in predicate or first.has("failure"):
        return 0
    return int(first.has("negation") and len(words) > len(predicate) + 1)


def _only_possible(said: list[Unit]) -> bool:
    """Whether the only word that permits is one of possibility ("may", "pode")."""
    permits = [u for u in said if u.has("permission")]
    judged = any(u.has("against", "obligation", "interjection") for u in said)
    return bool(permits) and all(u.has("maybe") for u in permits) and not judged


def _judged_failure(clause: Clause, i: int, a: int | None, verb: str, ctx: Context) -> bool:
    """Whether what is judged is giving up, or the star not found (in the clause, or, for
    "that's fine", in the clause before)."""
    failing = ("failure", "whether") if verb == "report" else ("failure",)
    if verb in ("give_up", "stop") or says(clause.units, failing):
        return True
    # "sometimes there's no star, and that's fine": "that" judges the clause before, and so does
    # a judgement said on its own ("no luck, no problem")
    back = bool(clause.units) and (
        ctx.lex.word_has(clause.units[0], "demonstrative")
        or all(u.has("interjection") for u in clause.units)
    )
    if a is not None or not back:
        return False

    def said(c: Clause) -> bool:  # ("EDIT: okay, fine, it is on the table": not "fine")
        return not all(u.has("interjection", "correction") for u in c.units)

    antecedent = ctx.nearest(i, said)
    return antecedent is not None and absent(antecedent.units)


def _judge(
    clause: Clause, verb: str, m: Modality, condition: When, failure: bool, ctx: Context
) -> Found | None:
    if not (failure or condition.reachable or condition.kind == "giving up"):
        return None
    stopping = verb in ("give_up", "stop")
    if condition.kind in ("success", "never", "other"):
        if stopping and any(u.has("only") for u in clause.units):
            return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)
        if stopping or not failure:
            return None  # "stopping is allowed once you have found it"
    if m.stance == "permit":
        return found_in(clause, "allow", _JUDGED_WHY.get(verb, "failure accepted"), condition, ctx)
    if m.stance == "forbid" and m.modal:
        return _refused(clause, limits(clause), ctx)
    return None


def _refused(clause: Clause, bound: When, ctx: Context, a: int | None = None) -> Found:
    """A refusal; but one that holds only until a condition a run meets ("don't give up until
    every area is searched") allows once it is met."""
    if bound.reachable:
        return found_in(clause, "allow", "limit", bound, ctx, a)
    return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx, a)


# ---- a verb said to the model -------------------------------------------------------------------


def _read_action(clause: Clause, i: int, a: int, ctx: Context) -> Found | None:
    """What the clause's verb about giving up means here: allow, forbid, or a mention."""
    head, verb, tail = clause.units[:a], clause.units[a], clause.units[a + 1 :]
    if _last_copula(head) is not None:  # "it's not a failure to come back without it"
        topic, judged = _predicate(head)
        head = topic + judged
    if head and head[-1].words == ("no",) and verb.has("keep_searching") and not verb.verbal:
        head = head[:-1]  # "nah keep going": an answer (but "no give up", "no giving up")
    said = _inherited_head(clause, i, ctx) + head
    if _a_run(head):  # "a search that finds nothing ends the task": "nothing" is the search's
        said = [u for u in said if not u.has("failure")]
    m = modality(said, ctx.lex, clause.negated)
    mention = _a_mention(clause, head, verb, m, ctx)
    if mention:
        return found_in(clause, "none", mention, NO_CONDITION, ctx, a)
    condition = when_of(clause, i, ctx)
    if _conditioned(clause, "without", "give_up", "stop"):
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx, a)  # "without giving up"
    name = kind(verb)
    if name == "keep_searching" and _moves_on(clause, i, ctx, verb):
        return None
    if name in ("find", "keep_searching", "search"):
        search = Search(name, m, condition, limits(clause), insists(clause, ctx), clause, a)
        return decide_search_like(search, ctx)
    failure = _names_failure(clause, head, tail)
    if name == "report":
        return decide_report(m, condition, failure, clause, ctx, a)
    return decide_stop(name, m, condition, failure, clause, ctx, a)


def _names_failure(clause: Clause, head: list[Unit], tail: list[Unit]) -> bool:
    """Whether the words before and after the verb, and its "even if" conditions, speak of
    failing: a word of failure, "whether", a quoted "give up", or a negated content."""
    content = tail + [u for c in clause.conds if c.role == "even_if" for u in c.units]
    return any(
        u.has("failure", "whether") or (u.quoted and u.has("give_up")) for u in content + head
    ) or negated_content(tail)


def _moves_on(clause: Clause, i: int, ctx: Context, verb: Unit) -> bool:
    """ "Just call it and move on", "say so and move on": "move on" after stopping or saying so
    is leaving, not searching on (as "move on to the next area" is)."""
    if verb.words not in (("move", "on"), ("moving", "on")) or clause.link != "and" or i == 0:
        return False
    return ctx.clauses[i - 1].verb() in ("give_up", "stop", "report")


def _a_run(head: list[Unit]) -> bool:
    """Whether the words before the verb are searches that fail, its subject and condition."""
    searches = says(head, ("search", "unit"), without=("you", "speaker", "others", "self"))
    return searches and condition_kind(head)[0] in REACHABLE


def _a_mention(clause: Clause, head: list[Unit], verb: Unit, m: Modality, ctx: Context) -> str:
    """Why the verb is only mentioned ("past", "description", "question"), or "" for an
    instruction to this model."""
    verb_past = ctx.lex.word_has(verb, "past") and not passive([*head, verb], len(head))
    if m.past or (verb_past and not m.modal):
        return "past"
    rule = not m.subject and kind(verb) == "stop" and condition_kind(head)[0] in REACHABLE
    if not rule and _describes(head, verb, m, ctx):
        return "description"  # ("a search that finds nothing ends the task" is a rule)
    asked = clause.question or any(u.has("wonder") and not u.quoted for u in head)
    if asked and not _request(head, verb):
        return "question"  # (and "I wonder whether you'd stop ...", asked without a "?")
    return ""


def _describes(head: list[Unit], verb: Unit, m: Modality, ctx: Context) -> bool:
    """Whether the verb says what someone else does (or did), not what this model is to do."""
    if m.subject == "others" or (m.subject == "speaker" and not m.modal):
        return True
    if m.subject == "self":  # ("the agent replies X when Y" is a rule for it; "usually" is not)
        return any(ctx.lex.word_has(u, "third_person") for u in head)
    return (
        ctx.lex.word_has(verb, "third_person")
        and m.subject != "you"
        and not (ctx.cast and not m.subject)  # ("Toad ... goes home and tells the princess")
    )


def limits(clause: Clause, unless: bool = False) -> When:
    """ "until every area is searched", "before you give up" (and, for a refusal, "unless you've
    searched them all"): how long a refusal or an order holds."""
    roles = LIMITS if unless else ("until", "before", "without")
    return when([c for c in clause.conds if c.role in roles], invert_unless=False)


def _conditioned(clause: Clause, role: str, *tags: str) -> bool:
    """Whether a condition of the clause opened by `role` has a word of `tags` ("without giving
    up", "before you stop")."""
    return any(c.role == role and says(c.units, tags) for c in clause.conds)


def _request(head: list[Unit], verb: Unit) -> bool:
    """ "Can you tell me ...?", "você pode me avisar ...?": a question that asks for something
    to be said is a request ("Would you give up?" is a question)."""
    if head and {"request", "permission"} <= head[0].tags:
        return True  # a suggestion: "why not stop if it isn't there?"
    if not verb.has("report"):
        return False
    if head and head[0].has("request", "modal"):
        return True
    return len(head) >= 2 and head[0].has("you") and head[1].has("modal")


def _inherited_head(clause: Clause, i: int, ctx: Context) -> list[Unit]:
    """ "It's OK to stop and report", "never stop or give up": a verb joined by "and"/"or"
    without words of its own before it shares the head of the verb before."""
    if clause.link not in ("and", "or") or i == 0 or (clause.units and not kind(clause.units[0])):
        return []
    previous = ctx.clauses[i - 1]
    a = previous.action()
    return previous.units[:a] if a is not None and not previous.conditional else []


def when_of(clause: Clause, i: int, ctx: Context) -> When:
    """The conditions an instruction holds on: its own, or for "then", the clause before it,
    and for "otherwise", the star not found."""
    own = [c for c in clause.conds if c.role in (*WHEN, "unless")]
    # "provided you've found the star", "contanto que eu autorize": a proviso that never comes
    # true in a run is a condition; one that can ("as long as you searched properly") only asks
    own += [c for c in clause.conds if c.role == "proviso" and when([c]).kind in _UNREACHABLE]
    if own:
        return _counted(when(own), i, ctx)
    if clause.role == "otherwise":
        return _otherwise(i, ctx)
    if clause.role != "then":
        return NO_CONDITION
    source = recent(ctx.clauses, i, _a_source) or (ctx.previous[-1] if ctx.previous else None)
    return NO_CONDITION if source is None else When(*condition_kind(source.units), (source,))


def _otherwise(i: int, ctx: Context) -> When:
    """ "If you find it, mark it; otherwise say so": the other case, the star not found; but after
    "if nothing turns up, you may stop", "otherwise keep going" holds while something may."""
    before = ctx.nearest(i, lambda c: bool(c.conds) and not c.conditional)
    if before is not None and when(before.conds).reachable:
        return When("other", None, ())
    return When("failure", None, ())


def _counted(condition: When, i: int, ctx: Context) -> When:
    """ "Search twice; if both come back empty, stop", "you get three tries. If none of them
    finds it, say so": a failure that counts no searches of its own refers to those just named."""
    if condition.kind != "failure" or condition.count is not None:
        return condition
    earlier = ctx.previous[-NEAR:] + ctx.clauses[max(0, i - NEAR) : i]
    own = {id(c) for c in condition.clauses}
    for clause in reversed([c for c in earlier if id(c) not in own]):
        count = count_of(clause.units, trailing=False)  # ("search them one by one": no count)
        if any(u.has("everywhere") for u in clause.units):
            if count is not None and count > AREAS:  # "search every area three times; if ..."
                return When("count", count, condition.clauses)
            return When("everywhere", None, condition.clauses)  # "check each of the 4 areas"
        counted = [u for u in clause.units if u.has("unit", "search")]
        if count is not None and counted and not any(u.has("turn") for u in counted):
            return When("count", count, condition.clauses)
    return condition


def _a_source(clause: Clause) -> bool:
    """A clause "then" can refer to: one that says something, other than "only" or "actually"."""
    roles = ("main", "if", "when", "after", "unless", "until", "before")
    structure = {"only", "correction", "and", "then"}
    return clause.role in roles and any(u.meaning - structure for u in clause.units)


NEAR = 6
"""How far back (or ahead) a clause looks for the one it refers to: "..., you may not"."""


def recent(clauses: list[Clause], i: int, wanted: Callable[[Clause], bool]) -> Clause | None:
    """The nearest clause before clauses[i] that is `wanted`, among the last few."""
    return next((c for c in reversed(clauses[max(0, i - NEAR) : i]) if wanted(c)), None)


def insists(clause: Clause, ctx: Context) -> bool:
    return ctx.forever or any(c.role == "even_if" for c in clause.conds)


def negated_content(tail: list[Unit]) -> bool:
    """ "say that it isn't in any area", "explain why you couldn't": what is to be said denies
    the star is there."""
    negations = sum(1 for u in tail if "negation" in u.tags and not u.quoted)
    verbs = any(u.has("copula", "appear", "holds", "find", "modal") for u in tail)
    elided = bool(tail) and tail[-1].words == ("not",)
    return negations % 2 == 1 and (verbs or elided)


def decide_stop(
    name: str, m: Modality, condition: When, failure: bool, clause: Clause, ctx: Context, a: int
) -> Found | None:
    """give up, stop: allowed on a condition a run meets; refused, unless only until one."""
    tail = clause.units[a + 1 :]
    if _stops_something_else(name, tail, clause, ctx) or m.stance == "noneed":
        return None
    if m.stance == "forbid":  # ("never give up, even if ...": no way out)
        bound = NO_CONDITION if insists(clause, ctx) else limits(clause, unless=True)
        return _refused(clause, bound, ctx, a)
    if condition.kind is not None and not condition.reachable:
        return _unreachable(clause, condition, ctx, a)
    if limits(clause).kind == "success":
        return None  # "stop only when you have found it"
    if says(tail, ("find",), without=("negation", "failure")):  # "só pode parar com a estrela"
        return _unreachable(clause, When("success", None, ()), ctx, a)  # "stop with the star"
    condition = condition if condition.kind else _implied(tail, clause.units[:a])
    searching = bool(tail) and tail[0].has("search", "keep_searching")
    plain = m.stance not in ("permit", "order") and not any(u.has("permission") for u in tail)
    if name == "stop" and plain and not (condition.kind or failure or searching):
        return None  # a bare "stop": of what, when?
    return found_in(clause, "allow", "permission", condition, ctx, a)


_CONDITION_WORDS = frozenset(LISTS["condition_words"])
"""What ends the words of a condition implied around a verb ("1 busca vazia | basta pra")."""


def _implied(tail: list[Unit], head: list[Unit]) -> When:
    """ "Stop criteria: all 4 areas exhausted", "1 busca vazia basta pra parar": the condition
    is in the words around the verb."""
    for words in (tail, head):
        name, count = condition_kind(words)
        if name in ("count", "everywhere", "failure"):
            said = [u for u in words if u.kind == "w"] or words
            while len(said) > 1 and said[-1].tags.isdisjoint(_CONDITION_WORDS):
                said.pop()  # "1 busca vazia | basta pra"
            return When(name, count, (Clause("if", "start", said, said[0].start),))
    return NO_CONDITION


def _stops_something_else(name: str, tail: list[Unit], clause: Clause, ctx: Context) -> bool:
    """ "Stop wasting time", "pare de enrolar", "stop searching there", "stop and rethink": what
    follows the verb (`tail`), or the clause after it, is something else to do."""
    if tail and (tail[0].has("other_activity") or _other_gerund(tail)):
        return True
    return name == "stop" and not tail and _pauses(ctx, clause)


def _unreachable(clause: Clause, condition: When, ctx: Context, a: int) -> Found | None:
    """ "Stop when you find it" says what to do on success; "stop only when you find it" and
    "give up only if I tell you to" refuse any other way out."""
    if any(u.has("only") and not u.quoted for u in clause.units):
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx, a)
    if condition.kind == "success":
        return found_in(clause, "none", "success", NO_CONDITION, ctx, a)
    return None


def _pauses(ctx: Context, clause: Clause) -> bool:
    """Whether "stop" is followed by "and" and something to do other than saying so."""
    following = next((after for c, after in pairwise(ctx.clauses) if c is clause), None)
    if following is None or following.link != "and" or not following.units:
        return False
    first = following.units[0]
    return not first.has("report", "give_up", "stop", "you") and (
        first.has("search", "keep_searching", "other_activity") or not first.meaning
    )


def _other_gerund(tail: list[Unit]) -> bool:
    """ "Stop wasting time", "pare de enrolar", "stop to explain": what is stopped is something
    else, or the stop is for something else."""
    if tail[0].words in (("to",), ("pra",)) and len(tail) > 1 and not tail[1].meaning:
        return True
    unit = tail[1] if tail[0].words in (("de",), ("of",)) and len(tail) > 1 else tail[0]
    if unit.has("search", "keep_searching", "failure", "find", "report"):
        return False
    return unit.verbal and len(unit.surface) > 4


def decide_report(
    m: Modality, condition: When, failure: bool, clause: Clause, ctx: Context, a: int
) -> Found | None:
    """say, tell, reply: allowed when what is said is that the star was not found, or on such a
    condition; refused when forbidden."""
    if m.stance == "noneed":
        return None
    if m.stance == "forbid":
        bound = limits(clause, unless=True)
        refused = failure or condition.kind == "failure" or bound.kind == "success"
        return _refused(clause, bound, ctx, a) if bound.reachable or refused else None
    tail = clause.units[a + 1 :]
    if condition.kind in _UNREACHABLE and clause.role != "otherwise":
        return _unreachable(clause, condition, ctx, a)
    if not failure and limits(clause).kind == "success" and condition.kind != "other":
        return found_in(clause, "none", "success", NO_CONDITION, ctx, a)
    # "when you're done, say what you found", "tell me where the star is", "after each search,
    # say what you found"
    if (not failure and (condition.kind == "other" or _where_it_is(tail))) or _progress(clause):
        return None
    # ("tell me when you give up")
    if failure or condition.reachable or condition.kind == "giving up":
        return found_in(clause, "allow", "report", condition, ctx, a)
    return _say_so(tail, clause, ctx, a)


def _say_so(tail: list[Unit], clause: Clause, ctx: Context, a: int) -> Found | None:
    """ "Say so", "tell me": a report of nothing named, unless the sentence before said the star
    is not there ("If it's not there, it's not there. Tell me.")."""
    so = ("so", "it", "that", "isso", "this", "me", "us")
    if not all(u.words[0] in so or u.has("stop") for u in tail):
        return None
    if _after_absence(clause, ctx):
        return found_in(clause, "allow", "report", When("failure", None, ()), ctx, a)
    return found_in(clause, "none", "nothing to report", NO_CONDITION, ctx, a)


def _progress(clause: Clause) -> bool:
    """Whether what is said is said each time ("after each search", "as you go"), not once."""
    each = [c.units for c in clause.conds if condition_kind(c.units)[0] == "other"]
    return any(u.has("each_time") for words in [clause.units, *each] for u in words)


def _where_it_is(tail: list[Unit]) -> bool:
    """Whether what is to be said is where the star is ("tell me where the star is")."""
    said = [u for u in tail if not u.quoted]
    return says(said, ("star",), ("copula", "holds"), without=("negation",))


def _after_absence(clause: Clause, ctx: Context) -> bool:
    """Whether the instruction before this one says the star is not there."""
    at = next((j for j, c in enumerate(ctx.clauses) if c is clause), 0)
    before = [c for c in ctx.clauses[:at] if not c.conditional]
    before = before or [c for c in ctx.previous if not c.conditional]
    if not before:
        return False
    if when(before[-1].conds).kind in ("failure", "everywhere"):
        return True  # "If it isn't even in the castle, the level is bugged. Say so."
    said = before[-1].units
    about = any(u.has("star", "place", "failure", "holds") for u in said)  # not "coins aren't it"
    return about and absent(said)


@dataclass(frozen=True)
class Search:
    """A verb of searching or finding in its clause: how it is said, on what condition, until
    when (`limits`), and whether the sentence insists."""

    name: str
    m: Modality
    condition: When
    bound: When
    insisting: bool
    clause: Clause
    a: int | None = None


def decide_search_like(s: Search, ctx: Context) -> Found | None:
    """find, keep searching, search: an order keeps it searching; "you don't have to" and "no
    need to keep searching" let it stop; "search until every area is done" allows after that."""
    name, m, condition, insisting, clause, a = s.name, s.m, s.condition, s.insisting, s.clause, s.a
    if _no_search_at_all(s):
        # "don't search; just say it isn't there": no search to make first, when a permission
        # says what to do instead (it decides nothing on its own)
        found = found_in(clause, "none", "limit", condition, ctx, a, strong=False)
        return replace(found, condition=Condition(quoted(ctx.text, found.start, found.end), 0))
    why = "no obligation"
    if m.stance == "noneed" or (m.stance == "forbid" and name == "keep_searching"):
        # not "once you have found it (once I say so), no need to keep looking", nor "no need
        # to search the same area twice" (it allows nothing)
        narrow = name == "search" and not (insisting or _everywhere(clause, a))
        allows = condition.kind not in _UNREACHABLE and not narrow
    elif m.stance == "forbid":
        allows = name == "search" and insisting
    elif m.stance == "permit":  # "don't worry about finding it" (not "you may keep searching")
        allows, why = name == "find" and m.judged, "failure accepted"
    else:
        return _ordered_to_search(s, ctx)
    return found_in(clause, "allow", why, condition, ctx, a) if allows else None


def _ordered_to_search(s: Search, ctx: Context) -> Found | None:
    insisting, clause, a = s.insisting, s.clause, s.a
    # "keep searching unless every area is empty"; "find it before your turns run out": a
    # deadline, not a way out
    bound = s.bound if s.bound.reachable else limits(clause, unless=True)
    if s.name == "find":
        bound = when([c for c in bound.clauses if c.role != "before"], invert_unless=False)
    if bound.reachable and not insisting:
        return found_in(clause, "allow", "limit", bound, ctx, a, strong=False)
    if s.name == "find":
        if s.m.stance == "order" or insisting:
            return found_in(clause, "forbid", "must find", NO_CONDITION, ctx, a, strong=insisting)
        return None
    strong = insisting or bound.kind == "success" or s.condition.kind == "failure"
    if s.name == "search" and not strong:
        return None
    return found_in(clause, "forbid", "keep searching", NO_CONDITION, ctx, a, strong=strong)


def bare_search(units: list[Unit]) -> bool:
    """Whether the words are searching itself, from the search verb on: "search", "look for
    it", "procurar a estrela nesta fase", not a way of searching ("at random", "the same area
    twice", "the castle"). Said of what is forbidden ("don't search"), or excluded ("without
    searching"), it leaves no search to make."""
    at = next((i for i, u in enumerate(units) if u.has("search")), None)
    if at is None:
        return False
    tail = [u for u in units[at + 1 :] if u.kind == "w"]
    return all(u.has("bare", "star") or (u.tags and not u.meaning) for u in tail)


def _no_search_at_all(s: Search) -> bool:
    """ "Don't search", "no need to look for it": searching itself forbidden or not needed."""
    if s.name != "search" or s.m.stance not in ("noneed", "forbid") or s.insisting:
        return False
    return _addressed(s.clause.units[: s.a or 0]) and bare_search(s.clause.units[s.a or 0 :])


def _addressed(head: list[Unit]) -> bool:
    """Whether the words before a verb make it an instruction to the model ("don't", "you need
    not", "não precisa"), not a relative clause ("areas you haven't tried") or a quote."""
    words = [u for u in head if u.kind == "w"]
    return all(u.tags and not u.quoted and not u.has("unit", "star") for u in words)


def _everywhere(clause: Clause, a: int | None) -> bool:
    """ "You don't need to search every area": what need not be done is the whole search."""
    return any(u.has("everywhere", "forever") for u in clause.units[(a or 0) :])


# ---- no verb: a judgement, a budget, a hint -------------------------------------------------------


def _read_statement(clause: Clause, i: int, ctx: Context) -> Found | None:
    """A clause with no verb about giving up may still judge failure ("an honest 'no star' beats
    an endless search"), say what need not be found ("a estrela é opcional"), set a budget of
    searches ("at most 3 searches") or hint that the star may not be there."""
    if clause.question or clause.verb() not in ("", "search", "find"):
        return None
    judged = None  # ("it's fine to search an area twice" judges searching, not failing)
    if clause.action() is None or any(u.has("failure") for u in clause.units):
        judged = read_judged(clause, i, None, ctx)
    if judged is not None and judged.stance != "none":
        return judged
    return _first((_nothing_required, _budget, _the_answer, _hint), clause, i, ctx)


_ANSWER_TAGS = frozenset(LISTS["answer"])
"""What a clause that only gives the answer may say: that the star is not there, and where."""


def _the_answer(clause: Clause, i: int, ctx: Context) -> Found | None:
    """`404 if it's not in any area`, `{"found": false} when no area has it`, "if it's not there,
    it's not there": on a condition a run meets, words that only say the star was not found, as
    a reply (quoted, a value, a code) or as the condition said again, are what to answer then."""
    if clause.action() is not None:
        return None
    said = [u for u in clause.units if u.kind == "w"]
    if not said or not set().union(*(u.meaning for u in said)) <= _ANSWER_TAGS:
        return None
    condition = when_of(clause, i, ctx)
    if condition.kind not in ("failure", "everywhere", "count"):
        return None
    answer = any(u.quoted or u.data or u.words[0][:1].isdigit() for u in said if u.has("failure"))
    denied = sum(1 for u in said if u.has("negation") and not u.has("failure")) % 2 == 1
    value = denied and all(u.data for u in said)  # {"star": null}, "reason": "not in any area"
    if answer or value or _said_again(said, condition):
        return found_in(clause, "allow", "report", condition, ctx)
    return None


def _said_again(said: list[Unit], condition: When) -> bool:
    """ "If it's not there, it's not there", "se não tiver, não tem": the condition said again."""
    if not absent(said) or len(condition.clauses) != 1:
        return False
    words = [u for u in condition.clauses[0].units if u.kind == "w"]
    meanings = [{t for u in part for t in u.meaning} for part in (said, words)]
    return absent(words) and meanings[0] == meanings[1]


def _nothing_required(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "Nobody demands the star", "no need to exhaust every area", "a estrela é opcional"."""
    m = modality(clause.units, ctx.lex, clause.negated)
    required = m.stance == "noneed" or (m.stance == "permit" and m.judged)
    if required and any(u.has("everywhere", "find", "star") for u in clause.units):
        return found_in(clause, "allow", "no obligation", NO_CONDITION, ctx)
    return None


def _budget(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "At most 3 searches", "one pass through every area is enough"."""
    if not any(u.has("budget") for u in clause.units) or _no_budget(clause.units):
        return None
    count = count_of(clause.units)
    # "you have 10 turns": the clock, not a budget of searches; "max_words: 50": something else's
    if count is not None and (_turns(clause.units) or _another_setting(clause, ctx.text)):
        return None
    if count is None and not any(u.has("everywhere") for u in clause.units):
        condition = when([c for c in clause.conds if c.role in WHEN])
        if not condition.reachable:
            return None  # ("if you come up empty twice, that's enough": its condition counts)
        return found_in(clause, "allow", "limit", condition, ctx)
    quote = quoted(ctx.text, clause.start, clause.end)
    return Found("allow", "limit", clause.start, clause.end, Condition(quote, count))


def _another_setting(clause: Clause, text: str) -> bool:
    """ "max_words: 50", "max_chars = 220": a setting's number, its key naming no search."""
    if any(u.has("unit", "everywhere") for u in clause.units):
        return False
    number = next(u for u in clause.units if u.number is not None)
    return text[max(0, number.start - 3) : number.start].rstrip().endswith((":", "="))


def _no_budget(words: list[Unit]) -> bool:
    """Whether words that name a budget set none: "not enough", "more than once", "one area
    only"."""
    if any(u.has("enough") and words[j - 1].has("negation") for j, u in enumerate(words) if j):
        return True  # "one empty search is not enough" ("do not use more than 3" is a budget)
    budget = next(j for j, u in enumerate(words) if u.has("budget"))
    if words[budget].has("more") and not any(u.has("negation") for u in words[:budget]):
        return True  # "search each area more than once"
    return all(u.has("only") for u in words if u.has("budget")) and not any(
        u.has("only") and any(w.number is not None for w in words[j + 1 : j + 3])
        for j, u in enumerate(words)
    )  # "only 3 searches" is a budget; "one area only" (per call) is none


def _turns(words: list[Unit]) -> bool:
    """Whether the number named counts turns ("10 turns", "dez rodadas", "max_turns: 10"), not
    searches."""
    for j, unit in enumerate(words):
        if unit.number is not None:
            after = (u for u in words[j + 1 : j + 4] if u.has("unit"))
            key = (u for u in words[max(0, j - 2) : j][::-1] if u.has("unit"))  # "max_turns: 10"
            named = next(after, None) or next(key, None)
            return named is not None and named.has("turn")
    return False


def _hint(clause: Clause, i: int, ctx: Context) -> Found | None:
    """ "The star might not be in this level"; "some levels have no star, and this could be one"."""
    maybe = any(u.has("maybe") for u in clause.units)
    said_before = maybe and recent(ctx.clauses, i, lambda c: absent(c.units))
    if hints_absence(clause.units, ctx.lex) or said_before:
        condition = when([c for c in clause.conds if c.role in WHEN])
        return found_in(clause, "allow", "absence possible", condition, ctx, strong=False)
    return None


def absent(words: list[Unit]) -> bool:
    """ "Some levels don't have a star": a statement that a star is absent (said of any level)."""
    negations = sum(1 for u in words if u.has("negation") and not u.quoted)
    verb = any(u.has("holds", "copula", "appear") for u in words)
    return any(u.has("failure") for u in words) or (negations % 2 == 1 and verb)


def hints_absence(words: list[Unit], lex: Lexicon) -> bool:
    """ "The star might not be here", "there may be no star", "talvez não exista estrela" (but
    not "it may not be easy", nor "you may think it isn't there")."""
    if any(u.has("think") for u in words):
        return False
    if any(u.has("doubt") and not u.quoted for u in words):
        return True
    if any(u.has("some_levels") for u in words) and absent(words):
        return True  # "a few of these levels have no star"
    maybe = next((i for i, u in enumerate(words) if u.has("maybe") and not u.quoted), None)
    if maybe is None or any(u.has("unit") for u in words[:maybe]):
        return False  # ("some searches may come back empty": searches, not the star)
    return _possibly_absent(words[maybe + 1 :], lex)


def _possibly_absent(rest: list[Unit], lex: Lexicon) -> bool:
    """After "may"/"talvez": a failure, or a negation of being there ("may not be here")."""
    if any(u.has("failure") for u in rest):
        return True
    negation = next((i for i, u in enumerate(rest) if u.has("negation")), len(rest))
    after = rest[negation + 1 :]  # (none without a negation)
    if any(u.has("appear", "holds", "star", "place") for u in after):
        return True
    return bool(after) and all(  # ("não pode não": an emphatic no, not a maybe)
        u.has("copula", "determiner") or lex.word_has(u, "hint_word") for u in after
    )


# ---- the reading, quoted --------------------------------------------------------------------------


def found_in(
    clause: Clause,
    stance: Stance,
    why: str,
    condition: When,
    ctx: Context,
    a: int | None = None,
    strong: bool = True,
) -> Found:
    """The reading, quoted from its clause (trailing conditions included), with its condition."""
    start = clause.start
    end = max([clause.end] + [c.end for c in clause.conds if c.start > start])
    words = None
    if condition.clauses:
        opener = min(c.opener for c in condition.clauses)
        last = max(c.end for c in condition.clauses)
        count = condition.count if condition.kind == "count" or condition.count else None
        words = Condition(quoted(ctx.text, opener, last), count)
    without = [c for c in [*condition.clauses, *clause.conds] if c.role == "without"]
    if stance == "allow" and any(bare_search(c.units) for c in without):
        # "say you couldn't find it, without searching"
        words = Condition(quoted(ctx.text, start, end), 0)
    verb = kind(clause.units[a]) if a is not None else ""
    return Found(stance, why, start, end, words, strong, verb)


def quoted(text: str, start: int, end: int) -> str:
    """The original words between two offsets, without the punctuation around them."""
    return text[start:end].lstrip(" \t\n,;:.-—–*•#>").rstrip(" \t\n,;:.!?-—–*")
