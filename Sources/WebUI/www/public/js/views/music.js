// The music section: the server's MP3 library (`GET /music/library`), browsed artists → albums → tracks or as one
// searchable track list, and played as HLS on Media Source Extensions by the player bar (media/music-player.js).
import { h, duration, toast } from "../dom.js";
import { fromServer, byName, albumOrder, matches, queueFor } from "../media/library.js";
import { createPlayer } from "../media/music-player.js";
import { supported } from "../media/hls.js";
import * as aes from "../media/aes.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const TABS = [["artists", "Artists"], ["albums", "Albums"], ["tracks", "Tracks"]];

export async function mount(container, { api }) {
  const state = { tab: "artists", artistId: null, albumId: null, query: "" };
  let library = null;

  const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Browse by" });
  const search = h("input", { id: "music-search", type: "search", placeholder: "Title, artist, album…", autocomplete: "off" });
  const summary = h("span", { id: "music-summary", class: "muted" });
  const refresh = h("button", { id: "music-refresh", type: "button" }, "Reload library");
  const crumbs = h("nav", { id: "music-crumbs", class: "music-crumbs", "aria-label": "Filter" });
  const list = h("ul", { id: "music-list", class: "music-list", "aria-label": "Library" });
  const notice = h("p", { id: "music-notice", class: "music-notice", hidden: true });
  const player = createPlayer({
    onError: (error) => toast(`Playback failed: ${error.message}`, { error: true }),
    onTrack: () => markPlaying(),
  });

  const root = h("div", { class: "music" },
    h("div", { class: "toolbar" }, tabs, h("label", {}, "Search", search), h("span", { class: "spacer" }), summary, refresh),
    notice, crumbs, list, player.element);
  container.append(root);
  // Space plays or pauses when the focus is on no control of its own (the list's rows are buttons: Enter plays them).
  root.addEventListener("keydown", (event) => {
    if (event.key !== " " || event.target.closest("input, select, textarea, button, a")) return;
    event.preventDefault();
    player.toggle();
  });

  function setTab(tab, filters = {}) {
    Object.assign(state, { tab, artistId: null, albumId: null }, filters);
    render();
  }

  function renderTabs() {
    tabs.replaceChildren(...TABS.map(([id, label]) => h("button", {
      type: "button", role: "tab", id: `music-tab-${id}`, "aria-selected": String(state.tab === id),
      onclick: () => setTab(id),
    }, label)));
  }

  function renderCrumbs() {
    const parts = [];
    const artist = library.artists.find((a) => a.id === state.artistId);
    const album = library.albums.find((a) => a.id === state.albumId);
    if (artist) parts.push(h("button", { type: "button", class: "media-link", onclick: () => setTab("albums", { artistId: artist.id }) }, artist.name));
    if (album) parts.push(h("button", { type: "button", class: "media-link", onclick: () => setTab("tracks", { albumId: album.id }) }, album.title));
    crumbs.hidden = parts.length === 0;
    if (!parts.length) { crumbs.replaceChildren(); return; }
    const all = h("button", { type: "button", class: "media-link", onclick: () => setTab(album ? "albums" : "artists") },
      album ? "All albums" : "All artists");
    crumbs.replaceChildren(all, ...parts.flatMap((p) => [h("span", { "aria-hidden": "true" }, " › "), p]));
  }

  function row(label, detail, attrs) {
    return h("li", {}, h("button", { type: "button", class: "music-item", ...attrs }, label, detail));
  }

  function renderList() {
    const q = state.query;
    let rows = [];
    if (state.tab === "artists") {
      const counts = new Map();
      for (const a of library.albums) counts.set(a.artistId, (counts.get(a.artistId) || 0) + 1);
      rows = library.artists.filter((a) => matches(a, q, ["name"])).sort(byName("name")).map((a) => row(
        h("span", { class: "music-title" }, a.name),
        h("span", { class: "muted" }, `${counts.get(a.id) || 0} album${counts.get(a.id) === 1 ? "" : "s"}`),
        { "data-testid": `artist-${a.id}`, onclick: () => setTab("albums", { artistId: a.id }) }));
    } else if (state.tab === "albums") {
      rows = library.albums
        .filter((a) => (state.artistId === null || a.artistId === state.artistId) && matches(a, q, ["title", "artist", "year"]))
        .sort(byName("title")).map((a) => row(
          h("span", { class: "music-title" }, a.title),
          h("span", { class: "muted" }, [a.artist, a.year, `${a.trackCount} track${a.trackCount === 1 ? "" : "s"}`].filter(Boolean).join(" · ")),
          { "data-testid": `album-${a.id}`, onclick: () => setTab("tracks", { albumId: a.id }) }));
    } else {
      let tracks = library.tracks.filter((t) => (state.albumId === null || t.albumId === state.albumId)
        && (state.artistId === null || t.artistId === state.artistId) && matches(t, q, ["title", "artist", "album"]));
      tracks = state.albumId !== null ? tracks.sort(albumOrder) : tracks.sort(byName("title"));
      const playable = tracks.filter((t) => !t.error);
      rows = tracks.map((t) => row(
        h("span", { class: "music-title" }, t.trackNumber && state.albumId !== null ? `${t.trackNumber}. ${t.title}` : t.title),
        h("span", { class: t.error ? "error" : "muted" }, t.error ? `Cannot play: ${t.error}`
          : [t.artist, state.albumId === null ? t.album : "", duration(t.duration)].filter(Boolean).join(" · ")),
        {
          "data-testid": `track-${t.id}`, "data-track-id": String(t.id), disabled: Boolean(t.error),
          "aria-current": player.track && player.track.id === t.id ? "true" : null,
          onclick: () => {
            const queue = queueFor(library, t, playable);
            player.start(queue, Math.max(0, queue.indexOf(t)));
          },
        }));
    }
    list.replaceChildren(...(rows.length ? rows : [h("li", { class: "muted music-empty" }, q ? "Nothing matches." : "Nothing here yet.")]));
  }

  function markPlaying() {
    const id = player.track ? String(player.track.id) : null;
    for (const b of list.querySelectorAll("[data-track-id]")) {
      if (b.dataset.trackId === id) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
    }
  }

  function render() {
    if (!library) return;
    renderTabs();
    renderCrumbs();
    renderList();
    const n = library.tracks.length;
    summary.textContent = [plural(library.artists.length, "artist"), plural(library.albums.length, "album"), plural(n, "track")].join(" · ")
      + (library.encrypted ? " · encrypted" : "");
  }

  async function load() {
    notice.hidden = true;
    try {
      library = fromServer(await api.get("/music/library"));
    } catch (error) {
      library = null;
      list.replaceChildren();
      player.element.hidden = true;
      notice.hidden = false;
      notice.className = "music-notice error";
      notice.textContent = error.status === 404
        ? "There is no music library: start qbtd with --music-dir FOLDER (or set the music_dirs preference)."
        : `The library could not be read: ${error.message}`;
      return;
    }
    player.element.hidden = false;
    const problems = [];
    // /music/library answers with empty lists when no folder is set: say how to set one.
    if (!library.tracks.length) {
      problems.push("The music library is empty: start qbtd with --music-dir FOLDER (or set the music_dirs preference) and put MP3s there.");
    }
    if (!supported()) problems.push("This browser has no Media Source Extensions for MP3, so it cannot play the library.");
    if (library.encrypted && !aes.available()) {
      problems.push("This library is encrypted, and browsers only decrypt on a secure address (https, localhost or "
        + "127.0.0.1): open qbtd through one of those to play it.");
    }
    notice.hidden = problems.length === 0;
    notice.className = "music-notice error";
    notice.textContent = problems.join(" ");
    render();
  }

  search.addEventListener("input", () => { state.query = search.value; renderList(); });
  refresh.addEventListener("click", load);
  // Arrow keys move between the rows of the list; Home/End jump to either end.
  list.addEventListener("keydown", (event) => {
    const buttons = [...list.querySelectorAll("button:not(:disabled)")];
    const at = buttons.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, to))].focus();
  });
  // Backspace on the list climbs back up a level.
  list.addEventListener("keyup", (event) => {
    if (event.key !== "Backspace") return;
    if (state.tab === "tracks" && state.albumId !== null) setTab("albums", { artistId: library.albums.find((a) => a.id === state.albumId)?.artistId ?? null });
    else if (state.tab === "albums" && state.artistId !== null) setTab("artists");
    list.querySelector("button")?.focus();
  });

  await load();
  return () => player.destroy();
}
