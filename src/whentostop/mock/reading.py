"""The reader of intent's grammar, part 3: a whole text, sentence after sentence. Conditions
stated as questions ("No star? Say so."), lines under a heading, a condition left for its own
sentence ("Never give up. Unless every area is empty."), and what later words do to earlier
ones: "forget that", a bare "don't", a "No —" that corrects, "Give up? Sure.".
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .clauses import (
    Clause,
    attach,
    bare_conditions,
    bare_negation,
    clauses,
    condition_kind,
    kind,
    sentences,
    under_heading,
    when,
)
from .lexicon import LISTS, Lexicon, Unit, says, text_units
from .meaning import (
    NEAR,
    NO_CONDITION,
    Condition,
    Context,
    Found,
    found_in,
    modality,
    negated_content,
    quoted,
    read_clause,
    recent,
)


@dataclass
class _Reader:
    """Where a text's reading is, between sentences: its readings so far (a "forget that" sets
    aside every decision before it) and what the sentences before leave open."""

    text: str
    lex: Lexicon
    found: list[Found] = field(default_factory=list)
    """The readings so far."""
    floor: int = 0
    """Readings before this index were taken back ("forget that"): they decide nothing."""
    previous: list[Clause] = field(default_factory=list)
    before: int = 0
    """How many readings there were before the previous sentence."""
    merged: bool = False
    """Whether the previous sentence already took in the one after it."""
    pending: Clause | None = None
    """A question that is the condition of the next sentence ("No star?")."""
    topic: list[Unit] = field(default_factory=list)
    """The words of the heading the lines are under, if it is about stopping or saying so."""
    cast: bool = False
    """Whether the model was given a role ("You are Toad", "the agent"): "he" is then the model."""
    antecedent: str = ""
    """Who was named last: "self" (the model, its role) or "others"; a "he"/"ela" is them."""
    corrected: bool = False
    """Whether a correction was made ("EDIT:", "Actually,"): every instruction after it is part
    of it, and an order to keep searching then decides as firmly as a permission."""
    retired: bool = False
    """Whether the lines read are a version marked as no longer in use ("=== v1 (old) ===")."""
    retired_until: int = 0
    """Where the line of a retired version's label ends ("v2 (deprecated): you may stop.")."""

    def kept(self) -> list[Found]:
        taken_back = [f for f in self.found[: self.floor] if f.stance == "none"]
        return taken_back + self.found[self.floor :]

    def sentence(self, sentence: list[Unit], end: str) -> None:
        if self._set_aside(sentence):
            return
        self.cast = self.cast or _casts(sentence)
        self.antecedent = _pronouns(sentence, self.antecedent, self.cast)
        if end == "t":
            self.topic = []
            return
        found = clauses(self._under_topic(sentence, end), end == "?", self.lex)
        if end == "?" and _condition_question(found):
            asked = [u for c in found for u in c.units]
            self.pending = Clause("if", "start", asked, found[0].opener)
            return  # "No star? Say so.": the question is the next sentence's condition
        if self.pending is not None:
            found.insert(0, self.pending)
            self.pending = None
        bare_conditions(found, self.lex)
        _judgement_first(found, self.lex)
        found = self._with_the_sentence_before(found)
        attach(found)
        before = len(self.found)
        self.corrected = _read_sentence(found, self)
        corrects = self.corrected or any(u.has("correction") for u in sentence)
        if corrects and len(self.found) == before:
            _recount(sentence, self)
        self.previous = found

    def _under_topic(self, sentence: list[Unit], end: str) -> list[Unit]:
        """A line under a heading about stopping or saying so is read under it; a heading sets
        the topic of the lines under it."""
        if end != "h":
            return under_heading(self.topic, sentence)
        heading = [u for u in sentence if u.kind == "w"]
        if any(kind(u) in ("give_up", "stop", "report") for u in heading):
            self.topic = heading
        elif any(u.meaning - {"number"} for u in heading):
            self.topic = []  # (a heading that says nothing, "any_of:", keeps the one above)
        return sentence

    def _set_aside(self, sentence: list[Unit]) -> bool:
        """ "v2 (deprecated — do not use)": what a retired version says is no instruction."""
        # its words, but for the "=" of a line of them ("=== v1 ===", read "means")
        words = [u for u in sentence if u.kind == "w" and self.text[u.start : u.start + 1] != "="]
        label = _version_label(sentence, words, self.text)
        if label is not None:
            retired = _retired(label)
            if label[-1] is words[-1]:
                self.retired = retired  # a label on its own line: its lines, to the next label
            elif retired:
                end = label[-1].end  # (looked for within a line's length: linear time)
                line = self.text.find("\n", end, end + _LINE_CHARS)
                self.retired_until = line if line >= 0 else end + _LINE_CHARS
        return bool(sentence) and (self.retired or sentence[0].start < self.retired_until)

    def _with_the_sentence_before(self, found: list[Clause]) -> list[Clause]:
        """ "Never give up. Unless every area is empty.": a sentence that is only a condition is
        the condition of the sentence before (which is read again with it)."""
        said = [c for c in found if not _aside(c)]  # ("Correction: only if ...")
        if not self.previous or self.merged or not said or not all(c.conditional for c in said):
            self.before, self.merged = len(self.found), False
            return found
        self.merged = True
        found = self.previous + said
        for c in found:
            c.conds, c.negated = [], 0
        del self.found[max(self.before, self.floor) :]
        return found


_LABEL_WORDS = 8
_LINE_CHARS = 2000
_LINE_MARKS = " \t#=*-•>|[("
_NOT_A_LABEL = frozenset(LISTS["not_a_label"])
"""What a label never says: a sentence about a version ("my old prompt said ...") is none."""


def _aside(clause: Clause) -> bool:
    """ "Correction:", "on second thought", "though": a clause that only frames the others."""
    return bool(clause.units) and all(
        u.has("correction", "but", "discourse", "only") or "softener" in u.tags
        for u in clause.units
    )


def _version_label(sentence: list[Unit], words: list[Unit], text: str) -> list[Unit] | None:
    """The label of a version that opens a line or is followed by a colon ("v2 (deprecated):",
    "=== PROMPT v1 (archived) ===", "Revisão 3.0 (vigente)"): its words (`words`: but a "=") up to the
    colon, or the whole line when short."""
    colon = next((u.start for u in sentence if u.kind == ":"), None)
    label = [u for u in words if colon is None or u.start < colon]
    if not label or len(label) > _LABEL_WORDS or any(u.tags & _NOT_A_LABEL for u in label):
        return None
    if colon is None and not _opens_a_line(words[0].start, text):
        return None
    return label if _versioned(label[0]) or any(u.has("version") for u in label[:3]) else None


def _versioned(unit: Unit) -> bool:
    """ "v2", "v1.1": a version's number."""
    return unit.words[0][:1] == "v" and unit.words[0][1:2].isdigit()


def _retired(label: list[Unit]) -> bool:
    """Whether a label marks its version as no longer in use, after naming it ("v2 (old)")."""
    named = next(i for i, u in enumerate(label) if u.has("version") or _versioned(u))
    return any(u.has("retired") for u in label[named + 1 :])


def _opens_a_line(start: int, text: str) -> bool:
    """Whether only marks ("=== ", "### ", "- ") stand between the line's start and `start`."""
    before = text[max(0, start - 8) : start]
    line = before.rsplit("\n", 1)
    in_sight = len(line) > 1 or start <= len(before)  # the line starts in `before`
    return in_sight and not line[-1].strip(_LINE_MARKS)


def read_text(text: str, lex: Lexicon, parts: list[list[Unit]] | None = None) -> list[Found]:
    """Every reading of one text (a system prompt or a task), in order; a later correction or a
    bare "don't" acts on the readings before it. Each step is linear in the text read. `parts`:
    the text's units (`text_units`), when they were found already."""
    reader = _Reader(text, lex)
    for found in text_units(text, lex) if parts is None else parts:
        for sentence, end in sentences(found):
            reader.sentence(sentence, end)
    return reader.kept()


def _recount(sentence: list[Unit], reader: _Reader) -> None:
    """ "Update: change 6 to 12", "Correção: 1 não, 10", "'20' was a typo, I meant 2", "Mudei:
    agora só depois de 30": a correction that says no more than a number sets the count of the
    last permission that counts its searches, when it names that count too or says what the new
    one counts ("after", "searches")."""
    numbers = [u.number for u in sentence if u.number is not None]
    allowed = [f for f in reader.found[reader.floor :] if f.stance == "allow"]
    counting = [(f, f.condition.searches) for f in allowed if f.condition is not None]
    counted, old = next(((f, n) for f, n in reversed(counting) if n is not None), (None, None))
    if counted is None or not numbers:
        return
    counts = any(u.has("after", "unit") for u in sentence if u.number is None)
    if (old in numbers[:-1] and numbers[-1] != old) or (len(numbers) == 1 and counts):
        said = [u for u in sentence if u.kind == "w"]
        words = quoted(reader.text, said[0].start, said[-1].end)
        counted.condition = Condition(words, numbers[-1])  # quoted: the words that count


def _casts(sentence: list[Unit]) -> bool:
    """ "Play the role of Toad", "You are Captain Ruby, a pirate", "o agente deve ...": the model
    is given a role, or named in the third person."""
    words = [u for u in sentence if u.kind == "w"]
    return any(u.has("cast", "self") for u in words) or (
        len(words) > 2
        and words[0].has("you")
        and words[1].has("copula")
        and not any(u.has("negation", "permission", "obligation", "against") for u in words)
    )


_WHO = frozenset(["pronoun", "self", "cast", "others"])


def _pronouns(sentence: list[Unit], antecedent: str, cast: bool) -> str:
    """ "Toad never lies: if he has looked everywhere, he says so": once the model plays a role,
    a pronoun is the model, unless someone else was named since ("my kid quits; he ...")."""
    antecedent = antecedent or ("self" if cast else "")
    for unit in sentence:
        if unit.tags.isdisjoint(_WHO):
            continue
        if unit.has("pronoun"):
            if antecedent == "self":
                unit.tags = (unit.tags - {"others"}) | {"self"}
        elif unit.has("self", "cast"):
            antecedent = "self"
        elif unit.has("others"):
            antecedent = "others"
    return antecedent


def _judgement_first(found: list[Clause], lex: Lexicon) -> None:
    """ "Não se admitirá, em hipótese alguma, relatório de insucesso": a judgement said before
    what it judges, set apart by commas, judges the first clause after it with no verb."""
    for j, clause in enumerate(found[:-1]):
        said = [u for u in clause.units if not lex.word_has(u, "filler")]
        judges = says(said, ("against",), without=("failure",))
        if clause.role != "main" or not judges or clause.action() is not None:
            continue
        rest = [c for c in found[j + 1 :] if bare_negation(c, lex) is None]
        if rest and _judged_next(rest[0]):
            rest[0].units[:0] = clause.units
            del found[j]
            return


def _judged_next(clause: Clause) -> bool:
    """Whether a clause set apart by a comma only names a failure: what a judgement before it
    judges."""
    return (
        clause.role == "main"
        and clause.link == "punct"
        and not clause.conds
        and any(u.has("failure") for u in clause.units)
    )


def _condition_question(found: list[Clause]) -> bool:
    """ "No star?", "Can't find it?", "Everything empty?": a question that states a condition
    (not a request, not about giving up itself) sets the condition of what follows."""
    conditions = ("failure", "everywhere", "count", "some")
    asked = [u for c in found if c.question for u in c.units]
    if not asked or condition_kind(asked)[0] not in conditions:
        return False  # "An empty result is fine, okay?": the question is only the tag
    words = [u for c in found for u in c.units]
    if words[0].has("request", "question"):
        return False
    if any(u.has("give_up", "stop", "report", "keep_searching") and not u.quoted for u in words):
        return False
    return condition_kind(words)[0] in conditions


def _read_sentence(found: list[Clause], reader: _Reader) -> bool:
    """The readings of one sentence's clauses, added to the reader's; whether a correction is
    in effect after it."""
    corrected = reader.corrected
    forever = any(u.has("forever") for c in found for u in c.units)
    ctx = Context(reader.text, reader.lex, found, reader.previous, forever, reader.cast)
    here: list[Found] = []
    # "Actually, keep searching": a correction is meant, however it is said, until the text ends
    for i, clause in enumerate(found):
        corrected = corrected or _corrects(found, i)
        if i and _quotes_someone(found[i - 1], ctx.text):
            break  # "My manager always says, 'It's fine to stop'": their words, not an instruction
        if clause.role == "cancel":
            reader.floor, here, corrected = len(reader.found), [], True
        elif bare_negation(clause, ctx.lex) is not None:
            _carry_negation(found, i, here, reader, ctx)
        elif not clause.conditional:
            reading = _read(clause, i, ctx, here, reader)
            if reading is not None:
                reading.strong = reading.strong or (corrected and reading.stance != "none")
                reading.strong = reading.strong or _answers(reading, clause, here)
                here.append(reading)
    reader.found.extend(_merged(here))
    return corrected


_QUOTES = "\"'“‘«"


def _quotes_someone(clause: Clause, text: str) -> bool:
    """Whether the clause introduces someone else's words: someone named before a verb of
    saying, then a comma or colon and a quotation mark ("A player once wrote in a review,
    \"...\"")."""
    said = next((j for j, u in enumerate(clause.units) if u.has("report")), 0)
    who = clause.units[:said]  # (no one without a verb of saying)
    if not any(u.has("others") for u in who) or any(u.has("you", "negation") for u in who):
        return False
    after = text[clause.end : clause.end + 8].lstrip()
    return after[:1] in (",", ":") and after[1:].lstrip()[:1] in _QUOTES


def _answers(reading: Found, clause: Clause, here: list[Found]) -> bool:
    """ "Empty areas are normal, keep going": an order to go on, on no condition, right after
    a permission in its sentence, is what to do about it."""
    return (
        reading.stance == "forbid"
        and not clause.conds
        and clause.role in ("main", "then")
        and any(f.stance == "allow" for f in here)
    )


def _read(clause: Clause, i: int, ctx: Context, here: list[Found], reader: _Reader) -> Found | None:
    kept = here or reader.found[reader.floor :]
    found = _answer(kept[-1] if kept else None, clause, ctx) or read_clause(clause, i, ctx)
    return found or _report_continued(clause, i, ctx, here)


def _corrects(found: list[Clause], i: int) -> bool:
    """ "Actually, ...", "Correction: ...", and "No — keep going": the words after correct."""
    clause = found[i]
    words = [w for u in clause.units for w in u.words]
    lone_no = words in (["no"], ["nao"], ["nope"]) and i + 1 < len(found)
    correction = bool(clause.units) and all(u.has("correction") for u in clause.units)
    return clause.link == "correction" or correction or lone_no


def _carry_negation(
    found: list[Clause], i: int, here: list[Found], reader: _Reader, ctx: Context
) -> None:
    """ "Never, ever give up": a bare negation carries on to the instruction after it (a lone
    "no" before one answers, it does not flip it); at the end, "don't." takes back the reading
    before it; "Você não: segue procurando" sets one against another."""
    clause = found[i]
    following = _negated_next(found, i, ctx)
    words = [w for u in clause.units for w in u.words]
    rest = [u for c in found[i + 1 :] for u in c.units]
    answer = following is None and words in (["no"], ["nao"]) and rest
    if answer and not any(u.has("correction", "obligation") for u in rest):
        return  # "No, the star won't mind": a "no" that opens an answer takes nothing back
    if following is None or any(u.has("copula") for u in clause.units):
        taken, floor = (here, 0) if here else (reader.found, reader.floor)
        _reverse(taken, floor, clause)
        return
    if following.link != "colon" and not following.conditional and words not in (["no"], ["nao"]):
        following.negated += bare_negation(clause, ctx.lex) or 0


def _negated_next(found: list[Clause], i: int, ctx: Context) -> Clause | None:
    """The instruction a bare negation carries on to: the next with a verb, among the few after
    it; none after a semicolon ("Actually, don't; just keep looking": "don't" ends its thought)."""
    if ctx.text[found[i].end : found[i].end + 2].lstrip()[:1] == ";":
        return None
    return next((c for c in found[i + 1 : i + 1 + NEAR] if c.action() is not None), None)


def _answer(last: Found | None, clause: Clause, ctx: Context) -> Found | None:
    """ "Give up? Sure, once every area is empty.": a yes to a question about giving up."""
    if last is None or last.why != "question" or last.action not in ("give_up", "stop"):
        return None
    if clause.action() is not None or not all(
        u.has("permission", "against", "negation") or ctx.lex.word_has(u, "filler")
        for u in clause.units
    ):
        return None
    if modality(clause.units, ctx.lex, clause.negated).stance == "forbid":  # "Not an option."
        return found_in(clause, "forbid", "refusal", NO_CONDITION, ctx)
    if not any(u.has("permission") for u in clause.units):
        return None
    return found_in(clause, "allow", "permission", when(clause.conds), ctx)


def _reverse(found: list[Found], floor: int, clause: Clause) -> None:
    """ "You may give up. On second thought, don't.": a bare negation at the end takes back the
    reading before it (not one already taken back)."""
    if len(found) <= floor:
        return
    last = found[-1]
    if last.stance == "allow" or (last.stance == "none" and last.action in ("give_up", "stop")):
        found[-1] = Found("forbid", "refusal", last.start, clause.end, None, True, last.action)


def _report_continued(clause: Clause, i: int, ctx: Context, here: list[Found]) -> Found | None:
    """ "Tell me where the star is, or that it isn't there": a clause joined by "or" with no
    verb of its own, after a verb of saying (or of stopping), is more of what to say."""
    if clause.link not in ("or", "and", "punct") or i == 0 or not _more_to_say(clause):
        return None
    if clause.verb() not in ("", "find", "search"):
        return None
    before = recent(ctx.clauses, i, lambda c: not c.conditional and c.action() is not None)
    if before is None or before.verb() not in ("report", "stop"):
        return None
    m = modality(before.units[: before.action()], ctx.lex, before.negated)
    if m.stance in ("forbid", "noneed") or (here and here[-1].stance == "forbid"):
        return None
    end = max([clause.end] + [c.end for c in clause.conds])
    first = clause.units[0]
    # "say where it is, not that it's missing"
    if first.has("negation") and not first.has("failure"):
        return Found("forbid", "refusal", clause.start, end, None, True, "report")
    return Found("allow", "report", before.start, end, None, True, "report")


def _more_to_say(clause: Clause) -> bool:
    """Whether the clause says the star was not found, or (after "or") another way out: "stop
    when you find it or every area is empty"."""
    failing = any(u.has("failure", "whether") for u in clause.units)
    if failing or negated_content(clause.units) or when(clause.conds).kind == "failure":
        return True
    name, _ = condition_kind(clause.units)
    return name in ("everywhere", "count") and clause.link == "or"


def _merged(found: list[Found]) -> list[Found]:
    """ "Stop after a few empty searches and report failure": two clauses, one permission."""
    out: list[Found] = []
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
