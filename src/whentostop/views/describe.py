"""What each view shows, in words: the text alternatives of the figures and the announcement of
how a run ended.

A learner who cannot see a chart gets the same facts from these sentences: what was run, how it
ended, the totals, the shape of the growth, the areas searched and the marker's verdict. They are
computed from the run (never written by hand per figure), in the language in effect. A figure's
words are written from its figure model (`figure.py`: `chart_alt`, `map_figure_alt`), the same
data both of its drawings show: the SVG views (`charts`: `<title>`, `<desc>` and the `<img alt>`)
and the matplotlib figures (`plots`: an `<img alt>` in Jupyter and Voila); the rest are the
explorer's badge and live region.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._text import excerpt
from ..i18n import _, ngettext, say, say_n
from ..level import Judgement
from ..outcome import EXIT_NAMES, Run, Stop

if TYPE_CHECKING:
    from ..lesson.race import Fall, RaceResult
    from .figure import Chart, Growth, LevelMap

GROWTH_FASTER = 1.5
"""A run whose tokens reach this many times "every turn like turn 1" is said to grow faster
than linearly (the Loopboros's 10 turns: about 2.5; two turns of the flag: about 1.2)."""


def of_turns(n: int, max_turns: int) -> str:
    """ "3 of 25 turns": the turns a run took against its budget."""
    return ngettext("{n} of {max_turns} turn", "{n} of {max_turns} turns", max_turns).format(
        n=n, max_turns=max_turns
    )


def ending(run: Run | None, error: str | None = None, judgement: Judgement | None = None) -> str:
    """How the run ended, in words: the exit, the turns against the turn limit, the answer or what
    the model was still asking for. The badge shows it; the live region announces it.

    An "answer" that is not a clean one says so: a tool call the model wrote as text (the run's
    own notes tell), and, with the level's `judgement`, an answer that validated but is wrong (or
    one that is right)."""
    if run is None:
        return _("not run yet — press Run")
    turns = of_turns(len(run.turns), run.max_turns)
    if run.stop is None:
        why = error or run.error or ""
        text = _("endpoint error — No answer after {turns}").format(turns=turns)
        return f"{text} ({excerpt(why, 80)})" if why else text
    if run.has_answer:
        return _answered(run, run.stop, turns, judgement)
    asking = ", ".join(dict.fromkeys(run.still_asking_for))
    last = run.turns[-1] if run.turns else None
    case = next(
        name
        for name, holds in (
            ("text_tool_call", run.answer_is_text_tool_call),
            ("echo", run.not_an_answer is not None),  # words the model was sent, repeated back
            ("asking", bool(asking)),
            ("empty", last is not None and last.empty),
            ("no_answer", True),
        )
        if holds
    )
    text = excerpt(last.text, 70) if last is not None else ""
    return say(f"ending_{case}", exit=run.exit_name, turns=turns, asking=asking, text=text)


def _answered(run: Run, stop: Stop, turns: str, judgement: Judgement | None) -> str:
    """The flag's or the pipe's ending: the answer, and whether the level says it is right."""
    answer = excerpt(str(run.answer), 70) if stop == Stop.END_TURN else json.dumps(run.answer)
    correct = None if judgement is None else judgement.correct
    name = f"wrong_{stop.value}" if correct is False else f"answered_{stop.value}"
    said = say(name, exit=run.exit_name, turns=turns, answer=answer)
    return said + (" — " + _("right") if correct else "")


def announcement(
    level: str,
    run_number: int,
    run: Run | None,
    error: str | None = None,
    judgement: Judgement | None = None,
) -> str:
    """What the live region says after each run: the level, which run this is (so a re-run with
    the same result is still news), and how it ended."""
    return _("Level {level}, run {number}: {ending}.").format(
        level=level, number=run_number, ending=ending(run, error, judgement)
    )


def subject(run: Run, judgement: Judgement | None = None) -> str:
    """What was run: the model and the budget, then how it ended."""
    model = run.model or _("the model")
    return _("Model {model}, max_turns={max_turns}: {ending}").format(
        model=model, max_turns=run.max_turns, ending=ending(run, judgement=judgement)
    )


def growth_text(numbers: Growth | None) -> str:
    """The shape of the cost, from a figure's numbers (`figure.growth`; None: no turns): how the
    prompt grew turn by turn, and the total against a run whose every turn cost like the first."""
    if numbers is None:
        return _("No turns yet, so nothing was spent.")
    if numbers.turns == 1:
        return _("One turn of {tokens:,} tokens.").format(tokens=numbers.total)
    shape = say("grows_faster") if numbers.ratio >= GROWTH_FASTER else _("about linearly")
    return say(
        "growth",
        first=numbers.first_prompt,
        a=numbers.first_turn,
        last=numbers.last_prompt,
        b=numbers.last_turn,
        total=numbers.total,
        ratio=numbers.ratio,
        n=numbers.turns,
        shape=shape,
    )


def cached_text(tokens: int) -> str:
    """The cached part of the prompts, when the server reported any (else "")."""
    return say("cached_tokens", cached=tokens) if tokens else ""


def wrap_up_text(drawn: bool) -> str:
    """That the wrap-up request is drawn, when it is (else "")."""
    return say("wrap_up_drawn") if drawn else ""


def chart_alt(chart: Chart) -> str:
    """A chart's text alternative, written from the chart: its title, what was run, the shape
    of the growth (or each run compared), the cached part and the wrap-up it draws."""
    shape = growth_text(chart.growth) if chart.kind != "compare_runs" else ""
    return _sentences(
        chart.title,
        *chart.about,
        shape,
        cached_text(chart.cached),
        wrap_up_text(chart.wrap_up is not None),
    )


def compared(label: str, run: Run, tokens: int, usd: float) -> str:
    """One run of a comparison, in words: its label (the caller's words, quoted: a sentence of
    the text alternative starts with it), how it ended, its tokens and cost."""
    return _("“{label}”: {ending}; {tokens:,} tokens, ${usd:.4f}").format(
        label=label, ending=ending(run), tokens=tokens, usd=usd
    )


def panels_alt(tokens: Chart, cumulative: Chart) -> str:
    """The words of the tokens chart and the cumulative chart drawn side by side."""
    return _sentences(
        _("Tokens per turn and cumulative cost"),
        *cumulative.about,
        growth_text(cumulative.growth),
        cumulative.title if cumulative.growth else "",
        cached_text(tokens.cached),
        wrap_up_text(cumulative.wrap_up is not None),
    )


def map_figure_alt(view: LevelMap) -> str:
    """The level map's text alternative, written from the map: its news, which areas were
    searched (and how many searches were misspelt), whether the star showed up, and each
    marker's verdict."""
    areas = [area for area, _blocks in view.rows]
    parts = [view.title]
    if view.searched:
        parts.append(
            _("Searched {n} of {total} areas: {areas}").format(
                n=len(view.searched), total=len(areas), areas=", ".join(view.searched)
            )
        )
        left = [a for a in areas if a not in view.searched]  # none: "", no sentence
        parts.append(_("Not searched: {areas}").format(areas=", ".join(left)) if left else "")
    else:
        parts.append(_("No area searched yet: every block is still closed"))
    if view.misspelt:
        parts.append(say_n("misspelt_areas", view.misspelt, n=view.misspelt))
    if view.star is None:
        parts.append(_("This level hides no star"))
    elif view.star_found:
        parts.append(
            _("The star is in block {block} ({area})").format(block=view.star[1], area=view.star[0])
        )
    for marker in view.markers:
        verdict = "marker_right" if marker.correct else "marker_wrong"
        parts.append(say(verdict, block=marker.block, area=marker.area))
    if view.star is not None and not view.markers:
        parts.append(_("No marker placed"))
    parts.append(view.verdict)  # the markers above already judge the warp pipe
    return _sentences(*parts)


# -- the race between the stops ---------------------------------------------------------------


def spent_text(value: float, unit: str) -> str:
    """ "5,766 tokens" or "$0.0194": what a run spent, in the race's unit."""
    if unit == "usd":
        return _("${usd:.4f}").format(usd=value)
    return _("{tokens:,} tokens").format(tokens=int(value))


def budget_text(budget: float, unit: str, price_model: str) -> str:
    """ "a budget of 6,000 tokens" / "a budget of $0.0200 at gpt-4o prices"."""
    if unit == "usd":
        return _("a budget of ${usd:.4f} at {model} prices").format(usd=budget, model=price_model)
    return _("a budget of {tokens:,} tokens").format(tokens=int(budget))


def fall_text(fall: Fall, result: RaceResult) -> str:
    """Where one limit would stop the race's track, in words: "the budget: after turn 10 — the
    next request would take the run to 6,761 tokens, over the budget of 6,000"."""
    track = result.track.run
    said = {
        "exit": _(EXIT_NAMES[fall.stop]),
        "n": len(track.turns) if fall.kept is None else fall.kept,
        "seconds": fall.at_s or 0.0,
        "spent": spent_text(fall.spent, result.limits.unit),
        "why": fall.why,
    }
    if fall.kept is None:
        if track.has_answer:
            return _("{exit}: never — the run answers first, on turn {n}").format(**said)
        return _("{exit}: not within the track's {n} turns").format(**said)
    if fall.stop == Stop.DEADLINE:
        if fall.kept == 0:
            return _("{exit}: at {seconds:g} s, before the first reply").format(**said)
        return say_n("deadline_falls", fall.kept, **said)
    if fall.stop == Stop.BUDGET:
        return _("{exit}: after turn {n} — {why}").format(**said)
    return _("{exit}: after turn {n} ({spent}, {seconds:.2f} s)").format(**said)


def race_falls(result: RaceResult) -> list[str]:
    """Each limit's fall in words, the one the track says fires first marked so."""
    first = result.predicted
    return [
        fall_text(f, result) + (" — " + _("fires first") if f is first else "")
        for f in result.falls
    ]


def race_spent(result: RaceResult) -> str:
    """What the race's real run spent in all, in the race's unit: "5,766 tokens"."""
    spent = result.run.spent(result.limits.unit, result.limits.price_model)
    return spent_text(spent[-1] if spent else 0.0, result.limits.unit)


def race_outcome(result: RaceResult) -> str:
    """What the race's real run did: which limit fired (or that it answered), and its spend."""
    run = result.run.run
    fired = run.stop in (Stop.MAX_TURNS, Stop.DEADLINE, Stop.BUDGET)
    return say(
        "limit_fired" if fired else "no_limit_fired",
        exit=run.exit_name,
        turns=of_turns(len(run.turns), run.max_turns),
        ending=ending(run),
        spent=race_spent(result),
        seconds=run.elapsed_s,
    )


def race_title(unit: str) -> str:
    """The race chart's title: what the run spent, against turns and against seconds."""
    return say("race_title", spent=_("dollars") if unit == "usd" else _("tokens"))


def race_alt(result: RaceResult, level: str, model: str, pace_s: float) -> str:
    """The race chart's text alternative: what raced (the model and its pace, every limit),
    where each limit falls, who fired."""
    limits = result.limits
    parts = [f"max_turns={limits.max_turns}"]
    if limits.deadline_s is not None:
        parts.append(f"deadline_s={limits.deadline_s:g}")  # code: the same in every language
    if limits.budget is not None:
        parts.append(budget_text(limits.budget, limits.unit, limits.price_model))
    setup = _("{model}, about {pace:g} s a reply: {limits}").format(
        model=model, pace=pace_s, limits=", ".join(parts)
    )
    return _sentences(
        race_title(limits.unit),
        _("Level {level}, {setup}").format(level=level, setup=setup),
        *(fall[:1].upper() + fall[1:] for fall in race_falls(result)),
        _("The run: {outcome}").format(outcome=race_outcome(result)),
    )


def _sentences(*parts: str) -> str:
    """Join the non-empty parts as sentences, each ending in one full stop."""
    kept = [part.strip() for part in parts if part.strip()]
    return " ".join(p if p.endswith((".", "!", "?", "”", ":")) else p + "." for p in kept)
