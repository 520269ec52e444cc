// A small HLS media-playlist parser (RFC 8216, the parts qbtd's music playlists use): EXTINF durations, segment URIs
// resolved against the playlist's address, EXT-X-MEDIA-SEQUENCE, EXT-X-TARGETDURATION, EXT-X-ENDLIST and EXT-X-KEY.

/** Attributes of a tag such as `METHOD=AES-128,URI="key",IV=0x…` as an object (quotes removed). */
export function attributes(text) {
  const out = {};
  const pattern = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g;
  let match;
  while ((match = pattern.exec(text))) {
    const value = match[2];
    out[match[1]] = value.startsWith('"') ? value.slice(1, -1) : value;
  }
  return out;
}

/**
 * Parses a media playlist. `base` is the playlist's URL. Answers { segments: [{ uri, duration, start, sequence,
 * key }], duration, mediaSequence, targetDuration, ended }; `key` is null or { method, uri, iv (Uint8Array|null) }.
 */
export function parse(text, base) {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines[0] !== "#EXTM3U") throw new Error("not an HLS playlist (no #EXTM3U)");
  const playlist = { segments: [], duration: 0, mediaSequence: 0, targetDuration: 0, ended: false };
  let pending = null;
  let key = null;
  for (const line of lines.slice(1)) {
    if (line.startsWith("#EXTINF:")) {
      pending = parseFloat(line.slice(8));
      if (!Number.isFinite(pending)) throw new Error(`a bad EXTINF: ${line}`);
    } else if (line.startsWith("#EXT-X-MEDIA-SEQUENCE:")) {
      playlist.mediaSequence = parseInt(line.slice(22), 10) || 0;
    } else if (line.startsWith("#EXT-X-TARGETDURATION:")) {
      playlist.targetDuration = parseFloat(line.slice(22)) || 0;
    } else if (line === "#EXT-X-ENDLIST") {
      playlist.ended = true;
    } else if (line.startsWith("#EXT-X-KEY:")) {
      const a = attributes(line.slice(11));
      if (!a.METHOD || a.METHOD === "NONE") key = null;
      else key = { method: a.METHOD, uri: a.URI ? new URL(a.URI, base).href : null, iv: a.IV ? hexBytes(a.IV) : null };
    } else if (!line.startsWith("#")) {
      if (pending === null) throw new Error(`a segment without EXTINF: ${line}`);
      playlist.segments.push({
        uri: new URL(line, base).href, duration: pending, start: playlist.duration,
        sequence: playlist.mediaSequence + playlist.segments.length, key,
      });
      playlist.duration += pending;
      pending = null;
    }
  }
  return playlist;
}

/** `0x00…0F` as 16 bytes. */
function hexBytes(text) {
  const hex = text.replace(/^0x/i, "").padStart(32, "0");
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The index of the segment that holds time `t` (the last one past the end). */
export function segmentAt(playlist, t) {
  const list = playlist.segments;
  let lo = 0, hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (list[mid].start <= t) lo = mid; else hi = mid - 1;
  }
  return Math.max(0, lo);
}
