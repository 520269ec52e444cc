// The music library as the page uses it: `GET /music/library` mapped to plain lists in one place (`fromServer`),
// plus sorting, filtering and album queues.

/** The server's JSON → { version, encrypted, artists, albums, tracks }; every field name the server uses is here. */
export function fromServer(json) {
  const list = (value) => (Array.isArray(value) ? value : []);
  const artists = list(json.artists).map((a) => ({ id: a.id, name: a.name || "Unknown artist" }));
  const albums = list(json.albums).map((a) => ({
    id: a.id, title: a.title || "Unknown album", artist: a.artist || "", artistId: a.artistId ?? null,
    year: a.year ? String(a.year) : "", trackCount: Number(a.trackCount) || 0,
  }));
  const tracks = list(json.tracks).map((t) => ({
    id: t.id, title: t.title || "Untitled", artist: t.artist || "", artistId: t.artistId ?? null,
    album: t.album || "", albumId: t.albumId ?? null, trackNumber: Number(t.trackNumber) || 0,
    discNumber: Number(t.discNumber) || 0, duration: Number(t.duration) || 0, error: t.error || null,
  }));
  return { version: json.version ?? 0, encrypted: Boolean(json.encrypted), artists, albums, tracks };
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
export const byName = (key) => (a, b) => collator.compare(a[key], b[key]);
export const albumOrder = (a, b) => (a.discNumber - b.discNumber) || (a.trackNumber - b.trackNumber)
  || collator.compare(a.title, b.title);

/** Whether every word of `query` is in one of the `fields` of `item`. */
export function matches(item, query, fields) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const text = fields.map((f) => String(item[f] ?? "")).join(" ").toLowerCase();
  return words.every((w) => text.includes(w));
}

/** What plays after and before a track: its album in order, else the list it was picked from. */
export function queueFor(library, track, fallback) {
  if (track.albumId === null) return fallback;
  return library.tracks.filter((t) => t.albumId === track.albumId && !t.error).sort(albumOrder);
}
