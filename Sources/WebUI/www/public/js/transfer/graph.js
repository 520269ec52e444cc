// Draws the speed history on a <canvas>: download and upload lines over the last five minutes, a scale on the
// left, in the theme's colours (read from the CSS variables, so dark mode follows).
import { speed } from "../dom.js";
import { WINDOW_MS } from "./history.js";

const STEPS = [1, 2, 5];

/** A round maximum for the vertical scale, at least 10 KiB/s. */
function niceMax(value) {
  let base = 1024;
  for (;;) {
    for (const step of STEPS) if (step * base * 10 >= value) return step * base * 10;
    base *= 10;
  }
}

function colour(name, fallback) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export function drawGraph(canvas, samples, now = Date.now()) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  if (!width || !height) return;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  const g = canvas.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  const left = 74, right = 8, top = 8, bottom = 20;
  const plotW = Math.max(10, width - left - right), plotH = Math.max(10, height - top - bottom);
  const max = niceMax(Math.max(0, ...samples.map((s) => Math.max(s.dl, s.up))));
  const text = colour("--muted", "#777"), grid = colour("--border", "#ccc");
  g.font = "11px system-ui, sans-serif";
  g.lineWidth = 1;
  g.textBaseline = "middle";
  for (let i = 0; i <= 4; i++) {
    const y = top + plotH - (plotH * i) / 4;
    g.strokeStyle = grid;
    g.beginPath(); g.moveTo(left, Math.round(y) + 0.5); g.lineTo(left + plotW, Math.round(y) + 0.5); g.stroke();
    g.fillStyle = text;
    g.textAlign = "right";
    g.fillText(i === 0 ? "0" : speed((max * i) / 4), left - 6, y);
  }
  g.textBaseline = "alphabetic";
  g.textAlign = "left";
  g.fillText("5 min ago", left, height - 5);
  g.textAlign = "right";
  g.fillText("now", left + plotW, height - 5);
  const x = (t) => left + plotW - ((now - t) / WINDOW_MS) * plotW;
  const y = (v) => top + plotH - (v / max) * plotH;
  for (const [field, name, fallback] of [["dl", "--ok", "#2e7d32"], ["up", "--accent", "#2463eb"]]) {
    if (samples.length < 2) break;
    g.strokeStyle = colour(name, fallback);
    g.lineWidth = 2;
    g.beginPath();
    samples.forEach((s, i) => { const px = Math.max(left, x(s.t)); if (i) g.lineTo(px, y(s[field])); else g.moveTo(px, y(s[field])); });
    g.stroke();
  }
}
