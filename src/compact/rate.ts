/**
 * The rewrite rate the plan's duration estimate uses: bytes written by compactions per second.
 * Measured by `bench/compact.ts` on this machine (2 cores, Debian bookworm, RocksDB 7.8.3; 300k keys ×
 * 2 Besu-like CFs, 176 MiB of LZ4 tables with an L0 overlay): 65.7 MiB/s written (compact.write.bytes
 * over time in CompactRange). The constant is half of that, so the estimate errs long; it is an
 * estimate for another machine or disk, not a measurement of it.
 */
export const COMPACT_RATE_ESTIMATE = {
  bytesPerSecond: 32 * 1024 * 1024,
  basis: "half the 65.7 MiB/s write rate bench/compact.ts measured on a 2-core machine",
};
