/**
 * Pebble's blob files (value separation) and its MANIFEST's blob references and virtual tables, on
 * Pebble's own testdata: tool/testdata/find-val-sep-db (three tables whose values live in three blob
 * files) and tool/testdata/broken-external-db (a virtual table over an external backing table). Oracles:
 * Pebble's `blob layout` (every block and value of 000012.blob), `sstable scan` (each value's handle,
 * and with --load-blobs-from the values themselves), `manifest dump` (blob files and references) and
 * the LSM that tool/testdata/db_excise lists for broken-external-db.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import type { DatadirModel, InstanceModel } from "../../src/datadir/model.js";
import { PebbleBlobFile } from "../../src/format/pebble_blob_file.js";
import { verifyStore } from "../../src/lsm/verify.js";
import { PebbleBlobStore } from "../../src/lsm/pebble_blob_values.js";
import { buildInspectReport } from "../../src/report/build.js";
import { renderInspectReport } from "../../src/report/render.js";
import { blobLines } from "../../src/tui/panes/blob.js";
import type { PaneProps } from "../../src/tui/panes/types.js";
import { trackedTempDirs } from "../helpers/index.js";
import { PEBBLE_FIXTURES, pebbleCases, pebbleOutput } from "./expected.js";

const STORE = join(PEBBLE_FIXTURES, "stores", "find-val-sep-db");
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-pebble-blob-");
afterAll(cleanupTemps);

/** Pebble's `blob layout` of 000012.blob: per block its offset, length and values (as text). */
function pebbleLayout(): { offset: number; length: number; values: string[] }[] {
  const out = pebbleOutput("blob_layout.txt", "blob layout", "./testdata/find-val-sep-db/000012.blob");
  const blocks: { offset: number; length: number; values: string[] }[] = [];
  for (const l of out.split("\n")) {
    const b = /^block (\d+): offset=(\d+) length=(\d+)$/.exec(l);
    if (b) blocks.push({ offset: Number(b[2]), length: Number(b[3]), values: [] });
    const v = /# data\[\d+\]: (.*)$/.exec(l);
    if (v) blocks[blocks.length - 1]!.values.push(v[1]!);
  }
  return blocks;
}

/** Pebble's `sstable scan` lines "key#seq,SET [(f0,blk1,id2,len9)]" per table of the store. */
function pebbleHandles(): Map<string, { ref: number; block: number; id: number; len: number }[]> {
  const out = pebbleOutput("sstable_scan.txt", "sstable scan", "./testdata/find-val-sep-db");
  const byTable = new Map<string, { ref: number; block: number; id: number; len: number }[]>();
  let table = "";
  for (const l of out.split("\n")) {
    if (/^find-val-sep-db\/\d+\.sst$/.test(l)) {
      table = l.split("/")[1]!;
      byTable.set(table, []);
    }
    const h = /\[\(f(\d+),blk(\d+),id(\d+),len(\d+)\)\]$/.exec(l);
    if (h) byTable.get(table)!.push({ ref: +h[1]!, block: +h[2]!, id: +h[3]!, len: +h[4]! });
  }
  return byTable;
}

/** Pebble's `sstable scan --load-blobs-from` values (hex) of one table, in its order. */
function pebbleLoadedValues(table: string): string[] {
  const c = pebbleCases("sstable_scan.txt").find(
    (k) =>
      k.args[0] === `./testdata/find-val-sep-db/${table}` &&
      k.args.includes("--load-blobs-from=find-val-sep-db"),
  )!;
  return c.output
    .split("\n")
    .map((l) => /\[([0-9a-f]+)\]$/.exec(l)?.[1])
    .filter((v): v is string => v !== undefined);
}

let model: DatadirModel;
let inst: InstanceModel;
beforeAll(async () => {
  model = await inspectDatadir(STORE, { tableDetails: "cheap" });
  inst = model.instances[0]!;
});

describe("Pebble blob files: the reader against Pebble's `blob layout`", () => {
  it("000012.blob: every block's offset and length, every value", () => {
    const want = pebbleLayout();
    expect(want).toHaveLength(4);
    const f = new PebbleBlobFile(join(STORE, "000012.blob"));
    try {
      expect(f.footer.format).toBe("blobV1");
      expect(f.footer.checksumType).toBe("crc32c");
      expect(f.blockCount).toBe(want.length);
      want.forEach((w, i) => {
        expect(f.blockHandle(i)).toEqual({ offset: w.offset, size: w.length });
        const b = f.valueBlock(i);
        const got = [];
        for (let r = 0; r < b.rows; r++) {
          const [s, e] = b.range(r);
          got.push(b.data.toString("latin1", s, e));
        }
        expect(got).toEqual(w.values);
      });
    } finally {
      f.close();
    }
  });
});

describe("Pebble blob files in format blobV2", () => {
  it("are refused by name (no Pebble-written blobV2 file exists to check a reader against)", () => {
    const dir = tempDir();
    const b = readFileSync(join(STORE, "000006.blob"));
    b[b.length - 1] = 0x82; // blobV2's magic ends f0 9f a6 82
    writeFileSync(join(dir, "000006.blob"), b);
    expect(() => new PebbleBlobFile(join(dir, "000006.blob"))).toThrow(
      /Pebble blob file in format blobV2, which lsmscope does not read/,
    );
  });
});

describe("Pebble blob references: every handle of Pebble's `sstable scan` resolves", () => {
  /** A blob handle as Pebble encodes it after the value prefix (blob.InlineHandle.Encode: uvarints). */
  const encode = (h: { ref: number; block: number; id: number; len: number }) => {
    const out: number[] = [];
    for (let v of [h.ref, h.len, h.block, h.id]) {
      while (v >= 0x80) {
        out.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.push(v);
    }
    return Buffer.from(out);
  };

  it("through the table's blob references and the MANIFEST's blob files: Pebble's lengths and values", () => {
    const handles = pebbleHandles();
    expect([...handles.keys()]).toEqual(["000005.sst", "000008.sst", "000011.sst"]);
    const cf = inst.columnFamilies[0]!;
    const store = new PebbleBlobStore(cf);
    try {
      for (const [table, hs] of handles) {
        const t = cf.levels.flatMap((l) => l.files).find((x) => x.fileName === table)!;
        const src = store.forTable(t);
        const got = hs.map((h) => {
          const b = encode(h);
          const v = src.resolve(b, 0, b.length);
          expect(v.length).toBe(h.len);
          return v.data.toString("hex", v.offset, v.offset + v.length);
        });
        // Pebble printed the loaded values of two tables (000005.sst's fourth value is stored in place)
        if (table !== "000011.sst") expect(got).toEqual(pebbleLoadedValues(table).slice(0, got.length));
        // 000011.sst: key gggN holds chickenN (blob layout of 000012.blob)
        else
          expect(got.map((x) => Buffer.from(x, "hex").toString()).slice(0, 3)).toEqual([
            "chicken0",
            "chicken1",
            "chicken10",
          ]);
      }
      expect(store.values).toBe(35);
      // a handle naming a reference the table does not have, or a length its value does not have
      const t5 = cf.levels.flatMap((l) => l.files).find((x) => x.fileName === "000005.sst")!;
      const bad = encode({ ref: 1, block: 0, id: 0, len: 5 });
      expect(() => store.forTable(t5).resolve(bad, 0, bad.length)).toThrow(
        /blob reference 1; the MANIFEST gives the table 1/,
      );
      const long = encode({ ref: 0, block: 0, id: 0, len: 6 });
      expect(() => store.forTable(t5).resolve(long, 0, long.length)).toThrow(
        /has 5 bytes, its handle .* says 6/,
      );
    } finally {
      store.close();
    }
  });
});

describe("Pebble blob files in the model: as Pebble's `manifest dump` lists them", () => {
  it("blob files (id, file, size, value bytes) and each table's blob references", () => {
    const dump = pebbleOutput(
      "manifest_dump.txt",
      "manifest dump",
      "./testdata/find-val-sep-db/MANIFEST-000001",
    );
    const version = dump.split("\nEOF\n")[1]!;
    const files = [...version.matchAll(/^ {2}B(\d+) physical:\{(\d+) size:\[(\d+) .*vals:\[(\d+) /gm)].map(
      (m) => ({
        blobFileId: Number(m[1]),
        fileNumber: Number(m[2]),
        fileSize: Number(m[3]),
        valueBytes: Number(m[4]),
      }),
    );
    expect(files).toHaveLength(3);
    const cf = inst.columnFamilies[0]!;
    expect(
      cf.pebbleBlobFiles!.map((b) => ({
        blobFileId: b.blobFileId,
        fileNumber: b.fileNumber,
        fileSize: b.fileSize,
        valueBytes: b.valueBytes,
      })),
    ).toEqual(files);
    for (const b of cf.pebbleBlobFiles!) {
      expect(b.present).toBe(true);
      expect(b.diskSize).toBe(b.fileSize);
      expect(b.format).toBe("blobV1");
    }
    const refs = [...version.matchAll(/^ {2}(\d+):\[.* blobrefs:\[\(B(\d+): (\d+)\); depth:1\]/gm)].map(
      (m) => ({
        table: Number(m[1]),
        refs: [{ blobFileId: Number(m[2]), valueBytes: Number(m[3]) }],
      }),
    );
    expect(refs).toHaveLength(3);
    const tables = cf.levels.flatMap((l) => l.files).sort((a, b) => a.fileNumber - b.fileNumber);
    expect(tables.map((t) => ({ table: t.fileNumber, refs: t.blobReferences }))).toEqual(refs);
    expect(cf.totals.blobFiles).toBe(3);
    expect(inst.totals.blobFileBytes).toBe(109 + 103 + 346);
    expect(inst.unreferencedBlobFiles).toEqual([]);
  });
});

describe("Pebble blob files in inspect's text and the TUI's blob pane", () => {
  it("the column family's line counts them and their value bytes; the pane lists each file", () => {
    const report = buildInspectReport(model);
    const text = renderInspectReport(report);
    expect(text).toContain("3 blob files 558 B · total");
    expect(text).toContain("blob files (value separation): 3 files 558 B, values 291 B (MANIFEST)");
    expect(text).toContain("3 tables reference 291 B of them; blobV1 ×3; checksum crc32c ×3");
    expect(text).not.toContain("listed, not read");
    for (const l of text.split("\n").filter((x) => /value separation|tables reference/.test(x)))
      expect(l.length).toBeLessThanOrEqual(80);
    const cf = report.instances[0]!.cfs[0]!;
    const lines = blobLines({ cf } as unknown as PaneProps);
    expect(lines).toContain("000012.blob  blob file id 12  346 B  values 260 B (MANIFEST)");
    expect(lines).toContain("  blobV1, crc32c, 4 value blocks  referenced by 1 table (260 B)");
    expect(lines).not.toContain("no blob files");
  });
});

describe("inspect --verify over Pebble blob files", () => {
  it("every value block checksummed and decoded, the values' bytes equal the MANIFEST's", async () => {
    const m = await inspectDatadir(STORE, { tableDetails: "cheap" });
    const r = await verifyStore(m, { threads: 1 });
    expect(r.blobFiles.files).toBe(3);
    expect(r.blobFiles.records).toBe(3 + 2 + 30);
    expect(m.findings.filter((f) => f.file.endsWith(".blob"))).toEqual([]);
  });

  it("a flipped byte in a value block, and a truncated file, are located findings", async () => {
    const dir = tempDir();
    cpSync(STORE, dir, { recursive: true });
    const p = join(dir, "000012.blob");
    const b = readFileSync(p);
    b[67 + 20]! ^= 0x01; // inside block 1 (offset 67)
    writeFileSync(p, b);
    writeFileSync(join(dir, "000009.blob"), readFileSync(join(STORE, "000009.blob")).subarray(0, 90));
    const m = await inspectDatadir(dir, { tableDetails: "cheap" });
    expect(m.complete).toBe(false);
    const cut = m.findings.find((f) => f.file.endsWith("000009.blob"));
    expect(cut?.code).toBe("blob-unreadable");
    await verifyStore(m, { threads: 1 });
    const flipped = m.findings.find((f) => f.file.endsWith("000012.blob"));
    expect(flipped?.code).toBe("verify-failed");
    expect(flipped?.offset).toBe(67);
    expect(flipped?.message).toMatch(/blob value block: crc32c checksum mismatch/);
  });
});

describe("Pebble virtual tables: broken-external-db", () => {
  it("the LSM tool/testdata/db_excise lists: L0 000008 virtual over backing 000008, L6 000005 and 000007", async () => {
    // db_excise's comment: 000008(000008):[a25#16,DELSIZED-c19#inf,RANGEDEL] … size:123 in L0.0,
    // 000005:[a10#10,SET-a30#12,SET] … size:617 and 000007:[c10#13,SET-c30#15,SET] … size:618 in L6
    expect(readFileSync(join(PEBBLE_FIXTURES, "expected", "db_excise.txt"), "latin1")).toContain(
      "000008(000008):[a25#16,DELSIZED-c19#inf,RANGEDEL]",
    );
    const m = await inspectDatadir(join(PEBBLE_FIXTURES, "stores", "broken-external-db"));
    const cf = m.instances[0]!.columnFamilies[0]!;
    const rows = cf.levels.flatMap((l) =>
      l.files.map((f) => ({
        level: l.level,
        table: f.fileNumber,
        backing: f.virtualBacking,
        smallest: Buffer.from(f.smallestKey, "hex").toString(),
        largest: Buffer.from(f.largestKey, "hex").toString(),
        size: f.fileSize,
      })),
    );
    expect(rows).toEqual([
      { level: 0, table: 8, backing: 8, smallest: "a25", largest: "c19", size: 123 },
      { level: 6, table: 5, backing: undefined, smallest: "a10", largest: "a30", size: 617 },
      { level: 6, table: 7, backing: undefined, smallest: "c10", largest: "c30", size: 618 },
    ]);
    // the backing table is an external object (REMOTE-OBJ-CATALOG: locator "external", object
    // "foo.sst", as tool/testdata/make-fixtures.go wrote it), not a local file: Pebble's own `db scan`
    // fails on it too ("unknown to the objstorage provider")
    const t8 = cf.levels[0]!.files[0]!;
    expect(t8.present).toBe(false);
    expect(t8.remote).toEqual({ locator: "external", name: "foo.sst" });
    const f = m.findings.find((x) => x.file.endsWith("000008.sst"))!;
    expect(f.code).toBe("sst-remote");
    expect(f.message).toContain("locator external, object foo.sst");
    expect(m.complete).toBe(false);
  });
});
