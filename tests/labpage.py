"""Drive JupyterLab in headless Chromium the way a learner does: open a notebook, Run All, read
what is on the page, move an explorer's slider. Shared by the JupyterLab, Binder-like install
and JupyterHub tests; commands and selectors follow /work/shared/BROWSER.md."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from conftest import ROOT, committed_text, free_port, running

LAB_SETTINGS = {
    # No "Would you like to get notified about official Jupyter news?" toast over the page.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
    # Every cell stays in the page, so its outputs can be read without scrolling to it.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}

ERROR_OUTPUTS = (
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]'
)

# True once Run All has finished: nothing queued or running, and every cell that has code got an
# execution count — or an error stopped the run (then the test reports the error, not a timeout).
_RUN_ALL_DONE = """([errors]) => {
    const cells = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
    const prompt = c => (c.querySelector('.jp-InputPrompt')?.textContent || '').trim();
    if (cells.some(c => prompt(c).includes('*'))) return false;
    if (document.querySelector(errors)) return true;
    const withCode = cells.filter(c => (c.querySelector('.cm-content')?.textContent || '').trim());
    return withCode.length > 0 && withCode.every(c => /\\[\\d+\\]/.test(prompt(c)));
}"""


def copy_of_repository(dest: Path) -> Path:
    """The files git would commit (tracked and new, not ignored), copied to `dest`; notebooks as
    committed, without the outputs and answers Jupyter saved into the working copy."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            if source.suffix == ".ipynb":
                (dest / name).write_text(committed_text(source), encoding="utf-8")
            else:
                shutil.copy2(source, dest / name)
    return dest


def write_lab_settings(settings_dir: Path) -> Path:
    """Write the JupyterLab user settings a test needs into `settings_dir` (created)."""
    for name, value in LAB_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    return settings_dir


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: where it is and the token that opens it."""

    url: str
    token: str

    def tree(self, path: str) -> str:
        """The URL that opens `path` (relative to the server's root) in a fresh workspace."""
        return f"{self.url}lab/tree/{path}?reset&token={self.token}"

    def shutdown_kernels(self) -> None:
        """Stop every kernel, so kernels from one notebook do not pile up while the next runs."""
        headers = {"Authorization": f"token {self.token}"}
        for kernel in httpx.get(f"{self.url}api/kernels", headers=headers, timeout=10).json():
            httpx.delete(f"{self.url}api/kernels/{kernel['id']}", headers=headers, timeout=30)


@contextmanager
def jupyter_lab(
    jupyter: Path | str, *, root_dir: Path, state_dir: Path, env: dict[str, str], log: Path
) -> Iterator[Lab]:
    """JupyterLab on a free loopback port serving `root_dir`, stopped on exit (bounded)."""
    port, token = free_port(), secrets.token_hex(16)
    settings = write_lab_settings(state_dir / "settings")
    cmd = [
        str(jupyter),
        "lab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.workspaces_dir={state_dir / 'workspaces'}",
        f"--LabApp.user_settings_dir={settings}",
        "--MappingKernelManager.cull_interval=10",
        "--MappingKernelManager.cull_idle_timeout=60",
    ]
    url = f"http://127.0.0.1:{port}/"
    with running(
        cmd,
        url=f"{url}api/status?token={token}",
        env=env,
        cwd=root_dir,
        log=log,
        start_timeout_s=90,
        stop_timeout_s=10,
    ):
        yield Lab(url, token)


def wait_until_idle(page, timeout_ms: int = 120_000) -> None:
    """Wait for the status bar's `| Idle`: the kernel is up (the toolbar says idle too early)."""
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=timeout_ms)


def open_notebook(page, url: str) -> None:
    """Open a notebook URL and wait until its kernel is ready to run cells."""
    page.goto(url, wait_until="domcontentloaded")
    wait_for_notebook(page)


def wait_for_notebook(page) -> None:
    """Wait until the page shows a notebook's cells and its kernel is idle."""
    page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
    wait_until_idle(page)


def run_all_cells(page, timeout_ms: int = 240_000) -> None:
    """Run > Run All Cells, then wait until every cell with code ran (or one failed)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(_RUN_ALL_DONE, arg=[ERROR_OUTPUTS], timeout=timeout_ms, polling=500)
    wait_until_idle(page, timeout_ms)


def error_outputs(page) -> list[str]:
    """The text of every output a learner would read as an error or a warning box."""
    shown = [el.inner_text() for el in page.locator(ERROR_OUTPUTS).all()]
    for el in page.locator(".jp-OutputArea-output").all():
        text = el.inner_text()
        if "Traceback (most recent call last)" in text and text not in shown:
            shown.append(text)
    return shown


def code_cells_run(page) -> int:
    """How many code cells show an execution count."""
    prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").all_inner_texts()
    return sum(1 for p in prompts if any(ch.isdigit() for ch in p))


@dataclass(frozen=True)
class ExplorerView:
    """What a learner sees in one explorer: the badge, the turns line, the transcript, the plot."""

    badge: str
    turns: str
    transcript: str
    plot: str | None

    @classmethod
    def read(cls, explorer) -> ExplorerView:
        plot = explorer.locator(".wts-plot img")
        return cls(
            badge=explorer.locator(".wts-badge").inner_text().strip(),
            turns=explorer.locator(".wts-turns").inner_text().strip(),
            transcript=explorer.locator(".wts-transcript").inner_text().strip(),
            plot=plot.first.get_attribute("src") if plot.count() else None,
        )


SLIDER = ".wts-max-turns input[type=range]"
"""The max_turns slider: a native range input named by its label (`whentostop.views.controls`)."""


def slider_value(explorer) -> int:
    """The max_turns slider's value as its readout shows it."""
    return int((explorer.locator(".wts-max-turns output").text_content() or "").strip())


def move_slider(page, explorer, presses: int) -> None:
    """Move the max_turns slider by `presses` keyboard steps (negative: to the left), as a
    learner would with the slider focused, and wait until the readout shows the new value."""
    start = slider_value(explorer)
    handle = explorer.locator(SLIDER).first
    handle.scroll_into_view_if_needed()
    handle.focus()
    key = "ArrowRight" if presses > 0 else "ArrowLeft"
    for _ in range(abs(presses)):
        handle.press(key)
    readout = explorer.locator(".wts-max-turns output")
    page.wait_for_function(
        "([el, want]) => el.textContent.trim() === want",
        arg=[readout.element_handle(), str(start + presses)],
        timeout=10_000,
    )
