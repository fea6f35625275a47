/**
 * The samples written without the engine addon: geth-leveldb read back with classic-level (LevelDB)
 * and `ldb dump_wal` on its log; modern (format 6) checked at the byte level (footer version, XXH3
 * checksum type, compression dictionary meta block) and read back with @nxtedition/rocksdb — both on
 * temporary copies only.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { gethKeyCategory } from "../../src/eth/geth_schema.js";
import { SAMPLES, cleanupTemps, copyStore, haveRocksTools, ldbWalPuts, readTruth } from "./helpers.js";
import { recountEthereum } from "./recount.js";

afterAll(cleanupTemps);

describe("geth-leveldb sample", () => {
  it("classic-level reads back the ground truth (key categories, accounts, code)", async () => {
    const truth = readTruth("geth-leveldb");
    const dir = copyStore(join(SAMPLES, "geth-leveldb", "geth", "chaindata"));
    expect(readdirSync(dir).some((f) => f.endsWith(".ldb"))).toBe(true);
    const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
    await db.open({ createIfMissing: false });
    const cats: Record<string, number> = {};
    const accounts: Buffer[] = [];
    const codes: [Buffer, Buffer][] = [];
    let n = 0;
    for await (const [k, v] of db.iterator()) {
      n++;
      const c = gethKeyCategory(k);
      cats[c] = (cats[c] ?? 0) + 1;
      if (c === "Account snapshot") accounts.push(v);
      if (c === "Contract codes") codes.push([k.subarray(1), v]);
    }
    await db.close();
    expect(n).toBe(truth.instances["geth/chaindata"]!.columnFamilies.default!.keys);
    expect(cats).toEqual(truth.keyCategories);
    const re = recountEthereum(accounts, codes);
    expect(re.accounts).toEqual(truth.accounts);
    expect(re.code.distinctSizes).toEqual(truth.code.distinctSizes);
  });

  it.skipIf(!haveRocksTools)("its LevelDB log holds the unflushed writes", () => {
    const truth = readTruth("geth-leveldb");
    const dir = copyStore(join(SAMPLES, "geth-leveldb", "geth", "chaindata"));
    const logs = readdirSync(dir).filter((f) => f.endsWith(".log"));
    expect(logs.reduce((s, f) => s + ldbWalPuts(join(dir, f)), 0)).toBe(truth.history.unflushedWalWrites);
  });
});

describe("modern sample", () => {
  const dir = join(SAMPLES, "modern");
  const ssts = readdirSync(dir).filter((f) => f.endsWith(".sst"));

  it("every table is format_version 6 with XXH3 checksums and a ZSTD dictionary", () => {
    expect(ssts.length).toBeGreaterThan(0);
    for (const f of ssts) {
      const buf = readFileSync(join(dir, f));
      const footer = buf.subarray(buf.length - 53);
      // format ≥ 6 footer: checksum type, extended magic 3e 00 7a 00, ..., format_version (LE32), magic
      expect(footer.readBigUInt64LE(45)).toBe(0x88e241b785f4cff7n);
      expect(footer.readUInt32LE(41)).toBe(6);
      expect(footer[0], "checksum type kXXH3").toBe(4);
      expect(footer.subarray(1, 5).toString("hex")).toBe("3e007a00");
      expect(buf.includes("rocksdb.compression_dict")).toBe(true);
      expect(buf.includes("ZSTD")).toBe(true);
    }
    const opts = readFileSync(
      join(
        dir,
        readdirSync(dir)
          .filter((f) => f.startsWith("OPTIONS-"))
          .sort()
          .pop()!,
      ),
      "utf8",
    );
    expect(opts).toMatch(/format_version=6/);
    expect(opts).toMatch(/checksum=kXXH3/);
    expect(opts).toMatch(/max_dict_bytes=16384/);
  });

  it("@nxtedition/rocksdb reads back the ground truth (on a copy)", async () => {
    const truth = readTruth("modern");
    const copy = copyStore(dir);
    const require = createRequire(import.meta.url);
    const { RocksLevel } = require("@nxtedition/rocksdb");
    const columns = { default: {}, accounts: {}, code: {}, storage: {} };
    const db = new RocksLevel(copy, { columns, keyEncoding: "buffer", valueEncoding: "buffer" });
    await db.open({ columns });
    const read = async (cf: string) => {
      const rows: [Buffer, Buffer][] = [];
      for await (const [k, v] of db.iterator({
        column: db.columns[cf],
        keyEncoding: "buffer",
        valueEncoding: "buffer",
      }))
        rows.push([Buffer.from(k), Buffer.from(v)]);
      return rows;
    };
    const counts: Record<string, number> = {};
    const data: Record<string, [Buffer, Buffer][]> = {};
    for (const cf of Object.keys(columns)) {
      data[cf] = await read(cf);
      counts[cf] = data[cf]!.length;
    }
    await db.close();
    for (const [cf, t] of Object.entries(truth.instances["."]!.columnFamilies))
      expect(counts[cf], cf).toBe(t.keys);
    const re = recountEthereum(
      data.accounts!.map(([, v]) => v),
      data.code!,
    );
    expect(re.accounts).toEqual(truth.accounts);
    expect(re.code.perContractSizes).toEqual(truth.code.perContractSizes);
  });
});
