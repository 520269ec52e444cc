// The details pane of one torrent: tabs General (properties and the piece bar), Trackers, Peers (sync/torrentPeers
// rid diffs, only while that tab shows), Web seeds and Files (the file tree). Below the list on desktop, a
// full-screen sheet on phones. `tick()` (called on mainData updates) refreshes the open tab every 2 s.
import { h, bytes, speed, eta, percent, ratio, date, duration } from "../dom.js";
import { FileTree } from "./filetree.js";
import { PieceBar } from "./pieces.js";

const TABS = [["general", "General"], ["trackers", "Trackers"], ["peers", "Peers"], ["webseeds", "Web seeds"], ["files", "Files"]];
const REFRESH_MS = 2000;
// qBittorrent's tracker statuses (5.x adds 5 and 6).
const TRACKER_STATUS = ["Disabled", "Not contacted", "Working", "Updating", "Not working", "Tracker error", "Unreachable"];

function table(headers, rows, empty) {
  if (!rows.length) return h("p", { class: "muted" }, empty);
  return h("div", { class: "table-wrap" }, h("table", { class: "table" },
    h("thead", {}, h("tr", {}, headers.map(([label, num]) => h("th", { class: num ? "num" : "", scope: "col" }, label)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((c, i) => h("td", { class: headers[i][1] ? "num" : "" }, c)))))));
}

export class DetailsPane {
  constructor(ctx, { onClose }) {
    this.ctx = ctx;
    this.hash = null;
    this.tab = "general";
    this.last = 0;
    this.generation = 0;
    this.peers = { rid: 0, map: {} };
    this.tree = new FileTree(ctx);
    this.pieces = new PieceBar();
    this.tabButtons = {};
    const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Torrent details" }, TABS.map(([key, label]) => {
      const button = h("button", { type: "button", role: "tab", id: `tab-${key}`, "data-testid": `tab-${key}`,
        "aria-controls": "details-panel", "aria-selected": String(key === this.tab), tabindex: key === this.tab ? "0" : "-1",
        onclick: () => this.show(key), onkeydown: (e) => this.tabKey(e, key) }, label);
      this.tabButtons[key] = button;
      return button;
    }));
    this.title = h("h2", { class: "details-title" });
    this.panel = h("div", { class: "details-panel", id: "details-panel", role: "tabpanel", tabindex: "0" });
    this.element = h("section", { class: "details", id: "torrent-details", "aria-label": "Torrent details", hidden: true,
      onkeydown: (e) => { if (e.key === "Escape" && !e.target.closest("select")) { e.preventDefault(); onClose(); } } },
      h("div", { class: "details-head" }, this.title,
        h("button", { type: "button", id: "details-close", class: "icon-button", "aria-label": "Close the details", onclick: onClose }, "✕")),
      tabs, this.panel);
  }

  destroy() { this.pieces.destroy(); }

  get isOpen() { return !this.element.hidden && this.hash !== null; }

  /** Shows torrent `hash` (null hides the pane). */
  open(hash) {
    if (hash === this.hash && !this.element.hidden) return;
    this.hash = hash;
    this.element.hidden = hash === null;
    this.peers = { rid: 0, map: {} };
    if (hash) this.load();
  }

  close() { this.open(null); }

  show(tab) {
    this.tab = tab;
    for (const [key, button] of Object.entries(this.tabButtons)) {
      button.setAttribute("aria-selected", String(key === tab));
      button.tabIndex = key === tab ? 0 : -1;
    }
    this.panel.setAttribute("aria-labelledby", `tab-${tab}`);
    this.peers = { rid: 0, map: {} };
    this.load();
  }

  tabKey(event, key) {
    const keys = TABS.map(([k]) => k), at = keys.indexOf(key);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: keys.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = keys[(next + keys.length) % keys.length];
    this.show(tab);
    this.tabButtons[tab].focus();
  }

  /** Called on every mainData update: refreshes the open tab when 2 s have passed and the page is visible. */
  tick() {
    if (!this.isOpen || document.hidden || performance.now() - this.last < REFRESH_MS) return;
    this.load();
  }

  async load() {
    const hash = this.hash, tab = this.tab, generation = ++this.generation;
    if (!hash) return;
    this.last = performance.now();
    const t = this.ctx.mainData.torrents.get(hash);
    this.title.textContent = t ? t.name : hash;
    const current = () => generation === this.generation && hash === this.hash && tab === this.tab;
    try {
      const api = this.ctx.api;
      if (tab === "general") {
        const [props, states] = await Promise.all([api.get("torrents/properties", { hash }), api.get("torrents/pieceStates", { hash })]);
        if (current()) this.general(props, states, this.ctx.mainData.torrents.get(hash));
      } else if (tab === "trackers") {
        const list = await api.get("torrents/trackers", { hash });
        if (current()) this.trackers(list);
      } else if (tab === "peers") {
        const data = await api.get("sync/torrentPeers", { hash, rid: this.peers.rid });
        if (current()) this.peersDiff(data);
      } else if (tab === "webseeds") {
        const list = await api.get("torrents/webseeds", { hash });
        if (current()) this.place(table([["URL"]], list.map((s) => [s.url]), "No web seeds."));
      } else if (tab === "files") {
        const files = await api.get("torrents/files", { hash });
        if (current()) { this.tree.set(hash, files); this.place(this.tree.element); }
      }
    } catch (error) {
      if (current()) this.place(h("p", { class: "error", role: "alert" }, `Could not load this tab: ${error.message}`));
    }
  }

  /** Puts `node` in the panel unless it is there already (so focus and scroll stay). */
  place(node) {
    if (this.panel.firstChild !== node || this.panel.childNodes.length !== 1) this.panel.replaceChildren(node);
  }

  general(p, states, t) {
    this.pieces.set(states);
    const item = (label, value) => [h("dt", {}, label), h("dd", {}, value)];
    const limit = (n) => (n > 0 ? speed(n) : "∞");
    const grid = h("dl", { class: "props" },
      item("Progress", `${percent(p.progress ?? (p.pieces_num ? p.pieces_have / p.pieces_num : 0))} (${p.pieces_have ?? "?"} of ${p.pieces_num ?? "?"} pieces)`),
      item("Size", bytes(p.total_size)),
      item("Downloaded", `${bytes(p.total_downloaded)} (${bytes(p.total_downloaded_session)} this session)`),
      item("Uploaded", `${bytes(p.total_uploaded)} (${bytes(p.total_uploaded_session)} this session)`),
      item("Ratio", ratio(p.share_ratio)),
      item("Speeds", `↓ ${speed(p.dl_speed)} ↑ ${speed(p.up_speed)}`),
      item("Limits", `↓ ${limit(p.dl_limit)} ↑ ${limit(p.up_limit)}`),
      item("ETA", eta(p.eta)),
      item("Connections", `${p.nb_connections ?? 0} (limit ${p.nb_connections_limit ?? "–"})`),
      item("Seeds", `${p.seeds ?? 0} (${p.seeds_total ?? 0} total)`),
      item("Peers", `${p.peers ?? 0} (${p.peers_total ?? 0} total)`),
      item("Wasted", bytes(p.total_wasted)),
      item("Time active", duration(p.time_elapsed)),
      item("Pieces", `${p.pieces_num ?? "?"} × ${bytes(p.piece_size)}`),
      item("Save path", h("span", { class: "mono" }, p.save_path || "")),
      item("Added", date(p.addition_date)),
      item("Completed", date(p.completion_date)),
      item("Created", `${date(p.creation_date)}${p.created_by ? ` by ${p.created_by}` : ""}`),
      item("Info hash v1", h("span", { class: "mono" }, p.infohash_v1 || "–")),
      item("Info hash v2", h("span", { class: "mono" }, p.infohash_v2 || "–")),
      item("Private", p.is_private ?? p.private ? "Yes" : "No"),
      item("Comment", p.comment || "–"));
    const box = this.generalBox || (this.generalBox = h("div", { class: "general" }));
    // Why it is held or in error (qbtd's qbtd_reason), above everything else.
    const problem = t && t.qbtd_reason ? h("p", { class: "error reason", role: "status" }, t.qbtd_reason) : "";
    box.replaceChildren(problem, h("div", { class: "pieces-label muted" }, "Pieces"), this.pieces.element, grid);
    this.place(box);
    this.pieces.draw();
  }

  trackers(list) {
    const rows = list.map((t) => [h("span", { class: "mono" }, t.url), t.tier < 0 ? "" : String(t.tier),
      TRACKER_STATUS[t.status] || String(t.status), num(t.num_seeds), num(t.num_leeches), num(t.num_peers),
      num(t.num_downloaded), t.msg || ""]);
    this.place(table([["URL"], ["Tier", true], ["Status"], ["Seeds", true], ["Leechers", true], ["Peers", true],
      ["Downloaded", true], ["Message"]], rows, "No trackers."));
  }

  peersDiff(data) {
    if (data.full_update) this.peers.map = {};
    for (const [key, fields] of Object.entries(data.peers || {})) this.peers.map[key] = { ...(this.peers.map[key] || {}), ...fields };
    for (const key of data.peers_removed || []) delete this.peers.map[key];
    this.peers.rid = data.rid;
    const rows = Object.entries(this.peers.map).sort(([a], [b]) => a.localeCompare(b)).map(([key, p]) => [
      h("span", { class: "mono" }, p.ip ? `${p.ip}:${p.port}` : key), p.connection || "", p.flags || "", p.client || "",
      percent(p.progress), speed(p.dl_speed), speed(p.up_speed), bytes(p.downloaded), bytes(p.uploaded)]);
    this.place(table([["Address"], ["Connection"], ["Flags"], ["Client"], ["Progress", true], ["Down", true], ["Up", true],
      ["Downloaded", true], ["Uploaded", true]], rows, "No peers connected."));
  }
}

const num = (n) => (n < 0 || n === undefined ? "–" : String(n));
