// The API keys panel: qbtd's keys (`qbtd/apiKeys`, `qbtd/createAPIKey`, `qbtd/revokeAPIKey`). A new key is shown
// once, with a copy button; the list shows names, scopes and dates, never secrets.
import { h, date, attempt, toast, dialog } from "../dom.js";

export const SCOPES = [
  ["full", "Full: everything a logged-in session may do"],
  ["read-only", "Read-only: reads only, no changes"],
  ["music", "Music: the music library only"],
  ["stream", "Stream: read-only plus stream playback"],
  ["upload", "Upload: uploads only"],
];

async function copy(text, input) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    input.select();
    if (!document.execCommand("copy")) throw new Error("the browser refused; select the key and copy it");
  }
}

export function apiKeysPanel(api) {
  const list = h("tbody");
  const table = h("table", { class: "table st-keys", id: "apikey-list" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Scope"),
      h("th", { scope: "col" }, "Created"), h("th", { scope: "col" }, "Last used"), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")))),
    list);
  const empty = h("p", { class: "muted" }, "No API keys yet.");
  const name = h("input", { id: "apikey-name", required: true, maxlength: "100", autocomplete: "off", placeholder: "e.g. phone" });
  const scope = h("select", { id: "apikey-scope" }, SCOPES.map(([v, label]) => h("option", { value: v }, label)));
  const fresh = h("div", { id: "apikey-new", class: "st-newkey", hidden: true, role: "status" });
  const form = h("form", { id: "apikey-form", class: "form-grid" },
    h("label", { for: "apikey-name" }, "Name"), name,
    h("label", { for: "apikey-scope" }, "Scope"), scope,
    h("span"), h("div", {}, h("button", { id: "apikey-create", class: "primary", type: "submit" }, "Create key")));

  const showNew = (key) => {
    const value = h("input", { id: "apikey-value", class: "mono", readonly: true, value: key.key, "aria-label": "The new API key" });
    fresh.replaceChildren(
      h("p", {}, h("strong", {}, `Key “${key.name}” (${key.scope}) created.`), " Copy it now: it is not shown again."),
      h("div", { class: "st-input" }, value,
        h("button", { id: "apikey-copy", type: "button", onclick: () => attempt(async () => { await copy(key.key, value); toast("Copied"); }, "Copying") }, "Copy"),
        h("button", { type: "button", onclick: () => { fresh.hidden = true; fresh.replaceChildren(); } }, "Done")));
    fresh.hidden = false;
    value.focus();
    value.select();
  };

  const load = async () => {
    const keys = await api.get("qbtd/apiKeys");
    empty.hidden = keys.length > 0;
    table.hidden = keys.length === 0;
    list.replaceChildren(...keys.map((k) => h("tr", { dataset: { id: k.id } },
      h("td", {}, k.name), h("td", {}, h("span", { class: "badge" }, k.scope || "full")),
      h("td", {}, date(k.created_at)), h("td", {}, k.last_used_at ? date(k.last_used_at) : "never"),
      h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Revoke ${k.name}`, onclick: () => revoke(k) }, "Revoke")))));
  };

  const revoke = async (key) => {
    const answer = await dialog("Revoke API key", h("p", {}, `Revoke “${key.name}”? Clients using it are refused at once.`),
      [{ label: "Cancel", value: null }, { label: "Revoke", value: "revoke", primary: true }]);
    if (answer !== "revoke") return;
    if (await attempt(() => api.post("qbtd/revokeAPIKey", { id: key.id }), "Revoking the key") !== undefined) {
      toast(`Revoked ${key.name}`);
      await attempt(load, "Listing the keys");
    }
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = await attempt(() => api.post("qbtd/createAPIKey", { name: name.value.trim(), scope: scope.value }), "Creating the key");
    if (!key) return;
    name.value = "";
    showNew(key);
    await attempt(load, "Listing the keys");
  });

  const node = h("div", { class: "st-apikeys" },
    h("p", { class: "muted" }, "Keys for scripts and players, sent as “Authorization: Bearer <key>”. Each reaches only its scope."),
    fresh, h("h3", {}, "New key"), form, h("h3", {}, "Keys"), empty, h("div", { class: "st-scroll" }, table));
  return { node, load };
}
