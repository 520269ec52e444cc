// Transfer speed history: one sample of the download and upload speeds per `sync/maindata` update, the last five
// minutes, kept in this module so it survives switching sections (it records from the first time it is imported).
import { mainData } from "../sync.js";

export const WINDOW_MS = 5 * 60 * 1000;
export const samples = [];   // { t: ms since epoch, dl: bytes/s, up: bytes/s }, oldest first
const listeners = new Set();

function record() {
  const state = mainData.serverState;
  const now = Date.now();
  samples.push({ t: now, dl: Number(state.dl_info_speed) || 0, up: Number(state.up_info_speed) || 0 });
  while (samples.length && samples[0].t < now - WINDOW_MS) samples.shift();
  for (const listener of listeners) listener();
}

mainData.addEventListener("update", record);

/** Calls `listener` after each new sample; returns the function that stops it. */
export function onSample(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
