/**
 * Where to cut a column family's user keys into ranges of about equal data: index separators sampled
 * from its tables (splitSamples), and cut points spread over their key spans (cutsOf). `sizes --full`
 * cuts its threads' ranges and the sub-ranges of its key sets (lsm/newest_by_hash.ts) from them, and
 * `diff` the sub-ranges it compares two stores' key sets in.
 */
import { BLOCK_TRAILER_SIZE } from "../format/handle.js";
import { sampleIndexHandles } from "../format/index_reader.js";
import type { SstTable } from "../format/table.js";
import { prefixNumber, type RunFile } from "./merge.js";

/** Tables whose index separators splitSamples() reads, at most (about: every k-th of them). */
const SPLIT_SAMPLE_FILES = 256;

/**
 * Index entries splitSamples() takes from each table it reads, about. They are read at restart points
 * (IndexReader.sample) where the index allows, not by walking it: on a 131 MB store of 4 tables the
 * walk of 36,446 entries, in code V8 had not optimised yet, held this thread 18-40 ms before it
 * could start its own range.
 */
const SPLIT_SAMPLES_PER_FILE = 256;

/**
 * A sample of a column family's data: stored bytes `w` (× the file stride) whose user keys lie in
 * (lo, key] (hex; `lo` undefined: at `key`). `key` is an index separator: ≥ every key of its block.
 */
export interface SplitSample {
  key: string;
  lo: string | undefined;
  w: number;
}

/**
 * Index separators sampled over the runs' tables (every k-th table, so memory stays small),
 * ascending, each with the data bytes it closes: what a column family's key ranges are cut from
 * (cutsOf). `open`: a table of the runs, or undefined to pass it by (deleted since the version was
 * read); the caller's errors otherwise.
 */
export function splitSamples(
  runs: readonly (readonly RunFile[])[],
  open: (path: string, size: number | undefined) => SstTable | undefined,
): SplitSample[] {
  const samples: SplitSample[] = [];
  // over many tables, every k-th of them (in run order) stands for the k: the cuts need only be
  // near their shares, and on an L0 pile-up opening all 4,354 tables again kept the workers waiting
  // ~0.1 s for this thread
  const files = runs.reduce((n, run) => n + run.length, 0);
  const fileStride = Math.max(1, Math.ceil(files / SPLIT_SAMPLE_FILES));
  let file = 0;
  for (const run of runs) {
    for (const { path, size, smallestHex, largestHex } of run) {
      if (file++ % fileStride !== 0) continue;
      const t = open(path, size);
      if (!t) continue;
      try {
        const internal = !t.indexKeyIsUserKey;
        // each sample weighs the data bytes from the previous one's block end to its own (data blocks
        // lie in key order from the file's start)
        let prevEnd = 0;
        // the data a sample weighs lies above the sample before it (from the table's smallest key)
        let lo = smallestHex;
        const push = (sep: Buffer, sepLen: number, w: number) => {
          let key = sep.toString("hex", 0, internal ? sepLen - 8 : sepLen);
          // and at most at the table's largest key: RocksDB may close a table's index with the short
          // successor of its last key (db_bench's tables of keys 00 00 00 00 01 31 ...: "01"), whose
          // span would spread the last block's bytes over key space that holds nothing. On an L0
          // pile-up of 10,206 such tables the cuts put the last two of 99 sub-ranges there, empty,
          // and the one below them held 595,000 entries against ~200,000 (buckets 44 against 11 MiB)
          if (largestHex !== undefined && key > largestHex) key = largestHex;
          samples.push({ key, lo, w });
          lo = key;
        };
        const sampled = sampleIndexHandles(
          t.index,
          SPLIT_SAMPLES_PER_FILE,
          (offset, size, sep, sepLen) => {
            const end = offset + size + BLOCK_TRAILER_SIZE;
            push(sep, sepLen, Math.max(0, end - prevEnd) * fileStride);
            prevEnd = end;
          },
          false,
        );
        if (!sampled) {
          const nb = t.props.numDataBlocks;
          const stride =
            nb !== undefined && nb > SPLIT_SAMPLES_PER_FILE ? Math.ceil(nb / SPLIT_SAMPLES_PER_FILE) : 1;
          let i = 0;
          // only every stride-th separator is copied: the walk itself allocates nothing per entry
          t.forEachIndexHandle((_offset, size, _partition, sep, sepLen) => {
            if (i++ % stride !== 0) return;
            push(sep, sepLen, size * stride * fileStride);
          });
        }
      } finally {
        t.close();
      }
    }
  }
  samples.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return samples;
}

/** keyPrefix()'s number of a hex key: its first 8 bytes, zero-padded (lsm/merge_runs.ts). */
function prefixOfHex(hex: string): number {
  return prefixNumber(Buffer.from(hex.slice(0, 16), "hex"));
}

/** The 8-byte key (hex) of a prefix number. */
function hexOfPrefix(x: number): string {
  const hi = Math.floor(x / 4294967296);
  const lo = Math.floor(x - hi * 4294967296);
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

/**
 * Cut the samples' data into about `parts` user-key ranges of equal bytes; returns the cut points
 * (hex), ascending. The first range gets `headStart` more bytes than the others (at most half a
 * range's share), for a thread that starts on it while the others are still getting ready.
 * Each sample's bytes are spread evenly over its keys' span (lo, key] in the numbers of their first 8
 * bytes, and cuts fall where the running total crosses each share. Why spread: index separators are
 * shortened (RocksDB's default), so the separators of many tables' blocks fall on the same short keys;
 * cut only at separators, an L0 pile-up's ranges came out 0.2 to 2.4 times their share. Where keys
 * do not differ in their first 8 bytes a sample is a point at its separator, as before.
 */
export function cutsOf(samples: SplitSample[], parts: number, headStart: number): string[] {
  if (parts <= 1) return [];
  const total = samples.reduce((s, x) => s + x.w, 0);
  const head = Math.min(Math.max(0, headStart), total / parts / 2);
  const share = (k: number) => head + ((total - head) * k) / parts;
  // density steps at span ends, point masses at separators
  const events: { x: number; density: number; mass: number; key: string }[] = [];
  for (const s of samples) {
    const b = prefixOfHex(s.key);
    const a = s.lo === undefined ? b : prefixOfHex(s.lo);
    if (a < b) {
      events.push({ x: a, density: s.w / (b - a), mass: 0, key: s.key });
      events.push({ x: b, density: -s.w / (b - a), mass: 0, key: s.key });
    } else events.push({ x: b, density: 0, mass: s.w, key: s.key });
  }
  events.sort((p, q) => p.x - q.x || (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  const cuts: string[] = [];
  const cut = (key: string) => {
    if (cuts.length === 0 || cuts[cuts.length - 1]! < key) cuts.push(key);
  };
  let k = 1;
  let acc = 0;
  let density = 0;
  let pos = events.length > 0 ? events[0]!.x : 0;
  for (const e of events) {
    const spread = density * (e.x - pos);
    // the shares reached between pos and this event: at their point of the span
    while (k < parts && spread > 0 && share(k) <= acc + spread) {
      cut(hexOfPrefix(pos + (share(k) - acc) / density));
      k++;
    }
    acc += spread;
    pos = e.x;
    density += e.density;
    if (e.mass > 0) {
      acc += e.mass;
      // a point's bytes lie below its separator: cut at it (not again at the same key)
      if (k < parts && share(k) <= acc) {
        cut(e.key);
        while (k < parts && share(k) <= acc) k++;
      }
    }
  }
  return cuts;
}
