// "Make a torrent" of an upload: a dialog for qBittorrent 5's `torrentcreator/addTask` (format, private, trackers,
// start seeding), then `torrentcreator/status` every second while the dialog is open until the task is Finished or
// Failed, then the .torrent to download (`torrentcreator/torrentFile`).
import * as api from "../api.js";
import { h, dialog, toast } from "../dom.js";

export function makeTorrent(sourcePath) {
  const format = h("select", { id: "maker-format" },
    h("option", { value: "hybrid" }, "Hybrid (v1 + v2)"), h("option", { value: "v1" }, "v1"), h("option", { value: "v2" }, "v2"));
  const isPrivate = h("input", { id: "maker-private", type: "checkbox" });
  const seed = h("input", { id: "maker-seed", type: "checkbox", checked: true });
  const trackers = h("textarea", { id: "maker-trackers", rows: "3", placeholder: "udp://tracker.example.org:6969/announce",
    spellcheck: "false" });
  const form = h("div", { class: "form-grid" },
    h("span", {}, "Source"), h("span", { class: "upload-path", id: "maker-source" }, sourcePath),
    h("label", { for: "maker-format" }, "Format"), format,
    h("label", { for: "maker-trackers" }, "Trackers (one a line)"), trackers,
    h("span", {}), h("label", {}, isPrivate, "Private torrent"),
    h("span", {}), h("label", {}, seed, "Start seeding it"));
  const progress = h("div", { class: "progress", id: "maker-progress", role: "progressbar", "aria-valuemin": "0",
    "aria-valuemax": "100", "aria-valuenow": "0" }, h("span", { style: "width:0%" }), h("em", {}, "0%"));
  const message = h("p", { id: "maker-status", role: "status" });
  const download = h("button", { type: "button", id: "maker-download", class: "primary", hidden: true }, "Download the .torrent");
  const working = h("div", { class: "maker-progress", hidden: true }, progress, message, download);
  const body = h("div", {}, form, working);

  let open = true;
  let taskID = null;
  let timer = null;

  function show(percent, text) {
    progress.setAttribute("aria-valuenow", String(percent));
    progress.firstChild.style.width = `${percent}%`;
    progress.lastChild.textContent = `${percent}%`;
    message.textContent = text;
  }

  async function poll() {
    if (!open) return;
    let task;
    try {
      [task] = await api.get("torrentcreator/status", { taskID });
    } catch (error) {
      message.textContent = `No status: ${error.message}`;
    }
    if (!open) return;
    if (task && task.status === "Finished") {
      show(100, seed.checked ? "Finished: qbtd is seeding it from where the upload is." : "Finished.");
      download.hidden = false;
      download.focus();
      return;
    }
    if (task && task.status === "Failed") {
      show(0, `Failed: ${task.errorMessage || "unknown error"}`);
      message.className = "error";
      return;
    }
    if (task) show(Number(task.progress) || 0, task.status === "Queued" ? "Waiting for another task…" : "Hashing the pieces…");
    timer = setTimeout(poll, 1000);
  }

  download.addEventListener("click", async () => {
    try {
      const response = await api.raw(`/api/v2/torrentcreator/torrentFile?taskID=${encodeURIComponent(taskID)}`);
      const url = URL.createObjectURL(await response.blob());
      const name = `${sourcePath.split("/").filter(Boolean).pop() || "upload"}.torrent`;
      const link = h("a", { href: url, download: name, hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (error) {
      toast(`Downloading the .torrent failed: ${error.message}`, { error: true });
    }
  });

  const closed = dialog("Make a torrent", body, [
    { label: "Create", value: "create", primary: true }, { label: "Close", value: null },
  ], {
    onSubmit: async () => {
      if (taskID) return false;
      const fields = {
        sourcePath, format: format.value, private: String(isPrivate.checked), startSeeding: String(seed.checked),
        trackers: trackers.value.split(/\n/).map((t) => t.trim()).filter(Boolean).join("|"),
      };
      try {
        ({ taskID } = await api.post("torrentcreator/addTask", fields));
      } catch (error) {
        toast(`Making the torrent failed: ${error.message}`, { error: true });
        return false;
      }
      for (const control of [format, isPrivate, seed, trackers]) control.disabled = true;
      body.closest("form")?.querySelector('button[value="create"]')?.setAttribute("hidden", "");
      working.hidden = false;
      show(0, "Queued…");
      poll();
      return false;
    },
  });
  closed.then(() => { open = false; clearTimeout(timer); });
  return closed;
}
