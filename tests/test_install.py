"""Installing, as `make lab` and `make test` do it: through uv, bootstrapped into the venv from the
package registry like any dependency; through pip where uv cannot be had or cannot install. And a
Python older than requires-python is refused at install, by pip and by uv, with a message that
names the Python it needs: not a traceback at import.

The Makefile's install steps run on a tiny project of their own (`make -f` the real Makefile in a
temporary folder), so the tests need the registry only for uv and hatchling.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT
from packaging.specifiers import SpecifierSet

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed"),
]

TINY = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "tiny-lesson"
version = "0"
"""


def tiny_project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "pyproject.toml").write_text(TINY)
    (folder / "tiny_lesson").mkdir()
    (folder / "tiny_lesson" / "__init__.py").write_text("WHO = 'tiny'\n")
    return folder


def make_install(project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`make .venv/.core-installed` — the install `make lab` does — in `project`."""
    environ = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return subprocess.run(
        ["make", "-f", str(ROOT / "Makefile"), ".venv/.core-installed"],
        cwd=project,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=540,
    )


def imports_the_project(project: Path) -> bool:
    found = subprocess.run(
        [
            str(project / ".venv" / "bin" / "python"),
            "-c",
            "import tiny_lesson; print(tiny_lesson.WHO)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return found.stdout.strip() == "tiny"


@pytest.fixture(scope="module")
def installed_by_make(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    project = tiny_project(tmp_path_factory.mktemp("make") / "project")
    done = make_install(project)
    assert done.returncode == 0, done.stdout + done.stderr
    return project, done.stdout


def test_make_bootstraps_uv_into_the_venv_and_installs_with_it(installed_by_make) -> None:
    project, out = installed_by_make
    assert "uv pip install -e ." in out
    assert (project / ".venv" / "bin" / "uv").exists()
    assert imports_the_project(project)
    # pip is there too, so that `%pip install` in a notebook works as in any venv
    pip = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert pip.returncode == 0 and str(project / ".venv") in pip.stdout


def test_where_uv_cannot_install_pip_does(installed_by_make) -> None:
    # uv offline with an empty cache stands for an index only pip is configured to reach.
    project, _ = installed_by_make
    (project / "pyproject.toml").touch()  # the install is due again
    done = make_install(project, UV_OFFLINE="1", UV_NO_CACHE="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "uv could not install -e .: trying pip" in done.stdout
    assert imports_the_project(project)


def test_where_uv_cannot_be_had_pip_installs(tmp_path: Path) -> None:
    project = tiny_project(tmp_path / "project")
    no_uv = tmp_path / "no-uv.txt"
    no_uv.write_text("uv==0.0.0\n")  # a constraint no release meets: `pip install uv` fails
    done = make_install(project, PIP_CONSTRAINT=str(no_uv))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pip install -e ." in done.stdout and "uv pip install" not in done.stdout
    assert not (project / ".venv" / "bin" / "uv").exists()
    assert imports_the_project(project)


# --- a Python older than requires-python ---------------------------------------------------------


REQUIRES = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]


def older_python() -> str:
    """An interpreter of the minor version just below requires-python's floor, if this machine
    has one (on PATH, or among pyenv's installed versions)."""
    spec = SpecifierSet(REQUIRES)
    floor = min((s.version for s in spec if s.operator == ">="), default=None)
    assert floor, f"requires-python {spec} has no floor"
    major, minor = (int(x) for x in floor.split(".")[:2])
    below = f"{major}.{minor - 1}"
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    candidates = [
        shutil.which(f"python{below}"),
        *sorted(str(p / "bin" / f"python{below}") for p in pyenv.glob(f"{below}.*")),
    ]
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if probe.returncode == 0 and probe.stdout.strip() == f"({major}, {minor - 1})":
            return candidate
    pytest.skip(f"no Python {below} on this machine to try the refusal with")


@pytest.fixture(scope="module")
def old_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment of the Python just below the floor, with pip in it."""
    venv = tmp_path_factory.mktemp("old") / "venv"
    uv = Path(sys.executable).parent / "uv"
    if uv.exists():
        subprocess.run(
            [str(uv), "venv", "--quiet", "--seed", "-p", older_python(), str(venv)],
            check=True,
            timeout=300,
        )
    else:
        subprocess.run([older_python(), "-m", "venv", str(venv)], check=True, timeout=300)
    return venv


def test_pip_refuses_an_older_python_and_says_which_it_needs(old_venv: Path) -> None:
    done = subprocess.run(
        [
            str(old_venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--dry-run",
            "--no-deps",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert done.returncode != 0
    assert "requires a different Python" in done.stderr and REQUIRES in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_uv_refuses_an_older_python_and_says_which_it_needs(old_venv: Path) -> None:
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip("uv is not in this environment (the Makefile could not bootstrap it)")
    done = subprocess.run(
        [
            str(uv),
            "pip",
            "install",
            "--python",
            str(old_venv / "bin" / "python"),
            "--dry-run",
            "--no-deps",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert done.returncode != 0
    assert f"does not satisfy Python{REQUIRES}" in re.sub(r"\s+", " ", done.stderr), done.stderr
    assert "Traceback" not in done.stderr
