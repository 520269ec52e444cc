// The page: log-in, the section router and the speeds in the top bar. Each section is a module under views/ that
// exports `mount(container, context)` and may return a function that tears it down.
import * as api from "./api.js";
import { mainData } from "./sync.js";
import { h, speed, toast } from "./dom.js";
import "./transfer/history.js";  // the speed graph's history, recorded from the start

const VIEWS = ["torrents", "search", "rss", "music", "uploads", "transfer", "settings"];
const context = { api, mainData, toast };
let teardown = null;
let mounted = null;

const $ = (id) => document.getElementById(id);

async function showApp() {
  $("login").hidden = true;
  $("app").hidden = false;
  mainData.start();
  await route();
}

function showLogin(message = "") {
  mainData.stop();
  if (teardown) { try { teardown(); } catch { /* a view's own clean-up */ } }
  teardown = null;
  mounted = null;
  $("view").replaceChildren();
  $("app").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
  $("login-username").focus();
}

async function route() {
  if ($("app").hidden) return;
  const name = (location.hash.replace(/^#\/?/, "").split("/")[0]) || "torrents";
  const view = VIEWS.includes(name) ? name : "torrents";
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.view === view) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  document.body.classList.remove("nav-open");
  $("nav-toggle").setAttribute("aria-expanded", "false");
  if (mounted === view) return;
  if (teardown) { try { teardown(); } catch { /* ignore */ } }
  teardown = null;
  mounted = view;
  const container = $("view");
  container.replaceChildren();
  container.dataset.view = view;
  try {
    const module = await import(`./views/${view}.js`);
    if (mounted !== view) return;
    const result = await module.mount(container, context);
    // Left before it finished loading: its clean-up must not replace the next section's.
    if (mounted !== view) { if (typeof result === "function") result(); return; }
    teardown = result || null;
  } catch (error) {
    container.replaceChildren(h("p", { class: "error" }, `This section failed to load: ${error.message}`));
    console.error(error);
  }
}

function showSpeeds() {
  const s = mainData.serverState;
  const limits = (limit) => (limit > 0 ? ` (${speed(limit)})` : "");
  const parts = [
    h("span", { class: "down", title: "Download speed" }, `↓ ${speed(s.dl_info_speed)}${limits(s.dl_rate_limit)}`),
    h("span", { class: "up", title: "Upload speed" }, `↑ ${speed(s.up_info_speed)}${limits(s.up_rate_limit)}`),
  ];
  if (s.use_alt_speed_limits) parts.push(h("span", { class: "badge", title: "Alternative speed limits are on" }, "alt"));
  if (s.connection_status) parts.push(h("span", { class: `badge status-${s.connection_status}`, title: "Connection status" }, s.connection_status));
  $("speeds").replaceChildren(...parts);
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  $("login-submit").disabled = true;
  try {
    const key = $("login-apikey").value.trim();
    const ok = key ? await api.useApiKey(key)
                   : await api.login($("login-username").value, $("login-password").value);
    if (ok) { $("login-password").value = ""; await showApp(); }
    else $("login-error").textContent = key ? "That API key was refused." : "Wrong username or password.";
  } catch (error) {
    $("login-error").textContent = error.message;
  } finally {
    $("login-submit").disabled = false;
  }
});

$("logout").addEventListener("click", async () => { mainData.stop(); await api.logout(); showLogin(); });
$("nav-toggle").addEventListener("click", () => {
  const open = document.body.classList.toggle("nav-open");
  $("nav-toggle").setAttribute("aria-expanded", String(open));
});
api.onLoggedOut(() => { if (!$("app").hidden) showLogin("Your session has ended: log in again."); });
mainData.addEventListener("update", (event) => { if (event.detail.state || event.detail.full) showSpeeds(); });
window.addEventListener("hashchange", route);

// For tests and benchmarks: what the page knows, without reaching into modules.
window.qbtd = { mainData, api };

if (await api.loggedIn()) await showApp(); else showLogin();
