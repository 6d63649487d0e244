"""What Binder does with this repository, done here: a fresh virtual environment of the Python
runtime.txt pins, then what repo2docker's Python build pack runs for a repository with a root
requirements.txt and a pyproject.toml ([project] and [build-system]): `pip install -r
requirements.txt`, then `pip install .` (not editable); JupyterLab from that environment started
in the repository's root, and a learner opening 00_start_here.ipynb from the Binder link's urlpath
and running all of it in the browser. The notebook server comes from requirements.txt (the
package's `lab` extra), not from repo2docker's own base environment: the test does not rely on it.

Everything happens in a copy of the working tree in a temporary folder, so nothing writes into
the checkout; pip's cache makes the second run faster.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import ROOT, screenshot
from labpage import (
    code_cells_run,
    copy_of_repository,
    error_outputs,
    jupyter_lab,
    open_notebook,
    run_all_cells,
)
from playwright.sync_api import expect

from whentostop.lesson.classroom import binder_link

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def binder_python() -> str:
    """The Python Binder runs: the one runtime.txt pins (repo2docker reads a root runtime.txt
    when there is no binder/ folder), which must be the one running this test."""
    pinned = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip().removeprefix("python-")
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    if pinned != running:
        message = f"runtime.txt pins Binder to Python {pinned}; this test runs on {running}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return sys.executable


def binder_like_environment(repo: Path, venv: Path) -> Path:
    """A new virtual environment with the repository installed as repo2docker does; its bin/."""
    subprocess.run([binder_python(), "-m", "venv", str(venv)], check=True, timeout=180)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True, timeout=300)
    if (repo / "requirements.txt").exists():  # repo2docker: `pip install -r requirements.txt`
        subprocess.run([*pip, "-r", "requirements.txt"], cwd=repo, check=True, timeout=900)
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text())
    assert "project" in pyproject and "build-system" in pyproject  # then also `pip install .`
    subprocess.run([*pip, "."], cwd=repo, check=True, timeout=900)
    return venv / "bin"


def the_start_notebook_binder_opens() -> str:
    """The path the README's Binder badge opens, read from the link itself."""
    urlpath = parse_qs(urlsplit(binder_link(notebook="00")).query)["urlpath"][0]
    assert urlpath.startswith("lab/tree/")
    return urlpath.removeprefix("lab/tree/")


@pytest.mark.timeout(1500)
def test_binders_install_in_a_fresh_venv_runs_start_here_in_jupyterlab(
    page, jupyter_env: dict[str, str], tmp_path: Path
) -> None:
    repo = copy_of_repository(tmp_path / "repo")
    assert not (repo / "binder").exists(), "a binder/ folder would hide the root pyproject.toml"
    bin_dir = binder_like_environment(repo, tmp_path / "venv")
    assert (bin_dir / "jupyter-lab").exists(), (
        "Binder would have no JupyterLab from this repository"
    )
    project_bin = str(Path(sys.executable).parent)
    path = [p for p in jupyter_env["PATH"].split(os.pathsep) if p != project_bin]
    env = dict(jupyter_env, PATH=os.pathsep.join([str(bin_dir), *path]))

    # Installed, not editable: the package is imported from the new environment's site-packages.
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import whentostop; print(whentostop.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv")

    with jupyter_lab(
        bin_dir / "jupyter",
        root_dir=repo,
        state_dir=tmp_path / "lab",
        env=env,
        log=tmp_path / "jupyterlab.log",
    ) as lab:
        open_notebook(page, lab.tree(the_start_notebook_binder_opens()))
        run_all_cells(page)
        screenshot(page, "binder-00_start_here")
        assert error_outputs(page) == []
        assert code_cells_run(page) > 0
        # The first run's result (the searcher on level 1-2 answers: the flag), printed and
        # in the explorer's badge.
        outputs = "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())
        assert "end_turn" in outputs, outputs[-2000:]
        expect(page.locator(".wts-explorer .wts-badge").first).to_contain_text("the flag")
        lab.shutdown_kernels()
