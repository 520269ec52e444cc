// The files tab: `torrents/files` as a tree (folders collapse), with each file's progress and a priority select
// (→ `torrents/filePrio`; a folder's select sets every file under it) and a Play button for video and audio files.
import { h, attempt, bytes, percent } from "../dom.js";

const PRIORITIES = [[0, "Do not download"], [1, "Normal"], [6, "High"], [7, "Maximum"]];
const PLAYABLE = /\.(mp4|m4v|mkv|webm|mov|avi|ogv|mpg|mpeg|ts|m2ts|mp3|m4a|aac|flac|ogg|oga|opus|wav|wma)$/i;

function buildTree(files) {
  const root = { name: "", folders: new Map(), files: [] };
  for (const file of files) {
    const parts = file.name.split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (!node.folders.has(part)) node.folders.set(part, { name: part, folders: new Map(), files: [] });
      node = node.folders.get(part);
    }
    node.files.push({ ...file, index: file.index ?? files.indexOf(file), base: parts[parts.length - 1] });
  }
  return root;
}

function leaves(node) { return [...node.files, ...[...node.folders.values()].flatMap(leaves)]; }

export class FileTree {
  constructor(ctx) {
    this.ctx = ctx;
    this.hash = null;
    this.count = -1;
    this.collapsed = new Set();
    this.rows = new Map();       // file index → { progress, select }
    this.folders = [];           // { node, progress, size, select }
    // A list, not an ARIA tree: rows hold buttons and selects, and each folder's toggle carries aria-expanded.
    this.element = h("div", { class: "file-tree", role: "list", "aria-label": "Files" });
  }

  /** Shows `files` of torrent `hash`; rebuilds only when the torrent or its file list changed. */
  set(hash, files) {
    if (hash !== this.hash || files.length !== this.count) {
      this.hash = hash;
      this.count = files.length;
      this.tree = buildTree(files);
      this.build();
    }
    const byIndex = new Map(files.map((f, i) => [f.index ?? i, f]));
    for (const leaf of leaves(this.tree)) {
      const f = byIndex.get(leaf.index);
      if (f) { leaf.progress = f.progress; leaf.priority = f.priority; }
    }
    for (const row of this.rows.values()) {
      const f = row.file;
      const pct = percent(f.progress);
      if (row.label.textContent !== pct) { row.label.textContent = pct; row.bar.style.width = pct; }
      if (document.activeElement !== row.select && row.select.value !== String(f.priority)) row.select.value = String(f.priority);
    }
    for (const folder of this.folders) {
      const all = leaves(folder.node), size = all.reduce((s, f) => s + f.size, 0);
      const done = all.reduce((s, f) => s + f.size * (f.progress || 0), 0);
      const pct = percent(size ? done / size : 1);
      folder.label.textContent = pct; folder.bar.style.width = pct;
      const prios = new Set(all.map((f) => f.priority));
      if (document.activeElement !== folder.select) folder.select.value = prios.size === 1 ? String([...prios][0]) : "mixed";
    }
  }

  build() {
    this.rows = new Map();
    this.folders = [];
    const items = [];
    const walk = (node, depth, path) => {
      const folders = [...node.folders.values()].sort((a, b) => a.name.localeCompare(b.name));
      for (const folder of folders) {
        const key = `${path}/${folder.name}`, open = !this.collapsed.has(key);
        const bar = h("span"), label = h("em");
        const select = this.prioritySelect(`folder ${folder.name}`, () => leaves(folder).map((f) => f.index), true);
        const toggle = h("button", { type: "button", class: "ft-toggle", "aria-expanded": String(open),
          "aria-label": `${open ? "Collapse" : "Expand"} ${folder.name}`,
          "data-key": key, onclick: () => this.toggle(key, open) },
          open ? "▾" : "▸");
        items.push(h("div", { class: "ft-row ft-folder", role: "listitem" },
          h("span", { class: "ft-name", style: `padding-left:${depth * 16}px` }, toggle, h("span", { class: "ft-folder-name" }, folder.name)),
          h("span", { class: "ft-size num" }, bytes(leaves(folder).reduce((s, f) => s + f.size, 0))),
          h("div", { class: "progress ft-progress" }, bar, label), select, h("span", { class: "ft-play" })));
        this.folders.push({ node: folder, bar, label, select });
        if (open) walk(folder, depth + 1, key);
      }
      for (const file of [...node.files].sort((a, b) => a.base.localeCompare(b.base))) {
        const bar = h("span"), label = h("em");
        const select = this.prioritySelect(file.base, () => [file.index], false);
        select.dataset.testid = `prio-${file.index}`;
        const play = PLAYABLE.test(file.base) ? h("button", { type: "button", class: "ft-play-button", "data-testid": `play-${file.index}`,
          "aria-label": `Play ${file.base}`, onclick: () => this.play(file) }, "▶ Play") : null;
        items.push(h("div", { class: "ft-row ft-file", role: "listitem" },
          h("span", { class: "ft-name", style: `padding-left:${depth * 16 + 22}px`, title: file.name }, file.base),
          h("span", { class: "ft-size num" }, bytes(file.size)),
          h("div", { class: "progress ft-progress" }, bar, label), select, h("span", { class: "ft-play" }, play)));
        this.rows.set(file.index, { file, bar, label, select });
      }
    };
    walk(this.tree, 0, "");
    this.element.replaceChildren(h("div", { class: "ft-row ft-head", "aria-hidden": "true" },
      h("span", {}, "Name"), h("span", { class: "num" }, "Size"), h("span", {}, "Progress"), h("span", {}, "Priority"), h("span", {})), ...items);
  }

  toggle(key, open) {
    if (open) this.collapsed.add(key); else this.collapsed.delete(key);
    this.build();
    this.set(this.hash, this.files());
    const again = [...this.element.querySelectorAll(".ft-toggle")].find((b) => b.dataset.key === key);
    if (again) again.focus();
  }

  files() { return leaves(this.tree).sort((a, b) => a.index - b.index); }

  prioritySelect(name, indexes, folder) {
    const select = h("select", { "aria-label": `Priority of ${name}`, class: "ft-prio" },
      folder ? h("option", { value: "mixed", disabled: true }, "Mixed") : null,
      PRIORITIES.map(([value, label]) => h("option", { value: String(value) }, label)));
    select.addEventListener("change", async () => {
      if (select.value === "mixed") return;
      const priority = Number(select.value), ids = indexes();
      const ok = await attempt(() => this.ctx.api.post("torrents/filePrio", { hash: this.hash, id: ids.join("|"), priority }), "Setting the priority");
      if (ok !== undefined) for (const f of leaves(this.tree)) if (ids.includes(f.index)) f.priority = priority;
    });
    return select;
  }

  async play(file) {
    await attempt(async () => (await import("../player.js")).play({ hash: this.hash, fileIndex: file.index, name: file.name }), "Playing");
  }
}
