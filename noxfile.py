"""The test matrix: the library, notebook and CLI tests on every Python the classifiers name.

    .venv/bin/nox                       # every listed Python but the one `make test` runs on
    .venv/bin/nox -s lib-3.13           # one of them
    .venv/bin/nox -s lib --force-python 3.14   # a Python not listed yet (see the README)

`make test` runs the whole suite on the Python of `.venv` (CI's: 3.11); `make matrix` runs this
file's default sessions, side by side, each in an environment uv builds in seconds. The versions
come from the classifiers in pyproject.toml, so what the package claims is what is tested.
Interpreters are found, never downloaded: on PATH, among pyenv's installed versions, or uv's own
(`uv python install 3.14`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent

nox.needs_version = ">=2026.8"  # python-discovery: finds pyenv's Pythons
nox.options.default_venv_backend = "uv|venv"  # uv where it can be had
nox.options.download_python = "never"  # a missing Python is reported, not fetched
nox.options.reuse_venv = "yes"  # the same environment next time; uv refreshes what changed

CLASSIFIER = re.compile(r"^Programming Language :: Python :: (3\.\d+)$")
PYTHONS = [
    m.group(1)
    for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["classifiers"]
    if (m := CLASSIFIER.match(c))
]
"""Every Python the package says it supports, oldest first."""

OWN = f"{sys.version_info.major}.{sys.version_info.minor}"
"""The Python nox itself runs on: `.venv`'s, where `make test` already ran the whole suite."""

LIBRARY_TESTS = [
    "tests/test_loop.py",
    "tests/test_tools.py",
    "tests/test_level.py",
    "tests/test_mock.py",
    "tests/test_usage.py",
    "tests/test_checks.py",
    "tests/test_limits.py",  # the learner's code under limits: settrace on 3.11, sys.monitoring after
    "tests/test_protocol.py",
    "tests/test_plots.py",
    "tests/test_charts.py",
    "tests/test_widgets.py",
    "tests/test_properties.py",
    "tests/test_faults_endpoint.py",
    "tests/test_faults_replies.py",
    "tests/test_faults_tools.py",
    "tests/test_security.py",
    "tests/test_structure.py",
    "tests/test_classroom_links.py",
    "tests/test_cli.py",
    "tests/test_lesson_folder.py",  # the lesson copied out of the package: lesson, lab, dashboard
    # every cell of every lesson, exercises solved (the blank and endpoint runs add no Python)
    "tests/test_notebooks.py::test_notebook_with_solutions_filled_in_passes_every_check",
]
"""What a learner's Python runs: the library, the command line, the notebooks. Not the browser
tests, the wheel and Binder installs, the peers' SDKs or the benchmarks: `make test` runs those,
on its own Python. About 50 s of CPU per Python."""

nox.options.sessions = [f"lib-{v}" for v in PYTHONS if v != OWN]


def _pyenv_versions_visible() -> None:
    """pyenv answers for its *active* versions only (`python3.12` fails while the global version
    is 3.11); make the installed versions of every listed Python active for this run, after the
    ones already active, as `pyenv shell 3.11.7 3.12.1 3.13.0` would."""
    pyenv = shutil.which("pyenv")
    if not pyenv:
        return
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    found = subprocess.run([pyenv, "version-name"], capture_output=True, text=True, check=False)
    active = [v for v in found.stdout.strip().split(":") if v and v != "system"]
    installed = sorted(
        (p.name for p in (root / "versions").glob("3.*") if p.is_dir()),
        key=lambda name: [int(x) if x.isdigit() else -1 for x in name.split(".")],
    )
    wanted = {
        v: name
        for v in PYTHONS
        for name in installed
        if re.fullmatch(rf"{re.escape(v)}\.\d+", name)
    }  # the newest patch of each
    extra = [name for name in wanted.values() if name not in active]
    if extra:
        os.environ["PYENV_VERSION"] = ":".join([*active, *extra] if active else ["system", *extra])


_pyenv_versions_visible()


@nox.session(python=PYTHONS)
def lib(session: nox.Session) -> None:
    """The library, notebook and CLI tests on one Python (pytest arguments after `--`)."""
    session.install("-e", ".[test-core]")
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "not browser and not slow and not bench",
        *(session.posargs or LIBRARY_TESTS),
    )
