// The toolbar's actions on the selected torrents: start, stop (5.x names, falling back to 4.x's resume/pause on a
// 404), recheck, reannounce, delete, category, tags, limits, queue moves and, in a cluster, moves to another node.
// Each refreshes mainData when done.
import { h, attempt, dialog, toast } from "../dom.js";
import { tagList } from "./states.js";

let legacyNames = false;   // the server answered 404 to torrents/start: it speaks 4.x

/** POSTs a start/stop, trying the 5.x name first. */
async function startStop(api, start, hashes) {
  const modern = start ? "torrents/start" : "torrents/stop", legacy = start ? "torrents/resume" : "torrents/pause";
  if (!legacyNames) {
    try { return await api.post(modern, { hashes }); } catch (error) {
      if (error.status !== 404) throw error;
      legacyNames = true;
    }
  }
  return api.post(legacy, { hashes });
}

export class Actions {
  /** `selection()` gives the selected hashes; `ctx` the view's context. */
  constructor(ctx, selection) {
    this.ctx = ctx;
    this.selection = selection;
  }

  async run(what, action) {
    const hashes = this.selection();
    if (!hashes.length) { toast("Select one or more torrents first."); return; }
    const done = await attempt(() => action(hashes.join("|"), hashes), what);
    this.ctx.mainData.refresh();
    return done;
  }

  start() { return this.run("Start", (hashes) => startStop(this.ctx.api, true, hashes)); }
  stop() { return this.run("Stop", (hashes) => startStop(this.ctx.api, false, hashes)); }
  recheck() { return this.run("Recheck", (hashes) => this.ctx.api.post("torrents/recheck", { hashes })); }
  reannounce() { return this.run("Reannounce", (hashes) => this.ctx.api.post("torrents/reannounce", { hashes })); }
  queue(route, label) { return this.run(label, (hashes) => this.ctx.api.post(`torrents/${route}`, { hashes })); }

  names(hashes) {
    const torrents = this.ctx.mainData.torrents;
    const names = hashes.slice(0, 5).map((hash) => h("li", {}, (torrents.get(hash) || {}).name || hash));
    if (hashes.length > 5) names.push(h("li", { class: "muted" }, `…and ${hashes.length - 5} more`));
    return h("ul", { class: "dialog-names" }, names);
  }

  async delete() {
    const hashes = this.selection();
    if (!hashes.length) return;
    const files = h("input", { type: "checkbox", id: "delete-files" });
    const body = h("div", {}, h("p", {}, hashes.length === 1 ? "Delete this torrent?" : `Delete these ${hashes.length} torrents?`),
      this.names(hashes), h("label", {}, files, "Also delete the downloaded files"));
    const choice = await dialog("Delete torrents", body, [{ label: "Cancel", value: null }, { label: "Delete", value: "delete", primary: true }]);
    if (choice !== "delete") return;
    await this.run("Delete", (list) => this.ctx.api.post("torrents/delete", { hashes: list, deleteFiles: files.checked }));
  }

  async category() {
    const hashes = this.selection();
    if (!hashes.length) { toast("Select one or more torrents first."); return; }
    const first = this.ctx.mainData.torrents.get(hashes[0]) || {};
    const names = Object.keys(this.ctx.mainData.categories).sort((a, b) => a.localeCompare(b));
    const select = h("select", { id: "category-select" },
      h("option", { value: "" }, "(No category)"),
      names.map((n) => h("option", { value: n, selected: n === first.category }, n)),
      h("option", { value: "\u0000new" }, "New category…"));
    const name = h("input", { id: "category-new-name", placeholder: "Name" });
    const path = h("input", { id: "category-new-path", placeholder: "Optional: its save path" });
    const fresh = h("div", { class: "form-grid", hidden: true },
      h("label", { for: "category-new-name" }, "New category"), name, h("label", { for: "category-new-path" }, "Save path"), path);
    select.addEventListener("change", () => { fresh.hidden = select.value !== "\u0000new"; if (!fresh.hidden) name.focus(); });
    const body = h("div", { class: "stack" }, h("label", {}, "Category ", select), fresh);
    await dialog("Set category", body, [{ label: "Cancel", value: null }, { label: "Set", value: "set", primary: true }], {
      onSubmit: async () => {
        let category = select.value;
        if (category === "\u0000new") {
          category = name.value.trim();
          if (!category) { toast("Give the new category a name.", { error: true }); return false; }
          const ok = await attempt(() => this.ctx.api.post("torrents/createCategory", { category, savePath: path.value.trim() }), "Creating the category");
          if (ok === undefined) return false;
        }
        await this.run("Set category", (list) => this.ctx.api.post("torrents/setCategory", { hashes: list, category }));
        return true;
      },
    });
  }

  async tags() {
    const hashes = this.selection();
    if (!hashes.length) { toast("Select one or more torrents first."); return; }
    const torrents = this.ctx.mainData.torrents;
    const having = (tag) => hashes.filter((hash) => tagList(torrents.get(hash) || {}).includes(tag)).length;
    const all = [...this.ctx.mainData.tags].sort((a, b) => a.localeCompare(b));
    const boxes = all.map((tag) => {
      const n = having(tag);
      const box = h("input", { type: "checkbox", value: tag, checked: n === hashes.length });
      box.indeterminate = n > 0 && n < hashes.length;
      box.initial = { checked: box.checked, indeterminate: box.indeterminate };
      return box;
    });
    const fresh = h("input", { id: "tags-new", placeholder: "new-tag, another" });
    const body = h("div", { class: "stack" },
      all.length ? h("fieldset", { class: "tag-boxes" }, h("legend", {}, "Tags"), boxes.map((b) => h("label", {}, b, b.value)))
        : h("p", { class: "muted" }, "No tags yet."),
      h("label", {}, "Add new tags ", fresh));
    const choice = await dialog("Tags", body, [{ label: "Cancel", value: null }, { label: "Apply", value: "apply", primary: true }]);
    if (choice !== "apply") return;
    const created = fresh.value.split(",").map((s) => s.trim()).filter(Boolean);
    const add = [...boxes.filter((b) => b.checked && !b.indeterminate && !b.initial.checked).map((b) => b.value), ...created];
    const remove = boxes.filter((b) => !b.checked && !b.indeterminate && (b.initial.checked || b.initial.indeterminate)).map((b) => b.value);
    await this.run("Tags", async (list) => {
      if (created.length) await this.ctx.api.post("torrents/createTags", { tags: created.join(",") });
      if (add.length) await this.ctx.api.post("torrents/addTags", { hashes: list, tags: add.join(",") });
      if (remove.length) await this.ctx.api.post("torrents/removeTags", { hashes: list, tags: remove.join(",") });
    });
  }

  /** A cluster's torrents to another node (qbtd/moveToNode): the target among the nodes that are up. */
  async moveToNode() {
    const hashes = this.selection();
    if (!hashes.length) { toast("Select one or more torrents first."); return; }
    const nodes = await attempt(() => this.ctx.api.get("qbtd/nodes"), "Listing the nodes");
    if (!nodes) return;
    const here = new Set(hashes.map((hash) => (this.ctx.mainData.torrents.get(hash) || {}).node));
    const up = nodes.filter((n) => n.state === "up").map((n) => n.name);
    const select = h("select", { id: "node-select" },
      up.map((name) => h("option", { value: name, selected: !here.has(name) && name === up.find((n) => !here.has(n)) }, name)));
    const files = h("input", { type: "checkbox", id: "node-delete-files" });
    const body = h("div", { class: "stack" }, this.names(hashes), h("label", {}, "Move to node ", select),
      h("label", {}, files, "Delete the files on the node they leave, once moved"),
      h("p", { class: "muted" }, "The target fetches every piece from the node that runs the torrent now; it stays listed there until then."));
    const choice = await dialog("Move to node", body, [{ label: "Cancel", value: null }, { label: "Move", value: "move", primary: true }]);
    if (choice !== "move") return;
    const order = await this.run("Move to node", (list) =>
      this.ctx.api.post("qbtd/moveToNode", { hashes: list, node: select.value, deleteFiles: files.checked }));
    if (order && order.moving) {
      const skipped = order.skipped.map((s) => s.reason);
      toast(`Moving ${order.moving.length} torrent(s) to ${select.value}` + (skipped.length ? `; skipped: ${[...new Set(skipped)].join(", ")}` : ""));
    }
  }

  async limits() {
    const hashes = this.selection();
    if (!hashes.length) { toast("Select one or more torrents first."); return; }
    const first = this.ctx.mainData.torrents.get(hashes[0]) || {};
    const kib = (n) => (n > 0 ? String(Math.round(n / 1024)) : "0");
    const down = h("input", { id: "limit-down", type: "number", min: "0", step: "1", value: kib(first.dl_limit) });
    const up = h("input", { id: "limit-up", type: "number", min: "0", step: "1", value: kib(first.up_limit) });
    const body = h("div", { class: "form-grid" },
      h("label", { for: "limit-down" }, "Download limit (KiB/s, 0 = none)"), down,
      h("label", { for: "limit-up" }, "Upload limit (KiB/s, 0 = none)"), up);
    const choice = await dialog("Speed limits", body, [{ label: "Cancel", value: null }, { label: "Set", value: "set", primary: true }]);
    if (choice !== "set") return;
    const bytesPerSecond = (input) => Math.max(0, Math.round(Number(input.value || 0) * 1024));
    await this.run("Speed limits", async (list) => {
      await this.ctx.api.post("torrents/setDownloadLimit", { hashes: list, limit: bytesPerSecond(down) });
      await this.ctx.api.post("torrents/setUploadLimit", { hashes: list, limit: bytesPerSecond(up) });
    });
  }
}
