"""The reader of intent measured like a model: labelled phrasings, and a tally of how many it reads
right, per language, per label and per class.

    python -m whentostop.mock.corpus                 # every corpus file under data/intent/
    python -m whentostop.mock.corpus dev --misses    # and the phrasings it reads wrong
    python -m whentostop.mock.corpus dev --rules     # the rules alone (no second opinion)

Each file of `data/intent/` holds one phrasing a line (JSON Lines): `text`, `lang` ("en"/"pt"),
`label` ("gives_up"/"keeps_searching"), `searches` (the number of empty searches named, or null),
`family` (one idea written several ways) and `class` (what kind of wording it is). A phrasing is
read as the system prompt of the searcher on level 1-1 (no star, `max_turns=10`), with the lesson's
task in its language; it is right when the exit it leads to is its label's.

The held-out files (`heldout*.jsonl`) were written by someone who never saw the reader or its
lexicon. They are measured, never read: this command prints their counts and accuracy only, and
refuses to list their misses. See DEVELOPERS.md, "The reader of intent".
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .intent import Intent, read_intent, read_rules

LABELS = ("gives_up", "keeps_searching")
TASKS = {"en": "Find the star in this level.", "pt": "Encontre a estrela nesta fase."}
"""The lesson's task, as the searcher receives it after the system prompt."""
MAX_TURNS = 10
"""Level 1-1 is read with this clock: a permission after N empty searches is taken only if the N
searches and the reply that gives up fit in it."""
HELD_OUT = "heldout"
"""Files whose names start with this are measured, never shown."""


@dataclass(frozen=True)
class Phrasing:
    """One labelled system prompt."""

    text: str
    lang: str
    label: str
    searches: int | None
    family: str
    cls: str


def folder() -> Path:
    """data/intent/ of the checkout: the corpora are for the tests and the bench, and the wheel
    does not ship them (only the lexicons)."""
    here = Path(__file__).resolve().parents[3] / "data" / "intent"
    if not here.is_dir():
        raise FileNotFoundError(
            "The corpora of the reader of intent are not installed with whentostop: run this "
            "from a checkout of its repository (data/intent/*.jsonl)."
        )
    return here


def files() -> list[str]:
    """The corpus files under data/intent/, by name without `.jsonl`, ambiguous ones left out."""
    return sorted(p.stem for p in folder().glob("*.jsonl") if not p.stem.endswith("ambiguous"))


def load(name: str) -> list[Phrasing]:
    """The phrasings of data/intent/<name>.jsonl; a malformed line is a ValueError naming it."""
    rows = []
    text = (folder() / f"{name}.jsonl").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            said = (row["text"], row["lang"], row["label"], row.get("searches"))
            rows.append(Phrasing(*said, row["family"], row["class"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"data/intent/{name}.jsonl, line {number}: {exc!r}") from None
        if rows[-1].label not in LABELS or rows[-1].lang not in TASKS:
            raise ValueError(f"data/intent/{name}.jsonl, line {number}: unknown label or lang")
    return rows


def exit_of(intent: Intent, max_turns: int = MAX_TURNS) -> str:
    """The label of the exit the searcher takes on level 1-1 with this reading: it gives up (the
    flag) if allowed and the searches it must make first fit in the clock, else the clock."""
    if intent.allowed and (intent.searches is None or intent.searches + 1 <= max_turns):
        return "gives_up"
    return "keeps_searching"


Reader = Callable[[str, str], Intent]


def predict(phrasing: Phrasing, read: Reader = read_intent) -> tuple[str, Intent]:
    intent = read(phrasing.text, TASKS[phrasing.lang])
    return exit_of(intent), intent


@dataclass
class Tally:
    """Right and total, by group."""

    right: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[Phrasing, Intent]] = field(default_factory=list, repr=False)
    """What was read wrong; never shown for a held-out file."""
    searches_right: int = 0
    searches_total: int = 0

    def add(self, groups: Iterable[str], ok: bool) -> None:
        for group in groups:
            self.total[group] += 1
            self.right[group] += ok

    def accuracy(self, group: str) -> float:
        return self.right[group] / self.total[group] if self.total[group] else 1.0

    def line(self, group: str) -> str:
        return (
            f"{group:<28} {self.right[group]:>4} / {self.total[group]:<4} "
            f"{self.accuracy(group):7.1%}"
        )


def score(phrasings: Sequence[Phrasing], read: Reader = read_intent) -> Tally:
    """How many phrasings lead to their label's exit: overall, per language, label and class
    (`read`: the reader measured, `read_rules` for the rules without their second opinion)."""
    tally = Tally()
    for p in phrasings:
        got, intent = predict(p, read)
        ok = got == p.label
        groups = [f"lang {p.lang}", f"label {p.label}", f"{p.lang} {p.label}", f"class {p.cls}"]
        tally.add(["all", *groups], ok)
        if not ok:
            tally.misses.append((p, intent))
        if p.label == "gives_up" and p.searches is not None and ok:
            tally.searches_total += 1
            tally.searches_right += intent.searches == p.searches
    return tally


def summary(name: str, tally: Tally) -> list[str]:
    """The tally as lines: counts and accuracy only, never a phrasing."""
    groups = sorted(tally.total, key=lambda g: (g != "all", not g.startswith("lang"), g))
    lines = [f"== {name}.jsonl", *(tally.line(g) for g in groups)]
    if tally.searches_total:
        lines.append(
            f"{'searches named, read':<28} {tally.searches_right:>4} / {tally.searches_total:<4}"
        )
    return lines


def explain(intent: Intent) -> str:
    """What the reader took the phrasing to mean, for a developer reading a miss."""
    read = [f"{r.stance}/{r.why}: {r.quote!r}" for r in intent.readings]
    return f"read as {intent.why or 'nothing'}, searches={intent.searches}; {read}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="corpus files (default: all but the ambiguous)")
    for flag, meaning in (
        ("--misses", "list the misses (never for held-out files)"),
        ("--rules", "the rules alone, without their second opinion"),
    ):
        parser.add_argument(flag, action="store_true", help=meaning)
    args = parser.parse_args(argv)
    for name in args.names or files():
        tally = score(load(name), read_rules if args.rules else read_intent)
        print("\n".join(summary(name, tally)))
        if args.misses and name.startswith(HELD_OUT):
            print("(held-out misses are not shown: see DEVELOPERS.md)")
        elif args.misses:
            for p, intent in tally.misses:
                print(f"MISS {p.label} [{p.family}] {p.text!r}\n     {explain(intent)}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
