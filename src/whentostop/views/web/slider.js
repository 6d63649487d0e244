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
