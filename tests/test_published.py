"""What publishing rests on: the version written once (`__version__`) and followed by the wheel,
the notebooks' install line and the release tag; the workflows checked by actionlint; the release
workflow publishing only a tag that is the package's version, with trusted publishing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

import whentostop

sys.path.insert(0, str(ROOT / "tools"))
import release  # tools/ is not a package: its folder is on the path

WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONLINT = Path(sys.executable).parent / "actionlint"


def workflow(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def test_every_notebook_installs_the_packages_own_version() -> None:
    assert release.version() == whentostop.__version__
    notebooks = release.notebooks()
    assert len(notebooks) == 12  # both editions
    for path in notebooks:
        assert release.pins(path) == [whentostop.__version__], path.relative_to(ROOT)


def test_the_install_line_is_in_the_first_code_cell_of_every_notebook() -> None:
    for path in release.notebooks():
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        first = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
        assert release.pins_in(first) == [whentostop.__version__], path.relative_to(ROOT)


def test_a_release_of_the_packages_own_version_is_allowed() -> None:
    assert release.problems(f"v{whentostop.__version__}") == []
    assert release.main(["release.py", f"v{whentostop.__version__}"]) == 0


@pytest.mark.parametrize("tag", ["v9.9.9", "0.1.0", "v0.1", "release-1"])
def test_a_tag_that_is_not_the_packages_version_stops_the_release(tag: str, capsys) -> None:
    found = release.problems(tag)
    assert len(found) == 1 and tag in found[0], found
    assert release.main(["release.py", tag]) == 1
    assert "release: the tag" in capsys.readouterr().err


def test_a_version_without_its_changelog_section_stops_the_release(tmp_path, monkeypatch) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## [Unreleased]\n")
    monkeypatch.setattr(release, "CHANGELOG", changelog)
    assert release.problems(f"v{whentostop.__version__}") == [
        f"CHANGELOG.md has no '## [{whentostop.__version__}]' section"
    ]


def test_pin_moves_every_notebooks_install_line_to_a_new_version(tmp_path, monkeypatch) -> None:
    notebooks = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    init = tmp_path / "__init__.py"
    init.write_text('__version__ = "0.2.0"\n')
    monkeypatch.setattr(release, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(release, "INIT", init)
    monkeypatch.setattr(release, "ROOT", tmp_path)
    assert len(release.pin()) == 12
    assert {tuple(release.pins(p)) for p in release.notebooks()} == {("0.2.0",)}
    assert release.pin() == []  # nothing left to change


# --- the workflows ---------------------------------------------------------------------------


@pytest.mark.skipif(not ACTIONLINT.exists(), reason="actionlint is installed by the test extra")
def test_actionlint_passes_the_workflows_and_catches_a_broken_one(tmp_path) -> None:
    done = subprocess.run([str(ACTIONLINT)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / ".github" / "workflows"
    broken.mkdir(parents=True)
    (broken / "x.yml").write_text(  # a job with no runs-on, a step with no run or uses
        "on: push\njobs:\n  a:\n    steps:\n      - name: nothing\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, timeout=60)
    caught = subprocess.run([str(ACTIONLINT)], cwd=tmp_path, capture_output=True, text=True)
    assert caught.returncode == 1 and "x.yml" in caught.stdout


def test_ci_runs_ci_run_on_every_pull_request_as_root_in_debian() -> None:
    ci = workflow("ci.yml")
    assert "pull_request" in ci[True]  # YAML reads the key `on` as True
    (job,) = ci["jobs"].values()
    assert job["container"]["image"].startswith("python:3.11-")  # Debian, root: apt-get works
    assert any(step.get("run") == "bash .ci/run" for step in job["steps"])


def test_release_publishes_a_checked_tag_with_trusted_publishing() -> None:
    flow = workflow("release.yml")
    assert flow[True]["push"]["tags"] == ["v*"]
    build, publish = flow["jobs"]["build"], flow["jobs"]["publish"]
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert 'python tools/release.py "$GITHUB_REF_NAME"' in runs
    assert runs.index("tools/release.py") < runs.index("python -m build")
    assert "twine check --strict dist/*" in runs
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}  # no token: PyPI trusts the workflow
    assert publish["environment"]["name"] == "pypi"
    assert publish["steps"][-1]["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in publish["steps"][-1]  # no password: trusted publishing
