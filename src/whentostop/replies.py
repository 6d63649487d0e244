"""Replies that are not what they seem: cut off, empty, the model's own prompt repeated back,
or the continuation of a cut-off reply. Each gets a note on its turn and one warning on the run.

The loop keeps its rule — a reply without `tool_calls` is the flag — and `Run.answer` reads these
notes to refuse what is no answer. A tool call written as text is the recogniser's business
(`textcalls`).
"""

from __future__ import annotations

import difflib
import re
from itertools import groupby
from typing import Any

from ._options import option
from ._text import excerpt
from .i18n import _, say, say_n
from .outcome import Note, Run, Turn

ECHO_MAX_WORDS = 200
"""A reply longer than this many words is never read as an echo (and the reading stays short)."""
_WORD = re.compile(r"\w+")


def warn(run: Run, kind: str, text: str, *, replace: bool = False) -> None:
    """One run-level warning per kind: the first time it happens says it all — or, with
    `replace`, the latest, which counts every time so far."""
    if kind not in run.warning_kinds:
        run.warning_kinds[kind] = len(run.warnings)
        run.warnings.append(text)
    elif replace:
        run.warnings[run.warning_kinds[kind]] = text


def note_cut_off(turn: Turn, run: Run) -> None:
    """A reply cut off at the length limit: a note on the turn, and the run's warning counts."""
    advice = say("cut_off_advice", max_tokens=option("max_tokens"))
    _note_counted(turn, run, "cut_off", say("cut_off_note", n=turn.completion_tokens), advice)


def note_empty(turn: Turn, run: Run) -> None:
    """An empty reply: a note on the turn, and the run's warning counts them all."""
    advice = _("Small models do this; if it keeps happening, try another model.")
    _note_counted(turn, run, "empty_reply", say("empty_reply_note"), advice)


def _note_counted(turn: Turn, run: Run, kind: str, said: str, advice: str) -> None:
    """`said` as a note of `kind` on the turn, and the run's one warning of that kind, which
    counts every turn noted so (`data/said.toml`'s `{kind}_count`), rewritten as it grows."""
    turn.notes.append(Note(kind, said))
    noted = [t.index for t in run.turns if t.noted(kind)]
    counted = say_n(f"{kind}_count", len(noted), n=len(noted), turns=_listed(noted))
    warn(run, kind, f"{counted} {advice}", replace=True)


def note_echo(turn: Turn, run: Run) -> bool:
    """Whether the reply only repeats words the model was sent; if so, noted on the turn and
    the run (it ends the run on the flag, without an answer)."""
    echoed = echoes(turn.text, run.messages[:-1])
    if echoed is None:
        return False
    said = say("echo_note", whose=echoed, text=excerpt(turn.text, 120))
    turn.notes.append(Note("echoed_prompt", said))
    what = say("echo_warned", n=turn.index, whose=echoed)
    advice = _("Small models do this when they lose the thread; try a larger model.")
    warn(run, "echoed_prompt", f"{what} {advice}")
    return True


def note_after_cut_off(turn: Turn) -> None:
    """A reply that follows a cut-off one: it may be only the end of what the model meant."""
    turn.notes.append(Note("after_cut_off", say("after_cut_off_note")))


def _listed(turns: list[int]) -> str:
    """ "2, 3, 5" — or "2-9, 11" when runs of turns follow each other."""
    # each turn one past the turn before it has the same n - i as that one: one run, one group
    runs = [[n for _i, n in run] for _k, run in groupby(enumerate(turns), lambda p: p[1] - p[0])]
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def echoes(text: str, sent: list[dict[str, Any]]) -> str | None:
    """Whose words `text` only repeats back — the task's, the system prompt's, or the loop's own
    request — or None. An echo is a reply of 3 words or more whose longest run of words in
    common with one message the model was sent covers at least 80% of it."""
    words = [w.lower() for w in _WORD.findall(text[: ECHO_MAX_WORDS * 20])]
    if not 3 <= len(words) <= ECHO_MAX_WORDS:
        return None
    task = next((m for m in sent if m.get("role") == "user"), None)
    for message in reversed(sent):
        role, content = message.get("role"), message.get("content")
        if role not in ("user", "system") or not isinstance(content, str):
            continue
        theirs = [w.lower() for w in _WORD.findall(content[: ECHO_MAX_WORDS * 20])]
        if _common_run(words, theirs[:ECHO_MAX_WORDS]) * 5 >= len(words) * 4:
            if role == "system":
                return _("the system prompt")
            return _("the task") if message is task else _("the loop's own request")
    return None


def _common_run(a: list[str], b: list[str]) -> int:
    """The length of the longest run of words `a` and `b` share (both at most a few hundred;
    no junk heuristic, which would skip words common in `b`)."""
    return difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match().size
