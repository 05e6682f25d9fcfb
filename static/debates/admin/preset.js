// Picking a preset fills the wire protocol and base URL (on save the server fills only blank ones).
document.addEventListener("DOMContentLoaded", () => {
  const preset = document.getElementById("id_preset");
  if (!preset) return;
  const presets = JSON.parse(preset.dataset.presets);
  preset.addEventListener("change", () => {
    const chosen = presets[preset.value];
    if (!chosen) return;
    document.getElementById("id_wire").value = chosen.wire;
    document.getElementById("id_base_url").value = chosen.base_url;
  });
});
