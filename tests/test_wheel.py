"""The package as PyPI will hand it out: a plain (not editable) wheel, installed in a fresh
virtual environment and run from another folder. It finds its levels and prices through
importlib.resources; it carries both editions' notebooks, and `python -m whentostop lesson` puts
them in a folder where they run; and a notebook opened where the package is missing (Colab,
Kaggle) installs it, at its own version, from wherever pip finds it — here a local folder holding
only the wheel — and runs to the end."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

from whentostop import __version__
from whentostop.lesson.classroom import EDITIONS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

UV = Path(sys.executable).parent / "uv"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, alone in its folder (the folder pip is pointed at below)."""
    dist = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=600,
    )
    (built,) = dist.glob("when_to_stop-*.whl")
    return built


def install(python: Path, *specs: str) -> None:
    """Install into the venv of `python` with uv (fast, from its cache) where the test venv has
    it, else with that venv's pip."""
    if UV.exists():
        command = [str(UV), "pip", "install", "-q", "--python", str(python), *specs]
    else:
        command = [str(python), "-m", "pip", "install", "-q", *specs]
    subprocess.run(command, check=True, timeout=600)


def uninstall(python: Path, name: str) -> None:
    if UV.exists():
        command = [str(UV), "pip", "uninstall", "-q", "--python", str(python), name]
    else:
        command = [str(python), "-m", "pip", "uninstall", "-q", "-y", name]
    subprocess.run(command, check=True, timeout=120)


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A fresh venv (with pip, as Colab's and Kaggle's Pythons have) holding the wheel's
    dependencies, a kernel and nbclient — but not the package: its Python."""
    env_dir = tmp_path_factory.mktemp("bare") / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    install(python, str(wheel), "ipykernel", "nbclient")
    uninstall(python, "when-to-stop")  # its dependencies stay
    return python


def in_venv(python: Path, code: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, **kw)


EXECUTE = """
import json, sys
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True,
               resources={"metadata": {"path": sys.argv[2]}}).execute()
code = [c for c in nb.cells if c.cell_type == "code"]
def text(cell):
    return "".join(o.get("text", "") or "".join(o.get("data", {}).get("text/plain", ""))
                   for o in cell.outputs)
print(json.dumps({
    "errors": [o["ename"] + ": " + o["evalue"] for c in code for o in c.outputs
               if o.output_type == "error"],
    "first": text(code[0]),
    "all": "\\n".join(text(c) for c in code),
}))
"""


def execute(python: Path, notebook: Path, env: dict[str, str]) -> dict:
    """Run every cell of `notebook` with the kernel of the venv of `python`, in its folder."""
    done = subprocess.run(
        [str(python), "-c", EXECUTE, str(notebook), str(notebook.parent)],
        capture_output=True,
        text=True,
        env=env,
        cwd=notebook.parent,
        timeout=800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def no_index(jupyter_env: dict[str, str], wheel: Path) -> dict[str, str]:
    """pip where only the wheel's folder can be reached (no index at all), and Jupyter's folders
    kept out of the home folder (so `python3` is the venv's own kernel)."""
    env = {k: v for k, v in jupyter_env.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    return {**env, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheel.parent)}


def test_the_wheel_carries_both_editions_output_free_and_the_level_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        for lang, files in EDITIONS.items():
            folder = "whentostop/notebooks/" + ("" if lang == "en" else f"{lang}/")
            for name in files.values():
                cells = json.loads(zf.read(folder + name))["cells"]
                assert all(not c.get("outputs") for c in cells if c["cell_type"] == "code"), name
    # every data file the package reads ships (the levels, the prices, the lesson's exercises and
    # questions with their solutions, the lexicons), the corpora and their floors only excepted
    data = ROOT / "data"
    floors = data / "intent" / "floors.toml"  # what the tests hold the corpora at
    shipped = {
        f"whentostop/data/{p.relative_to(data).as_posix()}"
        for p in data.rglob("*")
        if p.is_file() and p.suffix != ".jsonl" and "__pycache__" not in p.parts and p != floors
    }
    assert shipped - set(names) == set(), "data files the wheel leaves out"
    assert "whentostop/data/lesson/solutions/ex_1_4_b.py" in names
    # The reader of intent's lexicons ship; its corpora (for tests and the bench) do not.
    assert {"whentostop/data/intent/en.toml", "whentostop/data/intent/pt.toml"} <= set(names)
    assert not [n for n in names if n.endswith(".jsonl")]
    assert not [n for n in names if ".ipynb_checkpoints" in n]


def test_wheel_in_a_fresh_venv_loads_its_levels(tmp_path: Path, wheel: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # The loop needs only httpx and pydantic; the notebook extras are not needed to load levels.
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "httpx", "pydantic"], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import whentostop, json; from whentostop import load_level, prices;"
        "print(json.dumps({'file': whentostop.__file__, 'stars': [load_level(n).star for n in ('1-1','1-2','1-3')],"
        "'prices': len(prices())}))"
    )
    out = in_venv(python, code, cwd=elsewhere, check=True).stdout
    assert str(env_dir) in out and str(ROOT / "src") not in out
    assert '"stars": [null, ["underground", 7], ["castle", 12]]' in out
    cli = subprocess.run(
        [python, "-m", "whentostop", "run", "--level", "1-3", "--model", "searcher"]
        + ["--stop-on", "mark_star", "--json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0 and '"stop": "terminal_tool"' in cli.stdout


def test_a_notebook_where_the_package_is_missing_installs_its_version_and_runs_to_the_end(
    bare: Path, no_index: dict[str, str], tmp_path: Path
) -> None:
    if in_venv(bare, "import whentostop").returncode == 0:  # the test below installed it
        uninstall(bare, "when-to-stop")
    assert "No module named 'whentostop'" in in_venv(bare, "import whentostop").stderr
    notebook = tmp_path / "00_start_here.ipynb"
    shutil.copy(ROOT / "notebooks" / notebook.name, notebook)  # alone: as Colab opens it
    ran = execute(bare, notebook, no_index)
    assert ran["errors"] == []
    assert "search_blocks" in ran["first"]  # the cell went on to use the package it installed
    found = in_venv(bare, "import whentostop; print(whentostop.__version__, whentostop.__file__)")
    version, where = found.stdout.split()
    assert version == __version__ and where.startswith(str(bare.parent.parent))


def test_the_wheel_alone_puts_the_lesson_in_a_folder_where_1_1_runs(
    bare: Path, wheel: Path, no_index: dict[str, str], tmp_path: Path
) -> None:
    install(bare, "--no-deps", str(wheel))
    folder = tmp_path / "x"
    made = subprocess.run(
        [str(bare), "-m", "whentostop", "lesson", str(folder)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in folder.glob("*.ipynb")) == sorted(EDITIONS["en"].values())
    # pip can reach nothing at all here: had the first cell tried to install, it would fail
    ran = execute(bare, folder / "1-1_the_clock.ipynb", {**no_index, "PIP_FIND_LINKS": ""})
    assert ran["errors"] == []
    assert "The star is at:" in ran["first"]
