// The torrents section: toolbar, filter panel, the virtualized list and the details pane, kept current from
// mainData's "update" events (no polling of its own). Each update's handling time goes to qbtdMetrics.updates (its
// size, changed + removed torrents, to qbtdMetrics.updateSizes), each sort's and filter's (model and list, the
// whole list) to qbtdMetrics.sorts and .filters; `qbtdMetrics.firstList` = { count, at } is when the list first
// showed torrents (ms since navigation).
import { h, debounce } from "../dom.js";
import { TorrentModel } from "../torrents/model.js";
import { TorrentList, record } from "../torrents/list.js";
import { FilterPanel } from "../torrents/filters.js";
import { Actions } from "../torrents/actions.js";
import { DetailsPane } from "../torrents/details.js";
import { showAddDialog, acceptDrops } from "../torrents/add.js";

const SORT_KEY = "qbtd.torrents.sort";
const phone = window.matchMedia("(max-width: 720px)");

export async function mount(container, ctx) {
  window.qbtdMetrics = window.qbtdMetrics || { renders: [], updates: [] };
  const { mainData } = ctx;
  const model = new TorrentModel(mainData);
  try { const saved = JSON.parse(localStorage.getItem(SORT_KEY) || "null"); if (saved && saved.key) model.sort = saved; } catch { /* default */ }

  const list = new TorrentList(model, {
    onSelection: () => selectionChanged(),
    onOpen: (hash, how) => {
      if (!phone.matches && !how.explicit) return;
      details.open(hash);
      if (how.explicit || phone.matches) details.panel.focus();
    },
    onDelete: () => actions.delete(),
    onSort: (key) => {
      const started = performance.now();
      model.setSort(key);
      localStorage.setItem(SORT_KEY, JSON.stringify(model.sort));
      list.showSort();
      list.render();
      record("sorts", performance.now() - started);
    },
  });
  const actions = new Actions(ctx, () => list.selectedHashes());
  const filters = new FilterPanel(model, (change) => {
    const started = performance.now();
    model.setFilter(change);
    filters.update();
    list.prune();
    list.element.scrollTop = 0;
    list.render();
    showCount();
    if (phone.matches) filters.setOpen(false);
    record("filters", performance.now() - started);
  });
  let cluster = false, nodeButton = null;  // moving between nodes: a cluster's only
  filters.onCluster = (on) => {
    cluster = on;
    list.element.classList.toggle("cluster", on);
    if (nodeButton) nodeButton.hidden = !on;
  };
  const details = new DetailsPane(ctx, { onClose: () => { details.close(); list.element.focus(); } });

  const count = h("span", { id: "torrent-count", "aria-live": "polite" });
  const selectedCount = h("span", { id: "torrent-selected", class: "muted" });
  const search = h("input", { type: "search", id: "torrent-search", placeholder: "Filter by name", "aria-label": "Filter torrents by name",
    oninput: debounce(() => {
      const started = performance.now();
      model.setFilter({ text: search.value });
      list.prune();
      list.element.scrollTop = 0;
      list.render();
      showCount();
      record("filters", performance.now() - started);
    }, 120) });

  const button = (id, label, onclick, { title, needsSelection = true, cls = "", queue = false } = {}) =>
    h("button", { type: "button", id, class: cls, title: title || label, "data-needs-selection": needsSelection ? "1" : null,
                  "data-queue": queue ? "1" : null, "data-title": title || label, onclick }, label);
  const more = h("div", { class: "tt-secondary", id: "torrent-more-actions" },
    button("btn-recheck", "Recheck", () => actions.recheck()),
    button("btn-reannounce", "Reannounce", () => actions.reannounce()),
    button("btn-category", "Category…", () => actions.category()),
    button("btn-tags", "Tags…", () => actions.tags()),
    button("btn-limits", "Limits…", () => actions.limits()),
    nodeButton = button("btn-node", "Node…", () => actions.moveToNode(), { title: "Move to another node of the cluster" }),
    h("span", { class: "tt-group", role: "group", "aria-label": "Queue" },
      button("btn-top", "⤒", () => actions.queue("topPrio", "Move to top"), { title: "Move to the top of the queue", queue: true }),
      button("btn-up", "↑", () => actions.queue("increasePrio", "Move up"), { title: "Move up the queue", queue: true }),
      button("btn-down", "↓", () => actions.queue("decreasePrio", "Move down"), { title: "Move down the queue", queue: true }),
      button("btn-bottom", "⤓", () => actions.queue("bottomPrio", "Move to bottom"), { title: "Move to the bottom of the queue", queue: true })),
    button("btn-details", "Details", () => { const hash = list.current(); if (hash) { details.open(hash); details.panel.focus(); } }, { cls: "tt-phone-only" }));
  nodeButton.hidden = !cluster;
  const moreToggle = h("button", { type: "button", id: "btn-more", class: "tt-more", "aria-expanded": "false",
    "aria-controls": "torrent-more-actions", "aria-label": "More actions",
    onclick: () => setMore(!more.classList.contains("open")) }, "⋯");
  const setMore = (open) => { more.classList.toggle("open", open); moreToggle.setAttribute("aria-expanded", String(open)); };
  more.addEventListener("click", (e) => { if (e.target.closest("button")) setMore(false); });
  more.addEventListener("keydown", (e) => { if (e.key === "Escape" && more.classList.contains("open")) { setMore(false); moreToggle.focus(); } });

  const toolbar = h("div", { class: "toolbar tt-toolbar", role: "toolbar", "aria-label": "Torrent actions" },
    button("btn-add", "Add…", () => showAddDialog(ctx), { needsSelection: false, cls: "primary", title: "Add torrents" }),
    button("btn-start", "Start", () => actions.start()),
    button("btn-stop", "Stop", () => actions.stop()),
    button("btn-delete", "Delete", () => actions.delete(), { cls: "danger" }),
    h("span", { class: "tt-more-box" }, moreToggle, more),
    h("span", { class: "spacer" }),
    filters.toggle, search);
  const root = h("div", { class: "torrents-view" }, toolbar,
    h("div", { class: "tt-body" }, filters.element,
      h("div", { class: "tt-main" }, h("div", { class: "tt-status" }, count, selectedCount), list.element, details.element)));
  container.append(root);

  function showCount() {
    const total = mainData.torrents.size, shown = model.shown.length;
    count.textContent = shown === total ? `${total} torrent${total === 1 ? "" : "s"}` : `${shown} of ${total} torrents`;
  }

  function selectionChanged() {
    const n = list.selected.size;
    selectedCount.textContent = n ? `· ${n} selected` : "";
    for (const b of toolbar.querySelectorAll("[data-needs-selection]")) b.disabled = n === 0;
    queueButtons();
    if (!phone.matches) details.open(list.current());
    else if (details.isOpen && n === 0) details.close();
  }

  /** Queue moves only mean something with queueing on (the server answers 409 otherwise): say so on the buttons. */
  function queueButtons() {
    const off = mainData.serverState.queueing === false;
    for (const b of toolbar.querySelectorAll("[data-queue]")) {
      b.disabled = off || list.selected.size === 0;
      b.title = off ? "Torrent queueing is off: turn it on in Settings › BitTorrent" : b.dataset.title;
    }
  }

  function onUpdate(event) {
    const started = performance.now();
    const detail = event.detail;
    const result = model.apply(detail);
    if (result.reordered) {
      list.prune();
      list.render();
      showCount();
    } else if (detail.changed.size) {
      list.renderChanged(detail.changed);
    }
    if (result.counts || detail.lists) filters.update();
    if (detail.state || detail.full) queueButtons();
    if (details.hash && !mainData.torrents.has(details.hash)) details.close();
    details.tick();
    record("updates", performance.now() - started);
    record("updateSizes", detail.changed.size + detail.removed.length);
    if (result.reordered && !window.qbtdMetrics.firstList && model.shown.length) {
      window.qbtdMetrics.firstList = { count: model.shown.length, at: performance.now() };
    }
  }

  mainData.addEventListener("update", onUpdate);
  const stopDrops = acceptDrops(root, ctx);
  const closeMenus = (e) => { if (!e.target.closest(".tt-more-box")) setMore(false); };
  document.addEventListener("click", closeMenus);

  // What mainData holds already (when coming back from another section).
  model.apply({ full: true, changed: new Set(), removed: [], lists: true, trackers: true, state: false });
  filters.update();
  list.render();
  showCount();
  selectionChanged();

  return () => {
    mainData.removeEventListener("update", onUpdate);
    document.removeEventListener("click", closeMenus);
    stopDrops();
    list.destroy();
    details.destroy();
  };
}
