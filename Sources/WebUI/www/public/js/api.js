// The WebAPI from the page: qBittorrent's /api/v2 routes and qbtd's extensions, with the session cookie or an API
// key (sent as `Authorization: Bearer`). A 403 means the session is gone: `onLoggedOut` shows the log-in form.

const KEY_STORAGE = "qbtd.apiKey";

export class ApiError extends Error {
  constructor(status, text, path) {
    let message = text;
    try { const body = JSON.parse(text); if (body && body.error) message = body.error; } catch { /* plain text */ }
    super(message || `HTTP ${status}`);
    this.status = status;
    this.path = path;
  }
}

const listeners = new Set();
export function onLoggedOut(callback) { listeners.add(callback); }

export function apiKey() { return sessionStorage.getItem(KEY_STORAGE) || ""; }
export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key); else sessionStorage.removeItem(KEY_STORAGE);
}

/** Headers every request carries: the API key when one is in use. */
export function authHeaders(extra = {}) {
  const key = apiKey();
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

function url(path, params) {
  const full = path.startsWith("/") ? path : `/api/v2/${path}`;
  if (!params) return full;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) query.append(k, String(v));
  const text = query.toString();
  return text ? `${full}?${text}` : full;
}

async function send(path, init) {
  const response = await fetch(path, { credentials: "same-origin", ...init, headers: authHeaders(init.headers || {}) });
  if (response.ok) return response;
  const text = await response.text();
  // A 403 means the session is gone, unless it is an API key refused for its scope (the page stays).
  if (response.status === 403 && !path.includes("/auth/login") && !text.includes("scope")) for (const l of listeners) l();
  throw new ApiError(response.status, text, path);
}

async function body(response) {
  const type = response.headers.get("Content-Type") || "";
  if (response.status === 204) return "";
  return type.includes("json") ? response.json() : response.text();
}

/** GET `path` (`torrents/info` or `/music/auth`) with query parameters; JSON answers are parsed. */
export async function get(path, params, { signal } = {}) {
  return body(await send(url(path, params), { method: "GET", signal }));
}

/** POST a form (an object of fields, arrays repeated) or a FormData (multipart). */
export async function post(path, fields = {}, { signal } = {}) {
  let payload;
  if (fields instanceof FormData) payload = fields;
  else {
    payload = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) payload.append(k, String(item)); else payload.append(k, String(v));
    }
  }
  return body(await send(url(path), { method: "POST", body: payload, signal }));
}

/** The raw Response, for callers that need headers or a stream. */
export function raw(path, init = {}) { return send(path, init); }

/** Logs in with the WebUI credentials; true when qbtd took them. */
export async function login(username, password) {
  setApiKey("");
  const response = await fetch("/api/v2/auth/login", {
    method: "POST", credentials: "same-origin",
    body: new URLSearchParams({ username, password }),
  });
  const text = await response.text();
  if (response.status === 403) throw new ApiError(403, text || "Too many failed attempts: this address is banned for a while.");
  return response.ok && text.trim() !== "Fails.";
}

/** Uses an API key for every request; true when qbtd accepts it. */
export async function useApiKey(key) {
  setApiKey(key);
  const response = await fetch("/api/v2/app/version", { headers: authHeaders() });
  if (!response.ok) setApiKey("");
  return response.ok;
}

/**
 * Whether the page may use the API. With a session cookie, qbtd serves `session.json` from its private folder
 * (`{"session": true}`) instead of the public one, as qBittorrent serves its WebUI: no 403 to show in the console.
 */
export async function loggedIn() {
  if (apiKey()) {
    const response = await fetch("/api/v2/app/version", { headers: authHeaders() });
    if (!response.ok) setApiKey("");
    return response.ok;
  }
  const response = await fetch("/session.json", { credentials: "same-origin", cache: "no-store" });
  return response.ok && (await response.json()).session === true;
}

export async function logout() {
  if (!apiKey()) await fetch("/api/v2/auth/logout", { method: "POST", credentials: "same-origin" }).catch(() => {});
  setApiKey("");
}
