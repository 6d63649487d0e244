"""On Colab, the notebooks' first cell turns on Colab's custom widget manager (the explorers are
ipywidgets 8 and anywidget widgets, which Colab's own manager does not draw); anywhere else it does
nothing. Colab itself is stood in for by a `google.colab.output` module, as its kernel has one."""

from __future__ import annotations

import sys
import types

import pytest

from whentostop.lesson.colab import widgets_on_colab


@pytest.fixture
def colab(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A stand-in for Colab's kernel: `google.colab.output` that records what it was asked."""
    calls: list[str] = []
    google = types.ModuleType("google")
    colab = types.ModuleType("google.colab")
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: calls.append("enable_custom_widget_manager")  # type: ignore[attr-defined]
    colab.output = output  # type: ignore[attr-defined]
    google.colab = colab  # type: ignore[attr-defined]
    for name, module in [
        ("google", google),
        ("google.colab", colab),
        ("google.colab.output", output),
    ]:
        monkeypatch.setitem(sys.modules, name, module)
    return calls


def test_on_colab_the_custom_widget_manager_is_turned_on(colab, capsys) -> None:
    assert widgets_on_colab() is True
    assert colab == ["enable_custom_widget_manager"]
    assert capsys.readouterr().out == ""


def test_anywhere_else_nothing_happens(monkeypatch, capsys) -> None:
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert widgets_on_colab() is False
    assert capsys.readouterr().out == ""


def test_an_older_ipywidgets_loaded_before_the_install_asks_for_a_restart(
    colab, monkeypatch, capsys
) -> None:
    old = types.ModuleType("ipywidgets")
    old.__version__ = "7.7.1"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ipywidgets", old)
    assert widgets_on_colab() is True
    out = capsys.readouterr().out
    assert "ipywidgets 7.7.1" in out and "Restart session" in out
