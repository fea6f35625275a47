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
import { SAMPLES } from "../helpers/index.js";

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
});
