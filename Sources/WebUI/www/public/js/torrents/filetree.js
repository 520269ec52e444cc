// The files tab: `torrents/files` as a tree (folders collapse), with each file's progress and a priority select
// (→ `torrents/filePrio`; a folder's select sets every file under it) and a Play button for video and audio files.
// Virtualized for torrents of 10,000 files and more: the tree is flattened to the rows its open folders show, and
// only the rows in view (plus an overscan) exist, at a fixed height (--ft-row) inside a spacer as tall as all rows.
// Rows are keyed by their path: a row that stays in view keeps its element (and a focused select or toggle).
import { h, attempt, bytes, percent } from "../dom.js";

const PRIORITIES = [[0, "Do not download"], [1, "Normal"], [6, "High"], [7, "Maximum"]];
const PLAYABLE = /\.(mp4|m4v|mkv|webm|mov|avi|ogv|mpg|mpeg|ts|m2ts|mp3|m4a|aac|flac|ogg|oga|opus|wav|wma)$/i;
const OVERSCAN = 10;

function buildTree(files) {
  const root = { name: "", folders: new Map(), files: [] };
  files.forEach((file, i) => {
    const parts = file.name.split("/");
    let node = root;
    for (let p = 0; p < parts.length - 1; p++) {
      const part = parts[p];
      let next = node.folders.get(part);
      if (!next) { next = { name: part, folders: new Map(), files: [] }; node.folders.set(part, next); }
      node = next;
    }
    node.files.push({ ...file, index: file.index ?? i, base: parts[parts.length - 1] });
  });
  const finish = (node) => {
    node.folderList = [...node.folders.values()].sort((a, b) => a.name.localeCompare(b.name));
    node.files.sort((a, b) => a.base.localeCompare(b.base));
    node.all = [...node.files];
    for (const folder of node.folderList) { finish(folder); for (const f of folder.all) node.all.push(f); }
    node.size = node.all.reduce((s, f) => s + f.size, 0);
  };
  finish(root);
  return root;
}

function leaves(node) { return node.all; }

export class FileTree {
  constructor(ctx) {
    this.ctx = ctx;
    this.hash = null;
    this.count = -1;
    this.collapsed = new Set();
    this.items = [];             // the rows the open folders show: { key, depth, folder?, file? }
    this.shownRows = new Map();  // key → row element in the DOM
    this.byIndex = new Map();    // file index → leaf
    this.first = -1;
    this.frame = 0;
    this.rowBox = h("div", { class: "ft-rows" });
    this.body = h("div", { class: "ft-body" }, this.rowBox);
    this.scroller = h("div", { class: "ft-scroll", onscroll: () => this.schedule() }, this.body);
    // A list, not an ARIA tree: rows hold buttons and selects, and each folder's toggle carries aria-expanded.
    this.element = h("div", { class: "file-tree", role: "list", "aria-label": "Files" },
      h("div", { class: "ft-row ft-head", "aria-hidden": "true" },
        h("span", {}, "Name"), h("span", { class: "num" }, "Size"), h("span", {}, "Progress"), h("span", {}, "Priority"), h("span", {})),
      this.scroller);
    this.resize = new ResizeObserver(() => { this.height = 0; this.schedule(); });
    this.resize.observe(this.scroller);
  }

  /** Shows `files` of torrent `hash`; rebuilds only when the torrent or its file list changed. */
  set(hash, files) {
    if (hash !== this.hash || files.length !== this.count) {
      this.hash = hash;
      this.count = files.length;
      this.tree = buildTree(files);
      this.byIndex = new Map(this.tree.all.map((f) => [f.index, f]));
      this.flatten();
      this.scroller.scrollTop = 0;
      this.clear();
    }
    files.forEach((f, i) => {
      const leaf = this.byIndex.get(f.index ?? i);
      if (leaf) { leaf.progress = f.progress; leaf.priority = f.priority; }
    });
    this.render();
    for (const row of this.shownRows.values()) this.refresh(row);
  }

  clear() {
    for (const row of this.shownRows.values()) row.remove();
    this.shownRows.clear();
    this.first = -1;
  }

  /** The rows the open folders show, in order. */
  flatten() {
    const items = [];
    const walk = (node, depth, path) => {
      for (const folder of node.folderList) {
        const key = `${path}/${folder.name}`;
        items.push({ key, depth, folder });
        if (!this.collapsed.has(key)) walk(folder, depth + 1, key);
      }
      for (const file of node.files) items.push({ key: `#${file.index}`, depth, file });
    };
    walk(this.tree, 0, "");
    this.items = items;
  }

  rowHeight() {
    if (this.height) return this.height;
    const height = this.element.isConnected ? parseFloat(getComputedStyle(this.element).getPropertyValue("--ft-row")) : 0;
    if (height) this.height = height;
    return height || 34;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  /** Lays out the rows in view; reads the scroll position first, then writes. */
  render() {
    if (!this.tree) return;
    const row = this.rowHeight(), n = this.items.length;
    const view = this.scroller.clientHeight || 400, top = this.scroller.scrollTop;
    this.body.style.height = `${n * row}px`;
    const first = Math.max(0, Math.min(Math.floor(top / row) - OVERSCAN, n - 1));
    const count = Math.max(0, Math.min(n - first, Math.ceil(view / row) + 2 * OVERSCAN));
    if (first !== this.first) { this.first = first; this.rowBox.style.transform = `translateY(${first * row}px)`; }
    const wanted = this.items.slice(first, first + count), keys = new Set(wanted.map((item) => item.key));
    for (const [key, element] of this.shownRows) if (!keys.has(key)) { element.remove(); this.shownRows.delete(key); }
    let previous = null;
    for (const item of wanted) {
      let element = this.shownRows.get(item.key);
      if (!element) { element = this.makeRow(item); this.shownRows.set(item.key, element); this.refresh(element); }
      if (previous ? previous.nextSibling !== element : this.rowBox.firstChild !== element) {
        if (previous) previous.after(element); else this.rowBox.prepend(element);
      }
      previous = element;
    }
  }

  makeRow(item) {
    const bar = h("span"), label = h("em");
    let element;
    if (item.folder) {
      const folder = item.folder, open = !this.collapsed.has(item.key);
      const select = this.prioritySelect(`folder ${folder.name}`, () => leaves(folder).map((f) => f.index), true);
      const toggle = h("button", { type: "button", class: "ft-toggle", "aria-expanded": String(open),
        "aria-label": `${open ? "Collapse" : "Expand"} ${folder.name}`,
        "data-key": item.key, onclick: () => this.toggle(item.key, open) },
        open ? "▾" : "▸");
      element = h("div", { class: "ft-row ft-folder", role: "listitem" },
        h("span", { class: "ft-name", style: `padding-left:${item.depth * 16}px` }, toggle, h("span", { class: "ft-folder-name" }, folder.name)),
        h("span", { class: "ft-size num" }, bytes(folder.size)),
        h("div", { class: "progress ft-progress" }, bar, label), select, h("span", { class: "ft-play" }));
      element.parts = { bar, label, select, folder };
    } else {
      const file = item.file;
      const select = this.prioritySelect(file.base, () => [file.index], false);
      select.dataset.testid = `prio-${file.index}`;
      const play = PLAYABLE.test(file.base) ? h("button", { type: "button", class: "ft-play-button", "data-testid": `play-${file.index}`,
        "aria-label": `Play ${file.base}`, onclick: () => this.play(file) }, "▶ Play") : null;
      element = h("div", { class: "ft-row ft-file", role: "listitem", "data-index": String(file.index) },
        h("span", { class: "ft-name", style: `padding-left:${item.depth * 16 + 22}px`, title: file.name }, file.base),
        h("span", { class: "ft-size num" }, bytes(file.size)),
        h("div", { class: "progress ft-progress" }, bar, label), select, h("span", { class: "ft-play" }, play));
      element.parts = { bar, label, select, file };
    }
    return element;
  }

  /** Brings one row's progress and priority up to date. */
  refresh(element) {
    const p = element.parts;
    let pct, priority;
    if (p.file) {
      pct = percent(p.file.progress);
      priority = String(p.file.priority);
    } else {
      const all = leaves(p.folder), size = p.folder.size;
      let done = 0;
      const prios = new Set();
      for (const f of all) { done += f.size * (f.progress || 0); prios.add(f.priority); }
      pct = percent(size ? done / size : 1);
      priority = prios.size === 1 ? String([...prios][0]) : "mixed";
    }
    if (p.label.textContent !== pct) { p.label.textContent = pct; p.bar.style.width = pct; }
    if (document.activeElement !== p.select && p.select.value !== priority) p.select.value = priority;
  }

  toggle(key, open) {
    if (open) this.collapsed.add(key); else this.collapsed.delete(key);
    this.flatten();
    const old = this.shownRows.get(key);
    if (old) { old.remove(); this.shownRows.delete(key); }
    this.render();
    const again = this.shownRows.get(key);
    if (again) again.querySelector(".ft-toggle").focus();
  }

  prioritySelect(name, indexes, folder) {
    const select = h("select", { "aria-label": `Priority of ${name}`, class: "ft-prio" },
      folder ? h("option", { value: "mixed", disabled: true }, "Mixed") : null,
      PRIORITIES.map(([value, label]) => h("option", { value: String(value) }, label)));
    select.addEventListener("change", async () => {
      if (select.value === "mixed") return;
      const priority = Number(select.value), ids = indexes();
      const ok = await attempt(() => this.ctx.api.post("torrents/filePrio", { hash: this.hash, id: ids.join("|"), priority }), "Setting the priority");
      if (ok !== undefined) {
        for (const id of ids) { const f = this.byIndex.get(id); if (f) f.priority = priority; }
        for (const row of this.shownRows.values()) this.refresh(row);
      }
    });
    return select;
  }

  async play(file) {
    await attempt(async () => (await import("../player.js")).play({ hash: this.hash, fileIndex: file.index, name: file.name }), "Playing");
  }
}
