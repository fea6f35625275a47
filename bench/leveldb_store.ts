/**
 * A legacy geth store as LevelDB itself writes it (classic-level: LevelDB 1.20, Snappy, 4 KiB blocks,
 * 2 MiB tables, 4 MiB memtables): `entries` snapshot-account-shaped records ("o" + a 32-byte hash key,
 * 80-byte random values) in hash order, then `overwrites` writes of keys drawn among them, so that
 * newer versions sit above older ones as on a node that kept running. LevelDB's tables carry no
 * properties: `check`'s placement overlay counts their blocks from their indexes and estimates their
 * entries (session 46; it scanned every entry above the bottom before).
 */
import { createHash, randomBytes } from "node:crypto";
import { openLevel } from "../src/samples/geth.js";

export async function writeLevelDbStore(dir: string, entries: number, overwrites: number): Promise<void> {
  const db = await openLevel(dir);
  const key = (i: number) =>
    Buffer.concat([Buffer.from("o"), createHash("sha256").update(String(i)).digest()]);
  let seed = 1;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const total = entries + overwrites;
  for (let i = 0; i < total; i += 1000) {
    const batch = db.batch();
    for (let j = i; j < Math.min(i + 1000, total); j++)
      batch.put(key(j < entries ? j : Math.floor(next() * entries)), randomBytes(80));
    await batch.write();
  }
  await db.close();
}
