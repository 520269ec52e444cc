// The Search section: the plugins panel, the search form (pattern, category, plugins), the live results of the
// current job (polled only while it runs and this section shows) and an Add button on each result.
import { h, attempt, toast, debounce } from "../dom.js";
import { pluginsPanel } from "../search/plugins.js";
import { job, poll } from "../search/job.js";
import { renderResults } from "../search/results.js";

let lastForm = { pattern: "", category: "all", plugins: "enabled" };

export function mount(container, ctx) {
  const { api, mainData } = ctx;
  const pattern = h("input", { id: "search-pattern", type: "search", required: true, value: job.pattern || lastForm.pattern,
    autocomplete: "off", placeholder: "What to look for" });
  const category = h("select", { id: "search-category" });
  const pluginSelect = h("select", { id: "search-plugins" });
  const start = h("button", { id: "search-start", class: "primary", type: "submit" }, "Search");
  const stop = h("button", { id: "search-stop", type: "button", disabled: true }, "Stop");
  const form = h("form", { class: "se-form panel", id: "search-form", role: "search" },
    h("label", { class: "se-pattern", for: "search-pattern" }, "Search for", pattern),
    h("label", { for: "search-category" }, "Category", category),
    h("label", { for: "search-plugins" }, "Plugins", pluginSelect),
    start, stop);
  const status = h("p", { id: "search-status", class: "muted", role: "status", "aria-live": "polite" });
  const filter = h("input", { id: "search-filter", type: "search", placeholder: "Filter the results by name", autocomplete: "off" });
  const table = h("table", { class: "table", id: "search-results" });
  const resultsBox = h("section", { class: "panel se-results-panel", "aria-labelledby": "search-results-title" },
    h("div", { class: "toolbar" }, h("h2", { id: "search-results-title" }, "Results"), h("span", { class: "spacer" }),
      h("label", { for: "search-filter", class: "sr-only" }, "Filter the results"), filter),
    status, h("div", { class: "se-results" }, table));

  const fillSelects = (plugins) => {
    const enabled = plugins.filter((p) => p.enabled);
    const categories = new Map([["all", "All categories"]]);
    for (const p of enabled) for (const c of p.supportedCategories || []) {
      const id = typeof c === "string" ? c : c.id;
      if (!categories.has(id)) categories.set(id, typeof c === "string" ? c : c.name);
    }
    const keepCategory = category.value || lastForm.category;
    category.replaceChildren(...[...categories].map(([id, name]) => h("option", { value: id, selected: id === keepCategory }, name)));
    const keepPlugins = pluginSelect.value || lastForm.plugins;
    pluginSelect.replaceChildren(
      h("option", { value: "enabled", selected: keepPlugins === "enabled" }, "Enabled plugins"),
      h("option", { value: "all", selected: keepPlugins === "all" }, "All plugins"),
      ...enabled.map((p) => h("option", { value: p.name, selected: keepPlugins === p.name }, p.fullName || p.name)));
    start.disabled = false;
  };
  const plugins = pluginsPanel(api, fillSelects);

  const render = () => {
    const active = document.activeElement;
    const focusKey = active && table.contains(active) ? (active.dataset.sort ? `[data-sort="${active.dataset.sort}"]`
      : active.dataset.testid ? `[data-testid="${active.dataset.testid}"]` : null) : null;
    const counts = renderResults(table, job.results, { filter: filter.value, added: job.added, onAdd: add, onSort: render });
    if (focusKey) table.querySelector(focusKey)?.focus();
    const running = job.status === "Running";
    stop.disabled = !running;
    if (job.id === null) status.textContent = "Search with the form above; results show here as they arrive.";
    else {
      const what = running ? "Searching…" : job.status === "Stopped" ? "Search finished." : job.status;
      const shown = counts.matching > counts.shown ? ` Showing the first ${counts.shown}; filter to narrow them.` : "";
      const filtered = filter.value.trim() ? ` ${counts.matching} match the filter.` : "";
      status.textContent = `${what} ${job.results.length} result${job.results.length === 1 ? "" : "s"} for “${job.pattern}”.${filtered}${shown}`;
    }
  };

  let stopPolling = () => {};
  let alive = true;  // false once the section is left: a search/start answered late starts no polling
  const follow = () => {
    stopPolling();
    stopPolling = poll(api, render, (error) => { status.textContent = `Reading the results failed: ${error.message}`; });
  };

  async function add(result, index, button) {
    button.disabled = true;
    const ok = await attempt(() => api.post("torrents/add", { urls: result.fileUrl }), "Adding the torrent");
    if (ok === undefined) { button.disabled = false; return; }
    job.added.add(index);
    button.textContent = "Added";
    toast(`Added ${result.fileName}`);
    mainData.refresh();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = pattern.value.trim();
    if (!text) { pattern.focus(); return; }
    lastForm = { pattern: text, category: category.value, plugins: pluginSelect.value };
    start.disabled = true;
    const previous = job.id;
    if (previous !== null) {
      stopPolling();
      await api.post("search/delete", { id: previous }).catch(() => {});   // frees one of the 5 job slots
    }
    const answer = await attempt(() => api.post("search/start", { pattern: text, category: category.value, plugins: pluginSelect.value }), "Starting the search");
    start.disabled = false;
    Object.assign(job, { id: null, pattern: text, status: "", total: 0, results: [], added: new Set() });
    if (!answer) { render(); return; }
    job.id = answer.id;
    job.status = "Running";
    if (!alive) return;
    render();
    follow();
  });

  stop.addEventListener("click", async () => {
    if (job.id === null) return;
    await attempt(() => api.post("search/stop", { id: job.id }), "Stopping the search");
    follow();   // one last read: the results so far and the final status
  });

  filter.addEventListener("input", debounce(render, 150));

  start.disabled = true;
  container.append(h("h1", { class: "view-title" }, "Search"), plugins.node, form, resultsBox);
  render();
  attempt(plugins.load, "Listing the search plugins").then(() => { start.disabled = false; });
  if (job.id !== null && job.status === "Running") follow();

  return () => { alive = false; stopPolling(); };
}
