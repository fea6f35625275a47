/**
 * Finding stores below a directory: every directory with CURRENT, to a bounded depth, through symlinks
 * without looping, and the datadir-level client verdict built from them.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inspectDatadir } from "../../src/datadir/index.js";
import { ldb, removeDir, tempDir } from "./helpers.js";

let dir: string;
beforeAll(() => {
  dir = tempDir();
  // Nethermind-shaped: nethermind_db/<network>/<database> with separate RocksDB instances
  for (const db of ["state", "code", "receipts"]) {
    const d = join(dir, "nm", "nethermind_db", "sepolia", db);
    mkdirSync(d, { recursive: true });
    ldb([`--db=${d}`, "--create_if_missing", "put", "k", "v"]);
  }
  ldb([
    `--db=${join(dir, "nm", "nethermind_db", "sepolia", "receipts")}`,
    "create_column_family",
    "Transactions",
  ]);
  // a loop: a link back up the tree, and a link to a sibling store
  symlinkSync(join(dir, "nm"), join(dir, "nm", "nethermind_db", "sepolia", "loop"));
  symlinkSync(join(dir, "nm", "nethermind_db", "sepolia", "code"), join(dir, "nm", "code-link"));
  // a store deeper than the depth bound
  const deep = join(dir, "deep", "a", "b", "c", "d", "e", "f", "store");
  mkdirSync(deep, { recursive: true });
  ldb([`--db=${deep}`, "--create_if_missing", "put", "k", "v"]);
  // Besu-shaped with a byte-named column family
  const besu = join(dir, "besu");
  mkdirSync(join(besu, "database"), { recursive: true });
  writeFileSync(
    join(besu, "DATABASE_METADATA.json"),
    JSON.stringify({ v2: { format: "BONSAI", version: 2 } }),
  );
  ldb([`--db=${join(besu, "database")}`, "--create_if_missing", "put", "k", "v"]);
  ldb([`--db=${join(besu, "database")}`, "create_column_family", "\x06"]);
  ldb([`--db=${join(besu, "database")}`, "create_column_family", "\x0a"]);
});
afterAll(() => removeDir(dir));

describe("store discovery", () => {
  it("finds every Nethermind instance once, through symlinks, without looping", async () => {
    const m = await inspectDatadir(join(dir, "nm"));
    expect(m.instances.map((i) => i.relPath).sort()).toEqual(
      ["nethermind_db/sepolia/code", "nethermind_db/sepolia/receipts", "nethermind_db/sepolia/state"].sort(),
    );
    expect(m.client.kind).toBe("nethermind");
    expect(m.client.nethermind?.network).toBe("sepolia");
    const receipts = m.instances.find((i) => i.clientDetail?.database === "receipts")!;
    expect(receipts.columnFamilies.map((c) => c.displayName)).toEqual([
      "receipts/default",
      "receipts/Transactions",
    ]);
    expect(m.complete).toBe(true);
  });

  it("stops at the depth bound", async () => {
    expect((await inspectDatadir(join(dir, "deep"), { maxDepth: 3 })).instances).toHaveLength(0);
    expect((await inspectDatadir(join(dir, "deep"), { maxDepth: 8 })).instances).toHaveLength(1);
  });

  it("Besu: metadata file, byte-named column families as hex with segment names", async () => {
    const m = await inspectDatadir(join(dir, "besu"));
    expect(m.client.kind).toBe("besu");
    expect(m.client.besu?.format).toBe("BONSAI");
    const inst = m.instances[0]!;
    expect(inst.relPath).toBe("database");
    expect(inst.columnFamilies.map((c) => [c.name, c.displayName])).toEqual([
      ["default", "default"],
      ["06", "cf06 ACCOUNT_INFO_STATE"],
      ["0a", "cf0a TRIE_LOG_STORAGE"],
    ]);
    // the OPTIONS file names them with raw bytes too, and they are matched
    expect(inst.columnFamilies.every((c) => c.options !== undefined)).toBe(true);
    // pointing at the store itself still finds the client one level up
    const direct = await inspectDatadir(join(dir, "besu", "database"));
    expect(direct.client.kind).toBe("besu");
    expect(direct.instances[0]!.columnFamilies[1]!.displayName).toBe("cf06 ACCOUNT_INFO_STATE");
  });

  it("a directory without any store: finding, incomplete, no crash", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const m = await inspectDatadir(empty);
    expect(m.instances).toHaveLength(0);
    expect(m.findings[0]!.code).toBe("no-store");
    expect(m.complete).toBe(false);
  });

  it("a missing directory is one clear error", async () => {
    await expect(inspectDatadir(join(dir, "nope"))).rejects.toThrow(/no such file or directory \(ENOENT\)/);
  });
});
