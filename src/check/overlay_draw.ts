/**
 * The placement overlay's drawn blocks read (block sampling; overlay_blocks.ts has the design): each
 * drawn table opened from one read of its end, its index walked once for its blocks' handles, the drawn
 * blocks read (close ones in one call) and visited, and a uniform subsample of each block's entries
 * copied out as a BlockUnit to be looked up below.
 */
import { expectedFileSize, type SstFileModel } from "../datadir/model.js";
import type { DataEntryCursor } from "../format/data_block.js";
import { BlockSpan } from "../format/handle.js";
import type { TableCache } from "../lsm/table_cache.js";
import type { BlockFrame, BlockUnit, FrameFile } from "./overlay_blocks.js";
import { partialShuffleIndices } from "./stats.js";
import { grownKeeping } from "../util/grow.js";

/**
 * Every data block's offset and size of a frame file, pairwise, from one walk of its index that copies
 * nothing (kept on the file for later draws, and the block count of a table without properties).
 */
export function frameHandles(x: FrameFile, t: ReturnType<TableCache["acquire"]>): number[] {
  if (!x.handles) {
    const hs: number[] = [];
    t.forEachIndexHandle((offset, size) => {
      hs.push(offset, size);
    });
    x.handles = hs;
  }
  return x.handles;
}

/**
 * Visit the drawn blocks (sorted global numbers over `files`; a number may repeat), file by file, each
 * file's index walked once and each distinct block read once: `visit(file, block, draws)` with the
 * number of draws of that block. A file that cannot be read is passed to `skip`.
 */
export function forDrawnBlocks(
  files: readonly FrameFile[],
  draws: readonly number[],
  cache: TableCache,
  skip: (f: SstFileModel, e: unknown) => void,
  visit: (
    x: FrameFile,
    block: ReturnType<ReturnType<TableCache["acquire"]>["readDataBlock"]>,
    times: number,
  ) => void,
): void {
  let base = 0;
  let d = 0;
  for (const x of files) {
    const wanted: number[] = [];
    while (d < draws.length && draws[d]! < base + x.blocks) wanted.push(draws[d++]! - base);
    base += x.blocks;
    if (wanted.length === 0) continue;
    try {
      // its end in one read (footer, metaindex, properties, index), as wide as the tables before needed
      const t = cache.acquireForMetadata(x.f.path, expectedFileSize(x.f));
      try {
        const handles = frameHandles(x, t);
        // how far from its end the open and the index reached, before any data block is read
        cache.noteMetadataRead(t);
        const drawn: { offset: number; size: number; times: number }[] = [];
        for (let w = 0; w < wanted.length;) {
          const i = wanted[w]!;
          let times = 0;
          while (w < wanted.length && wanted[w] === i) {
            times++;
            w++;
          }
          // a table holding fewer blocks than its properties say: the draws past its end find none
          if (2 * i + 1 < handles.length)
            drawn.push({ offset: handles[2 * i]!, size: handles[2 * i + 1]!, times });
        }
        // each block visited before the next is read, and its keys copied out: read transiently;
        // blocks drawn close together (gaps under DRAWN_SPAN_GAP, in ascending order: a damaged
        // index's may not be) read in one call, a span
        for (let a = 0; a < drawn.length;) {
          let b = a + 1;
          const span = new BlockSpan();
          span.add(drawn[a]!.offset, drawn[a]!.size);
          for (; b < drawn.length; b++) {
            const gap = drawn[b]!.offset - span.end;
            if (gap < 0 || gap > DRAWN_SPAN_GAP) break;
            if (drawn[b]!.offset + drawn[b]!.size - span.start > DRAWN_SPAN_MOST) break;
            span.add(drawn[b]!.offset, drawn[b]!.size);
          }
          const visitSpan = () => {
            for (let k = a; k < b; k++) {
              const h = drawn[k]!;
              visit(
                x,
                t.readDataBlock({ offset: h.offset, size: h.size }, { lifetime: "transient" }),
                h.times,
              );
            }
          };
          if (b - a > 1) t.blocks.file.withSpan(span.start, span.end, visitSpan);
          else visitSpan();
          a = b;
        }
      } finally {
        cache.release(t);
      }
    } catch (e) {
      skip(x.f, e);
    }
  }
}

/**
 * Drawn blocks of a table whose gap is at most this are read in one call, gap and all (forDrawnBlocks),
 * at most DRAWN_SPAN_MOST bytes a call. A read call costs ~8-13 µs in process here whatever its
 * length up to tens of KiB, a copy of 32 KiB a few: on a LevelDB store of 190 MiB whose upper levels
 * shadow nothing (~4,000 blocks drawn, 1 in 10 of theirs) the run's 4,084 read calls became 1,820 and
 * `check` ran 4% faster in process (gaps of 16, 32 and 64 KiB against none: 0.977, 0.956 and 0.981 of
 * the time; 11 alternating rounds each).
 */
const DRAWN_SPAN_GAP = 32 * 1024;
const DRAWN_SPAN_MOST = 256 * 1024;

/** Growing scratch for one block's kept user keys (they then move to the draw's KeyArena). */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Read the drawn blocks and keep a uniform subsample of `perBlock` entries of each (every entry when
 * the block holds no more): one BlockUnit per block that holds entries, appended to `units`.
 */
export function drawUnits(
  frame: BlockFrame,
  draws: readonly number[],
  perBlock: number,
  cache: TableCache,
  random: () => number,
  units: BlockUnit[],
  skip: (f: SstFileModel, e: unknown) => void,
): void {
  const arena = new KeyArena();
  // one cursor a table, moved from block to block
  let cursorOf: FrameFile | undefined;
  let cursor: DataEntryCursor | undefined;
  forDrawnBlocks(frame.files, draws, cache, skip, (x, block) => {
    if (cursorOf !== x) {
      cursorOf = x;
      cursor = undefined;
    }
    // the block's entries counted first, without a copy: a second-stage block gives one entry or a
    // few of its ~30 (a LevelDB store whose upper levels shadow nothing: ~3,900 such blocks), whose
    // keys alone are then copied out, in a second walk that stops at the last of them
    const c = (cursor = block.cursor(cursor));
    let m = 0;
    while (c.next()) m++;
    if (m === 0) return;
    // a uniform subsample of the block's entries (partial Fisher–Yates), kept in key order
    let pick: number[];
    if (perBlock < m) pick = partialShuffleIndices(m, perBlock, random).sort((a, b) => a - b);
    else pick = Array.from({ length: m }, (_, i) => i);
    const n = pick.length;
    // sized at once: an array grown by a push holds room for 17
    const start = new Array<number>(n + 1);
    const seqno = new Array<number>(n);
    start[0] = 0;
    let used = 0;
    let maxSeqno = 0;
    block.cursor(c);
    for (let i = 0, k = 0; k < n && c.next(); i++) {
      if (i !== pick[k]) continue;
      const len = Math.max(0, c.keyLength - 8);
      if (used + len > scratch.length) scratch = grownKeeping(scratch, used, used + len);
      // a loop: Buffer#copy's argument checks cost more than a key's few tens of bytes
      const key = c.key;
      for (let b = 0; b < len; b++) scratch[used + b] = key[b]!;
      used += len;
      start[k + 1] = used;
      const s = c.seqno;
      seqno[k++] = s;
      if (s > maxSeqno) maxSeqno = s;
    }
    const bytes = arena.reserve(used);
    const at = arena.at;
    scratch.copy(bytes, at, 0, used);
    arena.advance(used);
    if (at > 0) for (let k = 0; k <= n; k++) start[k]! += at;
    units.push({
      level: x.level,
      file: x.f,
      stratum: 0,
      keys: { n, bytes, start, seqno, maxSeqno },
      entries: m,
      storedBytes: block.handle.size,
      checked: 0,
      shadowing: 0,
      shadowedBytes: 0,
      cost: { visits: 0, reads: 0, pointReads: 0 },
    });
  });
}

/** Bytes of a KeyArena's buffers (a buffer holds as many blocks' drawn keys as fit). */
const KEY_ARENA_BYTES = 64 * 1024;

/**
 * Buffers the drawn keys of many blocks are copied into, one after another; a full one is left to the
 * units whose keys it holds (it goes when they let their keys go) and a new one taken.
 */
class KeyArena {
  private buf = Buffer.allocUnsafe(0);
  private used = 0;
  /** Room for `n` more bytes: the buffer they go into, at `this.at`. */
  reserve(n: number): Buffer {
    if (this.used + n > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(Math.max(KEY_ARENA_BYTES, n));
      this.used = 0;
    }
    return this.buf;
  }
  get at(): number {
    return this.used;
  }
  advance(n: number): void {
    this.used += n;
  }
}
