// The piece bar: `torrents/pieceStates` (0 missing, 1 downloading, 2 have) drawn on a canvas as wide as its box,
// each pixel column coloured by the pieces it covers (any downloading shows as downloading; else the share held).
import { h } from "../dom.js";

export class PieceBar {
  constructor() {
    this.states = [];
    this.canvas = h("canvas", { class: "piece-bar", height: "18", role: "img", "aria-label": "Pieces" });
    this.element = h("div", { class: "piece-box" }, this.canvas);
    this.resize = new ResizeObserver(() => this.draw());
    this.resize.observe(this.element);
  }

  destroy() { this.resize.disconnect(); }

  set(states) {
    this.states = Array.isArray(states) ? states : [];
    const have = this.states.filter((s) => s === 2).length, busy = this.states.filter((s) => s === 1).length;
    this.canvas.setAttribute("aria-label", `Pieces: ${have} of ${this.states.length} held, ${busy} downloading`);
    this.draw();
  }

  draw() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round((this.element.clientWidth || 300) * ratio));
    const height = Math.round(18 * ratio);
    if (this.canvas.width !== width) this.canvas.width = width;
    if (this.canvas.height !== height) this.canvas.height = height;
    const g = this.canvas.getContext("2d");
    const style = getComputedStyle(this.element);
    const colour = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
    const empty = colour("--surface-2", "#eee"), have = colour("--accent", "#2463eb"), busy = colour("--ok", "#2e7d32");
    g.fillStyle = empty;
    g.fillRect(0, 0, width, height);
    const n = this.states.length;
    if (!n) return;
    const perColumn = n / width;
    for (let x = 0; x < width; x++) {
      const from = Math.floor(x * perColumn), to = Math.max(from + 1, Math.floor((x + 1) * perColumn));
      let held = 0, downloading = false;
      for (let i = from; i < to && i < n; i++) {
        if (this.states[i] === 2) held++; else if (this.states[i] === 1) downloading = true;
      }
      if (downloading) { g.globalAlpha = 1; g.fillStyle = busy; }
      else if (held) { g.globalAlpha = held / (to - from); g.fillStyle = have; }
      else continue;
      g.fillRect(x, 0, 1, height);
    }
    g.globalAlpha = 1;
  }
}
