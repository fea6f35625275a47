/**
 * Synthetic contract bytecode of an exact size. Not executable; shaped enough like solc output to
 * compress the way real code does (a per-contract vocabulary of repeated snippets, PUSH constants,
 * the 0x6080604052 prelude and a CBOR metadata trailer), so block sizes and compression ratios in the
 * samples look like a real code column family.
 */
import type { Prng } from "./prng.js";
import { Zipf } from "./prng.js";

/** Size of an EIP-1167 minimal proxy. */
export const MINIMAL_PROXY_SIZE = 45;

/** EIP-1167 minimal proxy delegating to `impl` (20 bytes): 45 bytes. */
export function minimalProxy(impl: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from("363d3d373d3d3d363d73", "hex"),
    impl,
    Buffer.from("5af43d82803e903d91602b57fd5bf3", "hex"),
  ]);
}

const COMMON_OPS = [
  0x80, 0x81, 0x82, 0x90, 0x91, 0x50, 0x51, 0x52, 0x54, 0x55, 0x56, 0x57, 0x5b, 0x01, 0x03, 0x10, 0x11, 0x14,
  0x15, 0x16, 0x19, 0x1c, 0x35, 0x36, 0x60, 0x61, 0x63, 0xf3, 0xfd, 0x3d, 0x34,
];

function snippet(rng: Prng): Buffer {
  const out: number[] = [];
  const len = rng.int(2, 24);
  while (out.length < len) {
    if (rng.chance(0.25)) {
      const n = rng.pick([1, 1, 1, 2, 2, 4]);
      out.push(0x5f + n, ...rng.bytes(n));
    } else out.push(rng.pick(COMMON_OPS));
  }
  return Buffer.from(out);
}

/** Synthetic bytecode of exactly `size` bytes (size ≥ 1). */
export function synthBytecode(rng: Prng, size: number): Buffer {
  if (size <= 0) return Buffer.alloc(0);
  const vocab: Buffer[] = [];
  const vocabSize = Math.max(4, Math.min(64, Math.ceil(size / 200)));
  for (let i = 0; i < vocabSize; i++) vocab.push(snippet(rng));
  const zipf = new Zipf(vocab.length, 1.0);
  const parts: Buffer[] = [Buffer.from("6080604052", "hex")];
  let len = 5;
  const body = size > 200 ? size - 53 : size;
  while (len < body) {
    // function selectors and constants: PUSH4 / PUSH32 with fresh random data
    const p = rng.chance(0.06)
      ? Buffer.concat([Buffer.of(0x63), rng.bytes(4)])
      : rng.chance(0.02)
        ? Buffer.concat([Buffer.of(0x7f), rng.bytes(32)])
        : vocab[zipf.sample(rng)]!;
    parts.push(p);
    len += p.length;
  }
  let code = Buffer.concat(parts).subarray(0, body);
  if (size > 200) {
    // solc CBOR metadata: a2 64 "ipfs" 58 22 <34 B> 64 "solc" 43 <3 B> 00 33  (53 bytes)
    const meta = Buffer.concat([
      Buffer.from("a264697066735822", "hex"),
      rng.bytes(34),
      Buffer.from("64736f6c6343", "hex"),
      Buffer.from([0, 8, rng.int(0, 28)]),
      Buffer.from("0033", "hex"),
    ]);
    code = Buffer.concat([code, meta]);
  }
  if (code.length !== size) throw new Error(`bytecode size ${code.length} != ${size}`);
  return code;
}

/** Semi-compressible filler for block bodies, receipts, trie nodes and trie logs. */
export function synthBlob(rng: Prng, size: number): Buffer {
  const parts: Buffer[] = [];
  let len = 0;
  while (len < size) {
    const p = rng.chance(0.5) ? rng.bytes(rng.int(8, 40)) : Buffer.alloc(rng.int(4, 24), rng.int(0, 3));
    parts.push(p);
    len += p.length;
  }
  return Buffer.concat(parts).subarray(0, size);
}
