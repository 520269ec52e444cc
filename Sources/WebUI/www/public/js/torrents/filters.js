// The filter side panel: status, category (and uncategorized), tag (and untagged), tracker (and trackerless), and in
// a cluster the node that runs each torrent, each a list of toggle buttons with counts. On phones it folds behind a
// "Filters" button.
import { h } from "../dom.js";
import { STATUS_FILTERS } from "./states.js";

const SECTIONS = [
  { kind: "status", title: "Status" },
  { kind: "category", title: "Categories" },
  { kind: "tag", title: "Tags" },
  { kind: "tracker", title: "Trackers" },
  { kind: "node", title: "Nodes" },
];

export class FilterPanel {
  /** `onChange({status|category|tag|tracker: value})`; a null category/tag/tracker means "all". */
  constructor(model, onChange) {
    this.model = model;
    this.onChange = onChange;
    this.lists = {};
    this.buttons = {};      // kind → Map(value key → button)
    this.toggle = h("button", {
      type: "button", id: "filters-toggle", class: "tf-toggle", "aria-expanded": "false", "aria-controls": "torrent-filters",
      onclick: () => this.setOpen(!this.element.classList.contains("open")),
    }, "Filters");
    this.element = h("aside", { class: "tf", id: "torrent-filters", "aria-label": "Filters" }, SECTIONS.map((s) => {
      this.lists[s.kind] = h("ul", { class: "tf-list", role: "list" });
      this.buttons[s.kind] = new Map();
      return h("section", { class: "tf-section", "data-section": s.kind }, h("h3", {}, s.title), this.lists[s.kind]);
    }));
  }

  setOpen(open) {
    this.element.classList.toggle("open", open);
    this.toggle.setAttribute("aria-expanded", String(open));
  }

  /** The entries of one section: [value, label, count]; value null is "all". */
  entries(kind, counts) {
    const total = this.model.torrents.size;
    const byName = (o) => Object.keys(o).sort((a, b) => a.localeCompare(b));
    if (kind === "status") return STATUS_FILTERS.map(([key, label]) => [key, label, counts.status[key]]);
    if (kind === "category") return [[null, "All", total], ["", "Uncategorized", counts.uncategorized],
      ...byName(counts.categories).map((c) => [c, c, counts.categories[c]])];
    if (kind === "node") return [[null, "All", total], ...byName(counts.nodes).map((n) => [n, n, counts.nodes[n]])];
    if (kind === "tag") return [[null, "All", total], ["", "Untagged", counts.untagged],
      ...byName(counts.tags).map((t) => [t, t, counts.tags[t]])];
    return [[null, "All", total], ["", "Trackerless", counts.trackerless],
      ...byName(counts.trackers).map((t) => [t, t, counts.trackers[t]])];
  }

  /** Brings the buttons, their counts and pressed states up to date (keyed: focus stays on its button). */
  update() {
    const counts = this.model.getCounts(), filter = this.model.filter;
    let active = [];
    for (const { kind } of SECTIONS) {
      const current = filter[kind];
      const seen = new Set();
      const map = this.buttons[kind], list = this.lists[kind];
      let previous = null;
      for (const [value, label, count] of this.entries(kind, counts)) {
        const key = value === null ? "\u0000all" : value;
        seen.add(key);
        let item = map.get(key);
        if (!item) {
          const button = h("button", {
            type: "button", class: "tf-item", "data-filter": kind, "data-value": value === null ? "*" : value,
            onclick: () => this.onChange({ [kind]: value }),
          }, h("span", { class: "tf-label" }, label), h("span", { class: "tf-count" }));
          item = h("li", {}, button);
          item.button = button;
          map.set(key, item);
        }
        if (previous ? previous.nextSibling !== item : list.firstChild !== item) {
          if (previous) previous.after(item); else list.prepend(item);
        }
        previous = item;
        const countText = String(count ?? 0);
        const countNode = item.button.lastChild;
        if (countNode.textContent !== countText) countNode.textContent = countText;
        const pressed = current === value;
        item.button.setAttribute("aria-pressed", String(pressed));
        if (pressed && value !== null && !(kind === "status" && value === "all")) active.push(label);
      }
      for (const [key, item] of map) if (!seen.has(key)) { item.remove(); map.delete(key); }
      if (current !== null && current !== "" && !seen.has(current)) { this.onChange({ [kind]: kind === "status" ? "all" : null }); return; }
    }
    this.toggle.textContent = active.length ? `Filters: ${active.join(", ")}` : "Filters";
    // Nodes only in a cluster (its torrents carry `node`); the list shows their column then too.
    const cluster = Object.keys(counts.nodes).length > 0;
    this.lists.node.parentElement.hidden = !cluster;
    this.onCluster?.(cluster);
  }
}
