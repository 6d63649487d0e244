"""Notebooks are committed output-free, and contributors get the ecosystem's tool to keep them so:
nbstripout as a git filter (`make nbstripout`, named by .gitattributes). Jupyter's outputs stay in
the working copy and never reach a commit; the committed notebooks are what the filter makes."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import NOTEBOOKS, ROOT, committed_text

pytestmark = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("git") is None, reason="make and git are needed"
)


def filter_arguments() -> list[str]:
    """What the Makefile's filter passes to nbstripout (after `-m nbstripout`)."""
    line = next(
        line
        for line in (ROOT / "Makefile").read_text().splitlines()
        if line.startswith("NBSTRIPOUT =")
    )
    return shlex.split(line.split("-m nbstripout", 1)[1])


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_the_committed_notebook_is_what_the_filter_commits(path: Path) -> None:
    committed = committed_text(path)
    stripped = subprocess.run(
        [sys.executable, "-m", "nbstripout", *filter_arguments(), "-t"],
        input=committed,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert stripped == committed, f"{path.name}: nbstripout would change it (clear it, then commit)"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def test_with_make_nbstripout_outputs_saved_by_jupyter_never_reach_a_commit(tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    (repo / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / ".gitattributes", repo / ".gitattributes")
    name = "notebooks/1-1_the_clock.ipynb"
    (repo / name).write_text(committed_text(ROOT / name), encoding="utf-8")
    git(repo, "init", "--quiet", "-b", "main")
    # The Makefile's own target, in this clone, with the project's venv (-o: never reinstalled).
    venv = Path(sys.executable).parent.parent
    subprocess.run(
        [
            "make",
            "-f",
            str(ROOT / "Makefile"),
            f"VENV={venv}",
            "-o",
            f"{venv}/.test-installed",
            "nbstripout",
        ],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=60,
    )
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "the lesson")

    # JupyterLab runs a cell and autosaves: an output and an execution count in the working copy.
    nb = json.loads((repo / name).read_text())
    code = next(cell for cell in nb["cells"] if cell["cell_type"] == "code")
    code["execution_count"] = 1
    code["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["turn 1/10\n"]}]
    (repo / name).write_text(json.dumps(nb, indent=1))

    assert git(repo, "diff") == ""  # through the filter, the notebook has not changed
    git(repo, "add", "--all")
    assert git(repo, "status", "--porcelain") == ""  # so `git add` stages nothing to commit
    staged = json.loads(git(repo, "cat-file", "blob", f":{name}"))
    assert all(
        c.get("outputs", []) == [] and c.get("execution_count") is None
        for c in staged["cells"]
        if c["cell_type"] == "code"
    )
    assert re.search(r"turn 1/10", (repo / name).read_text())  # still in the working copy
