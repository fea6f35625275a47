/**
 * What the tables above a column family's bottom level hold, for the placement overlay's choice
 * between a scan and block draws (overlay.ts): their data blocks and point entries from their
 * properties, or, for tables that carry none (LevelDB's), their blocks counted from their indexes and
 * their entries per block measured by a pilot of drawn blocks.
 */
import { expectedFileSize, type LevelModel, type SstFileModel } from "../datadir/model.js";
import { NUMERIC_FIELDS } from "../format/properties.js";
import type { TableCache } from "../lsm/table_cache.js";
import { BlockFrame, MIN_FIRST_STAGE_BLOCKS, type FrameFile } from "./overlay_blocks.js";
import { forDrawnBlocks, frameHandles } from "./overlay_draw.js";

/** Entries and data blocks of the tables above the bottom (properties), or undefined when some table lacks them. */
export function upperCounts(upper: LevelModel[]): { entries: number; blocks: number } | undefined {
  let entries = 0;
  let blocks = 0;
  for (const f of upper.flatMap((l) => l.files)) {
    const d = f.details;
    if (!d || d.error || d.numEntries === undefined || d.numDataBlocks === undefined) return undefined;
    entries += d.numEntries;
    blocks += d.numDataBlocks;
  }
  return { entries, blocks };
}

/**
 * The files above the bottom with their data blocks and point entries (table properties: the ones the
 * model already read, inspect's table details, else the table's own; entries = num_entries minus
 * range deletions). A table without properties (LevelDB's) has its blocks counted from one walk of its
 * index (the handles kept for the draws) and its entries left undefined. Unreadable files go to `skip`
 * and are left out.
 */
export function frameFiles(
  upper: LevelModel[],
  cache: TableCache,
  skip: (f: SstFileModel, e: unknown) => void,
): FrameFile[] {
  const files: FrameFile[] = [];
  for (const lv of upper)
    for (const f of lv.files) {
      try {
        if (!f.present) throw new Error("missing");
        const d = f.details;
        if (d && !d.error && d.numDataBlocks !== undefined) {
          const entries = (d.numEntries ?? 0) - Number(d.properties?.[NUMERIC_FIELDS.numRangeDeletions] ?? 0);
          files.push({ f, level: lv.level, blocks: d.numDataBlocks, entries: Math.max(0, entries) });
          continue;
        }
        const t = cache.acquireForMetadata(f.path, expectedFileSize(f));
        try {
          const p = t.props;
          const x: FrameFile = { f, level: lv.level, blocks: p.numDataBlocks ?? 0, entries: undefined };
          if (p.numDataBlocks === undefined || p.numEntries === undefined)
            x.blocks = frameHandles(x, t).length / 2;
          else x.entries = Math.max(0, p.numEntries - (p.numRangeDeletions ?? 0));
          cache.noteMetadataRead(t);
          files.push(x);
        } finally {
          cache.release(t);
        }
      } catch (e) {
        skip(f, e);
      }
    }
  return files;
}

/**
 * Tables without entry counts (LevelDB's): their entries per data block, from a pilot of
 * MIN_FIRST_STAGE_BLOCKS blocks drawn uniformly over them (read, every entry counted), and the counts
 * the choice between a scan and block draws works from (scanIsCheaper): the blocks, and the entries
 * they would hold at that mean. The pilot sizes the design only; the estimates come from the draws
 * after it. Undefined when no block could be read.
 */
export function pilotCounts(
  files: FrameFile[],
  cache: TableCache,
  random: () => number,
  skip: (f: SstFileModel, e: unknown) => void,
): { entries: number; blocks: number; perBlock: number } | undefined {
  const frame = new BlockFrame(files.filter((x) => x.blocks > 0));
  let entries = 0;
  let blocks = 0;
  forDrawnBlocks(frame.files, frame.draw(MIN_FIRST_STAGE_BLOCKS, random), cache, skip, (_x, block) => {
    const c = block.cursor();
    while (c.next()) entries++;
    blocks++;
  });
  if (blocks === 0) return undefined;
  const perBlock = entries / blocks;
  return { entries: Math.round(frame.total * perBlock), blocks: frame.total, perBlock };
}

/**
 * `files` with their data blocks' handles, walked for those that lack them: a table without entry
 * counts has them from the count of its blocks; one with counts in the same frame (none in practice:
 * a store's tables are all LevelDB's or all RocksDB's) from its index here. Unreadable ones go to `skip`.
 */
export function withHandles(
  files: FrameFile[],
  cache: TableCache,
  skip: (f: SstFileModel, e: unknown) => void,
): FrameFile[] {
  for (const x of files)
    if (!x.handles) {
      try {
        const t = cache.acquire(x.f.path);
        try {
          frameHandles(x, t);
        } finally {
          cache.release(t);
        }
      } catch (e) {
        skip(x.f, e);
      }
    }
  return files;
}
