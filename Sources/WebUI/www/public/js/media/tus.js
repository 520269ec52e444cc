// A small tus 1.0.0 client for qbtd's `/api/v2/tus/`: creation (POST with Upload-Length and Upload-Metadata), PATCH
// in chunks, pause (the PATCH in flight is aborted) and resume (HEAD for the offset, then on). Unfinished uploads are
// remembered in localStorage (upload URL, name, size, lastModified), so picking the same file after a reload resumes it.
// Events: "progress", "state" (uploading, paused, done, failed), each with the upload as `detail`.
import * as api from "../api.js";

const ENDPOINT = "/api/v2/tus/";
const STORAGE = "qbtd.tusUploads";
const TUS = { "Tus-Resumable": "1.0.0" };

/** Tunables (the tests slow uploads down through `window.qbtdUploads.settings`). */
export const settings = { chunkSize: 8 * 1024 * 1024, delayMs: 0 };

function utf8Base64(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function remembered() {
  try { return JSON.parse(localStorage.getItem(STORAGE) || "{}") || {}; } catch { return {}; }
}
function remember(key, value) {
  const all = remembered();
  if (value) all[key] = value; else delete all[key];
  localStorage.setItem(STORAGE, JSON.stringify(all));
}

export class TusUpload extends EventTarget {
  /** `name`: the file name (a relative path for folder uploads); `metadata`: extra tus metadata (path, category). */
  constructor(file, { name = file.webkitRelativePath || file.name, metadata = {} } = {}) {
    super();
    this.file = file;
    this.name = name;
    this.size = file.size;
    this.metadata = metadata;
    this.offset = 0;
    this.run = 0;  // which start() owns the upload now (see start)
    this.url = null;
    this.state = "idle";
    this.error = null;
    this.resultPath = null;
    this.rate = 0;
    this.samples = [];
    this.controller = null;
    this.key = [name, file.size, file.lastModified, JSON.stringify(metadata)].join("|");
    const known = remembered()[this.key];
    if (known && known.url) this.url = known.url;
    this.resumable = Boolean(this.url);
  }

  get fraction() { return this.size > 0 ? this.offset / this.size : this.state === "done" ? 1 : 0; }

  emit(type) { this.dispatchEvent(new CustomEvent(type, { detail: this })); }

  setState(state, error = null) {
    this.state = state;
    this.error = error;
    if (state !== "uploading") this.rate = 0;
    this.emit("state");
  }

  async request(method, url, { headers = {}, body, signal } = {}) {
    return fetch(url, {
      method, body, signal, credentials: "same-origin", headers: api.authHeaders({ ...TUS, ...headers }),
    });
  }

  static async failure(response) {
    let message = `HTTP ${response.status}`;
    try { const text = await response.text(); const body = JSON.parse(text); message = body.error || text || message; } catch { /* keep */ }
    return new Error(message);
  }

  /** Starts, or resumes after a pause, a failure or a reload. */
  async start() {
    if (this.state === "uploading" || this.state === "done") return;
    // Each start is a run; a pause ends the run, so a run still unwinding from it never touches a newer one's state.
    const run = ++this.run;
    this.setState("uploading");
    this.paused = false;
    try {
      if (this.url && !(await this.head())) this.url = null;
      if (run !== this.run) return;
      if (!this.url) await this.create();
      if (run !== this.run) return;
      await this.send(run);
    } catch (error) {
      if (run !== this.run) return;
      if (this.paused || error.name === "AbortError") { if (this.state !== "paused") this.setState("paused"); return; }
      this.setState("failed", error);
    }
  }

  pause() {
    if (this.state !== "uploading") return;
    this.run++;
    this.paused = true;
    if (this.controller) this.controller.abort();
    this.setState("paused");
  }

  /** Learns the offset the server holds; false when it no longer knows the upload. */
  async head() {
    const response = await this.request("HEAD", this.url);
    if (response.status === 404 || response.status === 410) { remember(this.key, null); return false; }
    if (!response.ok) throw await TusUpload.failure(response);
    this.offset = Number(response.headers.get("Upload-Offset")) || 0;
    this.resultPath = response.headers.get("Qbtd-Upload-Path") || this.resultPath;
    this.emit("progress");
    return true;
  }

  async create() {
    const metadata = Object.entries({ filename: this.name, ...this.metadata })
      .filter(([, v]) => v !== undefined && v !== null && v !== "")
      .map(([k, v]) => `${k} ${utf8Base64(String(v))}`).join(",");
    const response = await this.request("POST", ENDPOINT, {
      headers: { "Upload-Length": String(this.size), "Upload-Metadata": metadata },
    });
    if (response.status !== 201) throw await TusUpload.failure(response);
    const location = response.headers.get("Location");
    if (!location) throw new Error("the server named no upload URL");
    const url = new URL(location, new URL(ENDPOINT, window.location.href));
    this.url = url.pathname + url.search;
    this.offset = 0;
    remember(this.key, { url: this.url, name: this.name, size: this.size, lastModified: this.file.lastModified, savedAt: Date.now() });
  }

  async send(run) {
    let retries = 0;
    const over = () => this.paused || run !== this.run;
    this.samples = [[performance.now(), this.offset]];
    while (this.offset < this.size || (this.size === 0 && !this.resultPath)) {
      if (over()) return;
      const end = Math.min(this.size, this.offset + settings.chunkSize);
      this.controller = new AbortController();
      let response;
      try {
        response = await this.request("PATCH", this.url, {
          headers: { "Upload-Offset": String(this.offset), "Content-Type": "application/offset+octet-stream" },
          body: this.file.slice(this.offset, end), signal: this.controller.signal,
        });
      } catch (error) {
        if (this.paused || error.name === "AbortError") throw error;
        // The connection broke: ask where the server is, then carry on (a few times, waiting longer each time).
        if (++retries > 5) throw new Error(`the connection keeps failing (${error.message})`);
        await new Promise((resolve) => setTimeout(resolve, 1000 * retries));
        if (over()) return;
        if (!(await this.head())) throw new Error("the server no longer knows this upload");
        continue;
      }
      if (response.status === 409) { await this.head(); continue; } // offsets disagree: the server's wins
      if (!response.ok) throw await TusUpload.failure(response);
      retries = 0;
      this.offset = Number(response.headers.get("Upload-Offset")) || end;
      this.resultPath = response.headers.get("Qbtd-Upload-Path") || this.resultPath;
      this.measure();
      this.emit("progress");
      if (this.size === 0) break;
      if (settings.delayMs) await new Promise((resolve) => setTimeout(resolve, settings.delayMs));
    }
    if (over()) return;
    if (!this.resultPath) await this.head();
    remember(this.key, null);
    this.setState("done");
  }

  /** Bytes per second over the last few seconds. */
  measure() {
    const now = performance.now();
    this.samples.push([now, this.offset]);
    while (this.samples.length > 2 && now - this.samples[0][0] > 5000) this.samples.shift();
    const [t0, o0] = this.samples[0];
    this.rate = now > t0 ? ((this.offset - o0) * 1000) / (now - t0) : 0;
  }

  /** Ends the upload on the server too (tus termination). */
  async cancel() {
    this.pause();
    remember(this.key, null);
    if (this.url && this.state !== "done") await this.request("DELETE", this.url).catch(() => {});
  }
}

/** Unfinished uploads this browser remembers: [{ key, url, name, size, lastModified, savedAt }]. */
export function unfinished() {
  return Object.entries(remembered()).map(([key, value]) => ({ key, ...value }));
}
export function forget(key) { remember(key, null); }
