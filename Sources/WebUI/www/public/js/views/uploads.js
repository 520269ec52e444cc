// The uploads section: files and folders (picked or dropped) sent to the server with tus (media/tus.js), to the
// uploads folder, a category's save path or a subfolder; progress, rate, pause and resume per file; where each one
// landed and "Make a torrent" of it (media/torrent-maker.js); and the uploads the server has in progress.
import { h, bytes, speed, percent, toast } from "../dom.js";
import { TusUpload, settings, unfinished, forget } from "../media/tus.js";
import { makeTorrent } from "../media/torrent-maker.js";

const PARALLEL = 2;
// Uploads outlive the view: switching sections does not stop them.
const uploads = [];
let sequence = 0; // each upload's number in the page: its rows' data-testids
let batches = 0;  // files picked or dropped together: a folder's files make one torrent
window.qbtdUploads = { settings, uploads };
// Leaving the page stops uploads under way (they resume when the same files are picked again): ask first.
window.addEventListener("beforeunload", (event) => {
  if (uploads.some((u) => u.state === "uploading")) event.preventDefault();
});

/** Starts queued uploads while fewer than PARALLEL run. */
function pump() {
  const running = uploads.filter((u) => u.state === "uploading").length;
  for (const u of uploads.filter((x) => x.state === "idle").slice(0, Math.max(0, PARALLEL - running))) u.start();
}

/** The torrent's source for an upload: the file, or the top folder of a folder upload. */
function sourceOf(upload) {
  const depth = upload.name.split("/").length - 1;
  let path = upload.resultPath;
  for (let i = 0; i < depth; i++) path = path.replace(/\/[^/]*$/, "");
  return path;
}

/** The uploads of the same folder (top name) picked or dropped together, or the upload alone. */
function folderOf(upload) {
  if (!upload.name.includes("/")) return [upload];
  const top = upload.name.split("/")[0];
  return uploads.filter((u) => u.batch === upload.batch && u.name.split("/")[0] === top && u.name.includes("/"));
}

/** Every file under a dropped entry (folders walked), with its path relative to the drop. */
async function filesOf(entry) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    return [{ file, name: entry.fullPath.replace(/^\//, "") }];
  }
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const child of batch) out.push(...await filesOf(child));
  }
  return out;
}

export async function mount(container, { api, mainData }) {
  // Where the files go.
  const destination = h("fieldset", { class: "upload-dest panel", id: "upload-destination" },
    h("legend", {}, "Destination"));
  const radio = (value, label, checked) => h("label", {},
    h("input", { type: "radio", name: "upload-dest", value, id: `upload-dest-${value}`, checked }), label);
  const category = h("select", { id: "upload-category", "aria-label": "Category" });
  const folder = h("input", { id: "upload-path", placeholder: "holiday/2024", "aria-label": "Subfolder", spellcheck: "false" });
  const overwrite = h("input", { id: "upload-overwrite", type: "checkbox" });
  destination.append(radio("uploads", "The uploads folder", true), h("span", {}, radio("category", "A category:"), " ", category),
    h("span", {}, radio("path", "A subfolder:"), " ", folder), h("label", {}, overwrite, "Replace files with the same name"));
  category.addEventListener("focus", () => { destination.querySelector("#upload-dest-category").checked = true; });
  folder.addEventListener("focus", () => { destination.querySelector("#upload-dest-path").checked = true; });

  function fillCategories() {
    const names = Object.keys(mainData.categories || {}).sort();
    const chosen = category.value;
    category.replaceChildren(...(names.length ? names.map((n) => h("option", { value: n }, n)) : [h("option", { value: "" }, "(none)")]));
    if (names.includes(chosen)) category.value = chosen;
  }

  function metadata() {
    const where = destination.querySelector('input[name="upload-dest"]:checked').value;
    const out = {};
    if (where === "category") {
      if (!category.value) throw new Error("there is no category to choose: make one in the torrents section");
      out.category = category.value;
    }
    if (where === "path") {
      if (!folder.value.trim()) throw new Error("name the subfolder");
      out.path = folder.value.trim();
    }
    if (overwrite.checked) out.overwrite = "true";
    return out;
  }

  // Pickers and the drop zone.
  const files = h("input", { type: "file", id: "upload-files", multiple: true });
  const folderPicker = h("input", { type: "file", id: "upload-folder", webkitdirectory: true, multiple: true });
  const drop = h("div", { class: "upload-drop", id: "upload-drop" },
    h("p", {}, h("strong", {}, "Drop files or folders here"), h("br"), h("span", { class: "muted" },
      "They are sent in pieces: pause and resume at will, or pick the same file again after a reload to carry on.")),
    h("div", { class: "upload-pickers" },
      h("label", { class: "button" }, files, "Choose files…"),
      h("label", { class: "button" }, folderPicker, "Choose a folder…")));
  const list = h("ul", { class: "upload-list", id: "upload-list", "aria-label": "Uploads from this page" });
  const pending = h("div", { id: "upload-unfinished", class: "panel", hidden: true });
  const server = h("div", { id: "upload-server", class: "panel upload-server" });

  container.append(h("div", { class: "uploads" }, drop, destination, list, pending, server));

  function add(entries) {
    let meta;
    try { meta = metadata(); } catch (error) { toast(`Not uploaded: ${error.message}`, { error: true }); return; }
    let resumed = 0;
    const batch = ++batches;
    for (const { file, name } of entries) {
      const upload = new TusUpload(file, { name, metadata: meta });
      upload.seq = sequence++;
      upload.batch = batch;
      upload.addEventListener("state", () => { if (upload.state !== "uploading") pump(); }); // also with the view closed
      if (upload.resumable) resumed++;
      uploads.push(upload);
      watch(upload);
      list.append(rowFor(upload));
    }
    if (resumed) toast(`${resumed} of them ${resumed === 1 ? "was" : "were"} begun before: carrying on where ${resumed === 1 ? "it" : "they"} stopped.`);
    pump();
    showUnfinished();
  }

  files.addEventListener("change", () => { add([...files.files].map((file) => ({ file, name: file.name }))); files.value = ""; });
  folderPicker.addEventListener("change", () => {
    add([...folderPicker.files].map((file) => ({ file, name: file.webkitRelativePath || file.name })));
    folderPicker.value = "";
  });
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const entries = [...event.dataTransfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    try {
      if (entries.length) add((await Promise.all(entries.map(filesOf))).flat());
      else add([...event.dataTransfer.files].map((file) => ({ file, name: file.name })));
    } catch (error) {
      toast(`Reading the dropped files failed: ${error.message}`, { error: true });
    }
  });

  // One row per upload; rows update in place from the upload's events.
  const rows = new Map();
  const detach = [];
  function watch(upload) {
    const update = (event) => {
      if (event.type === "state" && upload.state === "done") for (const u of folderOf(upload)) updateRow(u);
      else updateRow(upload);
    };
    upload.addEventListener("progress", update);
    upload.addEventListener("state", update);
    detach.push(() => { upload.removeEventListener("progress", update); upload.removeEventListener("state", update); });
  }

  function rowFor(upload) {
    const n = upload.seq;
    const bar = h("div", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100",
      "data-testid": `upload-progress-${n}`, "aria-label": `Progress of ${upload.name}` }, h("span"), h("em"));
    const toggle = h("button", { type: "button", "data-testid": `upload-toggle-${n}`, onclick: () => {
      if (upload.state === "uploading") upload.pause(); else upload.start();
    } });
    const remove = h("button", { type: "button", class: "danger", "data-testid": `upload-cancel-${n}`, onclick: async () => {
      remove.disabled = true;  // a second click must not remove another upload
      if (upload.state !== "done") await upload.cancel();
      const at = uploads.indexOf(upload);
      if (at >= 0) uploads.splice(at, 1);
      rows.get(upload)?.remove();
      rows.delete(upload);
      showUnfinished();
    } });
    const torrent = h("button", { type: "button", "data-testid": `upload-torrent-${n}`, hidden: true,
      onclick: () => makeTorrent(sourceOf(upload)) }, "Make a torrent");
    const info = h("div", { class: "upload-info", "aria-live": "off" });
    const row = h("li", { class: "upload-row", "data-testid": `upload-${n}` },
      h("span", { class: "upload-name", title: upload.name }, upload.name),
      h("div", { class: "upload-actions" }, toggle, torrent, remove), bar, info);
    row.parts = { bar, toggle, remove, torrent, info };
    rows.set(upload, row);
    updateRow(upload);
    return row;
  }

  function updateRow(upload) {
    const row = rows.get(upload);
    if (!row) return;
    const { bar, toggle, remove, torrent, info } = row.parts;
    const p = upload.state === "done" ? 1 : upload.fraction;
    row.dataset.state = upload.state;
    row.className = `upload-row ${upload.state}`;
    bar.setAttribute("aria-valuenow", String(Math.floor(p * 100)));
    bar.firstChild.style.width = `${p * 100}%`;
    bar.lastChild.textContent = percent(p);
    toggle.hidden = upload.state === "done";
    toggle.textContent = upload.state === "uploading" ? "Pause" : upload.state === "failed" ? "Retry" : "Resume";
    if (upload.state === "idle") toggle.textContent = "Start now";
    remove.textContent = upload.state === "done" ? "Remove from list" : "Cancel";
    // A folder's files make one torrent, offered once they are all in.
    const folderFiles = folderOf(upload);
    torrent.hidden = !(upload.state === "done" && upload.resultPath) || !folderFiles.every((u) => u.state === "done")
      || (folderFiles.length > 1 && folderFiles[folderFiles.length - 1] !== upload);
    torrent.textContent = upload.name.includes("/") ? `Make a torrent of ${upload.name.split("/")[0]}/` : "Make a torrent";
    const words = { idle: "waiting", uploading: "uploading", paused: "paused", done: "done", failed: "failed" };
    info.replaceChildren(...[
      h("span", {}, `${bytes(upload.offset)} of ${bytes(upload.size)}`),
      upload.state === "uploading" ? h("span", {}, speed(upload.rate)) : null,
      h("span", { class: upload.state === "failed" ? "error" : "muted" },
        upload.state === "failed" ? `failed: ${upload.error?.message || "unknown error"}` : words[upload.state] || upload.state),
      upload.state === "done" && upload.resultPath
        ? h("span", {}, "Saved to ", h("span", { class: "upload-path", "data-testid": `upload-path-${upload.seq}` }, upload.resultPath)) : null,
    ].filter(Boolean));
  }

  // Uploads begun earlier in this browser and not finished: picking the same file resumes them.
  function showUnfinished() {
    const active = new Set(uploads.map((u) => u.key));
    const left = unfinished().filter((u) => !active.has(u.key));
    pending.hidden = left.length === 0;
    pending.replaceChildren(h("h2", {}, "Unfinished uploads"),
      h("p", { class: "muted" }, "Pick the same file again (same destination) to carry on where it stopped."),
      h("ul", {}, left.map((u) => h("li", {}, `${u.name} (${bytes(u.size)}) `,
        h("button", { type: "button", onclick: () => { forget(u.key); showUnfinished(); } }, "Forget")))));
  }

  // The server's uploads in progress (any client): no event for them, so polled while this view is open.
  let timer = null;
  let alive = true;
  async function pollServer() {
    try {
      const items = await api.get("uploads");
      if (!alive) return;
      server.replaceChildren(h("h2", {}, "Uploads arriving at the server"), items.length
        ? h("table", { class: "table", id: "upload-server-table" },
          h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Kind"), h("th", { class: "num" }, "Received"))),
          h("tbody", {}, items.map((u) => h("tr", {}, h("td", {}, u.name || "–"), h("td", {}, u.kind || ""),
            h("td", { class: "num" }, u.total ? `${bytes(u.received)} of ${bytes(u.total)}` : bytes(u.received))))))
        : h("p", { class: "muted" }, "None right now."));
    } catch (error) {
      if (alive) server.replaceChildren(h("p", { class: "error" }, `The server's uploads could not be read: ${error.message}`));
    }
    if (alive) timer = setTimeout(pollServer, 2000);
  }

  const onData = (event) => { if (event.detail.full || event.detail.lists) fillCategories(); };
  mainData.addEventListener("update", onData);
  fillCategories();
  for (const upload of uploads) { watch(upload); list.append(rowFor(upload)); }
  showUnfinished();
  pollServer();

  return () => {
    alive = false;
    clearTimeout(timer);
    mainData.removeEventListener("update", onData);
    for (const off of detach) off();
  };
}
