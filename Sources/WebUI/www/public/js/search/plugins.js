// The search plugins panel: the installed engines with an enable switch each, install from a URL or a path on the
// server, uninstall, and update (`search/plugins`, `enablePlugin`, `installPlugin`, `uninstallPlugin`, `updatePlugins`).
import { h, attempt, toast, dialog } from "../dom.js";

export function pluginsPanel(api, onChange) {
  let plugins = [];
  const summary = h("summary", {}, "Search plugins");
  const body = h("tbody");
  const table = h("table", { class: "table se-plugins", id: "search-plugin-list" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Enabled"), h("th", { scope: "col" }, "Name"),
      h("th", { scope: "col" }, "Version"), h("th", { scope: "col" }, "Address"), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")))),
    body);
  const source = h("input", { id: "search-install-source", type: "text", spellcheck: "false", required: true,
    placeholder: "https://…/engine.py or /path/on/server/engine.py" });
  const install = h("form", { class: "se-install", id: "search-install-form" },
    h("label", { for: "search-install-source", class: "sr-only" }, "Plugin URL or file path on the server"),
    source,
    h("button", { id: "search-install", type: "submit" }, "Install plugin"),
    h("button", { id: "search-update-plugins", type: "button", onclick: () => update() }, "Update plugins"));
  const node = h("details", { class: "panel", id: "search-plugins-box" }, summary,
    h("div", { class: "st-scroll" }, table), install);

  const render = () => {
    summary.textContent = `Search plugins (${plugins.filter((p) => p.enabled).length} of ${plugins.length} enabled)`;
    body.replaceChildren(...plugins.map((p) => {
      const box = h("input", { type: "checkbox", id: `search-plugin-enabled-${p.name}`, checked: Boolean(p.enabled),
        "aria-label": `Enable ${p.fullName || p.name}` });
      box.addEventListener("change", async () => {
        box.disabled = true;
        await attempt(() => api.post("search/enablePlugin", { names: p.name, enable: String(box.checked) }), "Changing the plugin");
        box.disabled = false;
        await load();
      });
      return h("tr", {},
        h("td", {}, box),
        h("td", {}, h("label", { for: box.id }, p.fullName || p.name), " ", h("span", { class: "muted" }, `(${p.name})`)),
        h("td", {}, p.version || ""),
        h("td", { class: "muted" }, p.url || ""),
        h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Uninstall ${p.name}`, onclick: () => uninstall(p) }, "Uninstall")));
    }));
  };

  const load = async () => {
    plugins = await api.get("search/plugins");
    render();
    onChange(plugins);
    return plugins;
  };

  const uninstall = async (p) => {
    const answer = await dialog("Uninstall plugin", h("p", {}, `Uninstall “${p.fullName || p.name}”?`),
      [{ label: "Cancel", value: null }, { label: "Uninstall", value: "yes", primary: true }]);
    if (answer !== "yes") return;
    if (await attempt(() => api.post("search/uninstallPlugin", { names: p.name }), "Uninstalling") !== undefined) await attempt(load, "Listing the plugins");
  };

  const update = async () => {
    if (await attempt(() => api.post("search/updatePlugins"), "Updating the plugins") === undefined) return;
    toast("Plugins updated");
    await attempt(load, "Listing the plugins");
  };

  install.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = source.value.trim();
    if (!value) return;
    const before = new Set(plugins.map((p) => `${p.name}@${p.version}`));
    if (await attempt(() => api.post("search/installPlugin", { sources: value }), "Installing the plugin") === undefined) return;
    await attempt(load, "Listing the plugins");
    const added = plugins.filter((p) => !before.has(`${p.name}@${p.version}`));
    if (added.length) { source.value = ""; toast(`Installed ${added.map((p) => p.fullName || p.name).join(", ")}`); }
    else toast("Nothing new was installed: the log (log/main) says why.", { error: true });
  });

  return { node, load, get plugins() { return plugins; } };
}
