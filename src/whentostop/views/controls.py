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

import anywidget
import traitlets

from .look import (
    BACKGROUND,
    BORDER_COLOUR,
    DISABLED_BACKGROUND,
    FOCUS_COLOUR,
    MUTED_COLOUR,
    PROJECTOR_TEXT_PX,
    TEXT_COLOUR,
)

EXPLORER_CSS = f"""
.wts-explorer :is(select, input, button, summary, [tabindex]):focus-visible,
.wts-race :is(select, input, button, summary, [tabindex]):focus-visible {{
  outline: 3px solid {FOCUS_COLOUR} !important; outline-offset: 2px !important;
}}
.wts-live {{
  position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0;
}}
.wts-explorer, .wts-race {{ font-size: var(--jp-widgets-font-size, 13px); }}
.wts-projector {{ --jp-widgets-font-size: {PROJECTOR_TEXT_PX}px; --jp-widgets-inline-height: 36px;
  font-size: {PROJECTOR_TEXT_PX}px; }}
.wts-explorer .wts-level-title, .wts-race .wts-level-title {{ font-size: 1.4em; font-weight: bold;
  margin: 4px 0; line-height: 1.3; }}
.wts-pill {{ font-size: 1.15em; }}
.wts-projector .wts-level-title {{ font-size: 1.2em; }}
.wts-projector .wts-pill {{ font-size: 1em; }}
.wts-explorer details.wts-turn > summary {{ cursor: pointer; padding: 1px 0; }}
.wts-explorer .wts-transcript-box :is(pre, code) {{ font-size: 1em; }}
.wts-explorer .widget-label-basic, .wts-explorer .widget-label {{ white-space: normal;
  overflow: visible; text-overflow: clip; line-height: 1.3; }}
.wts-explorer .widget-checkbox {{ height: auto; min-height: var(--jp-widgets-inline-height);
  align-items: center; }}
.jupyter-widgets.wts-explorer, .jupyter-widgets.wts-dashboard,
.jupyter-widgets.wts-views {{ overflow: visible; }}
.jp-OutputArea:has(.wts-explorer), .jp-OutputArea-child:has(.wts-explorer),
.jp-OutputArea-output:has(.wts-explorer) {{ overflow: visible; }}
.jupyter-widgets.wts-ending, .jupyter-widgets.wts-beside-map {{ position: sticky; top: 0;
  z-index: 2; background: {BACKGROUND}; padding: 2px 0; }}
.jupyter-widgets.wts-beside-map {{ align-self: flex-start; }}
#rendered_cells:has(.wts-ending) {{ padding-top: 0; }}
.wts-explorer .wts-system-prompt input:disabled {{ background: {DISABLED_BACKGROUND};
  color: {MUTED_COLOUR}; border-style: dashed; cursor: not-allowed; }}
.wts-range-row {{ display: flex; align-items: center; gap: 8px; width: 100%; color: {TEXT_COLOUR}; }}
.wts-range-row label {{ white-space: nowrap; }}
.wts-range-row input[type=range] {{ flex: 1 1 auto; min-width: 80px; accent-color: {FOCUS_COLOUR}; }}
.wts-choice-row {{ display: flex; flex-wrap: wrap; align-items: center; gap: 8px;
  margin: 2px 8px 2px 12px; color: {TEXT_COLOUR}; }}
.wts-choice-row select {{ font-size: inherit; padding: 2px 4px; border: 1px solid {BORDER_COLOUR};
  border-radius: 2px; background: {BACKGROUND}; color: {TEXT_COLOUR}; }}
.wts-range-row output {{ min-width: 2ch; text-align: right; font-weight: bold;
  background: {BACKGROUND}; }}
"""
"""Focus rings on every control of the explorer, the visually hidden live region, the slider; the
explorer's text in one size (JupyterLab's widgets' own, or the projector's on `.wts-projector`),
its labels wrapped rather than cut off with an ellipsis, and the row saying how the run ended
(`.wts-ending`, or the column beside the map that holds it and the transcript, `.wts-beside-map`)
held at the top of the page while the rest of the explorer (a tall map) scrolls by.

Holding it there needs every box around the explorer to let it out: ipywidgets' boxes and
JupyterLab's output area scroll (`overflow: auto`) by default, which would make each of them the
row's scrolling box instead of the page. JupyterLab's scrolled-outputs mode outranks these rules
and keeps its own scrolling box. Voila pads its page's scrolling box at the top, where what
scrolls under the row would show through: not on a page with an explorer."""

_SLIDER_ESM = """
let made = 0;
function render({ model, el }) {
  const id = `wts-range-${Date.now().toString(36)}-${made++}`;
  const row = document.createElement("div");
  row.className = "wts-range-row";
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = document.createElement("input");
  input.type = "range";
  input.id = id;
  // JupyterLab's shortcuts must not take the arrow keys, Home and End from the slider
  input.setAttribute("data-lm-suppress-shortcuts", "true");
  const out = document.createElement("output");
  out.htmlFor = id;
  out.className = "widget-readout";
  row.append(label, input, out);
  el.appendChild(row);
  // a NumberSlider says how to show its value: decimals, a unit, the page's language
  const shown = (value) => {
    const decimals = model.get("decimals") ?? 0;
    const text = new Intl.NumberFormat(model.get("locale") || "en", {
      minimumFractionDigits: decimals, maximumFractionDigits: decimals}).format(value);
    return text + (model.get("suffix") ?? "");
  };
  const show = () => {
    label.textContent = model.get("description");
    input.min = String(model.get("min"));
    input.max = String(model.get("max"));
    input.step = String(model.get("step") ?? 1);
    input.value = String(model.get("value"));
    input.disabled = model.get("disabled");
    out.textContent = shown(model.get("value"));
  };
  const send = () => {
    const value = Number(input.value);
    out.textContent = shown(value);
    if (value !== model.get("value")) {
      model.set("value", value);
      model.save_changes();
    }
  };
  input.addEventListener("input", () => {
    out.textContent = shown(Number(input.value));
    if (model.get("continuous_update")) send();
  });
  input.addEventListener("change", send);
  show();
  model.on("change", show);
  return () => model.off("change", show);
}
export default { render };
"""

_CHOICE_ESM = """
let made = 0;
function render({ model, el }) {
  const id = `wts-choice-${Date.now().toString(36)}-${made++}`;
  const row = document.createElement("div");
  row.className = "wts-choice-row";
  const label = document.createElement("label");
  label.htmlFor = id;
  const select = document.createElement("select");
  select.id = id;
  // JupyterLab's shortcuts must not take the arrow keys from the list
  select.setAttribute("data-lm-suppress-shortcuts", "true");
  row.append(label, select);
  el.appendChild(row);
  const show = () => {
    label.textContent = model.get("description");
    const options = model.get("options");
    if ([...select.options].map(o => o.value).join(",") !== options.join(",")) {
      select.replaceChildren(...options.map(name => new Option(name, name)));
    }
    select.value = model.get("value");
    select.disabled = model.get("disabled");
  };
  select.addEventListener("change", () => {
    model.set("value", select.value);
    model.save_changes();
  });
  show();
  model.on("change", show);
  return () => model.off("change", show);
}
export default { render };
"""

_LIVE_ESM = """
function render({ model, el }) {
  const region = document.createElement("div");
  region.className = "wts-live";
  region.setAttribute("role", "status");
  region.setAttribute("aria-live", "polite");
  region.setAttribute("aria-atomic", "true");
  el.appendChild(region);
  const show = () => { region.textContent = model.get("text"); };
  show();
  model.on("change:text", show);
  return () => model.off("change:text", show);
}
export default { render };
"""

_PANE_ESM = """
function render({ model, el }) {
  const show = () => { el.innerHTML = model.get("value"); };
  show();
  model.on("change:value", show);
  return () => model.off("change:value", show);
}
export default { render };
"""


class TurnsSlider(anywidget.AnyWidget):
    """An integer slider named by its label; `value` changes when the learner lets go (or on
    every step with `continuous_update=True`), like `ipywidgets.IntSlider`."""

    _esm = _SLIDER_ESM
    _css = EXPLORER_CSS
    value = traitlets.Int(10).tag(sync=True)
    min = traitlets.Int(1).tag(sync=True)
    max = traitlets.Int(25).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    continuous_update = traitlets.Bool(False).tag(sync=True)

    @traitlets.validate("value")
    def _within_range(self, proposal: traitlets.Bunch) -> int:
        return max(self.min, min(self.max, int(proposal["value"])))


class NumberSlider(anywidget.AnyWidget):
    """A number slider named by its label, like `TurnsSlider` but in steps of any size, its
    readout with `decimals` and a unit (`suffix`), in the language `locale` names ("0,5 s")."""

    _esm = _SLIDER_ESM
    _css = EXPLORER_CSS
    value = traitlets.Float(1.0).tag(sync=True)
    min = traitlets.Float(0.0).tag(sync=True)
    max = traitlets.Float(1.0).tag(sync=True)
    step = traitlets.Float(0.1).tag(sync=True)
    decimals = traitlets.Int(1).tag(sync=True)
    suffix = traitlets.Unicode("").tag(sync=True)
    locale = traitlets.Unicode("en").tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    continuous_update = traitlets.Bool(False).tag(sync=True)

    @traitlets.validate("value")
    def _on_a_step_within_range(self, proposal: traitlets.Bunch) -> float:
        steps = round((float(proposal["value"]) - self.min) / self.step) if self.step > 0 else 0
        value = self.min + steps * self.step if self.step > 0 else float(proposal["value"])
        return round(max(self.min, min(self.max, value)), 10)


class Choice(anywidget.AnyWidget):
    """A drop-down list named by its label: `value` is one of `options`, like
    `ipywidgets.Dropdown` (whose list loses its arrow keys to JupyterLab's shortcuts)."""

    _esm = _CHOICE_ESM
    _css = EXPLORER_CSS
    value = traitlets.Unicode("").tag(sync=True)
    options = traitlets.List(traitlets.Unicode()).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    @traitlets.validate("value")
    def _one_of_the_options(self, proposal: traitlets.Bunch) -> str:
        if self.options and proposal["value"] not in self.options:
            raise traitlets.TraitError(f"{proposal['value']!r} is not one of {self.options}")
        return str(proposal["value"])


class LiveRegion(anywidget.AnyWidget):
    """A polite, atomic status region: set `text`, and a screen reader reads it out."""

    _esm = _LIVE_ESM
    _css = EXPLORER_CSS
    text = traitlets.Unicode("").tag(sync=True)


class Pane(anywidget.AnyWidget):
    """HTML that only swaps its content: `value` as in `ipywidgets.HTML`."""

    _esm = _PANE_ESM
    value = traitlets.Unicode("").tag(sync=True)
