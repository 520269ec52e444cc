// The Settings section: `app/preferences` as a form in tabs (only the keys this server reports), saved with
// `app/setPreferences` sending only what changed, in the server's types; plus the API keys panel.
import { h, attempt, dialog } from "../dom.js";
import { TABS, HIDDEN } from "../settings/schema.js";
import { field } from "../settings/fields.js";
import { apiKeysPanel } from "../settings/apikeys.js";

let selectedTab = "downloads";   // kept while the page lives, so coming back shows the same tab

const NOT_APPLIED = { fixed: "no effect in qbtd", inert: "kept, but has no effect in qbtd", uiOnly: "used by web UIs only" };

function catalogueNotes(catalogue) {
  const notes = new Map();
  for (const entry of Array.isArray(catalogue) ? catalogue : []) {
    const effect = NOT_APPLIED[entry.effect];
    notes.set(entry.key, { type: entry.type, note: effect ? (entry.reason ? `${effect}: ${entry.reason}` : effect) : null });
  }
  return notes;
}

function humanise(key) {
  const text = key.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

async function addresses(api, iface) {
  const list = await api.get("app/networkInterfaceAddressList", { iface: iface || "" }).catch(() => []);
  return Array.isArray(list) ? list : [];
}

export async function mount(container, ctx) {
  const { api } = ctx;
  const title = h("h1", { class: "view-title" }, "Settings");
  const loading = h("p", { class: "muted", id: "settings-loading" }, "Loading…");
  container.append(title, loading);
  const [prefs, catalogue, interfaces] = await Promise.all([
    api.get("app/preferences"),
    api.get("qbtd/preferenceCatalogue").catch(() => []),
    api.get("app/networkInterfaceList").catch(() => []),
  ]);
  if (!title.isConnected) return undefined;   // the user went elsewhere meanwhile
  const notes = catalogueNotes(catalogue);
  const original = { ...prefs };
  const fields = new Map();      // key → field
  const tabOf = new Map();       // key → tab id

  const interfaceOptions = [["", "Any interface"], ...(Array.isArray(interfaces) ? interfaces : []).map((i) => [i.value, i.name])];
  const addressOptions = (list) => [["", "All addresses"], ...list.map((a) => [a, a])];
  const firstAddresses = "current_interface_address" in prefs ? await addresses(api, prefs.current_network_interface) : [];

  const buildTab = (tab) => {
    const grid = h("div", { class: "form-grid st-grid" });
    let pendingHeading = null;
    for (const def0 of tab.fields) {
      if (def0.heading) { pendingHeading = def0.heading; continue; }
      if (!(def0.key in prefs) && !def0.writeOnly) continue;
      if (fields.has(def0.key)) continue;
      let def = def0;
      if (def.control === "interface") def = { ...def, options: interfaceOptions };
      if (def.control === "address") def = { ...def, options: addressOptions(firstAddresses) };
      if (pendingHeading) { grid.append(h("h3", { class: "st-heading" }, pendingHeading)); pendingHeading = null; }
      const f = field(def, def.writeOnly ? "" : prefs[def.key], notes.get(def.key) || {});
      f.def = def;
      fields.set(def.key, f);
      tabOf.set(def.key, tab.id);
      grid.append(...f.nodes);
    }
    return grid;
  };

  const tabs = TABS.map((tab) => ({ id: tab.id, title: tab.title, body: buildTab(tab) }));
  const known = new Set(TABS.flatMap((t) => t.fields.map((f) => f.key)).filter(Boolean));
  const rest = Object.keys(prefs).filter((k) => !known.has(k) && !HIDDEN.has(k)).sort();
  tabs.push({ id: "advanced", title: "Advanced", body: buildTab({ id: "advanced", fields: [
    { heading: "Every other preference this server reports, by its WebAPI name" },
    ...rest.map((key) => ({ key, label: humanise(key) })),
  ] }) });
  const keys = apiKeysPanel(api);
  tabs.push({ id: "apikeys", title: "API keys", body: keys.node, outside: true });

  // Fields that only mean something when a checkbox is ticked.
  for (const f of fields.values()) {
    const owner = f.def.requires && fields.get(f.def.requires);
    if (!owner) continue;
    const sync = () => { f.input.disabled = !owner.input.checked; };
    owner.input.addEventListener("change", sync);
    sync();
  }
  // The address list follows the chosen interface.
  const ifaceField = fields.get("current_network_interface"), addrField = fields.get("current_interface_address");
  if (ifaceField && addrField) {
    ifaceField.input.addEventListener("change", async () => {
      const keep = addrField.input.value;
      const list = await addresses(api, ifaceField.input.value);
      addrField.def.options = addressOptions(list);
      addrField.input.replaceChildren(...addrField.def.options.map(([v, label]) => h("option", { value: v, selected: v === keep }, label)));
      addrField.read = () => addrField.input.value;
    });
  }

  const status = h("span", { id: "settings-status", class: "st-status", role: "status", "aria-live": "polite" });
  const save = h("button", { id: "settings-save", class: "primary", type: "submit" }, "Save");
  const form = h("form", { id: "settings-form", class: "st-form", novalidate: true });
  const tablist = h("div", { class: "tabs st-tabs", role: "tablist", "aria-label": "Settings sections" });
  const panels = [];
  for (const tab of tabs) {
    const button = h("button", { type: "button", role: "tab", id: `settings-tab-${tab.id}`, "aria-controls": `settings-panel-${tab.id}`,
      "aria-selected": "false", tabindex: "-1", dataset: { tab: tab.id } }, tab.title);
    tablist.append(button);
    const panel = h("section", { class: "panel st-panel", role: "tabpanel", id: `settings-panel-${tab.id}`,
      "aria-labelledby": `settings-tab-${tab.id}`, hidden: true }, tab.body);
    panels.push(panel);
    if (!tab.outside) form.append(panel);
  }
  form.append(h("div", { class: "st-savebar" }, save, status));
  const keysPanel = panels[panels.length - 1];

  let keysLoaded = false;
  const select = (id, focus = false) => {
    selectedTab = tabs.some((t) => t.id === id) ? id : "downloads";
    for (const button of tablist.children) {
      const on = button.dataset.tab === selectedTab;
      button.setAttribute("aria-selected", String(on));
      button.tabIndex = on ? 0 : -1;
      if (on && focus) button.focus();
    }
    for (const panel of panels) panel.hidden = panel.id !== `settings-panel-${selectedTab}`;
    form.hidden = selectedTab === "apikeys";
    if (selectedTab === "apikeys" && !keysLoaded) { keysLoaded = true; attempt(keys.load, "Listing the API keys"); }
  };
  tablist.addEventListener("click", (event) => {
    const button = event.target.closest("[role=tab]");
    if (button) select(button.dataset.tab);
  });
  tablist.addEventListener("keydown", (event) => {
    const ids = tabs.map((t) => t.id);
    const at = ids.indexOf(selectedTab);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: ids.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    select(ids[(next + ids.length) % ids.length], true);
  });

  const showStatus = (text, kind) => {
    status.textContent = text;
    status.className = `st-status ${kind || ""}`;
  };

  const changes = () => {
    const out = {};
    for (const f of fields.values()) {
      let value;
      try { value = f.read(); } catch (error) { select(tabOf.get(f.key)); f.input.focus(); throw error; }
      if (f.writeOnly) { if (value !== "") out[f.key] = value; continue; }
      if (JSON.stringify(value) !== JSON.stringify(original[f.key])) out[f.key] = value;
    }
    return out;
  };

  form.addEventListener("input", () => { if (status.textContent) showStatus("", ""); });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let changed;
    try { changed = changes(); } catch (error) { showStatus(`Not saved: ${error.message}`, "error"); return; }
    if (!Object.keys(changed).length) { showStatus("Nothing changed.", "muted"); return; }
    if (changed.alternative_webui_enabled === true) {
      const answer = await dialog("Use an alternative web UI?",
        h("p", {}, "The folder you named will replace this interface: after reloading, qbtd serves that web UI instead."),
        [{ label: "Cancel", value: null }, { label: "Use it", value: "yes", primary: true }]);
      if (answer !== "yes") return;
    }
    save.disabled = true;
    showStatus("Saving…", "muted");
    try {
      await api.post("app/setPreferences", { json: JSON.stringify(changed) });
      const fresh = await api.get("app/preferences");
      Object.assign(original, fresh);
      for (const f of fields.values()) if (f.writeOnly) f.input.value = "";
      showStatus("Saved", "ok");
    } catch (error) {
      showStatus(`Not saved: ${error.message}`, "error");
    } finally {
      save.disabled = false;
    }
  });

  if (!title.isConnected) return undefined;
  loading.remove();
  container.append(tablist, form, keysPanel);
  select(selectedTab);
}
