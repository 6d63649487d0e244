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
