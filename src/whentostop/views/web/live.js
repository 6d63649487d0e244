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
