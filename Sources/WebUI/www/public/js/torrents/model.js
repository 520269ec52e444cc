// The torrent list's data: every torrent in sort order, the filtered hashes the list shows, and the counts the filter
// panel shows, kept for 50,000 torrents without DOM work. `apply(detail)` takes a mainData "update" and does only the
// work the diff needs: each changed torrent's filter match and counts are redone alone (its old contribution is
// taken off the tallies, its new one added), and a torrent whose sort value changed is taken out of the order and
// put back by binary search. A diff that changes no sort key and no match leaves the order and the shown list alone
// (the list then repaints the changed rows it shows).
import { STATUS_FILTERS, statusPredicate, stateLabel, tagList, trackerHost } from "./states.js";

// Names sort as Intl.Collator(numeric, base sensitivity) would, through a key computed once per string and compared
// with `<` (a collator's compare is ~10× slower, too slow for 50,000 names): lower case, accents dropped, each run of
// digits preceded by its length (so 9 < 10), punctuation before digits before letters.
const PUNCT = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
const PUNCT_RE = /[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/g;
const keyCache = new Map();

export function sortKey(text) {
  let key = keyCache.get(text);
  if (key !== undefined) return key;
  key = text.toLowerCase();
  if (/[^\x00-\x7f]/.test(key)) key = key.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  key = key.replace(PUNCT_RE, (c) => String.fromCharCode(1 + PUNCT.indexOf(c)))
    .replace(/\d+/g, (d) => { const z = d.replace(/^0+(?=\d)/, ""); return String.fromCharCode(0x30 + Math.min(z.length, 40)) + z; });
  if (keyCache.size > 200000) keyCache.clear();
  keyCache.set(text, key);
  return key;
}

/** Sort values: strings as their sortKey, the rest as numbers. */
const SORT_VALUE = {
  name: (t) => sortKey(t.name || ""),
  state: (t) => sortKey(stateLabel(t.state)),
  category: (t) => sortKey(t.category || ""),
  tags: (t) => sortKey(t.tags || ""),
  node: (t) => sortKey(t.node || ""),
  eta: (t) => (t.eta >= 8640000 || t.eta < 0 ? Infinity : t.eta),
  ratio: (t) => (t.ratio < 0 ? Infinity : t.ratio),
};
const sortValue = (key, t) => {
  const v = SORT_VALUE[key] ? SORT_VALUE[key](t) : t[key];
  return v === undefined || v === null || v !== v ? 0 : v;
};

/** What the filters and counts look at; a change means the torrent's match and counts must be worked out again. */
const filterSignature = (t) => `${t.state}\u0000${t.category}\u0000${t.tags}\u0000${t.name}\u0000${t.upspeed > 0}\u0000${t.trackers_count}\u0000${t.node}`;

export class TorrentModel {
  constructor(mainData) {
    this.mainData = mainData;
    this.sort = { key: "name", reverse: false };
    this.filter = { status: "all", category: null, tag: null, tracker: null, node: null, text: "" };
    this.entries = new Map();   // hash → { hash, t, value, sig, shown, contrib }
    this.order = [];            // every entry, sorted
    this.shown = [];            // the hashes the list shows
    this.positions = null;      // shown hash → position, built when asked for
    this.trackerSets = new Map(); // tracker host → Set of hashes
    this.tally = null;
    this.counts = null;
  }

  get torrents() { return this.mainData.torrents; }

  /** Shown hash → its position (built on demand: selection ranges and keyboard moves). */
  get index() {
    if (!this.positions) {
      this.positions = new Map();
      const shown = this.shown;
      for (let i = 0; i < shown.length; i++) this.positions.set(shown[i], i);
    }
    return this.positions;
  }

  isShown(hash) { const e = this.entries.get(hash); return Boolean(e && e.shown); }

  /** Takes a mainData update; answers { reordered, counts } (whether the shown list or the counts changed). */
  apply(detail) {
    const torrents = this.torrents;
    if (detail.full || detail.trackers || (detail.lists && detail.trackers === undefined)) this.buildTrackerSets();
    if (detail.full) {
      this.entries = new Map();
      const order = new Array(torrents.size);
      let i = 0;
      for (const [hash, t] of torrents) {
        const e = { hash, t, value: sortValue(this.sort.key, t), sig: filterSignature(t), shown: false, contrib: null };
        this.entries.set(hash, e);
        order[i++] = e;
      }
      this.order = order;
      this.sortOrder();
      this.recountAll();
      return { reordered: true, counts: true };
    }
    if (detail.trackers || (detail.lists && detail.trackers === undefined)) {
      // Tracker lists changed: trackerless and the tracker filter may change for any torrent.
      const moved = [];
      for (const hash of detail.changed) this.update(hash, torrents.get(hash), moved);
      this.removeAll(detail.removed);
      this.reposition(moved);
      this.recountAll();
      return { reordered: true, counts: true };
    }
    const moved = [];
    let membership = false, counts = Boolean(detail.lists);
    const status = statusPredicate(this.filter.status), text = this.filter.text.trim().toLowerCase();
    for (const hash of detail.changed) {
      const t = torrents.get(hash);
      if (!t) continue;
      const r = this.update(hash, t, moved, status, text);
      if (r & 1) counts = true;
      if (r & 2) membership = true;
    }
    if (detail.removed.length) {
      for (const hash of detail.removed) {
        const e = this.entries.get(hash);
        if (!e) continue;
        if (e.shown) membership = true;
      }
      this.removeAll(detail.removed);
      counts = true;
    }
    const reordered = membership || moved.some((e) => e.shown || e.wasShown) || detail.removed.length > 0;
    if (moved.length || detail.removed.length) this.reposition(moved);
    if (reordered) this.reshow();
    if (counts) this.counts = null;
    return { reordered, counts };
  }

  /**
   * One changed torrent: its match and counts when its signature changed, its place when its sort value did (pushed
   * to `moved`). Answers bit 1: counts changed, bit 2: whether it is shown changed.
   */
  update(hash, t, moved, status, text) {
    if (!t) return 0;
    let e = this.entries.get(hash), r = 0;
    if (!e) {
      e = { hash, t, value: sortValue(this.sort.key, t), sig: filterSignature(t), shown: false, contrib: null, fresh: true };
      this.entries.set(hash, e);
      if (this.tally) { this.count(e, 1); r |= 1; }
      if (status && this.matches(hash, t, status, text)) { e.shown = true; r |= 2; }
      moved.push(e);
      return r;
    }
    e.t = t;
    const sig = filterSignature(t);
    if (sig !== e.sig) {
      e.sig = sig;
      if (this.tally) { this.count(e, -1); this.count(e, 1); }
      r |= 1;
      if (status) {
        const m = this.matches(hash, t, status, text);
        if (m !== e.shown) { e.wasShown = e.shown; e.shown = m; r |= 2; }
      }
    }
    const value = sortValue(this.sort.key, t);
    if (value !== e.value) { e.value = value; moved.push(e); }
    return r;
  }

  removeAll(hashes) {
    for (const hash of hashes) {
      const e = this.entries.get(hash);
      if (!e) continue;
      if (this.tally) this.count(e, -1);
      e.removed = true;
      this.entries.delete(hash);
    }
  }

  /** Takes moved and removed entries out of the order and puts the moved ones back where they belong. */
  reposition(moved = []) {
    for (const e of moved) e.moving = true;
    const rest = this.order.filter((e) => !e.moving && !e.removed);
    if (moved.length > 2000 || moved.length * 8 > rest.length) {
      for (const e of moved) { e.moving = false; e.fresh = false; }
      this.order = rest.concat(moved);
      this.sortOrder();
      return;
    }
    const cmp = this.comparator();
    moved.sort(cmp);
    const merged = new Array(rest.length + moved.length);
    let from = 0, k = 0;
    for (const e of moved) {
      let lo = from, hi = rest.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (cmp(rest[mid], e) < 0) lo = mid + 1; else hi = mid; }
      while (from < lo) merged[k++] = rest[from++];
      merged[k++] = e;
      e.moving = false; e.fresh = false;
    }
    while (from < rest.length) merged[k++] = rest[from++];
    this.order = merged;
  }

  comparator() {
    const sign = this.sort.reverse ? -1 : 1;
    return (a, b) => {
      const x = a.value, y = b.value;
      let c = x < y ? -1 : x > y ? 1 : 0;
      if (c === 0) c = a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0;
      return c * sign;
    };
  }

  buildTrackerSets() {
    this.trackerSets = new Map();
    for (const [url, hashes] of Object.entries(this.mainData.trackers || {})) {
      const host = trackerHost(url);
      const set = this.trackerSets.get(host) || new Set();
      for (const hash of hashes) set.add(hash);
      this.trackerSets.set(host, set);
    }
  }

  setSort(key) {
    if (this.sort.key === key) this.sort.reverse = !this.sort.reverse;
    else {
      this.sort = { key, reverse: false };
      for (const e of this.order) e.value = sortValue(key, e.t);
    }
    this.sortOrder();
    this.reshow();
  }

  setFilter(changes) {
    Object.assign(this.filter, changes);
    this.rematch();
    this.reshow();
  }

  /** Sorts `order` in place (the engine's merge sort does a nearly sorted array in ~n steps). */
  sortOrder() { this.order.sort(this.comparator()); }

  trackerless(hash, t) {
    if (t.trackers_count !== undefined) return t.trackers_count === 0;
    for (const set of this.trackerSets.values()) if (set.has(hash)) return false;
    return true;
  }

  matches(hash, t, status, text) {
    const f = this.filter;
    if (!status(t)) return false;
    if (f.category !== null && (t.category || "") !== f.category) return false;
    if (f.node !== null && (t.node || "") !== f.node) return false;
    if (f.tag !== null) {
      const tags = tagList(t);
      if (f.tag === "" ? tags.length > 0 : !tags.includes(f.tag)) return false;
    }
    if (f.tracker !== null) {
      if (f.tracker === "") { if (!this.trackerless(hash, t)) return false; }
      else { const set = this.trackerSets.get(f.tracker); if (!set || !set.has(hash)) return false; }
    }
    if (text && !(t.name || "").toLowerCase().includes(text)) return false;
    return true;
  }

  /** Every torrent's match against the filter. */
  rematch() {
    const status = statusPredicate(this.filter.status), text = this.filter.text.trim().toLowerCase();
    for (const e of this.order) e.shown = this.matches(e.hash, e.t, status, text);
  }

  /** The shown hashes from the order and each entry's match. */
  reshow() {
    const order = this.order, shown = [];
    for (let i = 0; i < order.length; i++) { const e = order[i]; e.wasShown = undefined; if (e.shown) shown.push(e.hash); }
    this.shown = shown;
    this.positions = null;
  }

  /** Every match and the tallies from scratch (a full update, or the tracker lists changed). */
  recountAll() {
    this.rematch();
    this.reshow();
    this.tally = { status: new Array(STATUS_FILTERS.length).fill(0), categories: new Map(), tags: new Map(), nodes: new Map(), uncategorized: 0, untagged: 0, trackerless: 0 };
    for (const e of this.order) this.count(e, 1);
    this.counts = null;
  }

  /** Adds (sign 1) or takes off (sign -1) one torrent's part of the tallies; adding works it out anew. */
  count(e, sign) {
    const tally = this.tally;
    if (sign > 0) {
      const t = e.t, status = [];
      for (let i = 0; i < STATUS_FILTERS.length; i++) if (STATUS_FILTERS[i][2](t)) status.push(i);
      e.contrib = { status, category: t.category || "", tags: tagList(t), node: t.node || "", trackerless: this.trackerless(e.hash, t) };
    }
    const c = e.contrib;
    if (!c) return;
    for (const i of c.status) tally.status[i] += sign;
    if (c.category) tally.categories.set(c.category, (tally.categories.get(c.category) || 0) + sign); else tally.uncategorized += sign;
    if (c.tags.length === 0) tally.untagged += sign;
    for (const tag of c.tags) tally.tags.set(tag, (tally.tags.get(tag) || 0) + sign);
    if (c.trackerless) tally.trackerless += sign;
    if (c.node) tally.nodes.set(c.node, (tally.nodes.get(c.node) || 0) + sign);
    if (sign < 0) e.contrib = null;
  }

  /** Counts for the filter panel: { status: {key: n}, categories: {name: n}, uncategorized, tags: {tag: n}, untagged, trackers: {host: n}, trackerless, nodes: {name: n} } (nodes: a cluster's only). */
  getCounts() {
    if (this.counts) return this.counts;
    if (!this.tally) this.recountAll();
    const tally = this.tally;
    const status = Object.fromEntries(STATUS_FILTERS.map(([key], i) => [key, tally.status[i]]));
    const categories = {}, tags = {}, trackers = {}, nodes = {};
    for (const name of Object.keys(this.mainData.categories)) categories[name] = 0;
    for (const tag of this.mainData.tags) tags[tag] = 0;
    for (const [name, n] of tally.categories) if (n > 0) categories[name] = n;
    for (const [tag, n] of tally.tags) if (n > 0) tags[tag] = n;
    for (const [host, set] of this.trackerSets) trackers[host] = set.size;
    for (const [node, n] of tally.nodes) if (n > 0) nodes[node] = n;
    this.counts = { status, categories, uncategorized: tally.uncategorized, tags, untagged: tally.untagged, trackers, trackerless: tally.trackerless, nodes };
    return this.counts;
  }
}
