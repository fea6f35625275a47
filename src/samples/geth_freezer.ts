/**
 * The geth sample's freezer: `geth/chaindata/ancient/chain`, written byte for byte as go-ethereum's
 * freezer tables are (core/rawdb/freezer_table.go, freezer_meta.go; the format is described in
 * src/freezer/index.ts). It holds the bulk-loaded blocks as if the history before them had been deleted
 * from the tail (index entry 0 = {file 0, items deleted}), and bodies and receipts additionally hide two
 * items through their meta file's virtual tail (history pruning marks before it deletes).
 *
 * Tables and compression as geth's chain freezer configures them: headers, bodies, receipts snappy
 * (`.cidx`/`.cdat`), hashes and diffs (total difficulty) raw (`.ridx`/`.rdat`). Written after the
 * key/value store, into files of its own: it changes nothing else in the sample.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { bigintToBytes, rlpEncode } from "../eth/index.js";
import { GETH_INSTANCE } from "./geth.js";
import type { World } from "./world.js";

export const GETH_FREEZER = `${GETH_INSTANCE}/ancient/chain`;

export interface FreezerTableTruth {
  name: string;
  items: number;
  tail: number;
  compressed: boolean;
  /** Data file bytes. */
  bytes: number;
}

export interface FreezerTruth {
  path: string;
  kind: "chain";
  tables: FreezerTableTruth[];
}

const TABLES: { name: string; compressed: boolean; hidden: number }[] = [
  { name: "bodies", compressed: true, hidden: 2 },
  { name: "diffs", compressed: false, hidden: 0 },
  { name: "hashes", compressed: false, hidden: 0 },
  { name: "headers", compressed: true, hidden: 0 },
  { name: "receipts", compressed: true, hidden: 2 },
];

export function writeGethFreezer(root: string, world: World): FreezerTruth {
  const snappy = createRequire(import.meta.url)("snappy") as { compressSync(b: Buffer): Buffer };
  const dir = join(root, GETH_FREEZER);
  mkdirSync(dir, { recursive: true });
  const blocks = world.blocks.slice(0, world.bulkBlocks);
  const deleted = blocks[0]!.number;
  const item = (name: string, b: World["blocks"][number]): Buffer => {
    switch (name) {
      case "headers":
        return b.header;
      case "hashes":
        return b.hash;
      case "bodies":
        return b.body;
      case "receipts":
        return b.receipts;
      default: // diffs: the total difficulty, RLP
        return Buffer.from(rlpEncode(bigintToBytes(58_750_000n * BigInt(b.number))));
    }
  };
  const tables: FreezerTableTruth[] = [];
  for (const t of TABLES) {
    const index = Buffer.alloc(6 * (blocks.length + 1));
    index.writeUInt16BE(0, 0); // tail data file number
    index.writeUInt32BE(deleted, 2); // items deleted from the tail
    const data: Buffer[] = [];
    let offset = 0;
    blocks.forEach((b, i) => {
      const raw = item(t.name, b);
      const stored = t.compressed ? snappy.compressSync(raw) : raw;
      data.push(stored);
      offset += stored.length;
      index.writeUInt16BE(0, 6 * (i + 1));
      index.writeUInt32BE(offset, 6 * (i + 1) + 2);
    });
    const ext = t.compressed ? "c" : "r";
    writeFileSync(join(dir, `${t.name}.${ext}idx`), index);
    writeFileSync(join(dir, `${t.name}.0000.${ext}dat`), Buffer.concat(data));
    const tail = deleted + t.hidden;
    writeFileSync(join(dir, `${t.name}.meta`), rlpEncode([bigintToBytes(1n), bigintToBytes(BigInt(tail))]));
    tables.push({
      name: t.name,
      items: deleted + blocks.length,
      tail,
      compressed: t.compressed,
      bytes: offset,
    });
  }
  writeFileSync(join(dir, "FLOCK"), "");
  return { path: GETH_FREEZER, kind: "chain", tables };
}
