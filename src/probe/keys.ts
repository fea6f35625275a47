/**
 * Key sets for probes.
 *
 * - present: existing user keys drawn uniformly through the index blocks of the column family's live
 *   tables (a data block chosen uniformly among all of them, then an entry uniformly inside it), kept
 *   when their newest version is a value (checked with the reader path, memtable included);
 * - absent: keys of the column family's key shape (the length most keys have, their common prefix, or
 *   the shape given), random elsewhere, kept when the reader path finds no version of them;
 * - file: hex keys one per line ('#' comments), or 20-byte addresses hashed the way the client keys
 *   accounts (Besu keccak(address), Nethermind keccak(address)[0:20], geth "a" ‖ keccak(address)).
 *
 * Draws are seeded, so the same store, shape and seed give the same keys.
 */
import { readFileSync } from "node:fs";
import { openTable, type SstTable } from "../format/table.js";
import { ValueType } from "../base/internal_key.js";
import type { BlockHandle } from "../format/handle.js";
import { fromHex } from "../util/bytes.js";
import { fromFsError, LsmscopeError } from "../util/errors.js";
import { mulberry32 } from "../util/random.js";
import { accountHash, besuAccountKey, gethAccountKey, nethermindAccountKey } from "../eth/keys.js";
import type { LsmReader } from "./reader_path.js";
import type { ProbeTarget } from "./types.js";
import { plural } from "../util/words.js";
import { prefixSuccessor } from "../util/prefix.js";

export type AddressHashing = "besu" | "nethermind" | "geth";

export interface KeyShape {
  /** Required leading bytes. */
  prefix?: Buffer;
  /** Key length in bytes. */
  length?: number;
}

/** A small seeded PRNG (mulberry32 over a string seed): deterministic draws, not cryptographic. */
export class SeededRandom {
  readonly next: () => number;
  constructor(seed: string) {
    let h = 2166136261;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
    this.next = mulberry32(h >>> 0);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

interface BlockRef {
  table: SstTable;
  handle: BlockHandle;
}

/**
 * Every data block of the CF's live tables that may hold keys with `prefix`: the tables as `reader`
 * opened them for its lookups (opening them again took ~0.3 s of a ~2 s probe of 4,865 L0 tables),
 * any other opened here and added to `opened`.
 */
function candidateBlocks(
  target: ProbeTarget,
  prefix: Buffer | undefined,
  reader: LsmReader,
  opened: SstTable[],
): BlockRef[] {
  const out: BlockRef[] = [];
  const succ = prefix ? prefixSuccessor(prefix) : undefined;
  for (const f of target.files) {
    let t = reader.openedTable(f.path);
    if (t === undefined) {
      t = openTable(f.path);
      opened.push(t);
    }
    let prev: Buffer | undefined;
    t.forEachIndexEntry((e) => {
      const sep = e.separatorIsInternal ? e.separator.subarray(0, e.separator.length - 8) : e.separator;
      const mayHold = !prefix || (sep.compare(prefix) >= 0 && (!succ || !prev || prev.compare(succ) < 0));
      if (mayHold) out.push({ table: t, handle: e.handle });
      prev = sep;
    });
  }
  return out;
}

function matchesShape(k: Buffer, shape: KeyShape): boolean {
  if (shape.length !== undefined && k.length !== shape.length) return false;
  if (
    shape.prefix &&
    (k.length < shape.prefix.length || !k.subarray(0, shape.prefix.length).equals(shape.prefix))
  )
    return false;
  return true;
}

export interface KeySetResult {
  keys: Buffer[];
  note?: string;
}

/** Existing keys, uniformly through the index blocks. `reader` checks that the newest version is live. */
export function presentKeys(
  target: ProbeTarget,
  reader: LsmReader,
  n: number,
  opts: { seed?: string; shape?: KeyShape } = {},
): KeySetResult {
  const rnd = new SeededRandom(`present/${opts.seed ?? "lsmscope-probe"}`);
  const shape = opts.shape ?? {};
  const opened: SstTable[] = [];
  try {
    const blocks = candidateBlocks(target, shape.prefix, reader, opened);
    if (blocks.length === 0)
      throw new LsmscopeError(
        `column family ${target.cfDisplayName} has no data blocks to sample keys from`,
        {
          file: target.instanceDir,
        },
      );
    const seen = new Set<string>();
    const keys: Buffer[] = [];
    const maxAttempts = n * 20 + 1000;
    let attempts = 0;
    while (keys.length < n && attempts++ < maxAttempts) {
      const b = blocks[rnd.int(blocks.length)]!;
      const db = b.table.readDataBlock(b.handle);
      const entries: Buffer[] = [];
      const cursor = db.cursor();
      while (cursor.next()) {
        const kl = cursor.keyLength;
        if (kl < 8) continue;
        const type = cursor.key[kl - 8]!;
        if (type !== ValueType.Value && type !== ValueType.BlobIndex) continue;
        const uk = Buffer.from(cursor.key.subarray(0, kl - 8));
        if (matchesShape(uk, shape)) entries.push(uk);
      }
      if (entries.length === 0) continue;
      const k = entries[rnd.int(entries.length)]!;
      const hex = k.toString("hex");
      if (seen.has(hex)) continue;
      if (!reader.get(k, false).found) continue; // newest version deleted
      seen.add(hex);
      keys.push(k);
    }
    if (keys.length === 0)
      throw new LsmscopeError(`no live key of the requested shape in ${target.cfDisplayName}`);
    let note: string | undefined;
    if (keys.length < n) {
      note = `only ${keys.length} distinct present keys found; the set repeats them to reach ${n}`;
      const distinct = keys.length;
      for (let i = 0; keys.length < n; i++) keys.push(keys[i % distinct]!);
    }
    return { keys, note };
  } finally {
    for (const t of opened) t.close();
  }
}

/** The key shape of a CF: the most common key length among `sample` and their common prefix. */
export function inferShape(sample: Buffer[]): KeyShape {
  if (sample.length === 0) return {};
  const lengths = new Map<number, number>();
  for (const k of sample) lengths.set(k.length, (lengths.get(k.length) ?? 0) + 1);
  const length = [...lengths.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  const same = sample.filter((k) => k.length === length);
  let p = same[0]!.length;
  for (const k of same) {
    let i = 0;
    while (i < p && k[i] === same[0]![i]) i++;
    p = i;
  }
  // with few samples a short common prefix can be chance: keep it only when it is shared widely
  if (same.length < 16) p = 0;
  p = Math.min(p, Math.max(0, length - 4));
  return { length, prefix: p > 0 ? Buffer.from(same[0]!.subarray(0, p)) : undefined };
}

/** Keys of the given (or inferred) shape that the reader path verifies absent. */
export function absentKeys(
  target: ProbeTarget,
  reader: LsmReader,
  n: number,
  opts: { seed?: string; shape?: KeyShape } = {},
): KeySetResult & { shape: KeyShape } {
  let shape = opts.shape ?? {};
  if (shape.length === undefined) {
    if (target.files.length === 0)
      throw new LsmscopeError(
        `column family ${target.cfDisplayName} has no tables to take the key shape from; give --key-length (and --prefix)`,
      );
    const sample = presentKeys(target, reader, 64, { seed: `${opts.seed ?? ""}/shape`, shape }).keys;
    const inferred = inferShape(sample);
    shape = { length: inferred.length, prefix: shape.prefix ?? inferred.prefix };
  }
  const len = shape.length ?? 32;
  const prefix = shape.prefix ?? Buffer.alloc(0);
  if (prefix.length > len) throw new LsmscopeError(`key prefix is longer than the key length ${len}`);
  const rnd = new SeededRandom(`absent/${opts.seed ?? "lsmscope-probe"}`);
  const keys: Buffer[] = [];
  const seen = new Set<string>();
  let rejected = 0;
  // keep draws inside the CF's key range (an absent key outside it costs nothing), unless that range
  // holds too few keys of this shape to draw from
  const lo = target.files.map((f) => fromHex(f.smallestKey)).sort(Buffer.compare)[0];
  const hi = target.files
    .map((f) => fromHex(f.largestKey))
    .sort(Buffer.compare)
    .pop();
  let outside = 0;
  let outsideAccepted = 0;
  while (keys.length < n) {
    const k = Buffer.concat([prefix, rnd.bytes(len - prefix.length)]);
    const hex = k.toString("hex");
    if (seen.has(hex)) continue;
    if (lo && hi && (k.compare(lo) < 0 || k.compare(hi) > 0)) {
      if (++outside <= 50 * n + 1000) continue;
      outsideAccepted++;
    }
    if (reader.get(k, false).found) {
      if (++rejected > n + 1000)
        throw new LsmscopeError("cannot draw absent keys: the key space of this shape is full");
      continue;
    }
    seen.add(hex);
    keys.push(k);
  }
  const notes: string[] = [];
  if (rejected > 0) notes.push(`${rejected} drawn keys existed and were redrawn`);
  if (outsideAccepted > 0)
    notes.push(`${plural(outsideAccepted, "key")} lie outside the column family's key range`);
  return { keys, shape, note: notes.length > 0 ? notes.join("; ") : undefined };
}

/** Key for an address as the client keys its accounts. */
export function addressKey(address: Buffer, hashing: AddressHashing): Buffer {
  const h = accountHash(address);
  if (hashing === "besu") return besuAccountKey(h);
  if (hashing === "nethermind") return nethermindAccountKey(h);
  return gethAccountKey(h);
}

/** Keys from a file: hex per line ('#' comments, blank lines ignored); addresses hashed when asked. */
export function keysFromFile(path: string, hashing?: AddressHashing): Buffer[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    // readFileSync on a directory fails with EISDIR and no path in the error
    throw fromFsError(e, path) ?? e;
  }
  const out: Buffer[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) return;
    let b: Buffer;
    try {
      b = fromHex(line);
    } catch {
      throw new LsmscopeError(`line ${i + 1} is not a hex key`, { file: path });
    }
    if (hashing) {
      if (b.length !== 20)
        throw new LsmscopeError(`line ${i + 1}: an address is 20 bytes, got ${b.length}`, { file: path });
      b = addressKey(b, hashing);
    }
    out.push(b);
  });
  if (out.length === 0) throw new LsmscopeError("no keys in the file", { file: path });
  return out;
}
