// qBittorrent's torrent states: readable labels (4.x `paused*` and 5.x `stopped*` names) and the status filters of
// qBittorrent's own WebUI (all, downloading, seeding, completed, running, stopped, active, inactive, stalled,
// checking, errored).

const LABELS = {
  error: "Errored", missingFiles: "Missing files", unknown: "Unknown",
  uploading: "Seeding", stalledUP: "Seeding", forcedUP: "[F] Seeding", queuedUP: "Queued", checkingUP: "Checking",
  pausedUP: "Completed", stoppedUP: "Completed",
  downloading: "Downloading", forcedDL: "[F] Downloading", metaDL: "Downloading metadata",
  forcedMetaDL: "[F] Downloading metadata", stalledDL: "Stalled", queuedDL: "Queued", checkingDL: "Checking",
  pausedDL: "Stopped", stoppedDL: "Stopped", allocating: "Allocating", moving: "Moving",
  checkingResumeData: "Checking resume data",
};

/** A readable label for a state string. */
export function stateLabel(state) { return LABELS[state] || state || "Unknown"; }

/** A class for the state's colour: down, up, done, stopped, error, checking. */
export function stateKind(state) {
  if (!state) return "stopped";
  if (state === "error" || state === "missingFiles" || state === "unknown") return "error";
  if (state.startsWith("checking") || state === "moving" || state === "allocating") return "checking";
  if (state.startsWith("paused") || state.startsWith("stopped")) return state.endsWith("UP") ? "done" : "stopped";
  if (state.endsWith("UP") || state === "uploading") return "up";
  return "down";
}

const stopped = (s) => s.startsWith("stopped") || s.startsWith("paused");
const SEEDING = new Set(["uploading", "forcedUP", "stalledUP", "queuedUP", "checkingUP"]);
const ACTIVE = new Set(["metaDL", "forcedMetaDL", "downloading", "forcedDL", "uploading", "forcedUP"]);
const CHECKING = new Set(["checkingUP", "checkingDL", "checkingResumeData"]);
const ERRORED = new Set(["error", "unknown", "missingFiles"]);

function active(t) {
  if (t.state === "stalledDL") return t.upspeed > 0;
  return ACTIVE.has(t.state);
}

/** The status filters, in the order the side panel lists them: [key, label, predicate(torrent)]. */
export const STATUS_FILTERS = [
  ["all", "All", () => true],
  ["downloading", "Downloading", (t) => t.state === "downloading" || (t.state || "").includes("DL")],
  ["seeding", "Seeding", (t) => SEEDING.has(t.state)],
  ["completed", "Completed", (t) => t.state === "uploading" || (t.state || "").includes("UP")],
  ["running", "Running", (t) => !stopped(t.state || "")],
  ["stopped", "Stopped", (t) => stopped(t.state || "")],
  ["active", "Active", active],
  ["inactive", "Inactive", (t) => !active(t)],
  ["stalled", "Stalled", (t) => t.state === "stalledUP" || t.state === "stalledDL"],
  ["checking", "Checking", (t) => CHECKING.has(t.state)],
  ["errored", "Errored", (t) => ERRORED.has(t.state)],
];

export const statusPredicate = (key) => (STATUS_FILTERS.find((f) => f[0] === key) || STATUS_FILTERS[0])[2];

/** A torrent's tags as an array (qBittorrent sends "a, b"). */
export function tagList(t) {
  return t.tags ? t.tags.split(",").map((s) => s.trim()).filter(Boolean) : [];
}

/** The host of a tracker URL, how the tracker filter groups them. */
export function trackerHost(url) {
  try { return new URL(url).hostname || url; } catch { return url; }
}
