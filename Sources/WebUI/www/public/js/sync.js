// `sync/maindata` kept current with rid diffs, once a second (every 5 s while the page is hidden). Views listen for
// "update" events: `detail` = { full, changed: Set of hashes, removed: array of hashes, lists: bool, state: bool }.
import * as api from "./api.js";

export class MainData extends EventTarget {
  constructor() {
    super();
    this.rid = 0;
    this.torrents = new Map();   // hash → torrent object, with `hash` set
    this.categories = {};        // name → { name, savePath, … }
    this.tags = [];
    this.trackers = {};          // tracker URL → [hashes] (5.x)
    this.serverState = {};
    this.running = false;
    this.timer = null;
    this.lastApplyMs = 0;
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
    this.rid = 0;
  }

  /** Polls at once (after an action), instead of waiting for the next second. */
  refresh() {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.tick();
  }

  async tick() {
    if (this.busy) return;
    this.busy = true;
    try {
      const data = await api.get("sync/maindata", { rid: this.rid });
      this.apply(data);
    } catch (error) {
      this.dispatchEvent(new CustomEvent("error", { detail: error }));
    } finally {
      this.busy = false;
      if (this.running) this.timer = setTimeout(() => this.tick(), document.hidden ? 5000 : 1000);
    }
  }

  apply(data) {
    const started = performance.now();
    const full = Boolean(data.full_update);
    const changed = new Set();
    const removed = [];
    let lists = full;
    if (full) {
      this.torrents = new Map();
      this.categories = {};
      this.tags = [];
      this.trackers = {};
    }
    for (const [hash, fields] of Object.entries(data.torrents || {})) {
      const current = this.torrents.get(hash);
      if (current) Object.assign(current, fields); else this.torrents.set(hash, { hash, ...fields });
      changed.add(hash);
    }
    for (const hash of data.torrents_removed || []) { if (this.torrents.delete(hash)) removed.push(hash); }
    if (data.categories) { lists = true; for (const [name, c] of Object.entries(data.categories)) this.categories[name] = { ...(this.categories[name] || {}), ...c }; }
    for (const name of data.categories_removed || []) { lists = true; delete this.categories[name]; }
    if (data.tags) { lists = true; for (const t of data.tags) if (!this.tags.includes(t)) this.tags.push(t); }
    if (data.tags_removed) { lists = true; this.tags = this.tags.filter((t) => !data.tags_removed.includes(t)); }
    if (data.trackers) { lists = true; Object.assign(this.trackers, data.trackers); }
    for (const url of data.trackers_removed || []) { lists = true; delete this.trackers[url]; }
    const state = Boolean(data.server_state);
    if (state) Object.assign(this.serverState, data.server_state);
    this.rid = data.rid;
    this.dispatchEvent(new CustomEvent("update", { detail: { full, changed, removed, lists, state } }));
    this.lastApplyMs = performance.now() - started;
  }
}

export const mainData = new MainData();
