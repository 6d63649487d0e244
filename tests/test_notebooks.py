"""The notebooks as a learner meets them: each runs top to bottom from a clean kernel on the mock,
once as committed (exercises blank) and once with every exercise's solution filled in; and the
committed files hold no outputs, no keys, and no links to files that do not exist."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, committed_text, kernel_config
from lessonparts import minutes, split_at_going_further
from nbclient import NotebookClient

from whentostop import loop
from whentostop.lesson.checks import (
    by_tag,
    exercises,
    predictions,
    question_by_tag,
    quiz,
)
from whentostop.lesson.classroom import EDITIONS
from whentostop.mock import MockServer

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
sys.path.insert(0, str(ROOT / "tools"))  # tools/release.py: the install lines
LESSONS = {
    "00_start_here": "00",
    "1-1_the_clock": "1-1",
    "1-2_the_flag": "1-2",
    "1-3_the_warp_pipe": "1-3",
    "1-4_the_castle": "1-4",
}
ALL = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT_S = 60
KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_\-]{10,}")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")

_executed: dict[tuple[str, bool], nbformat.NotebookNode] = {}


def read(name: str) -> nbformat.NotebookNode:
    """The notebook as committed, not as Jupyter last saved it (see conftest.committed_text)."""
    return nbformat.reads(committed_text(NOTEBOOKS / f"{name}.ipynb"), as_version=4)


def tagged(
    nb: nbformat.NotebookNode, prefix: str = "exercise-"
) -> list[tuple[nbformat.NotebookNode, str]]:
    """(cell, tag) for every cell whose tag starts with `prefix`: exercise answer cells by
    default, "question-" for the predictions and end-of-level questions."""
    return [
        (cell, tag)
        for cell in nb.cells
        for tag in cell.get("metadata", {}).get("tags", [])
        if tag.startswith(prefix)
    ]


def solved(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy with every tagged answer cell replaced by its exercise's solution, and every
    question answered with its right letter."""
    nb = copy.deepcopy(nb)
    for cell, tag in tagged(nb):
        cell.source = by_tag(tag).cell(solved=True)
    for cell, tag in tagged(nb, "question-"):
        cell.source = question_by_tag(tag).cell(solved=True)
    return nb


def execute(nb: nbformat.NotebookNode, env: dict[str, str]) -> nbformat.NotebookNode:
    """Run every cell in a clean python3 kernel started in notebooks/, errors kept as outputs."""
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        allow_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
        config=kernel_config(env),
    )
    client.execute(env=env, cwd=str(NOTEBOOKS))
    return nb


def executed(name: str, with_solutions: bool, env: dict[str, str]) -> nbformat.NotebookNode:
    """Run a notebook once per mode, cached for the session: several tests read the outputs.
    A last cell reports the expectations its cells checked (`expectations`)."""
    key = (name, with_solutions)
    if key not in _executed:
        nb = solved(read(name)) if with_solutions else read(name)
        _executed[key] = execute(with_history(nb), env)
    return _executed[key]


HISTORY = "HISTORY "
"""What the cell `with_history` adds prints before the expectations' JSON."""


def with_history(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy with one more cell at the end: it prints every expectation the notebook's cells
    checked (`whentostop.lesson.expect.history`), for `expectations` to read."""
    nb = copy.deepcopy(nb)
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import json\nfrom whentostop.lesson.expect import history\n"
            f"print({HISTORY!r} + json.dumps([e.__dict__ for e in history()]))"
        )
    )
    return nb


def expectations(nb: nbformat.NotebookNode) -> list[dict]:
    """What `with_history`'s cell printed: each expectation's `stated`, `held` and `note`."""
    printed = text_of(nb.cells[-1])
    assert HISTORY in printed, printed
    return json.loads(printed.split(HISTORY, 1)[1])


def stated_in_code(nb: nbformat.NotebookNode) -> int:
    """How many calls of `expect` and `expect_raised` the notebook's code cells make, at least
    (a call inside a loop counts once)."""
    return sum(
        cell.source.count("expect(") + cell.source.count("expect_raised(")
        for cell in nb.cells
        if cell.cell_type == "code"
    )


def text_of(cell: nbformat.NotebookNode) -> str:
    """Everything a cell showed, as text (streams, plain and markdown displays, errors)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
        else:
            data = out.get("data", {})
            parts.extend(data.get(mime, "") for mime in ("text/plain", "text/markdown"))
    return "\n".join(parts)


def errors(nb: nbformat.NotebookNode) -> list[str]:
    return [
        f"cell {i}: {out.ename}: {out.evalue}\n{cell.source[:300]}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.output_type == "error"
    ]


# --- as committed -------------------------------------------------------------------------------


def test_the_lesson_notebooks_are_all_there():
    assert set(LESSONS) <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_committed_notebook_holds_no_outputs_or_execution_counts(name):
    dirty = [
        i
        for i, cell in enumerate(read(name).cells)
        if cell.cell_type == "code"
        and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]
    assert not dirty, f"{name}: cells {dirty} hold outputs; clear them before committing"


@pytest.mark.parametrize("name", ALL)
def test_committed_notebook_holds_nothing_like_an_api_key(name):
    text = committed_text(NOTEBOOKS / f"{name}.ipynb")
    assert not KEY_LIKE.search(text), f"{name} holds something that looks like an API key"


@pytest.mark.parametrize("name", ALL)
def test_relative_links_point_to_files_that_exist(name):
    for cell in read(name).cells:
        if cell.cell_type != "markdown":
            continue
        for target in LINK.findall(cell.source):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address or an anchor in the same page
            path = target.split("#", 1)[0]
            assert (NOTEBOOKS / path).exists(), f"{name} links to {target}, which does not exist"


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_opens_with_questions_and_minutes_and_its_core_closes_with_key_points(name):
    """The first cell states the questions, the objectives and both parts' minutes; the core ends
    with the key points, which link the other levels, and then comes the one Going further part
    (tests/lessonparts.py)."""
    cells = read(name).cells
    first = cells[0].source
    for part in ("**Questions**", "**Objectives**"):
        assert part in first, f"{name}: the first cell lacks {part}"
    minutes(first)
    core, depth = split_at_going_further(cells)
    assert core[-1].source.startswith("## Key points"), (
        f"{name}: the core must end on its key points"
    )
    others = [f"{other}.ipynb" for other in LESSONS if other != name]
    assert all(f"]({link})" in core[-1].source for link in others), (
        f"{name}: the key points must link the others"
    )
    assert len(depth) > 1 and not any(c.source.startswith("## Key points") for c in depth)


@pytest.mark.parametrize("name", LESSONS)
def test_no_heading_after_going_further_is_its_peer(name):
    """Going further is one part: every heading in it sits below it (### or deeper)."""
    _, depth = split_at_going_further(read(name).cells)
    peers = [
        line
        for cell in depth[1:]
        if cell.cell_type == "markdown"
        for line in re.sub(r"^```.*?^```", "", cell.source, flags=re.M | re.S).splitlines()
        if re.match(r"#{1,2} ", line)
    ]
    assert not peers, f"{name}: {peers}"


@pytest.mark.parametrize("name", LESSONS)
def test_no_code_cell_is_longer_than_a_screen(name):
    """The first cell's install lines for Colab and Kaggle are not counted: they cannot move
    into whentostop, which is not installed before they run."""
    from release import INSTALL, version

    install = INSTALL.format(version=version()) + "\n"
    long = [
        cell.source
        for cell in read(name).cells
        if cell.cell_type == "code" and len(cell.source.removeprefix(install).splitlines()) > 15
    ]
    assert not long, f"{name}: move helper code into whentostop: {long}"


@pytest.mark.parametrize("name, level", LESSONS.items())
def test_every_exercise_has_its_tagged_cell_ending_in_its_check(name, level):
    """Every exercise has its cell, once; in each part the exercises keep their order (the one
    that matters may sit in the core while the others wait under Going further)."""
    nb = read(name)
    cells = tagged(nb)
    wanted = [ex.tag for ex in exercises(level)]
    assert sorted(tag for _, tag in cells) == sorted(wanted)
    core, depth = split_at_going_further(nb.cells)
    for part in (core, depth):
        tags = [tag for cell in part for tag in cell.metadata.get("tags", []) if tag in wanted]
        assert tags == sorted(tags, key=wanted.index), (name, tags)
    assert any(tag in wanted for c in core for tag in c.metadata.get("tags", [])), (
        f"{name}: the core has no exercise"
    )
    for cell, tag in cells:
        assert cell.source == by_tag(tag).cell(), (
            f"{tag}: the cell differs from its data file's blank"
        )


@pytest.mark.parametrize("name", LESSONS)
def test_the_explorer_is_under_going_further(name):
    """The level's explorer (00 previews 1-2's) is depth: the core shows the exit with runs."""
    core, depth = split_at_going_further(read(name).cells)
    level = "1-2" if LESSONS[name] == "00" else LESSONS[name]
    call = re.compile(rf'^explorer\("{level}"(, [^()]*)?\)$', re.MULTILINE)
    assert not any(call.search(c.source) for c in core if c.cell_type == "code")
    assert sum(bool(call.search(c.source)) for c in depth if c.cell_type == "code") == 1


@pytest.mark.parametrize("name, level", LESSONS.items())
def test_every_question_has_its_tagged_cell_in_order(name, level):
    """The predictions come before the runs they are about, in order within each part; the five
    end-of-level questions close the core, after its exercises and before its key points."""
    nb = read(name)
    found = tagged(nb, "question-")
    wanted = [q.tag for q in (*predictions(level), *quiz(level))]
    assert sorted(tag for _, tag in found) == sorted(wanted)
    for cell, tag in found:
        assert cell.source == question_by_tag(tag).cell(), f"{tag}: the cell differs from its blank"
    assert len(quiz(level)) == 5 and predictions(level)
    core, depth = split_at_going_further(nb.cells)
    in_core = [t for c in core for t in c.metadata.get("tags", []) if t in wanted]
    in_depth = [t for c in depth for t in c.metadata.get("tags", []) if t in wanted]
    quiz_tags = [q.tag for q in quiz(level)]
    assert in_core[-5:] == quiz_tags, f"{name}: the five questions close the core"
    assert in_core[0] == predictions(level)[0].tag, f"{name}: the core opens with a prediction"
    for part in (in_core, in_depth):
        assert part == sorted(part, key=wanted.index), (name, part)
    first_quiz = next(i for i, c in enumerate(core) if quiz_tags[0] in c.metadata.get("tags", []))
    exercises_start = next(i for i, c in enumerate(core) if c.source.startswith("## Exercises"))
    assert first_quiz > exercises_start


@pytest.mark.parametrize("name", ALL)
def test_the_first_code_cell_installs_the_package_where_missing_then_chooses_the_language(name):
    """Colab and Kaggle: the package at the notebook's own version, installed only where it is
    missing (tools/release.py's INSTALL; tests/test_published.py keeps the version the
    package's); then the language."""
    from release import INSTALL, version

    first = next(c for c in read(name).cells if c.cell_type == "code").source
    install = INSTALL.format(version=version())
    assert first.startswith(install + "\n"), first[: len(install) + 80]
    after = first[len(install) + 1 :].splitlines()
    assert after[0] == "from whentostop import set_language"
    assert after[1].startswith('set_language("en")') and '"pt"' in after[1]


@pytest.mark.parametrize("name", ALL)
def test_no_cell_imports_numpy_or_matplotlib(name):
    """In the browser edition (JupyterLite) numpy and matplotlib would come from a CDN: a cell
    that imports them fails offline. The plots draw as SVG there (`whentostop.views.plots`)."""
    for cell in read(name).cells:
        if cell.cell_type == "code":
            assert not re.search(
                r"^\s*(import|from)\s+(numpy|matplotlib)\b|^%matplotlib", cell.source, re.MULTILINE
            ), cell.source


def test_the_castles_from_scratch_cells_are_tagged_and_hold_what_the_loop_builds_on():
    """Exercise 1-4.b's loop stands on these cells; the tests read them from here (one source)."""
    cells = {
        tag.removeprefix("scratch-1-4-"): cell.source
        for cell, tag in tagged(read("1-4_the_castle"), "scratch-")
    }
    assert set(cells) == {"outcome", "ask"}
    assert "class Outcome" in cells["outcome"] and "def ask(post, messages, tools)" in cells["ask"]


def test_the_castles_map_onto_run_agent_quotes_the_loop_as_it_is():
    """Every line the 1-4 notebook quotes from run_agent is in loop.py: when the loop changes,
    this fails until the notebook's table follows."""
    table = next(
        c.source
        for c in read("1-4_the_castle").cells
        if c.cell_type == "markdown" and "| `run_agent`, in `whentostop/loop.py`" in c.source
    )
    source = " ".join(Path(loop.__file__).read_text(encoding="utf-8").split())
    quoted = [
        re.findall(r"`([^`]+)`", row.split("|")[2])
        for row in table.splitlines()[2:]
        if row.startswith("|")
    ]
    quoted = [q for row in quoted for q in row]
    assert len(quoted) >= 9
    for line in quoted:
        assert " ".join(line.split()) in source, f"loop.py no longer has: {line}"


# --- run from a clean kernel --------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_notebook_runs_top_to_bottom_as_committed(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    assert not errors(nb), "\n".join(errors(nb))


@pytest.mark.parametrize("name", LESSONS)
def test_blank_exercises_and_questions_say_not_attempted_yet(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    for cell, tag in tagged(nb):
        shown = text_of(cell)
        assert "Not attempted yet" in shown, f"{tag}: {shown!r}"
        assert by_tag(tag).id in shown
    for cell, tag in tagged(nb, "question-"):
        shown = text_of(cell)
        assert "Not attempted yet" in shown and question_by_tag(tag).id in shown, (
            f"{tag}: {shown!r}"
        )


@pytest.mark.parametrize("name", LESSONS)
def test_hints_and_solutions_stay_hidden_until_asked(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    for cell, tag in tagged(nb):
        assert by_tag(tag).solution_code not in "\n".join(text_of(c) for c in nb.cells), tag


@pytest.mark.parametrize("name", LESSONS)
def test_notebook_with_solutions_filled_in_passes_every_check(name, jupyter_env):
    nb = executed(name, True, jupyter_env)
    assert not errors(nb), "\n".join(errors(nb))
    for cell, tag in tagged(nb):
        shown = text_of(cell)
        assert f"Exercise {by_tag(tag).id} — Correct: " in shown, f"{tag}: {shown!r}"
    for cell, tag in tagged(nb, "question-"):
        shown = text_of(cell)
        assert f"{question_by_tag(tag).id}: " in shown and "\nCorrect: " in shown, (
            f"{tag}: {shown!r}"
        )


@pytest.mark.parametrize("name", LESSONS)
def test_plots_are_drawn_as_images(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    images = [
        out
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    ]
    assert images, f"{name} showed no figure"


@pytest.mark.parametrize("name", ALL)
def test_no_output_looks_like_an_api_key(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    shown = "\n".join(text_of(cell) for cell in nb.cells)
    assert not KEY_LIKE.search(shown)


@pytest.mark.parametrize(
    "name", ["00_start_here", "1-1_the_clock", "1-4_the_castle"]
)  # the others: same path
def test_notebook_runs_on_an_endpoint_chosen_by_configuration_alone(name, jupyter_env):
    """The environment alone moves every run onto real HTTP (the mock served on a loopback
    socket, standing in for Ollama or vLLM): no cell names the endpoint."""
    with MockServer() as server:
        env = {**jupyter_env, "OPENAI_BASE_URL": server.base_url, "WHENTOSTOP_MODEL": "searcher"}
        nb = execute(read(name), env)
    assert not errors(nb), "\n".join(errors(nb))
    if name == "00_start_here":
        shown = "\n".join(text_of(cell) for cell in nb.cells)
        assert server.base_url in shown and "offline mock" not in shown


SMALL_MODEL_LESSONS = [
    name
    for name in (
        "00_start_here",
        "1-1_the_clock",
        "1-2_the_flag",
        "1-3_the_warp_pipe",
        "1-4_the_castle",
    )
    if name in ALL
]


PT_SMALL_MODEL_LESSONS = [
    f"pt/{EDITIONS['pt'][short].removesuffix('.ipynb')}"
    for short, english in EDITIONS["en"].items()
    if english.removesuffix(".ipynb") in SMALL_MODEL_LESSONS
]
"""The same lessons in the Portuguese edition (as `read()` names them)."""
SMALL_MODEL_RUNS = [
    *[
        (name, m)
        for m in ("qwen2.5-0.5b", "replay:repeat", "replay:fenced")
        for name in SMALL_MODEL_LESSONS
    ],
    *[(name, "qwen2.5-0.5b") for name in PT_SMALL_MODEL_LESSONS],
]


@pytest.mark.parametrize("name, model", SMALL_MODEL_RUNS)
def test_notebook_runs_against_a_small_local_models_replay(name, model, jupyter_env):
    """Configured for a real small model (tests/replay_server.py replays what Qwen2.5-0.5B did
    behind llama.cpp: tool calls written as text, empty replies, echoes, cut-off replies, guessed
    answers, 1-turn runs), every cell still runs: nothing assumes the mock's long, tidy runs.
    Three ways: each run a different behaviour; every run on the clock; every run one turn long.
    And every expectation the prose states either holds or is noted where it is checked."""
    from replay_server import ReplayServer

    with ReplayServer() as server:
        env = {**jupyter_env, "OPENAI_BASE_URL": server.base_url, "WHENTOSTOP_MODEL": model}
        nb = execute(with_history(read(name)), env)
        served = len(server.requests)
    assert not errors(nb), "\n".join(errors(nb))
    assert served > 0  # the runs really went to the replayed model
    stated = expectations(nb)
    assert len(stated) >= stated_in_code(read(name)) > 0
    shown = "\n".join(text_of(cell) for cell in nb.cells[:-1])
    unnoted = [e["stated"] for e in stated if not e["held"] and e["note"] not in shown]
    assert not unnoted, unnoted
    if model == "replay:fenced":  # every run ends on a tool call written as text: no prose holds
        assert not any(e["held"] for e in stated), [e["stated"] for e in stated if e["held"]]
    if name.startswith("pt/"):
        assert "The text says" not in shown and "O texto diz" in shown


@pytest.mark.parametrize("name", LESSONS)
def test_on_the_mock_every_expectation_the_prose_states_holds_and_prints_nothing(name, jupyter_env):
    nb = executed(name, False, jupyter_env)
    stated = expectations(nb)
    assert len(stated) >= stated_in_code(read(name))
    assert all(e["held"] for e in stated), [e["note"] for e in stated if not e["held"]]
    shown = "\n".join(text_of(cell) for cell in nb.cells[:-1])
    assert "The text says" not in shown
