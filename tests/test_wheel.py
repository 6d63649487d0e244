"""A plain (not editable) wheel, installed in a fresh virtual environment and run from another
folder, finds its levels and prices through importlib.resources."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_wheel_in_a_fresh_venv_loads_its_levels(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
    )
    wheel = next(dist.glob("when_to_stop-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for level in ("1-1", "1-2", "1-3"):
        assert f"whentostop/data/levels/{level}.json" in names
    assert "whentostop/data/prices.json" in names
    # The reader of intent's lexicons ship; its corpora (for tests and the bench) do not.
    assert {"whentostop/data/intent/en.toml", "whentostop/data/intent/pt.toml"} <= set(names)
    assert not [n for n in names if n.endswith(".jsonl")]

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
    out = subprocess.run(
        [python, "-c", code], cwd=elsewhere, capture_output=True, text=True, check=True
    ).stdout
    assert str(env_dir) in out and str(ROOT / "src") not in out
    assert '"stars": [null, ["underground", 7], ["castle", 12]]' in out
    cli = subprocess.run(
        [
            python,
            "-m",
            "whentostop",
            "run",
            "--level",
            "1-3",
            "--model",
            "searcher",
            "--stop-on",
            "mark_star",
            "--json",
        ],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0 and '"stop": "terminal_tool"' in cli.stdout
