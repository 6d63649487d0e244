"""Which Pythons the package supports, said in one place and kept true: requires-python's floor,
the classifiers (the test matrix in noxfile.py reads them), Binder's pinned runtime.txt, and CI
running the matrix."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from conftest import ROOT
from packaging.specifiers import SpecifierSet

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CLASSIFIED = [
    m.group(1)
    for c in PROJECT["classifiers"]
    if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))
]
OWN = f"{sys.version_info.major}.{sys.version_info.minor}"


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_the_classifiers_name_the_python_running_the_whole_suite() -> None:
    assert OWN in CLASSIFIED, f"`make test` runs on {OWN}, which the classifiers do not name"


def test_requires_python_admits_exactly_from_the_oldest_classified_python() -> None:
    oldest = min(CLASSIFIED, key=version_key)
    spec = SpecifierSet(PROJECT["requires-python"])
    major, minor = map(int, oldest.split("."))
    assert f"{oldest}.0" in spec, f"requires-python {spec} refuses {oldest}, which is tested"
    assert f"{major}.{minor - 1}.99" not in spec, f"requires-python {spec} admits untested Pythons"


def test_the_matrix_runs_every_classified_python_but_the_one_make_test_runs() -> None:
    listed = subprocess.run(
        [str(Path(sys.executable).parent / "nox"), "--list", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    sessions = {s["session"] for s in json.loads(listed.stdout)}
    assert sessions == {f"lib-{v}" for v in CLASSIFIED if v != OWN}


def test_binder_runs_a_classified_python_that_requires_python_admits() -> None:
    # repo2docker reads a root runtime.txt when there is no binder/ folder, and refuses to build
    # when runtime.txt's Python is outside requires-python.
    runtime = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    version = runtime.removeprefix("python-")
    assert version in CLASSIFIED
    assert f"{version}.0" in SpecifierSet(PROJECT["requires-python"])


def test_ci_runs_the_matrix_and_the_whole_suite() -> None:
    steps = [
        line.split()[:2]
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip().startswith("make ")
    ]
    assert ["make", "matrix"] in steps and ["make", "test"] in steps


def test_every_test_the_matrix_names_exists() -> None:
    # pytest refuses the whole session over one missing path, so a renamed test file would
    # leave every other Python untested.
    import importlib.util

    spec = importlib.util.spec_from_file_location("noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    missing = [t for t in noxfile.LIBRARY_TESTS if not (ROOT / t.split("::")[0]).is_file()]
    assert not missing, f"noxfile.py names test files that do not exist: {missing}"
