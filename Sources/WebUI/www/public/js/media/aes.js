// HLS AES-128 segment decryption with WebCrypto: AES-CBC, PKCS#7 padding (removed by WebCrypto), and the IV either
// from EXT-X-KEY or the segment's media sequence number as a 16-byte big-endian integer. WebCrypto exists only on
// secure origins (https, localhost, 127.0.0.1).

export const INSECURE = "this track is encrypted, and browsers only decrypt on a secure address (https, localhost or "
  + "127.0.0.1): open qbtd through one of those";

export function available() {
  return Boolean(window.isSecureContext && globalThis.crypto && crypto.subtle);
}

/** Imports the 16 raw key bytes. */
export async function importKey(bytes) {
  if (!available()) throw new Error(INSECURE);
  const raw = new Uint8Array(bytes);
  if (raw.length !== 16) throw new Error(`the track's key has ${raw.length} bytes, not 16`);
  return crypto.subtle.importKey("raw", raw, { name: "AES-CBC" }, false, ["decrypt"]);
}

/** The IV for a media sequence number. */
export function sequenceIV(sequence) {
  const iv = new Uint8Array(16);
  let n = BigInt(sequence);
  for (let i = 15; i >= 0 && n > 0n; i--) { iv[i] = Number(n & 0xffn); n >>= 8n; }
  return iv;
}

/** Decrypts one segment. */
export async function decrypt(key, data, iv) {
  return crypto.subtle.decrypt({ name: "AES-CBC", iv }, key, data);
}
