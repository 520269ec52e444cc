// The "Add torrents" dialog: magnet links and URLs (one per line) and .torrent files (file picker, or files dropped
// anywhere on the torrents view), with qBittorrent's add options, sent as one multipart `torrents/add`.
import { h, attempt, bytes, dialog, toast } from "../dom.js";

let open = null;   // the dialog on screen: { addFiles(files) }

async function defaultSavePath(api) {
  try { return await api.get("app/defaultSavePath"); } catch {
    try { return (await api.get("app/preferences")).save_path || ""; } catch { return ""; }
  }
}

/** Opens the dialog (or adds `files` to the one already open). */
export async function showAddDialog(ctx, files = []) {
  if (open) { open.addFiles(files); return; }
  const chosen = [];
  const fileList = h("ul", { class: "add-file-list", "aria-live": "polite" });
  const addFiles = (list) => {
    for (const file of list) if (!chosen.some((f) => f.name === file.name && f.size === file.size)) chosen.push(file);
    fileList.replaceChildren(...chosen.map((f, i) => h("li", {}, `${f.name} (${bytes(f.size)}) `,
      h("button", { type: "button", class: "icon-button", "aria-label": `Remove ${f.name}`,
        onclick: () => { chosen.splice(i, 1); addFiles([]); } }, "✕"))));
  };
  const id = (name) => `add-${name}`;
  const field = (name, label, input) => [h("label", { for: id(name) }, label), input];
  const urls = h("textarea", { id: id("urls"), rows: "4", placeholder: "magnet:?xt=… or https://…/file.torrent", spellcheck: "false" });
  const picker = h("input", { id: id("files"), type: "file", multiple: true, accept: ".torrent,application/x-bittorrent",
    onchange: () => { addFiles(picker.files); } });
  const savePath = h("input", { id: id("savepath"), spellcheck: "false" });
  const categories = Object.keys(ctx.mainData.categories).sort((a, b) => a.localeCompare(b));
  const category = h("select", { id: id("category") }, h("option", { value: "" }, "(No category)"),
    categories.map((c) => h("option", { value: c }, c)));
  category.addEventListener("change", () => {
    const c = ctx.mainData.categories[category.value];
    if (c && c.savePath) savePath.value = c.savePath;
  });
  const tags = h("input", { id: id("tags"), placeholder: "tag1, tag2", list: "add-tag-list" });
  const tagList = h("datalist", { id: "add-tag-list" }, ctx.mainData.tags.map((t) => h("option", { value: t })));
  const start = h("input", { id: id("start"), type: "checkbox", checked: true });
  const skip = h("input", { id: id("skip-check"), type: "checkbox" });
  const sequential = h("input", { id: id("sequential"), type: "checkbox" });
  const firstLast = h("input", { id: id("first-last"), type: "checkbox" });
  const layout = h("select", { id: id("layout") }, ["Original", "Subfolder", "NoSubfolder"].map((v) =>
    h("option", { value: v }, { Original: "Original", Subfolder: "Create subfolder", NoSubfolder: "Don't create subfolder" }[v])));
  const rename = h("input", { id: id("rename"), placeholder: "Keep the torrent's name" });
  const down = h("input", { id: id("dl-limit"), type: "number", min: "0", placeholder: "0 = none" });
  const up = h("input", { id: id("up-limit"), type: "number", min: "0", placeholder: "0 = none" });
  const check = (input, label) => h("label", {}, input, label);
  const body = h("div", { class: "add-body" },
    h("label", { for: id("urls"), class: "block" }, "Magnet links or URLs, one per line"), urls,
    h("div", { class: "add-files" }, h("label", { for: id("files") }, ".torrent files"), picker, fileList,
      h("p", { class: "muted" }, "You can also drop .torrent files anywhere on the torrents page.")),
    h("div", { class: "form-grid" },
      field("savepath", "Save path", savePath), field("category", "Category", category), field("tags", "Tags", tags),
      field("rename", "Rename", rename), field("layout", "Content layout", layout),
      field("dl-limit", "Download limit (KiB/s)", down), field("up-limit", "Upload limit (KiB/s)", up)),
    h("div", { class: "add-checks" }, check(start, "Start torrent"), check(skip, "Skip hash check"),
      check(sequential, "Download in sequential order"), check(firstLast, "Download first and last pieces first")),
    tagList);
  addFiles(files);
  open = { addFiles };
  defaultSavePath(ctx.api).then((path) => { if (!savePath.value) savePath.value = path; });
  try {
    await dialog("Add torrents", body, [{ label: "Cancel", value: null }, { label: "Add", value: "add", primary: true }], {
      wide: true,
      onSubmit: async () => {
        const links = urls.value.split("\n").map((s) => s.trim()).filter(Boolean);
        if (!links.length && !chosen.length) { toast("Give a magnet link, a URL or a .torrent file.", { error: true }); return false; }
        const form = new FormData();
        if (links.length) form.append("urls", links.join("\n"));
        for (const file of chosen) form.append("torrents", file, file.name);
        const put = (k, v) => { if (v !== "" && v !== undefined) form.append(k, String(v)); };
        put("savepath", savePath.value.trim());
        put("category", category.value);
        put("tags", tags.value.split(",").map((s) => s.trim()).filter(Boolean).join(","));
        put("stopped", String(!start.checked));
        put("paused", String(!start.checked));
        put("skip_checking", String(skip.checked));
        put("sequentialDownload", String(sequential.checked));
        put("firstLastPiecePrio", String(firstLast.checked));
        put("contentLayout", layout.value);
        put("rename", rename.value.trim());
        const kib = (input) => (Number(input.value) > 0 ? Math.round(Number(input.value) * 1024) : "");
        put("dlLimit", kib(down));
        put("upLimit", kib(up));
        const answer = await attempt(() => ctx.api.post("torrents/add", form), "Adding");
        if (answer === undefined) return false;
        if (typeof answer === "string" && answer.trim() === "Fails.") { toast("The server refused these torrents.", { error: true }); return false; }
        const count = links.length + chosen.length;
        toast(`Added ${count} torrent${count === 1 ? "" : "s"}.`);
        ctx.mainData.refresh();
        return true;
      },
    });
  } finally {
    open = null;
  }
}

/** Lets files be dropped anywhere on `target`; returns a function that removes the listeners. */
export function acceptDrops(target, ctx) {
  const hasFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
  const over = (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    target.classList.add("drop-target");
  };
  const leave = (event) => { if (!target.contains(event.relatedTarget)) target.classList.remove("drop-target"); };
  const drop = (event) => {
    target.classList.remove("drop-target");
    if (!hasFiles(event)) return;
    event.preventDefault();
    const files = [...event.dataTransfer.files].filter((f) => f.name.toLowerCase().endsWith(".torrent"));
    if (!files.length) { toast("Only .torrent files can be dropped here.", { error: true }); return; }
    showAddDialog(ctx, files);
  };
  target.addEventListener("dragover", over);
  target.addEventListener("dragleave", leave);
  target.addEventListener("drop", drop);
  return () => {
    target.removeEventListener("dragover", over);
    target.removeEventListener("dragleave", leave);
    target.removeEventListener("drop", drop);
  };
}
