// The search results table: sortable columns (buttons in the headers, aria-sort), a name filter, and an Add button
// per result (`data-testid="search-add-<n>"`, n its place in the job's results).
import { h, bytes } from "../dom.js";

const COLUMNS = [
  { key: "fileName", label: "Name", text: true },
  { key: "fileSize", label: "Size", num: true, show: (r) => (r.fileSize >= 0 ? bytes(r.fileSize) : "–") },
  { key: "nbSeeders", label: "Seeders", num: true, show: (r) => (r.nbSeeders >= 0 ? String(r.nbSeeders) : "–") },
  { key: "nbLeechers", label: "Leechers", num: true, show: (r) => (r.nbLeechers >= 0 ? String(r.nbLeechers) : "–") },
  { key: "engineName", label: "Engine", text: true, show: (r) => r.engineName || r.siteUrl || "" },
];
const LIMIT = 500;
export const sort = { key: "nbSeeders", descending: true };

function safeLink(url) {
  return /^https?:\/\//i.test(url || "") ? url : null;
}

/** Renders `results` (with their indexes) into `table`; `onAdd(result, index, button)` adds one. */
export function renderResults(table, results, { filter, added, onAdd, onSort }) {
  const words = (filter || "").toLowerCase().split(/\s+/).filter(Boolean);
  let rows = results.map((r, i) => [r, i]);
  if (words.length) rows = rows.filter(([r]) => words.every((w) => (r.fileName || "").toLowerCase().includes(w)));
  const column = COLUMNS.find((c) => c.key === sort.key) || COLUMNS[2];
  const sign = sort.descending ? -1 : 1;
  rows.sort(([a], [b]) => sign * (column.num ? (a[column.key] ?? -1) - (b[column.key] ?? -1)
    : String(a[column.key] || "").localeCompare(String(b[column.key] || ""))));
  const shown = rows.slice(0, LIMIT);

  const head = h("tr", {}, COLUMNS.map((c) => h("th", {
    scope: "col", class: c.num ? "num" : "", "aria-sort": c.key === sort.key ? (sort.descending ? "descending" : "ascending") : "none",
  }, h("button", { type: "button", class: "se-sort", dataset: { sort: c.key }, onclick: () => {
    if (sort.key === c.key) sort.descending = !sort.descending; else { sort.key = c.key; sort.descending = Boolean(c.num); }
    onSort();
  } }, c.label, c.key === sort.key ? (sort.descending ? " ▼" : " ▲") : ""))), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Add")));

  const body = shown.map(([r, i]) => {
    const link = safeLink(r.descrLink);
    const done = added.has(i);
    return h("tr", { dataset: { index: String(i) } },
      h("td", { class: "se-name" }, link ? h("a", { href: link, target: "_blank", rel: "noopener noreferrer" }, r.fileName) : r.fileName),
      COLUMNS.slice(1).map((c) => h("td", { class: c.num ? "num" : "" }, c.show(r))),
      h("td", {}, h("button", { type: "button", "data-testid": `search-add-${i}`, disabled: done,
        "aria-label": `Add ${r.fileName}`, onclick: (event) => onAdd(r, i, event.currentTarget) }, done ? "Added" : "Add")));
  });
  table.replaceChildren(h("thead", {}, head), h("tbody", {}, body));
  return { shown: shown.length, matching: rows.length };
}
