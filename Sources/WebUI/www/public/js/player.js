// Stream playback: a file of a torrent played in the page while it downloads. `play({ hash, fileIndex, name })`
// asks qbtd for a playback URL (`stream/prepare`), opens a dialog with a <video id="player-video"> (or
// <audio id="player-audio">) on it, shows what is buffered and the download rate (`stream/list`, every 2 s while
// open), and on close stops the stream (`stream/stop`). When the browser cannot play the type, it says so and offers
// the URL for mpv or VLC.
import * as api from "./api.js";
import { h, bytes, speed, dialog, toast } from "./dom.js";

const POLL_MS = 2000;

/** Plays a torrent's file; resolves once the player is open (null when qbtd refused), the stream stops on close. */
export async function play({ hash, fileIndex = 0, name = "" }) {
  let info;
  try {
    info = await api.post("stream/prepare", { hash, fileIndex });
  } catch (error) {
    toast(`Playing ${name || "the file"} failed: ${error.message}`, { error: true });
    return null;
  }
  const mime = info.mimeType || "";
  const isAudio = mime.startsWith("audio/");
  const address = new URL(info.playbackUrl, location.href);
  const media = h(isAudio ? "audio" : "video", {
    id: isAudio ? "player-audio" : "player-video", controls: true, preload: "auto", playsinline: true,
    "aria-label": info.fileName || name,
  });
  const notice = h("p", { id: "player-notice", class: "player-notice", role: "status", hidden: true });
  const buffer = h("div", { class: "player-buffer", id: "player-buffer", role: "img", "aria-label": "Downloaded parts of the file" });
  const stats = h("div", { class: "player-stats", id: "player-stats", "aria-live": "off" }, "Connecting…");
  const urlField = h("input", { id: "player-url", readonly: true, value: info.playbackUrl, "aria-label": "Playback URL",
    onfocus: (event) => event.target.select() });
  const copy = h("button", { type: "button", id: "player-copy", onclick: () => copyUrl(urlField) }, "Copy URL");
  const body = h("div", { class: "player-dialog" }, notice, media, buffer, stats,
    h("div", { class: "player-url" }, h("span", { class: "muted" }, "For mpv or VLC:"), urlField, copy));

  function explain(text) {
    notice.hidden = false;
    notice.textContent = `${text} Open the URL below in mpv or VLC (it needs no log-in, and stops working when this player closes).`;
  }
  if (media.canPlayType(mime) === "") explain(`This browser says it cannot play ${mime || "this type of file"}; it will try anyway.`);
  media.addEventListener("error", () => {
    const code = media.error ? media.error.code : 0;
    if (code === 4) explain("The browser cannot play this file's format or codecs.");
    else if (code) explain(`Playback stopped: ${media.error.message || `media error ${code}`}.`);
  });

  let open = true;
  let timer = null;
  async function poll() {
    if (!open) return;
    try {
      const list = await api.get("stream/list");
      const report = Array.isArray(list) ? list.find((s) => s.streamId === info.streamId) : null;
      if (open && report) showReport(report, info.fileSize || report.fileSize, buffer, stats);
    } catch (error) {
      if (open) stats.textContent = `No stream status: ${error.message}`;
    }
    if (open) timer = setTimeout(poll, POLL_MS);
  }

  media.src = address.pathname + address.search;
  const closed = dialog(info.fileName || name || "Player", body, [{ label: "Close", value: null }], { wide: true });
  body.closest("dialog")?.classList.add("player");
  media.play().catch(() => { /* autoplay refused or the element errored: the controls and the error say it */ });
  poll();

  closed.then(async () => {
    open = false;
    clearTimeout(timer);
    media.pause();
    media.removeAttribute("src");
    media.load();
    try { await api.post("stream/stop", { streamId: info.streamId }); } catch (error) {
      if (error.status !== 404) toast(`Stopping the stream failed: ${error.message}`, { error: true });
    }
  });
  return { streamId: info.streamId, closed };
}

function showReport(report, size, buffer, stats) {
  const ranges = Array.isArray(report.bufferedRanges) ? report.bufferedRanges : [];
  let have = 0;
  const parts = [];
  if (size > 0) {
    for (const [start, end] of ranges) {
      have += Math.max(0, end - start);
      parts.push(h("span", { style: `left:${(start / size) * 100}%;width:${(Math.max(0, end - start) / size) * 100}%` }));
    }
    if (Number.isFinite(report.position)) parts.push(h("i", { style: `left:${Math.min(100, (report.position / size) * 100)}%` }));
  }
  buffer.replaceChildren(...parts);
  stats.replaceChildren(...[
    h("span", {}, `Downloaded ${bytes(Math.min(have, size || have))}${size ? ` of ${bytes(size)}` : ""}`),
    h("span", {}, `↓ ${speed(report.downloadRate)}`),
    h("span", {}, `${report.peers ?? 0} peer${report.peers === 1 ? "" : "s"}`),
    report.state ? h("span", { class: "badge" }, report.state) : null,
  ].filter(Boolean));
}

async function copyUrl(field) {
  try {
    await navigator.clipboard.writeText(field.value);
    toast("The playback URL is copied.");
  } catch {
    field.focus();
    field.select();
    toast("Press Ctrl+C (⌘C) to copy the selected URL.");
  }
}
