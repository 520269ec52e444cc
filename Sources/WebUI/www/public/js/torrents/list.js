// The virtualized torrent list: a grid whose rows (fixed height) exist only for the visible part plus an overscan;
// a spacer gives the scrollbar its height. Rows are reused and repaint only the cells whose text changed. Selection:
// click, Ctrl/Cmd-click toggles, Shift-click ranges, Ctrl+A, Up/Down/Home/End/PageUp/PageDown, Delete, Enter.
import { h, bytes, speed, eta, percent, ratio } from "../dom.js";
import { stateLabel, stateKind } from "./states.js";

export const ROW = 34;
const OVERSCAN = 8;

export const COLUMNS = [
  { key: "name", label: "Name" },
  { key: "size", label: "Size", num: true, text: (t) => bytes(t.size) },
  { key: "progress", label: "Progress" },
  { key: "state", label: "State" },
  { key: "dlspeed", label: "Down", num: true, text: (t) => speed(t.dlspeed) },
  { key: "upspeed", label: "Up", num: true, text: (t) => speed(t.upspeed) },
  { key: "eta", label: "ETA", num: true, text: (t) => eta(t.eta) },
  { key: "ratio", label: "Ratio", num: true, text: (t) => ratio(t.ratio) },
  { key: "category", label: "Category", text: (t) => t.category || "" },
  { key: "tags", label: "Tags", text: (t) => t.tags || "" },
  { key: "node", label: "Node", text: (t) => t.node || "" },  // shown in a cluster only (`.tl.cluster`)
];

export class TorrentList {
  /** `model`: a TorrentModel; callbacks: onSelection(), onOpen(hash), onDelete(), onSort(key). */
  constructor(model, { onSelection, onOpen, onDelete, onSort }) {
    this.model = model;
    this.callbacks = { onSelection, onOpen, onDelete, onSort };
    this.selected = new Set();
    this.anchor = null;         // the hash Shift ranges start from
    this.cursor = null;         // the keyboard position
    this.rows = [];             // the pooled row elements
    this.first = 0;
    this.length = -1;
    this.frame = 0;
    this.headers = {};
    const head = h("div", { class: "tl-head", role: "row", "aria-rowindex": "1" }, COLUMNS.map((c) => {
      const cell = h("div", { class: `tl-cell c-${c.key}${c.num ? " num" : ""}`, role: "columnheader", "aria-sort": "none" },
        h("button", { type: "button", class: "tl-sort", "data-sort": c.key, onclick: () => onSort(c.key) }, c.label));
      this.headers[c.key] = cell;
      return cell;
    }));
    this.rowBox = h("div", { class: "tl-rows", role: "none" });
    this.body = h("div", { class: "tl-body", role: "rowgroup" }, this.rowBox);
    this.empty = h("p", { class: "tl-empty muted", hidden: true }, "No torrents to show.");
    this.element = h("div", {
      class: "tl", id: "torrent-list", role: "grid", tabindex: "0", "aria-label": "Torrents", "aria-multiselectable": "true",
      onscroll: () => this.schedule(), onkeydown: (e) => this.key(e), onclick: (e) => this.click(e),
      ondblclick: (e) => { const row = e.target.closest(".tl-row"); if (row) onOpen(row.dataset.hash, { explicit: true }); },
    }, head, this.body, this.empty);
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(this.element);
    this.showSort();
  }

  destroy() { this.resize.disconnect(); cancelAnimationFrame(this.frame); }

  showSort() {
    for (const [key, cell] of Object.entries(this.headers)) {
      const on = this.model.sort.key === key;
      cell.setAttribute("aria-sort", on ? (this.model.sort.reverse ? "descending" : "ascending") : "none");
    }
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  /**
   * Lays out the visible window; returns the milliseconds it took (also kept in qbtdMetrics.renders). Reads the
   * scroll position first and only writes afterwards (no forced layout). Rows are a ring: scrolling by k rows moves
   * the k rows that left one end to the other end and fills only those; the rows that stay keep their cells.
   */
  render() {
    const started = performance.now();
    const shown = this.model.shown, n = shown.length;
    const height = this.element.clientHeight || 600, scrollTop = this.element.scrollTop;
    if (n !== this.length) {
      this.length = n;
      this.body.style.height = `${n * ROW}px`;
      this.element.setAttribute("aria-rowcount", String(n + 1));
      this.empty.hidden = n > 0;
    }
    const first = Math.max(0, Math.min(Math.floor(scrollTop / ROW) - OVERSCAN, n - 1));
    const count = Math.max(0, Math.min(n - first, Math.ceil(height / ROW) + 2 * OVERSCAN));
    const rows = this.rows, shift = first - this.first;
    if (shift !== 0 && Math.abs(shift) < rows.length) {
      if (shift > 0) { const moving = rows.splice(0, shift); this.rowBox.append(...moving); rows.push(...moving); }
      else { const moving = rows.splice(rows.length + shift, -shift); this.rowBox.prepend(...moving); rows.unshift(...moving); }
    }
    if (first !== this.first) { this.first = first; this.rowBox.style.transform = `translateY(${first * ROW}px)`; }
    while (rows.length < count) { const row = this.makeRow(); rows.push(row); this.rowBox.append(row); }
    if (rows.length > count) for (const row of rows.splice(count)) row.remove();
    const torrents = this.model.torrents;
    for (let i = 0; i < count; i++) {
      const hash = shown[first + i];
      this.fill(rows[i], hash, torrents.get(hash), first + i);
    }
    const ms = performance.now() - started;
    record("renders", ms);
    return ms;
  }

  /** Repaints the visible rows among `changed` hashes (the order did not change). */
  renderChanged(changed) {
    const torrents = this.model.torrents;
    for (const row of this.rows) {
      if (changed.has(row.hash)) this.fill(row, row.hash, torrents.get(row.hash), row.index);
    }
  }

  makeRow() {
    const cells = COLUMNS.map((c) => h("div", { class: `tl-cell c-${c.key}${c.num ? " num" : ""}`, role: "gridcell" }));
    const bar = h("span"), label = h("em");
    cells[2].append(h("div", { class: "progress" }, bar, label));
    const state = h("span", { class: "state" });
    cells[3].append(state);
    const row = h("div", { class: "tl-row", role: "row" }, cells);
    row.parts = { cells, bar, label, state, values: [] };
    return row;
  }

  fill(row, hash, t, index) {
    if (!t) return;
    const p = row.parts, values = p.values;
    if (row.hash !== hash) {
      row.hash = hash;
      row.dataset.hash = hash;
      row.id = `row-${hash}`;
      values.length = 0;
    }
    if (row.index !== index) {
      row.index = index;
      row.dataset.index = String(index);
      row.setAttribute("aria-rowindex", String(index + 2));
    }
    const selected = this.selected.has(hash), cursor = hash === this.cursor;
    if (row.selected !== selected) { row.selected = selected; row.setAttribute("aria-selected", String(selected)); }
    if (row.cursor !== cursor) { row.cursor = cursor; row.classList.toggle("cursor", cursor); }
    const set = (i, text) => { if (values[i] !== text) { values[i] = text; p.cells[i].textContent = text; } };
    if (values[0] !== t.name) { values[0] = t.name; p.cells[0].textContent = t.name; p.cells[0].title = t.name; }
    for (let i = 4; i < COLUMNS.length; i++) set(i, COLUMNS[i].text(t));
    set(1, COLUMNS[1].text(t));
    const pct = percent(t.progress);
    if (values[2] !== pct) { values[2] = pct; p.bar.style.width = pct; p.label.textContent = pct; }
    // qbtd's qbtd_reason (a free-space guard's hold, a file error): a mark on the state, the reason as its title.
    const reason = t.qbtd_reason || "";
    if (values[3] !== t.state || p.reason !== reason) {
      values[3] = t.state;
      p.reason = reason;
      p.state.textContent = reason ? `${stateLabel(t.state)} ⚠` : stateLabel(t.state);
      p.state.className = `state state-${reason ? "error" : stateKind(t.state)}`;
      p.state.title = reason || t.state || "";
    }
  }

  // Selection

  selectedHashes() { return [...this.selected].filter((hash) => this.model.torrents.has(hash)); }

  /** The torrent the details pane follows: the cursor when selected, else the first selected. */
  current() {
    if (this.cursor && this.selected.has(this.cursor) && this.model.torrents.has(this.cursor)) return this.cursor;
    return this.selectedHashes()[0] || null;
  }

  /** Drops selected hashes that left the list (deleted, or filtered out). */
  prune() {
    let changed = false;
    for (const hash of this.selected) if (!this.model.isShown(hash)) { this.selected.delete(hash); changed = true; }
    if (changed) this.callbacks.onSelection();
  }

  setSelection(hashes, cursor) {
    this.selected = new Set(hashes);
    if (cursor !== undefined) this.cursor = cursor;
    this.repaintSelection();
    this.callbacks.onSelection();
  }

  repaintSelection() {
    for (const row of this.rows) {
      row.selected = this.selected.has(row.hash);
      row.setAttribute("aria-selected", String(row.selected));
      row.cursor = row.hash === this.cursor;
      row.classList.toggle("cursor", row.cursor);
    }
    if (this.cursor && this.model.isShown(this.cursor)) this.element.setAttribute("aria-activedescendant", `row-${this.cursor}`);
    else this.element.removeAttribute("aria-activedescendant");
  }

  click(event) {
    const row = event.target.closest(".tl-row");
    if (!row) return;
    const hash = row.dataset.hash;
    this.element.focus({ preventScroll: true });
    if (event.shiftKey && this.anchor && this.model.isShown(this.anchor)) {
      this.selectRange(this.anchor, hash, event.ctrlKey || event.metaKey);
      this.cursor = hash;
      this.repaintSelection();
      this.callbacks.onSelection();
      return;
    }
    if (event.ctrlKey || event.metaKey) {
      const next = new Set(this.selected);
      if (next.has(hash)) next.delete(hash); else next.add(hash);
      this.anchor = hash;
      this.setSelection(next, hash);
      return;
    }
    const again = this.selected.size === 1 && this.selected.has(hash);
    this.anchor = hash;
    this.setSelection([hash], hash);
    if (again) this.callbacks.onOpen(hash, { tapped: true });
  }

  selectRange(fromHash, toHash, keep) {
    const a = this.model.index.get(fromHash), b = this.model.index.get(toHash);
    const [lo, hi] = a < b ? [a, b] : [b, a];
    const next = keep ? new Set(this.selected) : new Set();
    for (let i = lo; i <= hi; i++) next.add(this.model.shown[i]);
    this.selected = next;
  }

  moveTo(index, extend) {
    const shown = this.model.shown;
    if (!shown.length) return;
    index = Math.max(0, Math.min(shown.length - 1, index));
    const hash = shown[index];
    if (extend && this.anchor && this.model.isShown(this.anchor)) this.selectRange(this.anchor, hash, false);
    else { this.selected = new Set([hash]); this.anchor = hash; }
    this.cursor = hash;
    this.scrollToIndex(index);
    this.repaintSelection();
    this.callbacks.onSelection();
  }

  scrollToIndex(index) {
    const top = index * ROW, head = this.element.querySelector(".tl-head").offsetHeight;
    const view = this.element.clientHeight - head;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + ROW > this.element.scrollTop + view) this.element.scrollTop = top + ROW - view;
    this.render();
  }

  key(event) {
    if (event.target !== this.element) return;
    const at = this.cursor && this.model.isShown(this.cursor) ? this.model.index.get(this.cursor) : -1;
    const page = Math.max(1, Math.floor(this.element.clientHeight / ROW) - 2);
    const moves = { ArrowDown: at + 1, ArrowUp: at < 0 ? 0 : at - 1, Home: 0, End: this.model.shown.length - 1,
      PageDown: at + page, PageUp: Math.max(0, at - page) };
    if (event.key in moves) { event.preventDefault(); this.moveTo(moves[event.key], event.shiftKey); return; }
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "a") {
      event.preventDefault();
      this.setSelection(this.model.shown);
    } else if (event.key === "Delete" && this.selected.size) {
      event.preventDefault();
      this.callbacks.onDelete();
    } else if (event.key === "Enter" && this.current()) {
      event.preventDefault();
      this.callbacks.onOpen(this.current(), { explicit: true });
    } else if (event.key === "Escape" && this.selected.size) {
      this.setSelection([]);
    }
  }
}

/** Appends a measurement (ms) to window.qbtdMetrics[kind], which the benchmark reads. */
export function record(kind, ms) {
  const metrics = window.qbtdMetrics || (window.qbtdMetrics = { renders: [], updates: [] });
  const list = metrics[kind] || (metrics[kind] = []);
  list.push(ms);
  if (list.length > 5000) list.splice(0, list.length - 5000);
}
