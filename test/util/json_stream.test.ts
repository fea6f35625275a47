/**
 * writeJson() prints exactly what JSON.stringify(value, null, 2) prints, in pieces: over the datadir
 * models of the samples and a db_bench store (what `inspect --json` writes) and over values that take
 * JSON's special paths (toJSON, undefined and functions in objects and arrays, empty containers, Maps,
 * typed arrays, strings with newlines, objects with many members).
 */
import { describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { Writable } from "node:stream";
import { MapRecord, streamJson, writeJson } from "../../src/util/json_stream.js";
import { runInspect } from "../../src/report/deep.js";
import { SAMPLES, stringSink } from "../helpers/index.js";

function pieces(v: unknown): { text: string; writes: number } {
  let text = "";
  let writes = 0;
  writeJson(v, (s) => {
    text += s;
    writes++;
  });
  return { text, writes };
}

describe("writeJson", () => {
  it("prints JSON's special cases as JSON.stringify does", () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, { i, s: "a\nb" }]));
    const values: unknown[] = [
      null,
      0,
      "x\ny",
      [],
      {},
      [undefined, () => 1, Symbol("s"), NaN, -0, Infinity],
      { a: undefined, b: () => 1, c: [], d: {}, e: [[], [{}], { f: [1, 2] }] },
      { buf: Buffer.from("ab"), date: new Date(0), map: new Map([[1, 2]]), f64: new Float64Array([1.5, 2]) },
      { toJSON: () => ({ swapped: [1, { x: undefined }] }) },
      { nested: { toJSON: (k: string) => `key ${k}` }, list: [{ toJSON: (k: string) => [k] }] },
      many,
      { deep: many, levels: [{ files: [many, many] }] },
      // values printed whole below several levels (re-indented as one stringify nested that deep)
      { a: [{ b: [{ c: { d: 1, e: "x\ny", f: { g: [] } }, h: new Date(0) }] }] },
      { a: [[{ toJSON: () => ({ x: 1, y: { toJSON: () => "inner" } }) }, { toJSON: () => undefined }]] },
    ];
    for (const v of values) expect(pieces(v).text).toBe(JSON.stringify(v, null, 2));
  });

  it("prints a MapRecord as JSON.stringify prints its toJSON object, walked or not", () => {
    const record = new MapRecord(
      new Map<string, unknown>([
        ["/b/000012.sst", { dataBlocks: 3, error: undefined }],
        ["/a/000007.sst", { list: [1, { x: 2 }] }],
        ["skipped", undefined],
        ["fn", () => 1],
      ]),
    );
    const values: unknown[] = [
      record,
      new MapRecord(new Map()),
      { levels: [{ files: [] }], deep: record },
      { small: record },
      [record, new MapRecord(new Map([["k", [[]]]]))],
    ];
    for (const v of values) expect(pieces(v).text).toBe(JSON.stringify(v, null, 2));
    // in a walked container its entries are walked, not copied into an object by toJSON
    const toJson = vi.spyOn(record, "toJSON");
    pieces({ levels: [], deep: record });
    expect(toJson).not.toHaveBeenCalled();
  });

  it.each(["besu-snapshot", "nethermind", "db_bench-l0-l1"])(
    "prints the %s model (deep) as JSON.stringify does",
    async (name) => {
      const dir =
        name === "db_bench-l0-l1" ? join(SAMPLES, "..", "test", "fixtures", name) : join(SAMPLES, name);
      const r = await runInspect(dir, { mode: "deep" });
      const out = { ...r.model, deep: Object.fromEntries(r.deep ?? []) };
      expect(pieces(out).text).toBe(JSON.stringify(out, null, 2));
    },
  );

  it("writes a large value in several pieces", () => {
    const big = {
      files: Array.from({ length: 20_000 }, (_, i) => ({ i, name: `file-${i}.sst`, size: i * 7 })),
    };
    const p = pieces(big);
    expect(p.text).toBe(JSON.stringify(big, null, 2));
    expect(p.writes).toBeGreaterThan(1);
  });

  it("waits for a slow stream to drain instead of queueing the whole JSON", async () => {
    const big = {
      files: Array.from({ length: 20_000 }, (_, i) => ({ i, name: `file-${i}.sst`, size: i * 7 })),
    };
    let text = "";
    let maxQueued = 0;
    // a reader slower than the writer (a pipe into jq): each chunk is taken a tick later
    const slow = new Writable({
      highWaterMark: 1024,
      decodeStrings: false,
      write(chunk: string, _enc, done) {
        text += chunk;
        setImmediate(done);
      },
    });
    const write = slow.write.bind(slow);
    slow.write = ((chunk: string) => {
      const ok = write(chunk);
      maxQueued = Math.max(maxQueued, slow.writableLength);
      return ok;
    }) as typeof slow.write;
    await streamJson(big, slow);
    expect(text).toBe(JSON.stringify(big, null, 2));
    // one chunk at most waits at a time: the writer stops at the first write the stream refuses
    const whole = JSON.stringify(big, null, 2).length;
    expect(maxQueued).toBeLessThan(whole / 4);
  });

  it("fills each member in before it is printed and lets it go after, a bounded number held at once", async () => {
    // a store's tables as deep_stream streams them: each filled in by `before`, emptied by `after`
    const files: { n: number; details?: { text: string; list: number[] } }[] = Array.from(
      { length: 300 },
      (_, n) => ({ n }),
    );
    // one walked element (an array inside) among those printed whole
    files[130]!.details = undefined;
    const value = { levels: [{ files }], after: "end" };
    const filled = (n: number) => ({ text: `table ${n}\n`, list: n === 130 ? [n] : [] });
    const expected = JSON.stringify(
      { levels: [{ files: files.map((f) => ({ ...f, details: filled(f.n) })) }], after: "end" },
      null,
      2,
    );
    let held = 0;
    let mostHeld = 0;
    const { sink, text } = stringSink();
    await streamJson(value, sink, {
      before: (holder, key) => {
        if (holder !== files) return;
        const f = files[key as number]!;
        f.details = filled(f.n);
        mostHeld = Math.max(mostHeld, ++held);
        // a hook may wait (deep_stream reads the table first)
        return key === 0 || key === 200 ? new Promise((r) => setImmediate(r)) : undefined;
      },
      after: (holder, key) => {
        if (holder !== files) return;
        files[key as number]!.details = undefined;
        held--;
      },
    });
    expect(text()).toBe(expected);
    expect(held).toBe(0);
    expect(files.every((f) => f.details === undefined)).toBe(true);
    // printed whole in runs of at most 16 (RUN): no more held at once
    expect(mostHeld).toBeGreaterThan(1);
    expect(mostHeld).toBeLessThanOrEqual(16);
  });
});
