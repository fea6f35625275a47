/**
 * A store's live contents as lsmscope reads them, in the form writers' own views are printed in
 * (test/fixtures/rocksdb-native/write.mjs, the writers inside the tests): each key and value in key
 * order, a big-endian 32-bit length and then the bytes, hashed; and `probe`'s reader path over keys.
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ColumnFamilyModel, InstanceModel } from "../../src/datadir/model.js";
import { LiveCursor } from "../../src/lsm/live.js";
import { REPO } from "./index.js";

/** Live keys counted and hashed with their values (the writers' form), and the keys, hex. */
export interface LiveView {
  entries: number;
  valueBytes: number;
  sha256: string;
  keys: string[];
}

/** Adds keys and values to a hash in the writers' form. */
export class ContentsHash {
  private readonly hash = createHash("sha256");
  private readonly len = Buffer.alloc(4);
  entries = 0;
  valueBytes = 0;
  add(key: Uint8Array, value: Uint8Array): void {
    this.entries++;
    this.valueBytes += value.length;
    for (const b of [key, value]) {
      this.len.writeUInt32BE(b.length, 0);
      this.hash.update(this.len);
      this.hash.update(b);
    }
  }
  digest(): string {
    return this.hash.digest("hex");
  }
}

/** The live contents of `cf` through LiveCursor (the newest-version merge, WAL and blob files included). */
export function liveView(inst: InstanceModel, cf: ColumnFamilyModel): LiveView {
  const h = new ContentsHash();
  const keys: string[] = [];
  const c = new LiveCursor(inst, cf);
  try {
    for (let e = c.next(); e; e = c.next()) {
      h.add(e.key, e.value);
      keys.push(Buffer.from(e.key).toString("hex"));
    }
  } finally {
    c.close();
  }
  return { entries: h.entries, valueBytes: h.valueBytes, sha256: h.digest(), keys };
}

/** `probe DIR --cf CF --keys FILE` on the reader path over `keys` (hex): its lookups and keys found. */
export function probeFound(dir: string, cf: string, keys: string[]): { lookups: number; found: number } {
  const tmp = mkdtempSync(join(tmpdir(), "lsmscope-probe-keys-"));
  try {
    const file = join(tmp, "keys.txt");
    writeFileSync(file, keys.join("\n") + "\n");
    const r = spawnSync(
      join(REPO, "bin", "lsmscope.js"),
      ["probe", dir, "--cf", cf, "--keys", file, "--count", String(keys.length), "--json"],
      { encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`probe exited ${r.status}: ${r.stderr}`);
    const point = (JSON.parse(r.stdout) as { points: { lookups: number; found: number }[] }).points[0]!;
    return { lookups: point.lookups, found: point.found };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
