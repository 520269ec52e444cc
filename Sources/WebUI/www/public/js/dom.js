// Small DOM and formatting helpers shared by the views.

/** `h("button", { class: "x", onclick }, "text", child)`: an element; attributes starting with `on` are listeners. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
export function bytes(n) {
  if (!Number.isFinite(n) || n < 0) return "–";
  let i = 0;
  while (n >= 1024 && i < UNITS.length - 1) { n /= 1024; i++; }
  return `${i === 0 ? n : n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0)} ${UNITS[i]}`;
}
export const speed = (n) => (n > 0 ? `${bytes(n)}/s` : "–");
export const percent = (p) => `${(Math.floor((p || 0) * 1000) / 10).toFixed(1)}%`;
export const ratio = (r) => (r < 0 ? "∞" : (r || 0).toFixed(2));

/** qBittorrent's ETA: 8640000 means infinity. */
export function eta(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0 || seconds >= 8640000) return "∞";
  if (seconds === 0) return "–";
  const d = Math.floor(seconds / 86400), hh = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60), s = Math.floor(seconds % 60);
  if (d) return `${d}d ${hh}h`;
  if (hh) return `${hh}h ${m}m`;
  if (m) return `${m}m ${s}s`;
  return `${s}s`;
}

export function duration(seconds) {
  if (!Number.isFinite(seconds)) return "–";
  const m = Math.floor(seconds / 60), s = Math.floor(seconds % 60);
  return `${m}:${String(s).padStart(2, "0")}`;
}

export function date(unixSeconds) {
  if (!unixSeconds || unixSeconds < 0) return "–";
  return new Date(unixSeconds * 1000).toLocaleString();
}

/** A message at the bottom of the page for a few seconds; errors stay longer. */
export function toast(message, { error = false } = {}) {
  const box = document.getElementById("toasts");
  const item = h("div", { class: error ? "toast error" : "toast", role: error ? "alert" : "status" }, message);
  box.append(item);
  setTimeout(() => item.remove(), error ? 8000 : 3000);
}

/** Runs an action, showing its error as a toast; returns its result or undefined. */
export async function attempt(action, what = "That") {
  try { return await action(); } catch (error) { toast(`${what} failed: ${error.message}`, { error: true }); return undefined; }
}

/**
 * A modal dialog (`<dialog>`): `body` is a node, `buttons` an array of { label, value, primary }.
 * Resolves with the clicked button's value (or null when closed with Escape); `onSubmit(value)` may return false
 * to keep it open.
 */
let dialogs = 0;

export function dialog(title, body, buttons = [{ label: "Close", value: null }], { onSubmit, wide = false } = {}) {
  return new Promise((resolve) => {
    const titleID = `dialog-title-${++dialogs}`;
    const buttonElements = buttons.map((b) => h("button", {
      value: b.value ?? "", class: b.primary ? "primary" : "", type: "submit", formnovalidate: b.value === null,
    }, b.label));
    const form = h("form", { method: "dialog", class: "dialog-form" },
      h("h2", { id: titleID }, title), body, h("div", { class: "dialog-buttons" }, buttonElements));
    const box = h("dialog", { class: wide ? "dialog wide" : "dialog", "aria-labelledby": titleID }, form);
    let chosen = null;
    // While an action runs, its buttons are off and Escape waits: no second submit, no "cancelled" for a done action.
    let busy = false;
    box.addEventListener("cancel", (event) => { if (busy) event.preventDefault(); });
    form.addEventListener("submit", async (event) => {
      const value = event.submitter ? event.submitter.value : "";
      const button = buttons.find((b) => String(b.value ?? "") === value);
      if (button && button.value !== null && onSubmit) {
        event.preventDefault();
        if (busy) return;
        busy = true;
        for (const b of buttonElements) b.disabled = true;
        let keep;
        try { keep = (await onSubmit(button.value)) === false; } finally {
          busy = false;
          for (const b of buttonElements) b.disabled = false;
        }
        if (keep) return;
        chosen = button.value;
        box.close();
        return;
      }
      if (busy) { event.preventDefault(); return; }
      chosen = button ? button.value : null;
    });
    box.addEventListener("close", () => { box.remove(); resolve(chosen); });
    document.body.append(box);
    box.showModal();
  });
}

/** Debounces `fn` by `ms`. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}
