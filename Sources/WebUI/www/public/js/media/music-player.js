// The music section's player bar: now playing, previous/play-pause/next, a seek bar, on an <audio id="music-audio">
// fed by the HLS engine (media/hls.js). It plays a queue (the album) and moves on at the end of each track.
import { h, duration } from "../dom.js";
import * as api from "../api.js";
import { HlsAudio } from "./hls.js";
import { icon } from "./icons.js";

export function createPlayer({ onError, onTrack }) {
  const audio = h("audio", { id: "music-audio", preload: "none" });
  const title = h("strong", { id: "music-now-title" }, "Nothing playing");
  const sub = h("span", { id: "music-now-sub", class: "muted" });
  const play = h("button", { id: "music-play", type: "button", "aria-label": "Play", disabled: true }, icon("play"));
  const prev = h("button", { id: "music-prev", type: "button", "aria-label": "Previous track", disabled: true }, icon("previous"));
  const next = h("button", { id: "music-next", type: "button", "aria-label": "Next track", disabled: true }, icon("next"));
  const seek = h("input", { id: "music-seek", type: "range", min: "0", max: "0", step: "0.1", value: "0", disabled: true,
    "aria-label": "Position" });
  const time = h("span", { id: "music-time", class: "mono" }, "0:00");
  const length = h("span", { id: "music-length", class: "mono" }, "0:00");
  const status = h("p", { id: "music-status", class: "error", role: "alert", hidden: true });
  const element = h("section", { id: "music-player", class: "music-player panel", "aria-label": "Player" },
    audio,
    h("div", { class: "music-now" }, title, sub),
    h("div", { class: "music-controls" }, prev, play, next),
    h("div", { class: "music-seek" }, time, seek, length),
    status);

  let engine = null;
  let queue = [];
  let index = -1;
  let dragging = false;
  let loading = 0;

  const current = () => queue[index];

  function showError(error) {
    status.textContent = error.message;
    status.hidden = false;
    onError?.(error);
  }

  async function start(list, at) {
    queue = list;
    index = at;
    const track = current();
    if (engine) { engine.destroy(); engine = null; }
    const ticket = ++loading;
    status.hidden = true;
    title.textContent = track.title;
    sub.textContent = [track.artist, track.album].filter(Boolean).join(" — ");
    element.dataset.trackId = String(track.id);
    onTrack?.(track);
    seek.max = String(track.duration || 0);
    seek.value = "0";
    length.textContent = duration(track.duration);
    time.textContent = "0:00";
    prev.disabled = false;
    next.disabled = index >= queue.length - 1;
    const hls = new HlsAudio(audio, { headers: api.authHeaders() });
    hls.onError = showError;
    engine = hls;
    try {
      await hls.load(`/music/tracks/${encodeURIComponent(track.id)}/stream.m3u8`);
      if (ticket !== loading) return;
      seek.max = String(hls.duration);
      length.textContent = duration(hls.duration);
      seek.disabled = false;
      play.disabled = false;
      await audio.play().catch((error) => { if (error.name !== "AbortError") throw error; });
    } catch (error) {
      if (ticket === loading && error.name !== "AbortError") showError(error);
    }
  }

  function toggle() {
    if (!engine) return;
    if (audio.paused) audio.play().catch(showError); else audio.pause();
  }

  function move(step) {
    if (!queue.length) return;
    // "Previous" restarts the track when it has played a few seconds, as players do.
    if (step < 0 && audio.currentTime > 3) { audio.currentTime = 0; return; }
    const to = index + step;
    if (to >= 0 && to < queue.length) start(queue, to);
  }

  play.addEventListener("click", toggle);
  prev.addEventListener("click", () => move(-1));
  next.addEventListener("click", () => move(1));
  seek.addEventListener("input", () => { dragging = true; time.textContent = duration(Number(seek.value)); });
  seek.addEventListener("change", () => { dragging = false; audio.currentTime = Number(seek.value); });
  audio.addEventListener("timeupdate", () => {
    if (dragging) return;
    seek.value = String(audio.currentTime);
    time.textContent = duration(audio.currentTime);
    seek.setAttribute("aria-valuetext", `${duration(audio.currentTime)} of ${duration(Number(seek.max))}`);
  });
  const paused = () => {
    play.replaceChildren(icon(audio.paused ? "play" : "pause"));
    play.setAttribute("aria-label", audio.paused ? "Play" : "Pause");
    element.classList.toggle("playing", !audio.paused);
  };
  audio.addEventListener("play", paused);
  audio.addEventListener("pause", paused);
  audio.addEventListener("ended", () => { paused(); if (index < queue.length - 1) move(1); });
  audio.addEventListener("error", () => { if (engine && audio.error) showError(new Error(`the browser could not play this track (${audio.error.message || audio.error.code})`)); });

  return {
    element,
    audio,
    start,
    toggle,
    destroy() { loading++; if (engine) engine.destroy(); engine = null; },
    get track() { return current(); },
  };
}
