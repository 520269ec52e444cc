// `sync/maindata` kept current with rid diffs: pushed by the server (`GET /api/v2/qbtd/events`, a text/event-stream
// of `maindata` events, each one sync/maindata answer whose rid is the event's id), else polled once a second
// (every 5 s while the page is hidden). Push is tried first; a stream that cannot be opened (an older qbtd answers
// 404, an API key cannot be sent by EventSource) falls back to polling, and push is tried again a few minutes
// later. A stream the server ends (`event: dropped`: this page fell too far behind) is opened again from the last
// rid. Views listen for "update" events: `detail` = { full, changed: Set of hashes, removed: array of hashes,
// lists: bool, trackers: bool, state: bool }. `transport` says which way updates come ("push" or "poll").
import * as api from "./api.js";

const EVENTS = "/api/v2/qbtd/events";
const RETRY_PUSH_MS = 5 * 60 * 1000;
const REOPEN_MS = 1000;

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
    this.transport = null;       // "push" or "poll" once started
    this.source = null;          // the EventSource while pushing
    this.pushRetryAt = 0;        // when polling, the time push is tried again
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.connect();
  }

  stop() {
    this.running = false;
    clearTimeout(this.timer);
    this.closeSource();
    this.transport = null;
    this.rid = 0;
  }

  /** Polls at once (after an action), instead of waiting for the next second; a pushed stream needs nothing. */
  refresh() {
    if (!this.running || this.transport === "push") return;
    clearTimeout(this.timer);
    this.tick();
  }

  // Push

  connect() {
    clearTimeout(this.timer);
    if (!this.running) return;
    if (typeof EventSource !== "function" || api.apiKey() || performance.now() < this.pushRetryAt) { this.poll(); return; }
    this.closeSource();
    const source = new EventSource(`${EVENTS}?rid=${encodeURIComponent(this.rid)}`, { withCredentials: true });
    this.source = source;
    let received = false;
    source.addEventListener("maindata", (event) => {
      if (source !== this.source) return;
      if (!received) { received = true; this.transport = "push"; clearTimeout(this.timer); }
      let data;
      try { data = JSON.parse(event.data); } catch (error) { this.dispatchEvent(new CustomEvent("error", { detail: error })); return; }
      this.apply(data);
    });
    source.addEventListener("dropped", () => {
      if (source !== this.source) return;
      // Too far behind: the server ended the stream; open it again from the rid this page holds.
      this.closeSource();
      this.timer = setTimeout(() => this.connect(), REOPEN_MS);
    });
    source.addEventListener("error", () => {
      if (source !== this.source) return;
      if (source.readyState === EventSource.CLOSED || !received) {
        // Refused (404 from a qbtd without push, 401/403, not an event stream) or never got going: poll instead,
        // and try push again later. A polled 403 shows the log-in form.
        this.closeSource();
        if (!received) this.pushRetryAt = performance.now() + RETRY_PUSH_MS;
        if (received) this.timer = setTimeout(() => this.connect(), REOPEN_MS); else this.poll();
      }
      // Otherwise the browser reconnects by itself, sending Last-Event-ID.
    });
  }

  closeSource() {
    if (this.source) { this.source.close(); this.source = null; }
  }

  // Polling

  poll() {
    this.transport = "poll";
    this.tick();
  }

  async tick() {
    if (this.busy || !this.running) return;
    this.busy = true;
    try {
      const data = await api.get("sync/maindata", { rid: this.rid });
      if (this.running && this.transport === "poll") this.apply(data);
    } catch (error) {
      this.dispatchEvent(new CustomEvent("error", { detail: error }));
    } finally {
      this.busy = false;
      if (this.running && this.transport === "poll") {
        if (performance.now() >= this.pushRetryAt && typeof EventSource === "function" && !api.apiKey()) {
          this.timer = setTimeout(() => this.connect(), 1000);
        } else {
          this.timer = setTimeout(() => this.tick(), document.hidden ? 5000 : 1000);
        }
      }
    }
  }

  apply(data) {
    const started = performance.now();
    const full = Boolean(data.full_update);
    const changed = new Set();
    const removed = [];
    let lists = full, trackers = full;
    if (full) {
      this.torrents = new Map();
      this.categories = {};
      this.tags = [];
      this.trackers = {};
    }
    const torrents = data.torrents;
    if (torrents) {
      for (const hash in torrents) {
        const fields = torrents[hash], current = this.torrents.get(hash);
        // The parsed object itself becomes the torrent (no copy: a full update holds 50,000 of them).
        if (current) Object.assign(current, fields); else { fields.hash = hash; this.torrents.set(hash, fields); }
        changed.add(hash);
      }
    }
    for (const hash of data.torrents_removed || []) { if (this.torrents.delete(hash)) removed.push(hash); }
    if (data.categories) { lists = true; for (const [name, c] of Object.entries(data.categories)) this.categories[name] = { ...(this.categories[name] || {}), ...c }; }
    for (const name of data.categories_removed || []) { lists = true; delete this.categories[name]; }
    if (data.tags) { lists = true; for (const t of data.tags) if (!this.tags.includes(t)) this.tags.push(t); }
    if (data.tags_removed) { lists = true; this.tags = this.tags.filter((t) => !data.tags_removed.includes(t)); }
    if (data.trackers) { lists = trackers = true; Object.assign(this.trackers, data.trackers); }
    for (const url of data.trackers_removed || []) { lists = trackers = true; delete this.trackers[url]; }
    const state = Boolean(data.server_state);
    if (state) Object.assign(this.serverState, data.server_state);
    this.rid = data.rid;
    this.dispatchEvent(new CustomEvent("update", { detail: { full, changed, removed, lists, trackers, state } }));
    this.lastApplyMs = performance.now() - started;
  }
}

export const mainData = new MainData();
