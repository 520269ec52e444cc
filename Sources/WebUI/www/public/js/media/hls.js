// An HLS audio player on Media Source Extensions for qbtd's MP3 playlists: one SourceBuffer of `audio/mpeg` fed with
// the segments ahead of the playhead (about 30 s), trimmed far behind it, refilled from the segment that holds the
// target on a seek, and AES-128 segments decrypted with WebCrypto. No third-party code.
import { parse, segmentAt } from "./m3u8.js";
import * as aes from "./aes.js";

const AHEAD = 30;   // seconds kept buffered ahead of the playhead
const BEHIND = 60;  // seconds kept behind it before trimming
const MIME = "audio/mpeg";

export function supported() {
  return Boolean(window.MediaSource && MediaSource.isTypeSupported(MIME));
}

export class HlsAudio {
  /** `audio`: an <audio> element; `fetchInit`: extra fetch options (credentials, headers) for every request. */
  constructor(audio, fetchInit = {}) {
    this.audio = audio;
    this.fetchInit = fetchInit;
    this.playlist = null;
    this.next = 0;              // the next segment to append
    this.generation = 0;        // bumped by a seek to an unbuffered time: older fetches are dropped
    this.destroyed = false;
    this.controller = null;     // aborts the segment fetch in flight
    this.wakeUp = null;
    this.lastAppended = -2;
    this.onError = () => {};
    this.listeners = [];
    this.life = new AbortController();  // aborted by destroy(): a load still under way stops where it is
  }

  /** Throws once destroyed: a player replaced while it loaded must never take the audio element back. */
  alive() {
    if (this.destroyed) throw new DOMException("the player was replaced", "AbortError");
  }

  /** Loads a playlist and starts buffering; resolves once the MediaSource is ready (call audio.play() after). */
  async load(url) {
    if (!supported()) throw new Error("this browser has no Media Source Extensions for MP3 audio");
    const response = await this.fetch(url);
    const text = await response.text();
    this.alive();
    this.playlist = parse(text, response.url || new URL(url, location.href).href);
    if (!this.playlist.segments.length) throw new Error("the playlist lists no segments");
    this.keys = new Map();
    for (const segment of this.playlist.segments) {
      if (!segment.key) continue;
      if (segment.key.method !== "AES-128") throw new Error(`unsupported encryption ${segment.key.method}`);
      if (!this.keys.has(segment.key.uri)) this.keys.set(segment.key.uri, null);
    }
    for (const uri of this.keys.keys()) {
      if (!aes.available()) throw new Error(aes.INSECURE);
      const bytes = await (await this.fetch(uri)).arrayBuffer();
      this.keys.set(uri, await aes.importKey(bytes));
      this.alive();
    }
    this.alive();
    this.source = new MediaSource();
    this.objectUrl = URL.createObjectURL(this.source);
    const opened = new Promise((resolve, reject) => {
      this.source.addEventListener("sourceopen", resolve, { once: true });
      this.life.signal.addEventListener("abort", () => reject(new DOMException("the player was replaced", "AbortError")), { once: true });
    });
    this.audio.src = this.objectUrl;
    await opened;
    this.alive();
    this.source.duration = this.playlist.duration;
    this.buffer = this.source.addSourceBuffer(MIME);
    // MP3 carries no timestamps: the browser generates them, so the mode is "sequence" and each segment is placed
    // with timestampOffset = its start (the sum of the EXTINFs before it).
    try { this.buffer.mode = "sequence"; } catch { /* already */ }
    this.listen(this.audio, "seeking", () => this.seeking());
    for (const name of ["timeupdate", "play", "ratechange"]) this.listen(this.audio, name, () => this.wake());
    this.run();
  }

  get duration() { return this.playlist ? this.playlist.duration : NaN; }

  listen(target, name, fn) {
    target.addEventListener(name, fn);
    this.listeners.push(() => target.removeEventListener(name, fn));
  }

  async fetch(url, signal = this.life.signal) {
    const response = await fetch(url, { credentials: "same-origin", ...this.fetchInit, signal });
    if (!response.ok) {
      let message = `HTTP ${response.status}`;
      try { const body = await response.json(); if (body.error) message = body.error; } catch { /* not JSON */ }
      throw new Error(`${new URL(url, location.href).pathname}: ${message}`);
    }
    return response;
  }

  /** The end of the buffered range that holds `t` (or `t` when none does). */
  bufferedEnd(t) {
    const ranges = this.buffer.buffered;
    for (let i = 0; i < ranges.length; i++) {
      if (ranges.start(i) <= t + 0.1 && t < ranges.end(i)) return ranges.end(i);
    }
    return t;
  }

  seeking() {
    if (!this.buffer) return;
    const t = this.audio.currentTime;
    const end = this.bufferedEnd(t);
    if (end > t) {
      // Already there: carry on from the end of that range.
      this.next = Math.min(this.playlist.segments.length, segmentAt(this.playlist, end + 0.01));
      if (end >= this.playlist.duration - 0.05) this.next = this.playlist.segments.length;
    } else {
      this.generation++;
      if (this.controller) this.controller.abort();
      this.next = segmentAt(this.playlist, t);
    }
    this.wake();
  }

  wake() { if (this.wakeUp) { const w = this.wakeUp; this.wakeUp = null; w(); } }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wakeUp = null; resolve(); }, ms);
      this.wakeUp = () => { clearTimeout(timer); resolve(); };
    });
  }

  updated() {
    if (!this.buffer.updating) return Promise.resolve();
    return new Promise((resolve) => this.buffer.addEventListener("updateend", resolve, { once: true }));
  }

  async run() {
    while (!this.destroyed) {
      try {
        if (!(await this.step())) await this.sleep(1000);
      } catch (error) {
        if (this.destroyed) return;
        if (error.name === "AbortError") continue;
        if (error.name === "QuotaExceededError") { await this.trim(5); await this.sleep(500); continue; }
        this.onError(error);
        await this.sleep(3000);
      }
    }
  }

  /** Appends one segment when the buffer ahead is short; false when there was nothing to do. */
  async step() {
    const segments = this.playlist.segments;
    const t = this.audio.currentTime;
    await this.trim(BEHIND);
    if (this.next >= segments.length) {
      await this.updated();
      if (this.source.readyState === "open" && this.bufferedEnd(t) >= this.playlist.duration - 0.5) this.source.endOfStream();
      return false;
    }
    if (this.bufferedEnd(t) - t > AHEAD) return false;
    const index = this.next;
    const generation = this.generation;
    const segment = segments[index];
    this.controller = new AbortController();
    const response = await this.fetch(segment.uri, this.controller.signal);
    let data = await response.arrayBuffer();
    if (segment.key) data = await aes.decrypt(this.keys.get(segment.key.uri), data, segment.key.iv || aes.sequenceIV(segment.sequence));
    if (this.destroyed || generation !== this.generation) return true;
    await this.updated();
    if (generation !== this.generation) return true;
    // A new run of segments resets the parser; every segment is placed at its start time.
    if (index !== this.lastAppended + 1 && this.source.readyState === "open") this.buffer.abort();
    this.buffer.timestampOffset = segment.start;
    this.buffer.appendBuffer(data);
    await this.updated();
    this.lastAppended = index;
    if (generation === this.generation && this.next === index) this.next = index + 1;
    return true;
  }

  /** Removes what lies more than `keep` seconds behind the playhead. */
  async trim(keep) {
    const ranges = this.buffer.buffered;
    const cut = this.audio.currentTime - keep;
    if (!ranges.length || ranges.start(0) >= cut - 1) return;
    await this.updated();
    this.buffer.remove(0, cut);
    await this.updated();
  }

  destroy() {
    this.destroyed = true;
    this.life.abort();
    this.generation++;
    if (this.controller) this.controller.abort();
    this.wake();
    for (const off of this.listeners) off();
    this.listeners = [];
    this.audio.pause();
    this.audio.removeAttribute("src");
    this.audio.load();
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
  }
}
