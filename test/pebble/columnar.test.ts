/**
 * Pebble's columnar tables ((Pebble,v5)-v7) against Pebble's own outputs: every columnar table of
 * Pebble's testdata history (test/fixtures/pebble/tables/columnar and the find-val-sep-db store), read
 * with totals equal to its properties and the format its footer states; the cr-schema tables' entries
 * against Pebble's `sstable scan`, their layout against `sstable properties` and `sstable layout`; the
 * DefaultKeySchema blocks Pebble printed byte for byte in its columnar writer's testdata.
 *
 * sst_dump cannot be the oracle here: RocksDB refuses every Pebble table ("Unsupported table magic
 * number", or for a 61-byte (Pebble,v7) footer "Corrupt or unsupported format_version", then "not a
 * valid SST file"; the first test shows it), so Pebble's own expected outputs are.
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { crc32c } from "@node-rs/crc32";
import { afterAll, describe, expect, it } from "vitest";
import { openTable, type SstTable } from "../../src/format/index.js";
import { describeTable } from "../../src/report/sst.js";
import { maskCrc32c } from "../../src/base/crc.js";
import { LsmscopeError } from "../../src/util/errors.js";
import { ColumnarDataCursor } from "../../src/format/pebble/colblk_data.js";
import { decodeKeyspanBlock } from "../../src/format/pebble/colblk_keyspan.js";
import { keySchemaByName } from "../../src/format/pebble/key_schema.js";
import { userKeyCompare } from "../../src/format/pebble/comparers.js";
import { pebbleAsValueType } from "../../src/format/pebble.js";
import { ColumnarBlock } from "../../src/format/pebble/colblk.js";
import { makeTempDir, removeDir } from "../format/oracle.js";
import { exercise } from "../format/mutate.js";
import { PEBBLE_FIXTURES, pebbleCases, pebbleOutput, propertiesSummary } from "./expected.js";

const COLUMNAR = join(PEBBLE_FIXTURES, "tables", "columnar");
const STORE = join(PEBBLE_FIXTURES, "stores", "find-val-sep-db");
const bin = join(import.meta.dirname, "..", "..", "bin", "lsmscope.js");
const HISTORY = join(PEBBLE_FIXTURES, "tables", "columnar-history");
const columnarTables = [
  ...[COLUMNAR, HISTORY].flatMap((d) =>
    readdirSync(d)
      .sort()
      .map((f) => join(d, f)),
  ),
  ...readdirSync(STORE)
    .filter((f) => f.endsWith(".sst"))
    .sort()
    .map((f) => join(STORE, f)),
];
const CR_SCHEMA = ["cr-schema.v5.sst", "cr-schema.v6.sst", "cr-schema.v7.sst"].map((f) => join(COLUMNAR, f));

const tmp = makeTempDir("pebble-columnar");
afterAll(() => removeDir(tmp));

const footerVersion = (file: string) => {
  const b = readFileSync(file);
  return b.readUInt32LE(b.length - 12);
};
const num = (v: unknown) => (typeof v === "number" ? v : 0);

/** The scan's totals beside the properties that state them. */
function totals(t: SstTable) {
  const s = t.scan();
  const p = t.properties;
  return {
    got: {
      entries: s.entries,
      rawKey: s.rawKeyBytes,
      rawValue: s.rawValueBytes,
      rangeDeletions: s.rangeDeletions,
      deletions: s.deletions,
      merges: s.mergeOperands,
      dataBlocks: s.dataBlocks,
      dataSize: s.dataBlockBytes + s.dataBlocks * 5,
      valuesInValueBlocks: s.valuesInValueBlocks ?? 0,
      valuesInBlobFiles: s.valuesInBlobFiles ?? 0,
    },
    stated: {
      entries: p["rocksdb.num.entries"],
      rawKey: p["rocksdb.raw.key.size"],
      rawValue: p["rocksdb.raw.value.size"],
      rangeDeletions: num(p["rocksdb.num.range-deletions"]),
      deletions: p["rocksdb.deleted.keys"],
      merges: num(p["rocksdb.merge.operands"]),
      dataBlocks: p["rocksdb.num.data.blocks"],
      dataSize: p["rocksdb.data.size"],
      valuesInValueBlocks: num(p["pebble.num.values.in.value-blocks"]),
      valuesInBlobFiles: num(p["pebble.num.values.in.blob-files"]),
    },
  };
}

describe("every columnar Pebble table reads with totals equal to its properties", () => {
  it("RocksDB's sst_dump refuses them all (so it cannot be the oracle)", () => {
    for (const file of columnarTables) {
      const r = spawnSync("sst_dump", [`--file=${file}`, "--command=scan"], { encoding: "utf8" });
      expect(r.stdout + r.stderr).toContain("is not a valid SST file");
    }
  });

  for (const file of columnarTables) {
    it(`${file.slice(PEBBLE_FIXTURES.length + 1)}: format from the footer, totals, verify ok`, () => {
      const t = openTable(file);
      try {
        expect(t.format).toBe("pebble");
        expect(t.formatVersion).toBe(footerVersion(file));
        expect(t.formatVersion).toBeGreaterThanOrEqual(5);
        expect(t.pebbleFormat).toBe(`(Pebble,v${footerVersion(file)})`);
        const { got, stated } = totals(t);
        expect(got).toEqual(stated);
        expect(t.verifyAllBlocks().blocks).toBeGreaterThan(2);
      } finally {
        t.close();
      }
      const v = describeTable(file, { verify: true }).verify!;
      expect(v).toMatchObject({ ok: true, checksums: true, keyOrderChecked: true, errors: [] });
    });
  }
});

/** A CockroachDB engine key as Pebble's tool prints it: roach key[@wall seconds.nanos,logical]. */
function formatCockroachKey(k: Buffer): string {
  const versionLength = k[k.length - 1]!;
  if (versionLength === 0) return k.toString("latin1", 0, k.length - 1);
  const roach = k.toString("latin1", 0, k.length - versionLength - 1);
  const at = k.length - versionLength;
  const wall = k.readBigUInt64BE(at);
  const logical = versionLength >= 13 ? k.readUInt32BE(at + 8) : 0;
  const nanos = (wall % 1_000_000_000n).toString().padStart(9, "0");
  return `${roach}@${wall / 1_000_000_000n}.${nanos},${logical}`;
}

describe("the cr-schema tables (key schema crdb1) against Pebble's `sstable scan`", () => {
  // the three tables hold the same 20 keys; Pebble's expected scan of each (tool/testdata/sstable_scan at
  // the commits in SOURCES.md) is the same, and the v7 one is kept in expected/sstable_scan.txt
  const want = pebbleOutput("sstable_scan.txt", "sstable scan", "./testdata/cr-schema-sst/000014.sst")
    .split("\n")
    .slice(1)
    .map((l) => /^(.*)#(\d+),(\w+) \[([0-9a-f]*)\]$/.exec(l)!)
    .map(([, key, seq, kind, value]) => ({ key, seq: Number(seq), kind, value }));
  for (const file of CR_SCHEMA) {
    it(file.slice(COLUMNAR.length + 1), () => {
      const t = openTable(file);
      try {
        expect(t.columnar?.schemaName).toBe("crdb1");
        const got: { key: string; seq: number; kind: string; value?: string; length: number }[] = [];
        t.scan((e) => {
          const c = e as ColumnarDataCursor;
          got.push({
            key: formatCockroachKey(e.userKeyCopy()),
            seq: e.seqno,
            kind: e.type === 1 ? "SET" : String(e.type),
            // values in value blocks are not resolved: their handles declare the length
            ...(c.valueInValueBlock ? {} : { value: e.valueCopy().toString("hex") }),
            length: c.declaredValueLength,
          });
        });
        expect(got.map((g) => [g.key, g.seq, g.kind])).toEqual(want.map((w) => [w.key, w.seq, w.kind]));
        got.forEach((g, i) => {
          expect(g.length).toBe(want[i]!.value!.length / 2);
          if (g.value !== undefined) expect(g.value).toBe(want[i]!.value);
        });
        expect(got.filter((g) => g.value === undefined).length).toBe(
          t.properties["pebble.num.values.in.value-blocks"],
        );
      } finally {
        t.close();
      }
    });
  }

  it("CockroachDB's key order holds over the 20 keys, and fails when two are swapped", () => {
    const t = openTable(CR_SCHEMA[2]!);
    const keys: Buffer[] = [];
    t.scan((e) => void keys.push(e.userKeyCopy()));
    t.close();
    const cmp = userKeyCompare("cockroach_comparator")!;
    for (let i = 1; i < keys.length; i++) {
      expect(cmp(keys[i - 1]!, keys[i - 1]!.length, keys[i]!, keys[i]!.length)).toBeLessThan(0);
      expect(cmp(keys[i]!, keys[i]!.length, keys[i - 1]!, keys[i - 1]!.length)).toBeGreaterThan(0);
    }
  });

  it("the v7 table: records, blocks, index and key schema as Pebble's `sstable properties` printed them", () => {
    const want = propertiesSummary(
      pebbleOutput("sstable_properties.txt", "sstable properties", "./testdata/cr-schema-sst/000014.sst"),
    );
    const r = describeTable(CR_SCHEMA[2]!, { scan: true, blocks: true });
    expect(r.pebbleFormat).toBe(want.get("format"));
    expect(String(r.scan!.entries)).toBe(want.get("records"));
    expect(String(r.scan!.dataEntries)).toBe(want.get("records.set"));
    expect(String(r.scan!.dataBlocks)).toBe(want.get("size.data.blocks"));
    expect(`${r.scan!.rawKeyBytes}B`).toBe(want.get("size.raw-key"));
    expect(`${r.scan!.rawValueBytes}B`).toBe(want.get("size.raw-value"));
    // index blocks: the partitions the walk went through, and the top level
    const partitions = new Set(r.blocks!.map((b) => b.partition)).size;
    expect(String(partitions + 1)).toBe(want.get("size.index.blocks"));
    expect(r.indexType).toBe("two-level");
    expect(`${r.properties["rocksdb.top-level.index.size"]}B`).toBe(want.get("size.index.top-level"));
    expect(r.properties["pebble.colblk.schema"]).toBe(want.get("key-schema"));
    expect(r.compression).toBe(want.get("compression"));
  });
});

describe("the find-val-sep-db tables against Pebble's `sstable scan` and `sstable layout`", () => {
  const cases = pebbleOutput("sstable_scan.txt", "sstable scan", "./testdata/find-val-sep-db");
  it("keys, seqnums and blob value lengths of the three tables", () => {
    const want = new Map<string, string[]>();
    let table = "";
    for (const line of cases.split("\n")) {
      if (/^find-val-sep-db\/\d+\.sst$/.test(line)) want.set((table = line.split("/")[1]!), []);
      else want.get(table)!.push(line);
    }
    expect(want.size).toBe(3);
    for (const [name, lines] of want) {
      const t = openTable(join(STORE, name));
      const got: string[] = [];
      t.scan((e) => {
        const c = e as ColumnarDataCursor;
        const key = e.userKeyCopy().toString("latin1").replace(/\x00/g, "\\x00");
        const value = c.valueInBlobFile ? `len${c.declaredValueLength}` : e.valueCopy().toString("hex");
        got.push(`${key}#${e.seqno},SET [${value}]`);
      });
      t.close();
      // Pebble prints a blob handle as (file,block,id,length): its length is what the handle declares
      expect(got).toEqual(lines.map((l) => l.replace(/\[\(f\d+,blk\d+,id\d+,(len\d+)\)\]/, "[$1]")));
    }
  });

  for (const name of ["000008.sst", "000011.sst"]) {
    it(`${name}: footer, metaindex, index and blocks where Pebble's layout puts them`, () => {
      const raw = pebbleCases("sstable_layout.txt").find(
        (c) => c.command === "sstable layout" && c.args.join(" ") === `testdata/find-val-sep-db/${name} -v`,
      )!.output;
      const out = Buffer.from(raw, "latin1").toString("utf8"); // the tree's characters, as written

      const r = describeTable(join(STORE, name), { blocks: true });
      const footer = /footer {2}offset: (\d+)/.exec(out)!;
      expect(r.footer.footerOffset).toBe(Number(footer[1]));
      const meta = /meta: offset=(\d+), length=(\d+)/.exec(out)!;
      expect(r.footer.metaindex).toEqual({ offset: Number(meta[1]), size: Number(meta[2]) });
      const index = /index: offset=(\d+), length=(\d+)/.exec(out)!;
      expect(r.footer.index).toEqual({ offset: Number(index[1]), size: Number(index[2]) });
      expect(`[${r.footer.attributes!.join(",")}]`).toBe(/attributes: (\[.*\])/.exec(out)![1]);
      expect(`0x${r.footer.footerChecksum!.toString(16)}`).toBe(
        /footer checksum: (0x[0-9a-f]+)/.exec(out)![1],
      );
      expect(String(r.formatVersion)).toBe(/version: (\d+)/.exec(out)![1]);
      const data = [...out.matchAll(/── data {2}offset: (\d+) {2}length: (\d+)/g)].map((m) => ({
        offset: Number(m[1]),
        size: Number(m[2]),
      }));
      expect(r.blocks!.map((b) => ({ offset: b.offset, size: b.size }))).toEqual(data);
      const props = /── properties {2}offset: (\d+) {2}length: (\d+)/.exec(out)!;
      expect(r.metaBlocks.find((m) => m.name === "rocksdb.properties")).toMatchObject({
        offset: Number(props[1]),
        size: Number(props[2]),
      });
    });
  }

  it("Pebble's `sstable check` passes the v7 table, and so does --verify", () => {
    expect(pebbleOutput("sstable_check.txt", "sstable check", "testdata/find-val-sep-db/000005.sst")).toBe(
      "000005.sst",
    );
    const v = describeTable(join(STORE, "000005.sst"), { verify: true }).verify!;
    expect(v).toMatchObject({ ok: true, keyOrderChecked: true });
  });
});

/**
 * The bytes of one block from a layout dump of Pebble (binfmt lines "NN-MM: x <hex>" and
 * "NN-MM: b <bits>", offsets from the block's start; bits in groups of 8, one byte each).
 */
function dumpBytes(lines: string[]): Buffer {
  const parts: [number, number, Buffer][] = [];
  for (const l of lines) {
    const m = /(\d+)-(\d+): ([xb]) ([0-9a-f01]*)/.exec(l);
    if (!m) continue;
    const bytes =
      m[3] === "x"
        ? Buffer.from(m[4]!, "hex")
        : Buffer.from(m[4]!.match(/.{8}/g)?.map((b) => parseInt(b, 2)) ?? []);
    parts.push([Number(m[1]), Number(m[2]), bytes]);
  }
  const size = Math.max(...parts.map((p) => p[1]));
  const out = Buffer.alloc(size);
  let covered = 0;
  for (const [from, to, bytes] of parts) {
    expect(bytes.length).toBe(to - from);
    bytes.copy(out, from);
    covered += to - from;
  }
  expect(covered).toBe(size);
  return out;
}

/** The blocks of one `layout` output: kind ("data", "range-del", "range-key") and the dumped bytes. */
function dumpedBlocks(layout: string): { kind: string; length: number; bytes: Buffer }[] {
  const out: { kind: string; length: number; bytes: Buffer }[] = [];
  let cur: { kind: string; length: number; lines: string[] } | undefined;
  const flush = () => {
    if (cur && cur.lines.some((l) => / [xb] /.test(l)))
      out.push({ kind: cur.kind, length: cur.length, bytes: dumpBytes(cur.lines) });
  };
  // pebbleCases reads latin1: the tree's box-drawing characters come back from their UTF-8 bytes
  for (const line of Buffer.from(layout, "latin1").toString("utf8").split("\n")) {
    const m = /^ [├└]── ([a-z-]+) {2}offset: \d+ {2}length: (\d+)/.exec(line);
    if (m || /^ [├└]── /.test(line)) {
      flush();
      cur = m ? { kind: m[1]!, length: Number(m[2]), lines: [] } : undefined;
    } else if (cur && !/trailer \[/.test(line)) cur.lines.push(line);
  }
  flush();
  return out;
}

describe("DefaultKeySchema blocks Pebble printed in its columnar writer's testdata", () => {
  const cases = pebbleCases("../colblk/columnar_writer_simple_binary.txt");
  const layouts: { input: string[]; blocks: ReturnType<typeof dumpedBlocks> }[] = [];
  let input: string[] = [];
  for (const c of cases) {
    if (c.command.startsWith("build")) input = c.args;
    else if (c.command === "layout") layouts.push({ input, blocks: dumpedBlocks(c.output) });
  }
  const schema = keySchemaByName("DefaultKeySchema(pebble.internal.testkeys,16)")!;

  it("the writer's point keys: user key, seqno, kind and value of every row, in order", () => {
    let blocks = 0;
    for (const { input: lines, blocks: dumped } of layouts) {
      const want = lines
        .filter((l) => !l.startsWith("Span:"))
        .map((l) => /^(.*)#(\d+),(\w+):(.*)$/.exec(l)!)
        .map(([, k, s, kind, v]) => `${k}#${s},${kind}:${v}`);
      const got: string[] = [];
      for (const b of dumped.filter((d) => d.kind === "data")) {
        blocks++;
        expect(b.bytes.length).toBe(b.length);
        const c = new ColumnarDataCursor(schema).load(b.bytes, { file: "dump", kind: "data", offset: 0 });
        while (c.next()) {
          const kind = c.type === 1 ? "SET" : c.type === 0 ? "DEL" : String(c.type);
          got.push(
            `${c.userKeyCopy().toString("latin1")}#${c.seqno},${kind}:${c.valueCopy().toString("latin1")}`,
          );
        }
      }
      if (got.length > 0) expect(got).toEqual(want);
    }
    expect(blocks).toBeGreaterThanOrEqual(5);
  });

  it("the writer's range deletions and range keys: bounds, seqno and kind of every key", () => {
    const spans: string[] = [];
    const want: string[] = [];
    for (const { input: lines, blocks: dumped } of layouts) {
      for (const l of lines.filter((x) => x.startsWith("Span:"))) {
        const m = /^Span: (\w+)-(\w+):\{\(#(\d+),(\w+)/.exec(l)!;
        want.push(`${m[1]}-${m[2]}#${m[3]},${m[4]}`);
      }
      for (const b of dumped.filter((d) => d.kind === "range-del" || d.kind === "range-key")) {
        const names: Record<number, string> = { 15: "RANGEDEL", 19: "RANGEKEYDEL", 21: "RANGEKEYSET" };
        for (const k of decodeKeyspanBlock(b.bytes).keys)
          spans.push(`${k.start.toString()}-${k.end.toString()}#${k.seqno},${names[k.kind]}`);
      }
    }
    expect(want.length).toBe(3);
    expect(spans).toEqual(want);
  });
});

/** A copy of a fixture with `edit` applied, and the block at `blockOffset` (size `size`) re-checksummed. */
function editedCopy(
  file: string,
  name: string,
  edit: (b: Buffer) => void,
  reseal?: { offset: number; size: number },
) {
  const b = readFileSync(file);
  edit(b);
  if (reseal) {
    const end = reseal.offset + reseal.size;
    b.writeUInt32LE(maskCrc32c(crc32c(b.subarray(reseal.offset, end + 1)) >>> 0), end + 1);
  }
  const out = join(tmp, name);
  writeFileSync(out, b);
  return out;
}

function lsmscope(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
}

describe("damage in columnar tables is located", () => {
  it("a flipped byte in a columnar data block: checksum error at that block, exit 2", () => {
    const file = editedCopy(CR_SCHEMA[2]!, "flipped-data.sst", (b) => void (b[40] = b[40]! ^ 0x10));
    const v = describeTable(file, { verify: true }).verify!;
    expect(v.ok).toBe(false);
    expect(v.errors).toEqual([
      expect.objectContaining({
        offset: 0,
        kind: "Pebble table data",
        message: expect.stringMatching(/crc32c checksum mismatch .*size 108/),
      }),
    ]);
    const r = lsmscope("sst", file, "--verify");
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toMatch(/Pebble table data block @ 0|data block/);
  });

  it("a flipped byte in a columnar index partition: checksum error at the partition", () => {
    const t = openTable(CR_SCHEMA[0]!);
    const part = [...t.index.partitions()][3]!;
    t.close();
    const file = editedCopy(
      CR_SCHEMA[0]!,
      "flipped-index.sst",
      (b) => void (b[part.offset + 9] = b[part.offset + 9]! ^ 0x01),
    );
    const v = describeTable(file, { verify: true }).verify!;
    expect(v.ok).toBe(false);
    expect(v.errors[0]).toMatchObject({
      offset: part.offset,
      message: expect.stringMatching(/checksum mismatch/),
    });
  });

  it("a flipped byte in a (Pebble,v7) footer: the footer checksum refuses the table", () => {
    const file = editedCopy(
      CR_SCHEMA[2]!,
      "flipped-footer.sst",
      (b) => void (b[b.length - 40] = b[b.length - 40]! ^ 0x01),
    );
    expect(() => openTable(file)).toThrow(/Pebble table footer: checksum mismatch/);
    expect(lsmscope("sst", file).status).toBe(2);
  });

  it("keys out of order in a columnar block (checksum resealed): --verify names the block and row", () => {
    // find-val-sep.v6's one data block holds aaa, bbb, ccc, ddd (snappy keeps them as one literal):
    // "bbb" becomes "zbb", sorting after "ccc"
    const src = join(COLUMNAR, "find-val-sep.v6.sst");
    const at = readFileSync(src).indexOf("aaabbbcccddd") + 3;
    const t = openTable(src);
    const [first] = t.indexEntries();
    t.close();
    const file = editedCopy(src, "out-of-order.sst", (b) => void (b[at] = 0x7a), first!.handle);
    const r = describeTable(file, { scan: true });
    expect(r.scan!.entries).toBe(4); // without --verify it reads
    const v = describeTable(file, { verify: true }).verify!;
    expect(v.errors).toEqual([
      expect.objectContaining({
        offset: 0,
        kind: "data",
        message: expect.stringMatching(/out of order.*row 2/),
      }),
    ]);
    expect(lsmscope("sst", file, "--verify").status).toBe(2);
  });

  it("a key schema lsmscope does not know: properties and index read, the data blocks refused in one line", () => {
    const src = CR_SCHEMA[0]!; // (Pebble,v5): row properties, stored uncompressed
    const t = openTable(src);
    const props = t.meta("rocksdb.properties")!;
    t.close();
    const at = readFileSync(src).indexOf("crdb1", props.offset);
    const file = editedCopy(src, "unknown-schema.sst", (b) => void b.write("crdb9", at, "latin1"), props);
    const u = openTable(file);
    try {
      expect(u.properties["pebble.colblk.schema"]).toBe("crdb9");
      expect(u.indexEntries().length).toBe(20);
      expect(u.verifyAllBlocks().blocks).toBeGreaterThan(20);
      expect(() => u.scan()).toThrow(
        /^Pebble table \(Pebble,v5\) uses the key schema "crdb9", which lsmscope does not know: its data blocks cannot be read/,
      );
    } finally {
      u.close();
    }
    const ok = lsmscope("sst", file, "--json");
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).properties["rocksdb.num.entries"]).toBe(20);
    const refused = lsmscope("sst", file, "--scan");
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/key schema "crdb9"/);
    // --verify still checksums every block, the data blocks included, and names the refusal once
    const v = describeTable(file, { verify: true }).verify!;
    expect(v).toMatchObject({ ok: false, keyOrderChecked: false });
    expect(v.errors).toEqual([
      expect.objectContaining({ offset: props.offset, message: expect.stringMatching(/key schema "crdb9"/) }),
    ]);
    expect(v.blocksVerified).toBeGreaterThan(40); // 20 data blocks, 20 partitions, top level, meta
    expect(lsmscope("sst", file, "--verify").status).toBe(2);
  });

  it("mutants of columnar tables read cleanly or fail with one located error (checksums off)", () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const sources = [CR_SCHEMA[0]!, join(COLUMNAR, "find-val-sep.v6.sst"), join(STORE, "000011.sst")];
    let failed = 0;
    for (let i = 0; i < 300; i++) {
      const src = sources[i % sources.length]!;
      const file = join(tmp, "mutant.sst");
      copyFileSync(src, file);
      const b = readFileSync(file);
      for (let j = 0; j < 1 + rand(3); j++) b[rand(b.length)] = rand(256);
      writeFileSync(file, b);
      // point lookups too where the comparator is bytewise (the cr-schema table's is CockroachDB's)
      const keys = src === CR_SCHEMA[0] ? [] : ["aaa\x00", "ggg1\x00", "zzz"].map((k) => Buffer.from(k));
      const o = exercise(file, false, keys);
      if (!o.ok) {
        failed++;
        expect(o.error).toBeInstanceOf(LsmscopeError);
      }
    }
    expect(failed).toBeGreaterThan(0);
  });
});

describe("DefaultKeySchema data blocks from Pebble's data block testdata", () => {
  // shared and bundle prefixes, duplicate keys, user-key suffixes ("@98"), obsolete rows, external values
  const KIND: Record<string, number> = {
    DEL: 0,
    SET: 1,
    MERGE: 2,
    SINGLEDEL: 7,
    SETWITHDEL: 18,
    DELSIZED: 23,
  };
  const files = ["simple", "bundle_search", "next_prefix", "finish_without_final_row", "external_value"];
  const schema = keySchemaByName("DefaultKeySchema(pebble.internal.testkeys,16)")!;
  for (const name of files) {
    it(`${name}: every finished block decodes to the rows written`, () => {
      let written: { key: string; seq: number; type: number; value: string; external: boolean }[] = [];
      let finished = 0;
      for (const c of pebbleCases(`../colblk/data_block/${name}`)) {
        if (c.command === "init") written = [];
        else if (c.command === "write") {
          for (const raw of c.args) {
            const line = raw.replace(/obsolete$/, "");
            const j = line.indexOf(":");
            const [, key, seq, kind] = /^(.*)#(\d+),(\w+)$/.exec(line.slice(0, j))!;
            const value = line.slice(j + 1);
            const external = /^(valueHandle|blobHandle)/.test(value);
            written.push({
              key: key!,
              seq: Number(seq),
              type: pebbleAsValueType(KIND[kind!]!),
              value,
              external,
            });
          }
        } else if (c.command.startsWith("finish")) {
          finished++;
          const rows = Number(/rows=(\d+)/.exec(c.command)?.[1] ?? written.length);
          const cur = new ColumnarDataCursor(schema).load(dumpBytes(c.output.split("\n")), {
            file: name,
            kind: "data",
            offset: 0,
          });
          const got: typeof written = [];
          while (cur.next())
            got.push({
              key: cur.userKeyCopy().toString("latin1"),
              seq: cur.seqno,
              type: cur.type,
              // an external value is its value prefix byte and handle: here the handle is the test's text
              value: cur.valueCopy().toString("latin1"),
              external: cur.valueInValueBlock || cur.valueInBlobFile,
            });
          expect(got).toEqual(written.slice(0, rows));
        }
      }
      expect(finished).toBeGreaterThan(0);
    });
  }
});

describe("keyspan blocks Pebble printed in its keyspan block testdata", () => {
  it("every finished block: each span's bounds, and its keys' seqno, kind, suffix and value", () => {
    const kinds: Record<number, string> = {
      15: "RANGEDEL",
      19: "RANGEKEYDEL",
      20: "RANGEKEYUNSET",
      21: "RANGEKEYSET",
    };
    let added: string[] = [];
    let finished = 0;
    for (const c of pebbleCases("../colblk/keyspan_block.txt")) {
      if (c.command === "init" || c.command === "reset") added = [];
      else if (c.command === "add") {
        // "b-c:{(#100,RANGEDEL) (#20,RANGEDEL)}" -> one line per key
        for (const span of c.args) {
          const [, start, end, keys] = /^(\w+)-(\w+):\{(.*)\}$/.exec(span)!;
          for (const k of keys!.match(/\([^)]*\)/g)!) added.push(`${start}-${end}${k}`);
        }
      } else if (c.command === "finish") {
        finished++;
        const block = decodeKeyspanBlock(dumpBytes(c.output.split("\n")));
        const got = block.keys.map((k) => {
          const extra =
            k.suffix.length || k.value.length ? `,${k.suffix.toString()},${k.value.toString()}` : "";
          return `${k.start.toString()}-${k.end.toString()}(#${k.seqno},${kinds[k.kind]}${extra})`;
        });
        expect(got).toEqual(added);
      }
    }
    expect(finished).toBe(3);
  });
});

describe("a store of columnar tables through the store-level commands", () => {
  it("point lookups find every key of every table at its seqno; absent keys are not found", () => {
    for (const f of columnarTables.filter((x) => x.startsWith(STORE))) {
      const t = openTable(f);
      try {
        const entries: { key: Buffer; seqno: number }[] = [];
        t.scan((e) => void entries.push({ key: e.userKeyCopy(), seqno: e.seqno }));
        for (const { key, seqno } of entries) expect(t.get(key)).toMatchObject({ found: true, seqno });
        expect(t.get(Buffer.from("zzz-absent")).found).toBe(false);
        const from = entries[Math.floor(entries.length / 2)]!.key;
        const firstBlock = t.indexEntries({ from })[0]!;
        expect(firstBlock.separator.compare(from)).toBeGreaterThanOrEqual(0);
      } finally {
        t.close();
      }
    }
  });

  it("inspect --deep --verify, sizes --full and the probe reader path read the (Pebble,v7) tables", () => {
    const inspect = lsmscope("inspect", STORE, "--deep", "--verify", "--json");
    expect(inspect.status).toBe(0);
    const v = JSON.parse(inspect.stdout).verify;
    expect(v).toMatchObject({ failed: 0, tables: { files: 3, entries: 36 } });
    const sizes = lsmscope("sizes", STORE, "--full", "--json");
    expect(sizes.status).toBe(0);
    expect(JSON.parse(sizes.stdout).columnFamilies[0]).toMatchObject({ liveKeys: 36, entriesRead: 36 });
    const probe = lsmscope(
      "probe",
      STORE,
      "--cf",
      "default",
      "--keys",
      "present",
      "--count",
      "5",
      "--path",
      "reader",
      "--json",
    );
    expect(probe.status).toBe(0);
    expect(JSON.parse(probe.stdout).points[0]).toMatchObject({ lookups: 5, found: 5 });
  });
});

describe("columnar block primitives", () => {
  it("a block's column must end where the next begins", () => {
    // the range-deletion block Pebble printed, with its boundary-key column's offsets table stretched
    const cases = pebbleCases("../colblk/columnar_writer_simple_binary.txt");
    const layout = cases.filter((c) => c.command === "layout").map((c) => dumpedBlocks(c.output));
    const rd = layout.flat().find((b) => b.kind === "range-del")!.bytes;
    expect(decodeKeyspanBlock(rd).keys).toHaveLength(1);
    const bad = Buffer.from(rd);
    bad[39] = 3; // last offset of the bounds: 2 -> 3
    expect(() => decodeKeyspanBlock(bad)).toThrow(RangeError);
    expect(new ColumnarBlock(rd, 4).columns).toBe(5);
  });
});
