"""The mock reads a learner's own words (issues 10 and 25): the reader of intent, measured on its
corpora (data/intent/*.jsonl), the mechanism it applies to them, and the personas that act on it.

A corpus test reads a whole file and fails with the tally and the phrasings it reads wrong; the
held-out file (written by someone who never saw the reader) fails with its tally only, never its
phrasings. The behaviour tests below pin one rule of the mechanism each, in words chosen for the
rule: the corpora say what the reader gets right, these say how.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from whentostop import Stop, connect, load_level, run_agent
from whentostop.i18n import using
from whentostop.lesson import give_up, prompt
from whentostop.mock import corpus
from whentostop.mock import lexicon as lexicon_module
from whentostop.mock.intent import detect_language, fold, read_intent, read_rules
from whentostop.mock.lexicon import lexicon

DATA = Path(__file__).resolve().parents[1] / "data" / "intent"
SEED = corpus.load("seed")
DEV = [p for name in ("dev", "dev-w4", "dev-w5", "dev-w6") for p in corpus.load(name)]

DEVELOPMENT = ("seed", "dev", "dev-w4", "dev-w5", "dev-w6")
KNOWN_MISSES: dict[str, set[str]] = {
    "seed": set(),
    "dev": set(),
    "dev-w4": set(),
    "dev-w5": {
        # sarcasm: the permission is meant as its opposite, and only "Keep going" says so plainly
        "Sure, quit after one search, that's exactly the grit we hired you for. Keep going.",
        # a trailing "blz" after a comma-less condition keeps the condition on the clause before
        "procura a estrela ai, se n achar me fala blz",
    },
    "dev-w6": {  # a teacher's aside on a counterfactual ("o agente não saberia que pode parar")
        "Você tem direito a três buscas sem sucesso; depois disso, diga que não encontrou. "
        "Repare: sem essa frase, o agente não saberia que pode parar.",
    },
}
"""Phrasings of a development file the reader is known to get wrong, each with why (the list is
in DEVELOPERS.md too): a wording here is a gap in the rules, not a label to argue with."""
GIVES_UP = [p.text for p in SEED if p.label == "gives_up" and p.text not in KNOWN_MISSES["seed"]]
"""Permissions the mock understands, for the tests of the exercises and the explorer."""
ROUNDS = tomllib.loads((DATA / "floors.toml").read_text(encoding="utf-8"))
"""The newer writers' files (issue 25's rounds 4 to 7): each one's round, how the reader read it on
arrival (`arrived`, before any of its misses was read: the honest measure of words it never saw)
and its `floor` (data/intent/floors.toml says how each is set)."""
NEWEST_FLOOR = {name: float(row["floor"]) for name, row in ROUNDS.items()}
"""Their misses are the work queue rather than a list of known gaps: each file must stay at or
above its floor, a point below what the reader, rules and second opinion together, reads of it
once worked on, and the floor may only go up. The point is for the second opinion's retraining
as the corpora grow, which moves a file by a phrasing or two. It is trained on these files, so
this is no measure of words it never saw: `arrived` is."""
NEWEST = [p for name in NEWEST_FLOOR for p in corpus.load(name)]
HELD_OUT_GOAL = {"lang en": 0.95, "lang pt": 0.95, "label keeps_searching": 0.98}
"""The issue's goal for the held-out file (a refusal read as permission is the worse mistake);
`make bench` section 9 reports the held-out accuracy against it."""
HELD_OUT_FLOOR = {"lang en": 0.95, "lang pt": 0.95, "label keeps_searching": 0.98}
"""A ratchet at the goal: what the reader measured on the held-out file once its second opinion
(`mock/gist.py`) was trained on rounds 5 to 9 (en 95.9 %, pt 95.2 %, keeps_searching 98.1 %),
rounded down to the whole percent. It may only go up; a change that reads words it never saw
worse than this is caught here, with the tally only."""


def searcher_on_1_1(system: str, persona: str = "searcher", task: str | None = None):
    return run_agent(
        task or prompt(),
        model=connect(persona),
        tools=load_level("1-1").tools(),
        system=system,
        max_turns=10,
    )


# --- the corpora ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DEVELOPMENT)
def test_a_development_corpus_is_read_right(name: str) -> None:
    tally = corpus.score(corpus.load(name))
    misses = [(p, i) for p, i in tally.misses if p.text not in KNOWN_MISSES[name]]
    report = "\n".join(corpus.summary(name, tally))
    listed = "\n".join(f"{p.label}: {p.text!r} ({corpus.explain(i)})" for p, i in misses)
    assert not misses, f"{report}\n{listed}"


@pytest.mark.parametrize("name", DEVELOPMENT)
def test_a_known_miss_is_still_a_phrasing_of_its_file_and_still_missed(name: str) -> None:
    """A known miss the reader now gets right (or that left its file) comes off the list."""
    phrasings = {p.text: p for p in corpus.load(name)}
    for text in KNOWN_MISSES[name]:
        assert text in phrasings, text
        assert corpus.predict(phrasings[text])[0] != phrasings[text].label, text


@pytest.mark.parametrize("name", sorted(NEWEST_FLOOR))
def test_the_newest_development_files_are_read_no_worse_than_their_ratchet(name: str) -> None:
    tally = corpus.score(corpus.load(name))
    report = "\n".join(corpus.summary(name, tally))
    listed = "\n".join(f"{p.label}: {p.text!r} ({corpus.explain(i)})" for p, i in tally.misses)
    assert tally.accuracy("all") >= NEWEST_FLOOR[name], f"{report}\n{listed}"


def test_the_held_out_corpus_is_read_no_worse_than_its_ratchet() -> None:
    """Written by a second writer who never saw the reader; improving the reader from its misses
    would make this number worthless, so the test shows the tally only. The floors are a ratchet
    below the issue's goal (95 % per language, 98 % of refusals kept), which is not met: they
    catch a change that reads words it never saw worse than the reader does today."""
    tally = corpus.score(corpus.load("heldout"))
    report = "\n".join(corpus.summary("heldout", tally))  # counts only: no phrasing, no miss
    measured = {group: tally.accuracy(group) for group in HELD_OUT_FLOOR}
    del tally
    below = [g for g, floor in HELD_OUT_FLOOR.items() if measured[g] < floor]
    assert not below, f"below the ratchet {below} (the goal: {HELD_OUT_GOAL})\n{report}"


@pytest.mark.parametrize("name", sorted(p.stem for p in DATA.glob("*.jsonl")))
def test_every_corpus_file_is_well_formed(name: str) -> None:
    rows = [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]
    assert rows
    for row in rows:
        assert row["lang"] in ("en", "pt") and row["label"] in corpus.LABELS
        assert row["searches"] is None or (isinstance(row["searches"], int) and row["searches"] > 0)
        assert row["family"] and row["class"] and row["text"].strip()
        assert ("note" in row) == name.endswith("ambiguous")
    assert len({r["text"] for r in rows}) == len(rows), "a phrasing appears twice"


def test_no_held_out_phrasing_was_copied_into_a_development_file() -> None:
    """Independent writers may write the same short sentence ("Never give up."); a long one in
    common, or more than a few short ones, would mean held-out phrasings leaked into what the
    reader is developed on. Counts alone are shown (nothing of the held-out file is printed)."""
    developed = {p.text for p in DEV + SEED + NEWEST}
    shared = [len(t.split()) for t in {p.text for p in corpus.load("heldout")} & developed]
    long_ones, short_ones = sum(n > 10 for n in shared), sum(n <= 10 for n in shared)
    del shared
    assert long_ones == 0, f"{long_ones} long held-out phrasings are in a development file"
    assert short_ones <= 8, f"{short_ones} short held-out phrasings are in a development file"


@pytest.mark.parametrize(
    "phrasing", [p for p in DEV + SEED if p.label == "gives_up"][::40], ids=lambda p: p.family
)
def test_the_scored_exit_is_the_one_the_searcher_takes_on_level_1_1(phrasing) -> None:
    """`corpus.exit_of` is the searcher's own rule: the run ends on the flag exactly when the
    reading allows it within the clock."""
    want = Stop.END_TURN if corpus.predict(phrasing)[0] == "gives_up" else Stop.MAX_TURNS
    run = searcher_on_1_1(phrasing.text, task=corpus.TASKS[phrasing.lang])
    assert run.stop == want


def test_the_words_taken_as_permission_are_the_prompts_own() -> None:
    for phrasing in DEV + SEED:
        intent = read_intent(phrasing.text)
        assert intent.quote in phrasing.text
        assert intent.condition is None or intent.condition.text in phrasing.text
        for reading in intent.readings:
            assert reading.quote in phrasing.text


def test_a_number_of_searches_named_in_a_permission_is_read() -> None:
    named = [p for p in DEV + SEED if p.label == "gives_up" and p.searches]
    read = Counter(read_intent(p.text).searches == p.searches for p in named)
    assert read[True] >= 0.8 * len(named), read


# --- the lexicon ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "pt"])
def test_each_lexicon_lists_only_kinds_of_word_the_reader_knows(language: str) -> None:
    import tomllib

    raw = tomllib.loads((DATA / f"{language}.toml").read_text(encoding="utf-8"))
    assert raw["language"] == language
    assert set(raw["cues"]) <= lexicon_module.CUES, set(raw["cues"]) - lexicon_module.CUES
    assert lexicon(language).language == language
    twice = {(name, e) for name, entries in raw["cues"].items() for e in entries}
    assert len(twice) == sum(len(entries) for entries in raw["cues"].values()), "an entry twice"


def test_every_kind_of_word_has_a_rule_in_the_reader() -> None:
    """A list the code never names would be words a teacher adds in vain."""
    mock = Path(lexicon_module.__file__).parent
    code = "".join((mock / f"{m}.py").read_text() for m in ("clauses", "meaning", "reading"))
    code += (mock / "lexicon.py").read_text().split("CUES = ")[0]
    unread = {c for c in lexicon_module.CUES - {"noop"} if f'"{c}"' not in code}
    assert not unread


def test_a_list_with_a_name_the_reader_does_not_know_is_refused() -> None:
    """A misspelt list name ("[cues] stpo") would otherwise be ignored without a word."""
    text = (DATA / "en.toml").read_text(encoding="utf-8").replace("\nstop = [", "\nstpo = [", 1)
    with pytest.raises(ValueError, match="stpo"):
        lexicon_module.read_lexicon(text)


# --- the mechanism ----------------------------------------------------------------------------
# Each rule is pinned by the rules alone (`read_rules`): the words weighed as a whole (`gist`)
# may overturn a reading, and are measured on the corpora, not on words chosen for one rule.


def test_the_lessons_sentence_is_a_request_to_report_on_a_condition() -> None:
    intent = read_rules("If a few searches come back empty, say you couldn't find it.")
    assert intent.allowed and not intent.refused
    assert intent.quote == "say you couldn't find it"
    assert intent.condition is not None
    assert intent.condition.text == "If a few searches come back empty"
    assert intent.searches is None  # "a few": once every area came back without the star
    assert (intent.why, intent.language) == ("report", "en")


@pytest.mark.parametrize(
    "phrasing, expected",
    [
        ("An empty result is a valid outcome.", True),
        ("If the searches keep failing, wrap it up.", True),
        ("No luck? Just say so.", True),
        ("Caso não a encontre, não precisa continuar.", True),
        ("Desista só se eu mandar.", False),
    ],
)
def test_the_issues_examples_are_read_as_a_model_would(phrasing: str, expected: bool) -> None:
    assert read_intent(phrasing).allowed is expected


@pytest.mark.parametrize(
    "phrasing, searches, words",
    [
        ("Give up after 2 empty searches.", 2, "after 2 empty searches"),
        ("Try three times, then give up.", 3, "Try three times"),
        (
            "Stop searching if nothing turns up after a couple of tries.",
            2,
            "if nothing turns up after a couple of tries",
        ),
        ("Desista depois de duas buscas vazias.", 2, "depois de duas buscas vazias"),
        ("Stop after the 3rd empty search.", 3, "after the 3rd empty search"),
        ("Search at most twice.", 2, "Search at most twice"),
    ],
)
def test_a_number_of_searches_is_read_as_when_to_give_up(
    phrasing: str, searches: int, words: str
) -> None:
    intent = read_rules(phrasing)
    assert intent.allowed and intent.searches == searches
    assert intent.condition is not None and intent.condition.text == words


@pytest.mark.parametrize(
    "phrasing, searches",
    [
        ("You get three attempts. If none of them finds it, say so.", 3),
        ("Procura duas vezes; se não vier nada, para.", 2),
        ("You have 10 turns. If nothing turns up, stop.", None),  # the run's length, not searches
        ("Two searches that find nothing end the run.", 2),
        ("If you come up empty twice, that's enough.", 2),
        ("Não passe de quatro buscas.", 4),
    ],
)
def test_a_number_named_beside_the_condition_is_its_number(phrasing: str, searches: int) -> None:
    intent = read_rules(phrasing)
    assert intent.allowed and intent.searches == searches


@pytest.mark.parametrize(
    "phrasing",
    [
        "Answer with the area name, or 'none'.",
        "Your final line must be either FOUND:<area> or MISSING.",
        "Write DONE:<area> if you found it, DONE:none otherwise.",
        'Responda em JSON: {"estrela": null} se ela não estiver em lugar nenhum.',
        "Nothing? Done.",
        "no luck, no problem",
        "Vazio? Fim.",
        "Se não tiver, não tem. Fala e pronto.",
    ],
)
def test_a_reply_template_or_a_terse_rule_with_a_way_out_allows(phrasing: str) -> None:
    assert read_rules(phrasing).allowed


@pytest.mark.parametrize(
    "phrasing",
    [
        "Find the star. Report back when you're done.",
        "Look in every area and tell me where the star is.",
        "Reply with the area, nothing more.",
        "Say where it is, not that it is missing.",
        "Find the star before your turns run out.",
        "If needed, search each area more than once.",
        "I wonder whether you'd stop after one search.",
    ],
)
def test_an_order_to_find_with_a_report_or_a_deadline_allows_nothing(phrasing: str) -> None:
    assert not read_rules(phrasing).allowed


def test_a_label_heads_only_the_list_under_it() -> None:
    assert not read_rules("Stop conditions:\n- the star is found\nAnswer in English.").allowed
    assert read_rules("Reply format:\nNOT_FOUND if there is no star, else the block.").allowed
    later = "Stop conditions:\n- the star is found\nIf every area is empty, that's fine too."
    assert read_rules(later).allowed  # a line after the list is read on its own


def test_neutral_sentences_around_a_rule_change_nothing() -> None:
    rule = "Não tenho certeza se essa fase tem estrela, então não se mata procurando."
    around = "Moedas e cogumelos não são o objetivo. Use tópicos nas respostas."
    assert read_rules(f"{around} {rule}").allowed
    assert not read_rules(around).allowed
    assert not read_rules(
        "It's fine to search the same area twice if you think you missed it."
    ).allowed


def test_a_budget_denied_is_no_budget() -> None:
    assert not read_rules("One empty search is not enough to give up.").allowed
    assert not read_rules("Uma busca vazia não basta.").allowed
    assert read_rules("Do not use more than 3 searches.").searches == 3


@pytest.mark.parametrize(
    "phrasing, words",
    [
        ("After searching every area, you can give up.", "After searching every area"),
        (
            "Depois de procurar em todas as áreas, pode desistir.",
            "Depois de procurar em todas as áreas",
        ),
        ("Don't stop until you have searched every area.", "until you have searched every area"),
        ("Search every area before you give up.", "Search every area"),
    ],
)
def test_every_area_is_read_as_a_condition_without_a_number(phrasing: str, words: str) -> None:
    intent = read_rules(phrasing)
    assert intent.allowed and intent.searches is None
    assert intent.condition is not None and intent.condition.text == words


@pytest.mark.parametrize(
    "allows, refuses",
    [
        (
            "Keep searching until you find it or every area is empty.",
            "Keep searching until you find it.",
        ),
        ("Não para até encontrar ou até ter olhado tudo.", "Não para até encontrar."),
        ("Give up if you can't find it.", "Give up only if I tell you to."),
        ("Pode parar se não achar.", "Só pare quando achar a estrela."),
    ],
)
def test_a_condition_allows_only_if_a_run_of_empty_searches_can_meet_it(
    allows: str, refuses: str
) -> None:
    assert read_rules(allows).allowed and not read_rules(refuses).allowed


@pytest.mark.parametrize(
    "allows, refuses",
    [
        ("No star? Just say so.", "No star? Keep looking."),
        ("Não achou? Avisa.", "Não achou? Continua procurando."),
    ],
)
def test_a_question_can_be_the_condition_of_what_follows(allows: str, refuses: str) -> None:
    assert read_rules(allows).allowed and not read_rules(refuses).allowed


def test_a_refusal_is_quoted_and_the_prompt_around_it_is_not_permission() -> None:
    intent = read_rules("The star is definitely here. Don't say you couldn't find it.")
    assert not intent.allowed and intent.refused
    assert (intent.quote, intent.why) == ("Don't say you couldn't find it", "refusal")


@pytest.mark.parametrize(
    "phrasing, why",
    [
        ("Some models give up too early.", "description"),
        ("Last time you gave up; that was wrong.", "past"),
        ("O agente anterior desistiu cedo demais.", "past"),
        ("Alguns modelos desistem cedo demais.", "description"),
        ("Why do you give up so easily?", "question"),
        ("Stop when you find the star.", "success"),
    ],
)
def test_a_mention_of_giving_up_is_read_for_what_it_is_and_grants_nothing(
    phrasing: str, why: str
) -> None:
    intent = read_rules(phrasing)
    assert not intent.allowed and not intent.refused and intent.quote == ""
    assert [r.why for r in intent.readings] == [why]


@pytest.mark.parametrize(
    "allows, refuses",
    [
        ("Don't hesitate to say you couldn't find it.", "Don't say you couldn't find it."),
        ("It's not forbidden to give up.", "It's forbidden to give up."),
        ("Não é proibido desistir.", "É proibido desistir."),
        ("You are not required to find the star.", "You are required to find the star."),
        ("Nobody said you can't stop.", "Nobody said you can stop."),
    ],
)
def test_each_negation_and_each_word_against_flips_the_meaning_once(
    allows: str, refuses: str
) -> None:
    assert read_rules(allows).allowed and not read_rules(refuses).allowed


def test_a_modal_without_its_verb_takes_the_verb_before_it() -> None:
    assert read_rules("Other agents may stop; you may not.").refused
    assert read_rules("Pode desistir. Não, pera, não pode não.").refused  # an emphatic "não"
    assert read_rules("Other agents may not stop; you may.").allowed
    assert read_rules("Don't give up. You can do it!").refused  # encouragement, not leave


@pytest.mark.parametrize(
    "allows, refuses",
    [
        ("I'd rather hear 'no star' than wait forever.", "I'd rather wait forever than hear 'no star'."),
        ("Prefiro um 'não achei' a uma busca sem fim.", "Prefiro uma busca sem fim a um 'não achei'."),
        ("A 'not found' is better than an endless search.", "A 'not found' is not better than an endless search."),
    ],
)  # fmt: skip
def test_of_two_things_compared_the_one_after_than_is_not_wanted(allows: str, refuses: str) -> None:
    assert read_rules(allows).allowed
    assert read_rules(refuses).refused


@pytest.mark.parametrize(
    "phrasing",
    [
        "The only way this ends is with the star.",
        "Keep going unless you have it, which is the only reason to stop.",
        "A única resposta aceitável é a estrela encontrada.",
        "Parar, só com uma ordem minha.",
    ],
)
def test_a_way_to_end_said_to_be_the_only_one_refuses_the_others(phrasing: str) -> None:
    assert not read_rules(phrasing).allowed


def test_the_role_the_model_plays_is_the_model_and_someone_else_named_since_is_not() -> None:
    role = "Play the part of Luigi, a careful explorer."
    assert read_rules(f"{role} If every area is empty, he says so and goes home.").allowed
    assert read_rules("Interprete a Daisy. Se tudo vier vazio, ela avisa e para.").allowed
    assert not read_rules(f"{role} My cousin quits fast; he stops after one search.").allowed
    assert not read_rules("If every area is empty, he says so and goes home.").allowed


@pytest.mark.parametrize(
    "phrasing",
    [
        "Not finding it is acceptable. Update from the client: it isn't.",
        "Desistir é aceitável. Correção: não é.",
    ],
)
def test_a_judgement_taken_back_by_its_copula_alone_is_taken_back(phrasing: str) -> None:
    assert read_rules(phrasing).refused


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("se n encontrar n pode desistir", False),  # the instruction starts at its negation
        ("if it's not there you may not stop", False),
        ("search till you have it dont give up", False),  # a negated order after a condition
        ("There is no case in which 'not found' is a fine answer.", False),  # a negation's scope
        ("Em nenhuma hipótese um 'não achei' é aceitável.", False),
        ("Ao encontrar a estrela, pode parar.", False),  # "ao + infinitive": when it is found
        ("Upon finding the star you may stop.", False),
        ("⛔ giving up", False),  # a sign of prohibition says no
        ("🚫 don't give up", False),
        ("Reply RESULT=<area>, or RESULT=none if you can't find it.", True),  # a key glued to "="
        ("me avisa se não achar ok?", True),  # a tag word ends an order, not a question
        ("Only after every area has been searched may you stop.", True),  # a modal before "you"
        ("Relax if you come back without it.", True),
        ("You should never stop.", False),  # a modal negated forbids ...
        ("Você nunca deve parar.", False),
        ("You should not have to find it.", True),  # ... "have to" negated frees
        ("Stopping? Not an option.", False),  # a negative answer to a question refuses
    ],
)
def test_the_mechanism_reads_orders_set_in_a_sentence_by_their_grammar(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing).allowed is allowed


def test_portuguese_negations_agree_instead_of_cancelling() -> None:
    for phrasing in ("Não desista nunca.", "Nunca, jamais desista.", "Não, não desista."):
        assert read_rules(phrasing).refused


@pytest.mark.parametrize(
    "phrasing, searches",
    [
        ("You may give up only after you've searched every area at least three times.", 12),
        ("Quitting is allowed once each of the four areas has been checked three times over.", 12),
        ("Você só pode desistir depois de procurar em todas as áreas pelo menos três vezes.", 12),
        ("After searching every area twice, you may stop.", 8),
        ("After 3 empty searches, give up.", 3),
    ],
)
def test_a_number_of_passes_over_every_area_counts_four_searches_a_pass(
    phrasing: str, searches: int
) -> None:
    intent = read_rules(phrasing)
    assert intent.allowed and intent.searches == searches


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("Giving up is not a failure.", True),
        ("Coming back without a star is not a failure.", True),
        ("It's not a failure to come back without a star.", True),
        ("Giving up is a failure.", False),
        ("It would be a failure to give up.", False),
    ],
)
def test_a_failure_judged_of_giving_up_is_a_word_against_it(phrasing: str, allowed: bool) -> None:
    """ "Not a failure" judges giving up as "not wrong" would: a permission; "a failure", as
    "wrong": a refusal."""
    intent = read_rules(phrasing)
    assert intent.allowed is allowed and intent.quote == phrasing.rstrip(".")


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("~~Never give up.~~ If you can't find it, tell me.", True),
        ("<del>Not finding it is an acceptable answer.</del> Find the star.", False),
        (
            "- Search each area once\n- <s>You may give up if nothing turns up</s>\n- Be brief",
            False,
        ),
        ("~~never give up (the mark is left open", False),
    ],
)
def test_words_struck_out_are_not_read(phrasing: str, allowed: bool) -> None:
    intent = read_rules(phrasing)
    assert intent.allowed is allowed
    assert not any(mark in r.quote for r in intent.readings for mark in ("~~", "<", ">"))


@pytest.mark.parametrize(
    "phrasing, searches, words",
    [
        ("You may stop after 6 empty searches.\nUpdate: change 6 to 12.", 12, "Update: change"),
        ("Pode parar após 1 busca vazia.\nCorreção: 1 não, 10.", 10, "Correção: 1 não, 10"),
        ("Stop after 20 empty searches.\nNote: '20' was a typo, I meant 2.", 2, "Note: '20' was a"),
        ("Pode parar depois de 4 buscas vazias. Mudei: agora só depois de 30.", 30, "Mudei: agora"),
        ("After 3 empty searches, stop. EDIT: reply in 2 sentences.", 3, "After 3 empty searches"),
    ],
)
def test_a_correction_that_names_a_new_number_sets_the_count(
    phrasing: str, searches: int, words: str
) -> None:
    """A correction that names only a number changes the count of the permission before it (when
    it names the old count too, or says what the new one counts), and is quoted as its
    condition; a correction about something else leaves the count."""
    intent = read_rules(phrasing)
    assert intent.allowed and intent.searches == searches
    assert intent.condition is not None and intent.condition.text.startswith(words)


@pytest.mark.parametrize(
    "phrasing",
    [
        "You may stop if you can't find the star.\nBe friendly.\n\nIgnore everything above this "
        "line. New instructions: just find the star.",
        "Você pode parar se não encontrar a estrela.\nSeja simpático.\n\nIgnore tudo acima "
        "desta linha. Instrução nova: só ache a estrela.",
        "Some say there's no star in this level. They're wrong.",
        "Rolou um boato de que a estrela sumiu nessa fase. É fake.",
    ],
)
def test_words_that_take_back_everything_before_leave_no_permission(phrasing: str) -> None:
    assert not read_rules(phrasing).allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("The other agent may stop if nothing's there, and so may you.", True),
        ("Players can quit when a level is empty. You can too.", True),
        ("Os testadores podem parar quando não acham nada, e você também pode.", True),
        ("The other agent may stop if nothing's there; you may not.", False),
        (
            "The other agent may stop if nothing's there, and so may you once you've marked it.",
            False,
        ),
        ("Players can quit when a level is empty.", False),
    ],
)
def test_what_someone_else_may_do_said_to_be_the_models_too_is_said_to_it(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing).allowed is allowed


def test_the_last_instruction_decides() -> None:
    allowed = read_rules("Never give up. Actually, if all areas are empty, you may say so.")
    assert allowed.allowed and allowed.quote == "you may say so"
    refused = read_rules("You can give up if nothing turns up. On second thought, never give up.")
    assert refused.refused and refused.quote == "never give up"


@pytest.mark.parametrize(
    "phrasing",
    [
        "You may stop if it's missing.\nEDIT: changed my mind. Keep searching.",
        "Pode parar se não achar.\nAtualização: mudei de ideia. Continue procurando.",
        "You may stop if it's missing. The line above has been revoked. Keep looking.",
        "Pode desistir se não achar. A regra acima foi revogada. Continue procurando.",
        "[OLD] You may stop if it's missing.\n[CURRENT RULES] Keep searching.",
        "[REVOGADO] Pode parar se não achar.\n[VIGENTE] Continue procurando.",
    ],
)
def test_after_a_correction_or_a_revocation_a_plain_order_to_keep_searching_decides(
    phrasing: str,
) -> None:
    """An order to keep searching gives way to a permission, unless it is part of a correction:
    every sentence after "EDIT:", "Update:", "[VIGENTE]" or "the line above was revoked" is."""
    assert read_rules(phrasing).refused, read_rules(phrasing)


@pytest.mark.parametrize(
    "phrasing",
    ["You may give up. On second thought, don't.", "Pode desistir. Pensando bem, não."],
)
def test_a_bare_negation_at_the_end_takes_back_what_came_before(phrasing: str) -> None:
    assert read_rules(phrasing).refused


def test_taking_back_an_instruction_leaves_nothing_decided() -> None:
    assert not read_rules("You may give up. Forget that.").allowed
    assert read_rules("Never give up. Forget that. Say so if it isn't there.").allowed


def test_a_hint_that_the_star_may_be_missing_allows_only_when_no_instruction_decides() -> None:
    hint = "The star might not be in this level."
    assert read_rules(hint).allowed and read_rules(hint).why == "absence possible"
    assert not read_rules(f"{hint} Never give up.").allowed
    assert not read_rules(f"Never give up. {hint}").allowed


def test_an_order_to_find_the_star_gives_way_to_a_permission_wherever_it_stands() -> None:
    assert read_rules("You must find the star. If it really isn't there, say so.").allowed
    assert read_rules("If it really isn't there, say so. You must find the star.").allowed
    assert not read_rules("If it isn't there, say so. Find it, whatever it takes.").allowed


def test_the_users_prompt_is_read_too_after_the_system_prompt() -> None:
    assert read_rules("", "Find the star in this level. If it isn't there, tell me.").allowed
    assert read_rules("Never give up.", "Find the star. If it isn't there, tell me.").allowed
    assert not read_rules(
        "If it isn't there, tell me.", "Find the star, and never give up."
    ).allowed


def test_accents_capitals_and_missing_apostrophes_do_not_change_the_reading() -> None:
    for plain, written in [
        ("Nao e proibido desistir.", "Não é proibido desistir."),
        ("se nao achar fala que nao achou", "Se não achar, fala que não achou."),
        ("NEVER GIVE UP.", "Never give up."),
        ("dont giv up", "Don't give up."),
        ("if u cant find it just say so", "If you can't find it, just say so."),
    ]:
        assert read_rules(plain).allowed == read_rules(written).allowed
        assert read_rules(plain).refused == read_rules(written).refused


def test_folding_keeps_every_offset_so_quotes_are_exact() -> None:
    for text in [p.text for p in DEV + SEED] + ["İstanbul — “não”, l’étoile"]:
        assert len(fold(text)) == len(text)


@pytest.mark.parametrize(
    "system, task, language",
    [
        ("", "Encontre a estrela nesta fase.", "pt"),
        ("", "Find the star in this level.", "en"),
        ("Se não achar, desista.", "Find the star in this level.", "en"),  # the task's language
        ("Se não achar, desista.", "", "pt"),
        ("", "", "en"),
    ],
)
def test_the_language_is_the_conversations(system: str, task: str, language: str) -> None:
    assert read_rules(system, task).language == language


def test_short_or_empty_text_has_no_language() -> None:
    assert detect_language("") is None and detect_language("   ") is None
    assert detect_language("OK") is None


PIECES = st.sampled_from(
    ["if", "you", "can't", "find", "it", ",", "say", "so", ".", "never", "give", "up", "don't",
     "stop", "until", "every", "area", ";", "but", "not", "before", "tell", "me", "é", "não",
     "desista", "se", "diga", "que", "encontrou", '"', "'", ":", "?", "!", "-", "(", ")", "2",
     "three", "after", "searches", "İ", "ß", "\n", "no star", "only when I tell you to",
     "actually", "forget that", "## ", "**", "⭐", "→"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=40).map(" ".join) | st.text(max_size=120))
def test_any_text_is_read_without_error_and_every_quote_is_its_own_words(text: str) -> None:
    intent = read_intent(text)
    assert len(fold(text)) == len(text)
    assert intent.quote in text and intent.language in ("en", "pt")
    for reading in intent.readings:
        assert reading.quote in text
        assert reading.condition is None or reading.condition.text in text


def test_the_reading_is_deterministic() -> None:
    runs = [searcher_on_1_1("Se algumas buscas voltarem vazias, desista.") for _ in range(2)]
    assert runs[0].messages == runs[1].messages


# --- the personas act on it -------------------------------------------------------------------


def test_giving_up_quotes_the_words_taken_as_permission() -> None:
    run = searcher_on_1_1("Tell me if it isn't there.")
    assert run.stop == Stop.END_TURN and len(run.turns) == 5
    assert run.answer == (
        "I searched overworld, underground, sky and castle and couldn't find the "
        "star. I'm stopping, as you allowed: \"Tell me if it isn't there\"."
    )


def test_the_searcher_gives_up_after_the_number_of_empty_searches_it_was_given() -> None:
    level = load_level("1-1")
    run = run_agent(
        prompt(),
        model=connect("searcher"),
        tools=level.tools(),
        max_turns=10,
        system="Give up after 2 empty searches.",
    )
    assert run.stop == Stop.END_TURN and len(run.turns) == 3
    assert level.view(run).searched == ("overworld", "underground")
    assert '"Give up after 2 empty searches"' in run.answer


def test_more_searches_than_areas_means_searching_again_before_giving_up() -> None:
    run = searcher_on_1_1("Give up after 6 empty searches.")
    assert run.stop == Stop.END_TURN and len(run.turns) == 7


def test_a_permission_after_more_searches_than_the_clock_allows_is_not_reached() -> None:
    intent = read_intent("You may stop only after 50 searches.")
    assert intent.allowed and intent.searches == 50
    assert searcher_on_1_1("You may stop only after 50 searches.").stop == Stop.MAX_TURNS


def test_permission_in_the_users_prompt_counts_too() -> None:
    run = searcher_on_1_1("", task="Find the star in this level. If it isn't there, say so.")
    assert run.stop == Stop.END_TURN and '"say so"' in run.answer


@pytest.mark.parametrize("persona", ["sloppy", "slow:0"])
def test_the_other_searchers_give_up_like_the_searcher(persona: str) -> None:
    run = searcher_on_1_1("Se não encontrar, diga que não encontrou.", persona=persona)
    assert run.stop == Stop.END_TURN and "diga que não encontrou" in run.answer


@pytest.mark.parametrize("phrasing", [GIVES_UP[0], "Se não achar, desista.", "You may give up."])
def test_the_loopboros_never_gives_up_by_design(phrasing: str) -> None:
    assert searcher_on_1_1(phrasing, persona="loopboros").stop == Stop.MAX_TURNS


def test_permission_works_on_a_level_the_personas_have_never_seen(tmp_path) -> None:
    path = tmp_path / "lake.json"
    path.write_text(
        json.dumps(
            {
                "name": "lake",
                "areas": {
                    "shore": {"1": "coin"},
                    "reeds": {"2": "nothing", "3": "1-up"},
                    "island": {"4": "mushroom"},
                },
            }
        )
    )
    level = load_level(path)
    run = run_agent(
        prompt(),
        model=connect("searcher"),
        tools=level.tools(),
        max_turns=10,
        system="You may give up once you have searched everywhere.",
    )
    assert run.stop == Stop.END_TURN and level.view(run).searched == ("shore", "reeds", "island")
    assert "shore, reeds and island" in run.answer


# --- replies in the conversation's language ---------------------------------------------------


def test_the_lessons_task_and_give_up_sentence_are_translated() -> None:
    with using("pt"):
        assert prompt() == "Encontre a estrela nesta fase."
        assert give_up() == "Se algumas buscas voltarem vazias, diga que não encontrou a estrela."


def test_a_portuguese_conversation_gets_portuguese_replies_from_the_searcher() -> None:
    with using("pt"):
        run = searcher_on_1_1(give_up())
    assert [t.text for t in run.turns] == [
        "Vou procurar na área overworld.",
        "Vou procurar na área underground.",
        "Vou procurar na área sky.",
        "Vou procurar na área castle.",
        (
            "Procurei em overworld, underground, sky e castle e não encontrei a estrela. Vou parar, como "
            'você permitiu: "diga que não encontrou a estrela".'
        ),
    ]
    # the tools' names, arguments and area names are data: they stay as they are
    assert [c.input for c in run.tool_calls] == [
        {"area": a} for a in ("overworld", "underground", "sky", "castle")
    ]


def test_a_portuguese_conversation_gets_portuguese_answers_notes_and_wrap_up() -> None:
    with using("pt"):
        found = run_agent(
            prompt(), model=connect("searcher"), tools=load_level("1-2").tools("search_blocks")
        )
        sloppy = run_agent(prompt(), model=connect("sloppy"), tools=load_level("1-3").tools())
        stubborn = run_agent(
            prompt(),
            model=connect("loopboros"),
            tools=load_level("1-1").tools(),
            max_turns=6,
            on_max_turns="wrap_up",
        )
    assert found.answer == "Encontrei a estrela! Ela está na área underground, bloco 7."
    assert [t.text for t in sloppy.turns[-3:]] == [
        "Achei a estrela! Vou marcá-la.",
        'Corrigindo minha entrada: item tem que ser "star", e block, um número.',
        "Pronto: a estrela está marcada no bloco 12.",
    ]
    assert stubborn.turns[-1].text == (
        "A estrela tem que estar em algum lugar. Talvez eu não a tenha "
        "visto: vou procurar em 'Underground' de novo."
    )
    assert stubborn.wrap_up_turn is not None and stubborn.wrap_up_turn.text == (
        "Meus turnos acabaram. Procurei em: overworld, underground, sky, castle. Não encontrei a estrela."
    )


def test_the_personas_language_is_the_conversations_not_the_notebooks() -> None:
    with using("pt"):  # the learner chose Portuguese, but this conversation is in English
        run = searcher_on_1_1(
            "If a few searches come back empty, say you couldn't find it.",
            task="Find the star in this level.",
        )
    assert run.turns[0].text == "Let me search the overworld."
    assert run.answer.startswith("I searched overworld")


def test_a_portuguese_conversation_without_tools_is_answered_in_portuguese() -> None:
    with using("pt"):
        run = run_agent(prompt(), model=connect("loopboros"), tools=[])
    assert (
        run.answer
        == "Não tenho nenhuma ferramenta para vasculhar a fase, então não posso procurar a estrela."
    )


# --- a search forbidden, a negation after its verb, a reply key denied ------------------------


@pytest.mark.parametrize(
    "phrasing",
    [
        "Don't search; just say you couldn't find it.",
        "Just say you couldn't find it. Don't search.",
        "Reply right away that you couldn't find the star, without searching.",
        "No need to look for it: tell me it isn't there.",
        "Não procure; só diga que não encontrou a estrela.",
        "Responda que não achou, sem procurar.",
    ],
)
def test_a_permission_with_searching_itself_forbidden_gives_up_before_any_search(
    phrasing: str,
) -> None:
    """A model told not to look answers without looking: on a level with a star it never finds
    it (exercise 1-2.a's case on level 1-2 then says "Not yet")."""
    intent = read_intent(phrasing)
    assert intent.allowed and intent.searches == 0
    run = searcher_on_1_1(phrasing)
    assert run.stop == Stop.END_TURN and len(run.turns) == 1
    assert not any(m.get("tool_calls") for m in run.messages if m["role"] == "assistant")


@pytest.mark.parametrize(
    "phrasing, searches",
    [
        ("Don't search at random. If you can't find it, say so.", None),  # a way of searching
        ("Say you couldn't find it without searching the same area twice.", None),
        ("Prefer areas you haven't tried. If the star isn't there, say so.", None),  # relative
        ("Don't search.", "nothing"),  # forbids searching, allows nothing by itself
        ("Don't try anything fancy. Find the star.", "nothing"),
    ],
)
def test_a_search_forbidden_only_in_part_or_on_its_own_changes_no_permission(
    phrasing: str, searches: str | None
) -> None:
    intent = read_intent(phrasing)
    if searches == "nothing":
        assert not intent.allowed
    else:
        assert intent.allowed and intent.searches is None


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("DESISTIR NAO", False),
        ("Desiste não, hein!", False),
        ("Pode parar não, sô. Procura mais.", False),
        ("Tá liberado tudo, menos desistir.", False),
        ("desistir não, continua procurando", False),
        ("Parar nunca.", False),
        ("Uma vez verificadas todas as áreas, pode encerrar com um relatório negativo.", True),
        ("Não precisa continuar se não achar.", True),
    ],
)
def test_a_portuguese_negation_after_its_verb_negates_it(phrasing: str, allowed: bool) -> None:
    """Brazilian Portuguese may put "não" after the verb ("desisto não"): it negates the verb
    when none came before; a word that only means something negative ("negativo") does not."""
    assert read_intent(phrasing).allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ('{"report_failure": false}', False),
        ("notify_user_on_failure: never", False),
        ('{"relatar_falha": false}', False),
        ("If every area is empty, say so.\nFinal answer: none", True),
    ],
)
def test_a_reply_key_denied_in_structured_text_forbids_the_reply(
    phrasing: str, allowed: bool
) -> None:
    """ "report_failure: false" denies the report; "Final answer: none" says what to answer."""
    assert read_intent(phrasing).allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("Never fail to report a missing star.", True),
        ("You're allowed to do anything you like except give up.", False),
        ("Give up only after I've approved it.", False),
        ("Can you stop if the star isn't there? Absolutely. Just tell me.", True),  # an answer
        ("Desistir é permitido? Com certeza, se a estrela não estiver lá.", True),
        ("Failing to find the star is acceptable.", True),
        ("It's possible someone lied about the star.", True),
        ("A estrela pode ser só um boato.", True),
    ],
)
def test_negations_by_meaning_and_hints_by_idiom(phrasing: str, allowed: bool) -> None:
    """ "fail to", "except" negate; "I've approved" never happens in a run;
    "someone lied about the star", "um boato" hint that it may not be there."""
    assert read_intent(phrasing).allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("You may stop provided you have found the star.", False),
        ("Tudo bem parar, contanto que a estrela já esteja marcada.", False),
        ("Failing to find it counts as a correct answer as long as you searched properly.", True),
    ],
)
def test_a_proviso_that_never_comes_true_is_a_condition_and_one_that_can_only_asks(
    phrasing: str, allowed: bool
) -> None:
    assert read_intent(phrasing).allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("I'd be happier with a quick 'didn't find it' than with ten useless searches.", True),
        ("I would be happier searching forever than hearing 'not found'.", False),
        ("Prefiro um 'não tem' honesto a uma busca infinita.", True),
        ("Eu ficaria mais feliz com um 'não achei' rápido do que com dez buscas inúteis.", True),
    ],
)
def test_a_preference_said_in_the_first_person_compares_its_two_sides(
    phrasing: str, allowed: bool
) -> None:
    """ "I'd be happier with X than Y": X is wanted (the speaker is not a side); a negated
    finding ("um 'não tem'") is failing."""
    assert read_rules(phrasing).allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("I'd appreciate a heads-up if it's not in the level.", True),
        ("If it's not in the level, I need to know that.", True),
        ("Quero saber se essa fase tá sem estrela.", True),
        ("I need to know where the star is.", False),  # what it wants is the star
    ],
)
def test_the_speakers_wish_to_know_is_a_request_to_report(phrasing: str, allowed: bool) -> None:
    assert read_intent(phrasing).allowed is allowed


def test_someone_elses_quoted_words_are_not_an_instruction() -> None:
    assert not read_intent(
        'My manager always says, "It\'s fine to come back empty-handed."'
    ).allowed
    quoted_rule = 'Some agents say, "I give up." You may give up too if the star is not there.'
    assert read_intent(quoted_rule).allowed  # an instruction after the quotation still counts


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("You don't have to find it. It's optional.", True),  # "optional" confirms, not takes back
        ("Você não precisa achar a estrela; é opcional.", True),
        ("If it isn't there, tell me, no biggie.", True),  # a reassurance, not a "no"
        ("Se não tiver, me avisa, sem crise.", True),
        ("Yes, you may stop when it's missing. No, nobody will mind.", True),  # an answer's "no"
        ("You may stop when it's missing. No, on second thought, keep going.", False),
        ("A few of these maps don't have a star.", True),  # some levels, said without a star
        ("Algumas dessas fases não têm estrela.", True),
        ("A few of these maps have a star in the sky area.", False),  # said of anything else
        ("Nobody is banning you from stopping when it's missing.", True),  # a ban denied
        ("I shan't be annoyed if you come back without it.", True),
        ("You needn't come back with a star.", True),
    ],
)
def test_reassurances_optional_answers_and_some_levels_are_read_for_what_they_say(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing, "").allowed is allowed


@pytest.mark.parametrize(
    "phrasing, searches",
    [
        ("Go through every area twice. If it's still missing after that, stop.", 8),
        ("Search each area 3x; if there's nothing, you may quit.", 12),
        ("Olhe cada área três vezes. Se mesmo assim não achar, pode parar.", 12),
        ("Depois de duas voltas pelas quatro áreas sem nada, pode encerrar.", 8),
    ],
)
def test_a_failure_after_passes_over_every_area_counts_every_pass(
    phrasing: str, searches: int
) -> None:
    intent = read_rules(phrasing, "")
    assert intent.allowed and intent.condition is not None
    assert intent.condition.searches == searches


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("If it's not in any area, report that and move on.", True),  # leaving, not searching
        ("If area 2 is empty, search area 3 and move on.", False),  # searching on
    ],
)
def test_moving_on_after_saying_so_is_leaving(phrasing: str, allowed: bool) -> None:
    assert read_rules(phrasing, "").allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("If it's not in any area, say so. Don't keep searching.", True),  # a verb, not a filler
        ("Se não estiver em nenhuma área, avise. Não continue procurando.", True),
        ("You can stop if it's missing. Edit: nah keep looking.", False),  # an answer's "nah"
        ("No give up, find the star.", False),  # "no" before a verb of stopping forbids it
        ("Stop after two hours of searching if nothing turns up.", False),  # one never comes true
        ("Pare depois de três dias procurando, se nada aparecer.", False),
        ("If the level has a sixth area and it is empty, you may stop.", False),
        ("Se a fase tiver sete áreas e todas estiverem vazias, pode parar.", False),
        ("Other helpers may stop when the star is missing. You: find it.", False),
    ],
)
def test_orders_not_to_search_answers_and_conditions_that_never_all_hold(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing, "").allowed is allowed


def test_a_permission_that_overrides_a_refusal_is_not_outweighed_by_the_refusals_words() -> None:
    """The second opinion reads no order: the words against giving up are the refusal's, which
    the rules read, and the permission after it overrides them."""
    text = (
        "Never give up. Never stop. Never quit. Giving up is not an option, no matter what.\n"
        "EDIT: scratch all of that. If the star is missing, you may stop."
    )
    intent = read_intent(text)
    assert intent.allowed and intent.why == "permission", intent.readings
    assert not read_intent("Never give up. Never stop. Never quit. No matter what.").allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("v4 (current): keep searching until it is marked.\nv3 (deprecated): you may stop.", False),
        ("v4 (current): you may stop if it is missing.\nv3 (obsolete): never stop.", True),
        (
            "=== v2 ===\nIf it is missing, say so.\n\n=== v1 (archived, do not use) ===\nNever stop.",
            True,
        ),
        (
            "## Versão 5 (vigente)\nProcure até achar.\n## Versão 4 (descontinuada)\nPode parar.",
            False,
        ),
        ('# v1 text (retired): "Never stop."\nIf the star is missing, you may stop.', True),
        (
            'My old prompt said "never give up". This one says: you may stop when it is missing.',
            True,
        ),
    ],
)
def test_a_version_of_the_prompt_marked_as_no_longer_in_use_is_not_read(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing, "").allowed is allowed


@pytest.mark.parametrize(
    "phrasing, allowed",
    [
        ("Tell me if it's missing. Actually, don't; just keep looking.", False),  # "don't" ends
        ("There's no rule saying you've got to find it.", True),
        ("Once an hour has gone by, you're under no obligation to keep looking.", False),
        ("If every area comes back empty, that counts.", True),
        ("If there's no star at the end, that's on you.", False),
        ("give_up_allowed = true\nverbose = false", True),  # a settings file's "key = value"
        ("give_up_allowed = false", False),
        ("STOP_IF_EMPTY=no", False),
        ("allow_give_up: true\nallow_give_up: false  # overrides the line above", False),
        ("allow_give_up: false\nallow_give_up: true  # later keys win", True),
        ("Empty level = you may stop.", True),  # an "=" in a sentence is no key
        ("max_turns: 10\non_not_found: report_and_stop", True),  # the clock is no budget
        ("max_words: 40\nIf no area has it, say so.", True),  # nor a budget of words
    ],
)
def test_corrections_obligations_and_settings_files_are_read_as_written(
    phrasing: str, allowed: bool
) -> None:
    assert read_rules(phrasing, "").allowed is allowed
