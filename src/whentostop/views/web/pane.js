function render({ model, el }) {
  const show = () => { el.innerHTML = model.get("value"); };
  show();
  model.on("change:value", show);
  return () => model.off("change:value", show);
}
export default { render };
