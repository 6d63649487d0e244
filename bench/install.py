"""Benchmark 9 (issue 18): from a clean clone to JupyterLab answering, the way `make lab` does it,
with uv (bootstrapped into the venv from the package registry) against pip; and the install
alone into a fresh venv, uv against pip. Side by side, interleaved, after a warm-up of each, so
both installers work from warm caches (what a second learner on the same laptop, or CI, sees).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import httpx
from harness import JUPYTER_DIRS, Samples, Section, Verdict

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 10.0
"""Issue 18's goal: a clean clone to a running lab in under 10 s."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _environment(home: Path) -> dict[str, str]:
    """The shell of a learner with no endpoint configured; Jupyter writes into `home` only."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "WHENTOSTOP_MODEL", "VIRTUAL_ENV")
    }
    # the bench runs from .venv; a learner's shell has the system's Python first on PATH
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p) != Path(sys.executable).parent
    )
    for name in JUPYTER_DIRS:
        env[name] = str(home / name.lower())
    return env


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM make's whole process group (make, JupyterLab), then SIGKILL if it lingers."""
    for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=wait_s)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def clone_to_lab(installer: str) -> Callable[[], float]:
    """`git clone`, then `make lab INSTALLER=...`: seconds until JupyterLab answers."""

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="whentostop-install-") as folder:
            home, clone = Path(folder, "home"), Path(folder, "clone")
            port, token = _free_port(), "bench"
            args = f"LAB_ARGS=--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
            url = f"http://127.0.0.1:{port}/lab?token={token}"
            with open(Path(folder, "make.log"), "wb") as log:
                started = time.perf_counter()
                subprocess.run(
                    ["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=300
                )
                proc = subprocess.Popen(
                    ["make", "lab", f"INSTALLER={installer}", args],
                    cwd=clone,
                    env=_environment(home),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    return _until_answered(proc, url, started, Path(folder, "make.log"))
                finally:
                    _stop(proc)

    return run


def _until_answered(proc: subprocess.Popen[bytes], url: str, started: float, log: Path) -> float:
    """Seconds from `started` until `url` answers 200 (polled every 50 ms)."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"make lab exited with {proc.returncode}: {log.read_text()[-1500:]}")
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if time.perf_counter() - started > 900:
            raise RuntimeError("make lab did not answer in 900 s")
        time.sleep(0.05)


def install_alone(installer: str) -> Callable[[], float]:
    """The editable install `make lab` does, into a fresh venv (made before the clock starts)."""
    uv = Path(sys.executable).parent / "uv"

    def run() -> float:
        with tempfile.TemporaryDirectory(prefix="whentostop-install-") as folder:
            venv = Path(folder, "venv")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
            python = str(venv / "bin" / "python")
            command = (
                [str(uv), "pip", "install", "--quiet", "--python", python, "-e", str(ROOT)]
                if installer == "uv"
                else [
                    python,
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-e",
                    str(ROOT),
                ]
            )
            started = time.perf_counter()
            subprocess.run(command, check=True, timeout=900, capture_output=True)
            return time.perf_counter() - started

    return run


def install(cfg: Any) -> Section:
    section = Section(11, "Install: a clean clone to JupyterLab answering (make lab), uv vs pip")
    have_uv = (Path(sys.executable).parent / "uv").exists()
    if shutil.which("make") is None or shutil.which("git") is None or not have_uv:
        section.notes = [
            "Skipped: needs make, git and uv in this environment (`make bench` "
            "bootstraps uv into .venv)."
        ]
        section.verdicts = [
            Verdict("11. clone → lab answering (uv)", "not measured", f"< {GOAL_S:g} s", None)
        ]
        return section
    variants = {
        "clone-uv": clone_to_lab("uv"),
        "alone-uv": install_alone("uv"),
        "clone-pip": clone_to_lab("pip"),
        "alone-pip": install_alone("pip"),
    }
    if cfg.quick:  # a smoke run (make test runs it): uv's make lab once; pip's takes a minute
        variants = {"clone-uv": variants["clone-uv"]}
    reps, warmup = (1, 0) if cfg.quick else (3, 1)
    load_before = os.getloadavg()[0]
    samples = {name: Samples() for name in variants}
    for _ in range(warmup):  # uv's: its cache filled (pip's is, by any earlier pip install)
        for name, fn in variants.items():
            if name.endswith("uv"):
                fn()
    names = list(variants)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            samples[name].seconds.append(variants[name]())
    load_after = os.getloadavg()[0]

    def row(label: str, name: str) -> list[str]:
        if name not in samples:
            return [label, "skipped (--quick)", "", "", ""]
        s = samples[name]
        base = samples.get(name.replace("pip", "uv"))
        ratio = f"{s.median / base.median:.1f}x" if base is not None and base is not s else "1.0x"
        return [label, f"{s.median:.1f} s", f"{s.min:.1f} s", f"{s.max:.1f} s", ratio]

    section.header = ["from", "median", "min", "max", "to uv's"]
    section.rows = [
        row("clean clone → lab answering, uv (make lab)", "clone-uv"),
        row("clean clone → lab answering, pip (make lab INSTALLER=pip)", "clone-pip"),
        row("venv install alone (-e . into a fresh venv), uv pip install", "alone-uv"),
        row("venv install alone (-e . into a fresh venv), pip install", "alone-pip"),
    ]
    uv_lab = samples["clone-uv"].median
    section.notes = [
        f"{reps} runs of each, interleaved"
        + (f", after {warmup} warm-up run of uv's" if warmup else "")
        + "; the package caches (pip's, uv's) are warm, as for a second install on the same "
        "machine: a first install also downloads (~100 MB), at the network's speed. 'Clean clone' is `git clone` of this repository's committed HEAD from the local "
        "disk (no network for the clone itself), then `make lab` in it until GET /lab answers.",
        "make lab with uv: `python -m venv --without-pip` (ensurepip was ~3.5 s of a plain "
        "`python -m venv` here), uv fetched into it from the package registry by the pip beside "
        "python3, pip added by uv, `uv pip install -e .`, the lab settings file, then JupyterLab's "
        "start. With INSTALLER=pip: `python -m venv`, then `pip install -e .`.",
        "Of a uv run, JupyterLab's own start (process start to GET /lab answering) is ~5 s; "
        "~1 s of it is importing rfc3987_syntax, which builds a parser at import time "
        "(jsonschema's format-nongpl extra, which jupyter_events asks for).",
        f"Load average (1 min) {load_before:.1f} before and {load_after:.1f} after, on "
        f"{os.cpu_count()} cores: read the ratios, not the seconds.",
    ]
    section.verdicts = [
        Verdict(
            "11. clean clone → lab answering (uv)",
            f"{uv_lab:.1f} s",
            f"< {GOAL_S:g} s",
            uv_lab < GOAL_S,
        )
    ]
    if "clone-pip" in samples:
        section.verdicts.append(
            Verdict(
                "11. clone → lab: pip / uv",
                f"{samples['clone-pip'].median / uv_lab:.1f}x "
                f"({median(samples['clone-pip'].seconds):.1f} s with pip)",
                "uv faster (> 1x)",
                samples["clone-pip"].median > uv_lab,
            )
        )
    return section
