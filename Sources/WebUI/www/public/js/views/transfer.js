// The Speed section: the speed graph of the last five minutes, the session's totals, the global download and
// upload limits (entered in KiB/s, sent in bytes/s) and the alternative speed limits switch.
import { h, bytes, speed, ratio, attempt, toast } from "../dom.js";
import { samples, onSample } from "../transfer/history.js";
import { drawGraph } from "../transfer/graph.js";

const KIB = 1024;

function limitField(id, label) {
  return [
    h("label", { for: id }, label),
    h("span", { class: "sp-limit" },
      h("input", { id, type: "number", min: "0", step: "1", inputmode: "numeric", "aria-describedby": "speed-limits-help" }),
      h("span", { class: "muted" }, "KiB/s")),
  ];
}

export function mount(container, ctx) {
  const { api, mainData } = ctx;
  const canvas = h("canvas", { id: "speed-graph", class: "sp-graph", role: "img", "aria-label": "Transfer speed graph" });
  const legend = h("p", { class: "sp-legend" });
  const totals = h("dl", { class: "sp-totals", id: "speed-totals" });
  const current = h("p", { class: "muted", id: "speed-limits-current" });
  const altButton = h("button", { id: "speed-alt-toggle", type: "button", "aria-pressed": "false" }, "Alternative speed limits");
  const altHelp = h("p", { class: "muted", id: "speed-alt-help" });
  const limitsForm = h("form", { id: "speed-limits-form", class: "form-grid" },
    ...limitField("speed-dl-limit", "Download limit"),
    ...limitField("speed-up-limit", "Upload limit"),
    h("span"), h("div", { class: "toolbar" }, h("button", { id: "speed-limits-apply", class: "primary", type: "submit" }, "Apply limits")));

  container.append(
    h("h1", { class: "view-title" }, "Speed"),
    h("section", { class: "panel", "aria-labelledby": "speed-graph-title" },
      h("h2", { id: "speed-graph-title" }, "Transfer speed, last 5 minutes"), canvas, legend),
    h("div", { class: "sp-columns" },
      h("section", { class: "panel", "aria-labelledby": "speed-limits-title" },
        h("h2", { id: "speed-limits-title" }, "Global speed limits"),
        h("p", { class: "muted", id: "speed-limits-help" }, "0 means unlimited. While the alternative limits are on, these are the alternative limits."),
        limitsForm, current,
        h("h3", {}, "Alternative speed limits"), altButton, altHelp),
      h("section", { class: "panel", "aria-labelledby": "speed-totals-title" },
        h("h2", { id: "speed-totals-title" }, "Totals"), totals)));

  const redraw = () => {
    drawGraph(canvas, samples);
    const last = samples[samples.length - 1] || { dl: 0, up: 0 };
    legend.replaceChildren(
      h("span", { class: "sp-key sp-dl" }, `Download ${speed(last.dl)}`),
      h("span", { class: "sp-key sp-up" }, `Upload ${speed(last.up)}`));
    canvas.setAttribute("aria-label", `Transfer speed graph: download ${speed(last.dl)}, upload ${speed(last.up)}`);
  };

  const showTotals = () => {
    const s = mainData.serverState;
    const rows = [
      ["Downloaded this session", bytes(s.dl_info_data ?? 0)],
      ["Uploaded this session", bytes(s.up_info_data ?? 0)],
      s.alltime_dl !== undefined ? ["Downloaded in all", bytes(s.alltime_dl)] : null,
      s.alltime_ul !== undefined ? ["Uploaded in all", bytes(s.alltime_ul)] : null,
      s.global_ratio !== undefined ? ["Share ratio", Number.isFinite(Number(s.global_ratio)) ? ratio(Number(s.global_ratio)) : "–"] : null,
      s.total_peer_connections !== undefined ? ["Peer connections", String(s.total_peer_connections)] : null,
      s.dht_nodes !== undefined ? ["DHT nodes", String(s.dht_nodes)] : null,
      s.connection_status ? ["Connection", s.connection_status] : null,
    ].filter(Boolean);
    totals.replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  };

  let altOn = false;
  const showAlt = (on) => {
    altOn = Boolean(on);
    altButton.setAttribute("aria-pressed", String(altOn));
    altButton.textContent = altOn ? "Alternative speed limits: on" : "Alternative speed limits: off";
    altButton.classList.toggle("primary", altOn);
    altHelp.textContent = altOn ? "The alternative limits from Settings › Speed are in force." : "The normal limits are in force.";
  };

  const loadLimits = async (fill) => {
    const [dl, up, mode] = await Promise.all([api.get("transfer/downloadLimit"), api.get("transfer/uploadLimit"),
      api.get("transfer/speedLimitsMode")]);
    const dlN = Number(dl) || 0, upN = Number(up) || 0;
    if (fill) {
      limitsForm.querySelector("#speed-dl-limit").value = String(Math.round(dlN / KIB));
      limitsForm.querySelector("#speed-up-limit").value = String(Math.round(upN / KIB));
    }
    current.textContent = `In force: download ${dlN > 0 ? speed(dlN) : "unlimited"}, upload ${upN > 0 ? speed(upN) : "unlimited"}.`;
    showAlt(Number(mode) === 1);
  };

  limitsForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const read = (id) => {
      const value = Number(limitsForm.querySelector(id).value || 0);
      if (!Number.isFinite(value) || value < 0) throw new Error("a limit must be a number of KiB/s, 0 or more");
      return Math.round(value * KIB);
    };
    const ok = await attempt(async () => {
      const dl = read("#speed-dl-limit"), up = read("#speed-up-limit");
      await api.post("transfer/setDownloadLimit", { limit: dl });
      await api.post("transfer/setUploadLimit", { limit: up });
      return true;
    }, "Setting the limits");
    if (ok) { toast("Speed limits applied"); await attempt(() => loadLimits(false), "Reading the limits"); mainData.refresh(); }
  });

  altButton.addEventListener("click", async () => {
    altButton.disabled = true;
    const ok = await attempt(() => api.post("transfer/toggleSpeedLimitsMode"), "Switching the alternative limits");
    altButton.disabled = false;
    if (ok !== undefined) { await attempt(() => loadLimits(true), "Reading the limits"); mainData.refresh(); }
  });

  const onUpdate = (event) => {
    if (event.detail.state || event.detail.full) {
      showTotals();
      const s = mainData.serverState;
      if (s.use_alt_speed_limits !== undefined && Boolean(s.use_alt_speed_limits) !== altOn) loadLimits(true).catch(() => {});
    }
  };
  mainData.addEventListener("update", onUpdate);
  const stopSamples = onSample(redraw);
  const resize = new ResizeObserver(() => drawGraph(canvas, samples));
  resize.observe(canvas);
  showTotals();
  redraw();
  attempt(() => loadLimits(true), "Reading the limits");

  return () => {
    mainData.removeEventListener("update", onUpdate);
    stopSamples();
    resize.disconnect();
  };
}
