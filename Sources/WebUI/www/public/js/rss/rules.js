// RSS auto-download rules: the list (`rss/rules`), an editor that saves with `rss/setRule` (ruleName + ruleDef JSON,
// keeping every key the server reported that the form does not show), rename, remove, and the matching articles
// (`rss/matchingArticles`) as a preview.
import { h, attempt, toast, dialog } from "../dom.js";

let selectedRule = null;   // kept while the page lives

function check(id, label, checked) {
  return h("div", { class: "st-check" }, h("label", { for: id }, h("input", { id, type: "checkbox", checked: Boolean(checked) }), label));
}

function text(id, label, value, extra = {}) {
  return [h("label", { for: id }, label), h("input", { id, type: "text", value: value ?? "", spellcheck: "false", ...extra })];
}

async function askName(title, value = "") {
  const input = h("input", { id: "rss-rule-name", required: true, value, autocomplete: "off" });
  const answer = await dialog(title, h("label", { for: "rss-rule-name", class: "st-dialog-field" }, "Rule name", input),
    [{ label: "Cancel", value: null }, { label: "OK", value: "ok", primary: true }]);
  return answer === "ok" ? input.value.trim() : "";
}

export function rulesPanel(api, { feeds, categories }) {
  let rules = {};
  const list = h("ul", { class: "rss-rule-list", id: "rss-rule-list", "aria-label": "Rules" });
  const editor = h("div", { class: "rss-rule-editor", id: "rss-rule-editor" });
  const matches = h("div", { class: "rss-matches", id: "rss-rule-matches", "aria-live": "polite" });
  const node = h("div", { class: "rss-layout" },
    h("section", { class: "panel", "aria-labelledby": "rss-rules-title" },
      h("div", { class: "toolbar" }, h("h2", { id: "rss-rules-title" }, "Rules"), h("span", { class: "spacer" }),
        h("button", { type: "button", id: "rss-rule-new", onclick: () => create() }, "New rule")),
      list),
    h("section", { class: "panel" }, editor, matches));

  const renderList = () => {
    const names = Object.keys(rules).sort((a, b) => a.localeCompare(b));
    list.replaceChildren(...(names.length ? names.map((name) => h("li", {},
      h("button", { type: "button", "aria-pressed": String(name === selectedRule), dataset: { rule: name },
        onclick: () => { selectedRule = name; renderList(); renderEditor(); } },
      rules[name].enabled ? name : `${name} (off)`))) : [h("li", { class: "muted" }, "No rules yet.")]));
  };

  const showMatches = async (name) => {
    matches.replaceChildren(h("h3", {}, "Matching articles"), h("p", { class: "muted" }, "Looking…"));
    const found = await api.get("rss/matchingArticles", { ruleName: name }).catch((error) => ({ error: error.message }));
    if (selectedRule !== name) return;  // another rule was picked meanwhile: its own answer shows
    if (found.error) { matches.replaceChildren(h("h3", {}, "Matching articles"), h("p", { class: "error" }, found.error)); return; }
    const groups = Object.entries(found);
    matches.replaceChildren(h("h3", {}, "Matching articles"),
      ...(groups.length ? groups.map(([feed, titles]) => h("div", {}, h("strong", {}, feed), h("ul", {}, titles.map((t) => h("li", {}, t)))))
        : [h("p", { class: "muted" }, "No article of the chosen feeds matches this rule.")]));
  };

  const renderEditor = () => {
    const rule = selectedRule && rules[selectedRule];
    if (!rule) {
      editor.replaceChildren(h("p", { class: "muted" }, "Choose a rule, or make a new one."));
      matches.replaceChildren();
      return;
    }
    const params = rule.torrentParams || {};
    const category = params.category ?? rule.assignedCategory ?? "";
    const savePath = params.save_path ?? rule.savePath ?? "";
    const stopped = "stopped" in params ? params.stopped : rule.addPaused;
    const feedList = feeds();
    const chosen = new Set(rule.affectedFeeds || []);
    const known = new Set(feedList.map((f) => f.feed.url));
    const feedBoxes = [...feedList.map((f, i) => h("label", { for: `rule-feed-${i}` },
      h("input", { type: "checkbox", id: `rule-feed-${i}`, checked: chosen.has(f.feed.url), dataset: { url: f.feed.url } }), f.path)),
    ...[...chosen].filter((u) => !known.has(u)).map((u, i) => h("label", { for: `rule-feed-x${i}` },
      h("input", { type: "checkbox", id: `rule-feed-x${i}`, checked: true, dataset: { url: u } }), `${u} (not in the list)`))];
    const categoryList = h("datalist", { id: "rule-category-list" }, Object.keys(categories()).map((c) => h("option", { value: c })));
    const form = h("form", { id: "rss-rule-form", class: "form-grid st-grid", "aria-labelledby": "rss-rule-title" },
      h("h2", { id: "rss-rule-title", class: "st-heading" }, `Rule “${selectedRule}”`),
      check("rule-enabled", "Enabled", rule.enabled),
      ...text("rule-mustContain", "Must contain", rule.mustContain, { "aria-describedby": "rule-contain-help" }),
      ...text("rule-mustNotContain", "Must not contain", rule.mustNotContain),
      h("small", { id: "rule-contain-help", class: "muted st-check" }, "Wildcards: * and ?; spaces mean AND, | means OR (or a regular expression)."),
      check("rule-useRegex", "Use regular expressions", rule.useRegex),
      ...text("rule-episodeFilter", "Episode filter", rule.episodeFilter, { placeholder: "e.g. 1x2;8-15;30-;" }),
      "smartFilter" in rule ? check("rule-smartFilter", "Smart episode filter (download each episode once)", rule.smartFilter) : null,
      "ignoreDays" in rule ? h("label", { for: "rule-ignoreDays" }, "Ignore matches for (days)") : null,
      "ignoreDays" in rule ? h("input", { id: "rule-ignoreDays", type: "number", min: "0", step: "1", value: String(rule.ignoreDays || 0) }) : null,
      h("label", { for: "rule-category" }, "Category"),
      h("div", {}, h("input", { id: "rule-category", list: "rule-category-list", value: category, autocomplete: "off" }), categoryList),
      ...text("rule-savePath", "Save to", savePath, { placeholder: "default save path" }),
      h("label", { for: "rule-addStopped" }, "Add stopped"),
      h("select", { id: "rule-addStopped" },
        h("option", { value: "default", selected: stopped === null || stopped === undefined }, "As in Settings"),
        h("option", { value: "true", selected: stopped === true }, "Always"),
        h("option", { value: "false", selected: stopped === false }, "Never")),
      h("fieldset", { class: "st-check rss-feeds-fieldset" }, h("legend", {}, "Apply to feeds"),
        h("div", { class: "rss-feeds-check" }, feedBoxes.length ? feedBoxes : h("p", { class: "muted" }, "No feeds yet."))),
      h("div", { class: "toolbar st-check" },
        h("button", { id: "rss-rule-save", class: "primary", type: "submit" }, "Save rule"),
        h("button", { id: "rss-rule-rename", type: "button", onclick: () => rename() }, "Rename"),
        h("button", { id: "rss-rule-remove", type: "button", class: "danger", onclick: () => remove() }, "Remove")));
    form.addEventListener("submit", (event) => { event.preventDefault(); save(form); });
    editor.replaceChildren(form);
    showMatches(selectedRule);
  };

  const save = async (form) => {
    const name = selectedRule;
    const def = structuredClone(rules[name]);
    const value = (id) => form.querySelector(`#${id}`);
    def.enabled = value("rule-enabled").checked;
    def.mustContain = value("rule-mustContain").value;
    def.mustNotContain = value("rule-mustNotContain").value;
    def.useRegex = value("rule-useRegex").checked;
    def.episodeFilter = value("rule-episodeFilter").value;
    if (value("rule-smartFilter")) def.smartFilter = value("rule-smartFilter").checked;
    if (value("rule-ignoreDays")) def.ignoreDays = Math.max(0, Math.round(Number(value("rule-ignoreDays").value) || 0));
    def.affectedFeeds = [...form.querySelectorAll(".rss-feeds-check input:checked")].map((i) => i.dataset.url);
    const category = value("rule-category").value.trim(), savePath = value("rule-savePath").value.trim();
    const stopped = { default: null, true: true, false: false }[value("rule-addStopped").value];
    def.assignedCategory = category;
    def.savePath = savePath;
    def.addPaused = stopped;
    if (def.torrentParams && typeof def.torrentParams === "object") {
      def.torrentParams.category = category;
      def.torrentParams.save_path = savePath;
      if (stopped === null) delete def.torrentParams.stopped; else def.torrentParams.stopped = stopped;
    }
    for (const key of ["lastMatch", "previouslyMatchedEpisodes"]) delete def[key];   // the server keeps its own
    if (await attempt(() => api.post("rss/setRule", { ruleName: name, ruleDef: JSON.stringify(def) }), "Saving the rule") === undefined) return;
    toast(`Saved rule ${name}`);
    await load();
  };

  const create = async () => {
    const name = await askName("New download rule");
    if (!name) return;
    if (rules[name]) { toast(`A rule named “${name}” exists already.`, { error: true }); return; }
    const def = { enabled: true, mustContain: "", mustNotContain: "", useRegex: false, episodeFilter: "", affectedFeeds: [] };
    if (await attempt(() => api.post("rss/setRule", { ruleName: name, ruleDef: JSON.stringify(def) }), "Making the rule") === undefined) return;
    selectedRule = name;
    await load();
    document.getElementById("rule-mustContain")?.focus();
  };

  const rename = async () => {
    const from = selectedRule;
    const to = await askName("Rename rule", from);
    if (!to || to === from) return;
    if (await attempt(() => api.post("rss/renameRule", { ruleName: from, newRuleName: to }), "Renaming the rule") === undefined) return;
    selectedRule = to;
    await load();
  };

  const remove = async () => {
    const name = selectedRule;
    const answer = await dialog("Remove rule", h("p", {}, `Remove the rule “${name}”?`),
      [{ label: "Cancel", value: null }, { label: "Remove", value: "yes", primary: true }]);
    if (answer !== "yes") return;
    if (await attempt(() => api.post("rss/removeRule", { ruleName: name }), "Removing the rule") === undefined) return;
    selectedRule = null;
    await load();
  };

  const load = async () => {
    rules = await api.get("rss/rules");
    if (selectedRule && !rules[selectedRule]) selectedRule = null;
    renderList();
    renderEditor();
  };

  return { node, load };
}
