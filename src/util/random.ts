/** mulberry32: a tiny seeded PRNG, uniform in [0, 1); the same seed gives the same draws. Not for cryptography. */
export function mulberry32(seed: number): () => number {
  // the state kept as an int32 (the same bits as the uint32 the arithmetic below reads): a value of
  // 2^31 or more is no small integer to V8, and storing it allocated a number per draw (~1 M draws per
  // check of a store of a few hundred MB: a fifth of its time went to collecting them)
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
