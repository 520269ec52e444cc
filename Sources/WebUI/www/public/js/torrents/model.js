// The torrent list's data: every hash in sort order, the filtered hashes the list shows, and the counts the filter
// panel shows. `apply(detail)` takes a mainData "update" and does only the work the diff needs: a diff that changes
// no sort key and nothing a filter looks at leaves the order alone (the list then repaints the changed rows only).
import { STATUS_FILTERS, statusPredicate, stateLabel, tagList, trackerHost } from "./states.js";

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Sort values: strings compare with the collator, the rest as numbers. */
const SORT_VALUE = {
  name: (t) => t.name || "",
  state: (t) => stateLabel(t.state),
  category: (t) => t.category || "",
  tags: (t) => t.tags || "",
  eta: (t) => (t.eta >= 8640000 || t.eta < 0 ? Infinity : t.eta),
  ratio: (t) => (t.ratio < 0 ? Infinity : t.ratio),
};
const sortValue = (key, t) => (SORT_VALUE[key] ? SORT_VALUE[key](t) : (t[key] ?? 0));

/** What the filters look at; a change means the filtered list (and the counts) must be worked out again. */
const filterSignature = (t) => `${t.state}\u0000${t.category}\u0000${t.tags}\u0000${t.name}\u0000${t.upspeed > 0}\u0000${t.trackers_count}`;

export class TorrentModel {
  constructor(mainData) {
    this.mainData = mainData;
    this.sort = { key: "name", reverse: false };
    this.filter = { status: "all", category: null, tag: null, tracker: null, text: "" };
    this.order = [];            // every hash, sorted
    this.shown = [];            // the hashes the list shows
    this.index = new Map();     // shown hash → position
    this.signatures = new Map();
    this.sortValues = new Map();
    this.trackerSets = new Map(); // tracker host → Set of hashes
    this.counts = null;
  }

  get torrents() { return this.mainData.torrents; }

  /** Takes a mainData update; answers { reordered, counts } (whether the shown list or the counts changed). */
  apply(detail) {
    const torrents = this.torrents;
    if (detail.lists || detail.full) this.buildTrackerSets();
    if (detail.full) {
      this.order = [...torrents.keys()];
      this.signatures.clear();
      this.sortValues.clear();
      for (const [hash, t] of torrents) this.remember(hash, t);
      this.sortOrder();
      this.refilter();
      this.counts = null;
      return { reordered: true, counts: true };
    }
    let filterChanged = detail.lists, sortChanged = false;
    const added = [];
    for (const hash of detail.changed) {
      const t = torrents.get(hash);
      if (!t) continue;
      if (!this.signatures.has(hash)) { added.push(hash); this.remember(hash, t); filterChanged = sortChanged = true; continue; }
      const signature = filterSignature(t), value = sortValue(this.sort.key, t);
      if (signature !== this.signatures.get(hash)) { this.signatures.set(hash, signature); filterChanged = true; }
      if (value !== this.sortValues.get(hash)) { this.sortValues.set(hash, value); sortChanged = true; }
    }
    if (detail.removed.length) {
      for (const hash of detail.removed) { this.signatures.delete(hash); this.sortValues.delete(hash); }
      this.order = this.order.filter((hash) => torrents.has(hash));
      filterChanged = true;
    }
    if (added.length) this.order.push(...added);
    if (sortChanged) this.sortOrder();
    if (filterChanged || sortChanged) this.refilter();
    if (filterChanged) this.counts = null;
    return { reordered: filterChanged || sortChanged, counts: filterChanged };
  }

  remember(hash, t) {
    this.signatures.set(hash, filterSignature(t));
    this.sortValues.set(hash, sortValue(this.sort.key, t));
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
    else this.sort = { key, reverse: false };
    for (const [hash, t] of this.torrents) this.sortValues.set(hash, sortValue(key, t));
    this.sortOrder();
    this.refilter();
  }

  setFilter(changes) {
    Object.assign(this.filter, changes);
    this.refilter();
  }

  /** Sorts `order` in place; the previous order is nearly sorted, which the engine's merge sort does in ~n steps. */
  sortOrder() {
    const values = this.sortValues, sign = this.sort.reverse ? -1 : 1;
    this.order.sort((a, b) => {
      const x = values.get(a), y = values.get(b);
      let c = typeof x === "string" ? collator.compare(x, y) : (x < y ? -1 : x > y ? 1 : 0);
      if (c === 0) c = a < b ? -1 : a > b ? 1 : 0;
      return c * sign;
    });
  }

  trackerless(hash, t) {
    if (t.trackers_count !== undefined) return t.trackers_count === 0;
    for (const set of this.trackerSets.values()) if (set.has(hash)) return false;
    return true;
  }

  matches(hash, t, status, text) {
    const f = this.filter;
    if (!status(t)) return false;
    if (f.category !== null && (t.category || "") !== f.category) return false;
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

  refilter() {
    const status = statusPredicate(this.filter.status), text = this.filter.text.trim().toLowerCase();
    const torrents = this.torrents;
    this.shown = this.order.filter((hash) => this.matches(hash, torrents.get(hash), status, text));
    this.index = new Map();
    this.shown.forEach((hash, i) => this.index.set(hash, i));
  }

  /** Counts for the filter panel: { status: {key: n}, categories: {name: n}, uncategorized, tags: {tag: n}, untagged, trackers: {host: n}, trackerless }. */
  getCounts() {
    if (this.counts) return this.counts;
    const status = Object.fromEntries(STATUS_FILTERS.map(([key]) => [key, 0]));
    const categories = {}, tags = {}, trackers = {};
    let uncategorized = 0, untagged = 0, trackerless = 0;
    for (const name of Object.keys(this.mainData.categories)) categories[name] = 0;
    for (const tag of this.mainData.tags) tags[tag] = 0;
    for (const [hash, t] of this.torrents) {
      for (const [key, , test] of STATUS_FILTERS) if (test(t)) status[key]++;
      if (t.category) categories[t.category] = (categories[t.category] || 0) + 1; else uncategorized++;
      const list = tagList(t);
      if (list.length === 0) untagged++;
      for (const tag of list) tags[tag] = (tags[tag] || 0) + 1;
      if (this.trackerless(hash, t)) trackerless++;
    }
    for (const [host, set] of this.trackerSets) trackers[host] = set.size;
    this.counts = { status, categories, uncategorized, tags, untagged, trackers, trackerless };
    return this.counts;
  }
}
