"""Run the benchmarks of issue 6, print their tables, and write them to bench/RESULTS.md.

    python bench/run.py                  # everything, several repetitions (a few minutes)
    python bench/run.py --quick          # a smoke run: every section, very few repetitions
    python bench/run.py --only 1,7 --out /tmp/results.md
    python bench/run.py --only 8 --merge     # re-measure section 8 alone, in bench/RESULTS.md

Timings are medians of variants measured side by side in one run; read the ratios, not the
milliseconds. What is printed is what is written, plus bench/NOTES.md (hand-written findings).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from classreport import class_sections  # noqa: E402
from harness import Section, Verdict, machine, summary, table  # noqa: E402
from sections import SECTIONS, Config  # noqa: E402

NOTES = HERE / "NOTES.md"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="very few repetitions: checks it works"
    )
    parser.add_argument(
        "--out", type=Path, default=HERE / "RESULTS.md", help="where to write the results"
    )
    parser.add_argument("--only", default="", help="comma-separated section numbers (default: all)")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --only: put the new sections and their summary rows into --out in place of "
        "the old ones, keeping everything else it holds",
    )
    args = parser.parse_args(argv)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL"):
        os.environ.pop(name, None)  # the benchmarks are about the mock, never a real endpoint

    cfg = Config.make(args.quick)
    chosen = [int(n) for n in args.only.split(",") if n.strip()] or list(SECTIONS)
    command = " ".join(
        shlex.quote(a)
        for a in [
            Path(sys.executable).name,
            "bench/run.py",
            *(argv if argv is not None else sys.argv[1:]),
        ]
    )
    head = ["# Benchmarks (issue 6)", "", *machine(command), ""]
    print("\n".join(head), flush=True)

    sections = []
    started = time.perf_counter()
    for number in chosen:
        section = _run_one(number, cfg)
        print(section.markdown(), flush=True)
        sections.append(section)
    body = [
        "## Summary",
        "",
        summary(sections),
        "",
        f"Whole run: {time.perf_counter() - started:.0f} s"
        + (" (--quick: a smoke run; do not quote these numbers)." if cfg.quick else "."),
    ]
    print("\n".join(body), flush=True)

    if args.merge and args.out.exists():
        merged = merge(args.out.read_text(encoding="utf-8"), sections, head)
        args.out.write_text(merged, encoding="utf-8")
        print(f"\nmerged sections {', '.join(str(s.number) for s in sections)} into {args.out}")
        return 0
    text = "\n".join(head + body + [""] + [s.markdown() for s in sections])
    if NOTES.exists():
        text += "\n" + NOTES.read_text(encoding="utf-8")
    # The class simulation's section (make bench-class, minutes of a hub) is not re-measured here:
    # keep it as it was.
    kept = class_sections(args.out.read_text(encoding="utf-8")) if args.out.exists() else {}
    if kept:
        text = text.rstrip("\n") + "\n\n" + "\n\n".join(kept.values()) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


def merge(text: str, sections: Sequence[Section], head: Sequence[str]) -> str:
    """`text` (a RESULTS.md) with each of `sections` in place of the section of its number, and
    its verdicts in place of that number's rows of the summary; a line under the summary says
    which sections were re-measured, when and how (`head`: this run's machine lines)."""
    numbers = {s.number for s in sections}
    start = text.index("## Summary")
    table_start = text.index("\n|", start) + 1
    table_end = text.find("\n\n", table_start)
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text[table_start:table_end].splitlines()[2:]
    ]
    mine = [[v.benchmark, v.measured, v.goal, v.mark] for s in sections for v in s.verdicts]
    first = next((i for i, r in enumerate(rows) if int(r[0].split(".")[0]) in numbers), len(rows))
    kept = [r for r in rows if int(r[0].split(".")[0]) not in numbers]
    rows = kept[:first] + mine + kept[first:]
    when = "; ".join(line.removeprefix("- ") for line in head if line.startswith("- date:"))
    how = next(line for line in head if line.startswith("- command:")).removeprefix("- ")
    note = (
        f"Section{'s' if len(numbers) > 1 else ''} {', '.join(map(str, sorted(numbers)))} "
        f"re-measured alone ({when}, {how}); "
        "the rest is the whole run's."
    )
    text = (
        text[:table_start]
        + table(["benchmark", "measured (median unless said)", "goal", "goal met?"], rows)
        + "\n\n"
        + note
        + text[table_end:]
    )
    for section in sections:
        heading = f"\n## {section.number}. "
        at = text.index(heading) + 1
        end = text.find("\n## ", at)
        text = text[:at] + section.markdown() + (text[end:] if end >= 0 else "")
    return text


def _run_one(number: int, cfg: Config) -> Section:
    """One benchmark; a failure becomes a section that says so, and the others still run."""
    started = time.perf_counter()
    try:
        section = SECTIONS[number](cfg)
    except Exception as exc:  # a broken benchmark must not hide the other six
        section = Section(number, f"benchmark {number} failed")
        section.notes = [f"{type(exc).__name__}: {exc}"]
        section.verdicts = [Verdict(f"{number}. (failed)", "error", "-", False)]
    section.notes.append(f"(this section took {time.perf_counter() - started:.1f} s)")
    return section


if __name__ == "__main__":
    sys.exit(main())
