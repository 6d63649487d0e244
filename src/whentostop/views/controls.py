"""The explorer's own small widgets, where ipywidgets' cannot be made accessible from Python.

- `TurnsSlider`: a native `<input type="range">` with a linked `<label>`. ipywidgets' IntSlider
  draws a handle with `role="slider"` and no accessible name, and a focusable readout with no
  name or role; a browser's own range input is named by its label, moved by the arrow keys,
  Home and End, and announced by every screen reader.
- `NumberSlider`: the same range input for a number in steps of any size, its readout with a
  unit (the race's `deadline_s` and budget).
- `Choice`: a native `<select>` with a linked `<label>` (the model list).
- `LiveRegion`: one element with `role="status"` (polite, atomic), made once and kept: only its
  text changes, so a screen reader announces each new text. (An `ipywidgets.HTML` replaces its
  content on every change, and a live region that is new on the page is not announced.)
- `Pane`: an HTML output that only swaps its content. Measured in JupyterLab (bench section 8),
  the dashboard's page does about half the work per slider move with these as with
  `ipywidgets.HTML` outputs.

In JupyterLab the keys a control needs (arrows, Home, End, Space, Enter) would otherwise be taken
by the notebook's shortcuts (select the cell below, enter edit mode): our controls carry
`data-lm-suppress-shortcuts`, the attribute JupyterLab's shortcut handler stops at.

Each is an anywidget: a few lines of standard JavaScript in `_esm`, the same in JupyterLab, Voila
and Jupyter Notebook. Their `_css` also gives every control of the explorer a visible focus ring.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

import anywidget
import traitlets

from . import look


def _web(name: str) -> str:
    """A file of `views/web/`: the controls' JavaScript modules, the explorer's CSS."""
    return (Path(__file__).parent / "web" / name).read_text(encoding="utf-8")


EXPLORER_CSS = Template(_web("explorer.css")).substitute(vars(look))
"""The explorer's CSS (`web/explorer.css`, its `$NAME`s the colours and sizes of `look`).

Focus rings on every control of the explorer, the visually hidden live region, the slider; the
explorer's text in one size (JupyterLab's widgets' own, or the projector's on `.wts-projector`),
its labels wrapped rather than cut off with an ellipsis, and the row saying how the run ended
(`.wts-ending`, or the column beside the map that holds it and the transcript, `.wts-beside-map`)
held at the top of the page while the rest of the explorer (a tall map) scrolls by.

Holding it there needs every box around the explorer to let it out: ipywidgets' boxes and
JupyterLab's output area scroll (`overflow: auto`) by default, which would make each of them the
row's scrolling box instead of the page. JupyterLab's scrolled-outputs mode outranks these rules
and keeps its own scrolling box. Voila pads its page's scrolling box at the top, where what
scrolls under the row would show through: not on a page with an explorer."""


class _Control(anywidget.AnyWidget):
    """A control named by its label (`description`), with the explorer's CSS."""

    _css = EXPLORER_CSS
    description = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)


class _Slider(_Control):
    """A native range input (`web/slider.js`) named by its label; `value` changes when the
    learner lets go (or on every step with `continuous_update=True`), as in ipywidgets' sliders."""

    _esm = _web("slider.js")
    continuous_update = traitlets.Bool(False).tag(sync=True)


class TurnsSlider(_Slider):
    """An integer slider named by its label, like `ipywidgets.IntSlider`."""

    value = traitlets.Int(10).tag(sync=True)
    min = traitlets.Int(1).tag(sync=True)
    max = traitlets.Int(25).tag(sync=True)

    @traitlets.validate("value")
    def _within_range(self, proposal: traitlets.Bunch) -> int:
        return max(self.min, min(self.max, int(proposal["value"])))


class NumberSlider(_Slider):
    """A number slider named by its label, like `TurnsSlider` but in steps of any size, its
    readout with `decimals` and a unit (`suffix`), in the language `locale` names ("0,5 s")."""

    value = traitlets.Float(1.0).tag(sync=True)
    min = traitlets.Float(0.0).tag(sync=True)
    max = traitlets.Float(1.0).tag(sync=True)
    step = traitlets.Float(0.1).tag(sync=True)
    decimals = traitlets.Int(1).tag(sync=True)
    suffix = traitlets.Unicode("").tag(sync=True)
    locale = traitlets.Unicode("en").tag(sync=True)

    @traitlets.validate("value")
    def _on_a_step_within_range(self, proposal: traitlets.Bunch) -> float:
        steps = round((float(proposal["value"]) - self.min) / self.step) if self.step > 0 else 0
        value = self.min + steps * self.step if self.step > 0 else float(proposal["value"])
        return round(max(self.min, min(self.max, value)), 10)


class Choice(_Control):
    """A drop-down list named by its label: `value` is one of `options`, like
    `ipywidgets.Dropdown` (whose list loses its arrow keys to JupyterLab's shortcuts)."""

    _esm = _web("choice.js")
    value = traitlets.Unicode("").tag(sync=True)
    options = traitlets.List(traitlets.Unicode()).tag(sync=True)

    @traitlets.validate("value")
    def _one_of_the_options(self, proposal: traitlets.Bunch) -> str:
        if self.options and proposal["value"] not in self.options:
            raise traitlets.TraitError(f"{proposal['value']!r} is not one of {self.options}")
        return str(proposal["value"])


class LiveRegion(anywidget.AnyWidget):
    """A polite, atomic status region: set `text`, and a screen reader reads it out."""

    _esm = _web("live.js")
    _css = EXPLORER_CSS
    text = traitlets.Unicode("").tag(sync=True)


class Pane(anywidget.AnyWidget):
    """HTML that only swaps its content: `value` as in `ipywidgets.HTML`."""

    _esm = _web("pane.js")
    value = traitlets.Unicode("").tag(sync=True)
