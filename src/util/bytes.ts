/**
 * Safe rendering of untrusted bytes. Raw key/value bytes never reach a terminal: they are shown as hex
 * or as escaped printable ASCII, so a hostile key cannot inject terminal escape codes.
 */

/** Hex of `bytes[start, end)` (the whole array by default), through one view and no copy. */
export function toHex(bytes: Uint8Array, start = 0, end = bytes.byteLength): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("hex");
}

export function fromHex(hex: string): Buffer {
  const clean = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex;
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean))
    throw new Error(`not a hex string: ${hex.slice(0, 40)}`);
  return Buffer.from(clean, "hex");
}

/** True if every byte is printable ASCII (0x20..0x7e). */
export function isPrintableAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x20 || b > 0x7e) return false;
  }
  return true;
}

/** A name (column family, key) printed as text: non-empty printable ASCII; anything else is shown as hex. */
export function isPrintableName(bytes: Uint8Array): boolean {
  return bytes.length > 0 && isPrintableAscii(bytes);
}

/** Printable ASCII as is (backslash escaped), anything else as \xNN. */
export function escapeBytes(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    if (b === 0x5c) out += "\\\\";
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += "\\x" + b.toString(16).padStart(2, "0");
  }
  return out;
}

/** Escape a JS string that came from a file (e.g. a column family name) for a terminal. */
export function escapeText(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) =>
    c === "\\" ? "\\\\" : "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"),
  );
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}
