/**
 * TailBatches (src/util/tail_batches.ts) with a readTails of the test's own, which settles each call
 * when the test says: the calls stay within the ring (descriptors and memory bounded), each file is
 * asked for before the reader comes to it, the reader takes exactly the bytes read and nothing the
 * helper has not finished, a buffer the helper may still write into is never handed to another call,
 * and a call the helper refuses leaves the reader on its own.
 */
import { describe, expect, it } from "vitest";
import { TAIL_NOT_READ, TAIL_READ, type ReadTails } from "../../src/util/readahead_helper.js";
import {
  TAIL_BATCH,
  TAIL_BATCH_BYTES,
  TAIL_BATCHES_AHEAD,
  TailBatches,
} from "../../src/util/tail_batches.js";

interface Call {
  paths: string[];
  length: number;
  data: Uint8Array;
  info: Float64Array;
  done: Int32Array;
  settled: boolean;
}

/** A file's content in these tests: its index, repeated, `size` bytes. */
const sizeOf = (path: string) => 1000 + Number(path.slice(1)) * 7;
const byteOf = (path: string) => Number(path.slice(1)) % 251;

/** A readTails that records its calls; settle(call) fills them as the helper would. */
function fakeHelper() {
  const calls: Call[] = [];
  const readTails: ReadTails = (text, count, length, data, info, done) => {
    const paths = text.split("\0").slice(0, -1);
    expect(paths.length).toBe(count);
    calls.push({ paths, length, data, info, done, settled: false });
    return Promise.resolve();
  };
  const settle = (call: Call, failed: (path: string) => boolean = () => false) => {
    call.paths.forEach((p, k) => {
      if (failed(p)) {
        call.done[k] = TAIL_NOT_READ;
        return;
      }
      const size = sizeOf(p);
      const len = Math.min(size, call.length);
      call.data.fill(byteOf(p), k * call.length, k * call.length + len);
      call.info.set([size, 100 + k, len], 3 * k);
      call.done[k] = TAIL_READ;
    });
    call.settled = true;
  };
  return { calls, readTails, settle };
}

/** Files of the call after `before`: twice as many, within TAIL_BATCH and TAIL_BATCH_BYTES. */
const callSize = (before: Call, call: Call) =>
  Math.min(TAIL_BATCH, 2 * before.paths.length, Math.floor(TAIL_BATCH_BYTES / call.length));

/** The calls grow from a few files (the reader has not yet learned what a table needs) to their most. */
const expectCallsGrowing = (calls: Call[]) => {
  expect(calls[0]!.paths.length).toBeLessThan(TAIL_BATCH);
  calls.slice(1, -1).forEach((c, k) => expect(c.paths.length).toBe(callSize(calls[k]!, c)));
};

const paths = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
const unsettled = (calls: Call[]) => calls.filter((c) => !c.settled).length;

describe("tail batches", () => {
  it("keeps at most TAIL_BATCHES_AHEAD + 1 calls out, each file asked for before the reader's turn", () => {
    const { calls, readTails } = fakeHelper();
    const files = paths(3000);
    const batches = new TailBatches(files, readTails, () => 4096);
    /** The files [first, end) of each call. */
    const spans = () => {
      let first = 0;
      return calls.map((c) => ({ first, end: (first += c.paths.length) }));
    };
    for (let i = 0; i < files.length; i++) {
      expect(batches.ask(i)).toBe(true);
      // the helper never finishes here: nothing to take
      expect(batches.take(i)).toBeUndefined();
      // calls the reader is not past yet: the ring's, no more (descriptors and memory bounded)
      expect(spans().filter((s) => s.end > i).length).toBeLessThanOrEqual(TAIL_BATCHES_AHEAD + 1);
      // once the ring has filled (a call per ask() until then), the reader's own file has been asked for
      if (i >= TAIL_BATCHES_AHEAD) expect(spans().at(-1)!.end).toBeGreaterThan(i);
    }
    // every file once, in order
    expect(calls.flatMap((c) => c.paths)).toEqual(files);
    // the first call is a few files, each next one twice as many, up to TAIL_BATCH (and TAIL_BATCH_BYTES)
    expectCallsGrowing(calls);
  });

  it("never asks further ahead than the ring while the reader is slow", () => {
    const { calls, readTails, settle } = fakeHelper();
    const files = paths(2000);
    const batches = new TailBatches(files, readTails, () => 4096);
    // the reader at file 0 for a long time: one call per ask() until the ring is full, then none
    for (let n = 0; n < 10; n++) batches.ask(0);
    expect(calls.length).toBe(TAIL_BATCHES_AHEAD + 1);
    for (const c of calls) settle(c);
    for (let n = 0; n < 10; n++) batches.ask(0);
    expect(calls.length).toBe(TAIL_BATCHES_AHEAD + 1);
    expect(unsettled(calls)).toBe(0);
  });

  it("hands the reader exactly what the helper read, and nothing it has not finished", () => {
    const { calls, readTails, settle } = fakeHelper();
    const files = paths(1500);
    let estimate = 3000;
    const batches = new TailBatches(files, readTails, () => estimate);
    for (let i = 0; i < files.length; i++) {
      batches.ask(i);
      // the helper finishes calls in its own time: every second call only when the reader is at it
      for (const [n, c] of calls.entries())
        if (!c.settled && (n % 2 === 0 || c.paths[0] === files[i])) settle(c);
      const t = batches.take(i);
      const call = calls.find((c) => c.paths.includes(files[i]!))!;
      if (!call.settled) expect(t).toBeUndefined();
      else {
        const size = sizeOf(files[i]!);
        expect(t, files[i]).toBeDefined();
        expect(t!.size).toBe(size);
        expect(t!.tail.length).toBe(Math.min(size, call.length));
        expect(t!.tail.every((b) => b === byteOf(files[i]!))).toBe(true);
      }
      if (i === 700) estimate = 9000; // the reader's estimate grows: later calls read more of each
      // a buffer is only handed to a new call once the call it held is done
      const live = calls.filter((c) => !c.settled).map((c) => c.data);
      expect(new Set(live).size).toBe(live.length);
    }
    // each call reads at least what the reader asked for when it was made, a margin more
    expect(calls[0]!.length).toBeGreaterThanOrEqual(3000);
    expect(calls.at(-1)!.length - calls[0]!.length).toBe(9000 - 3000);
    expect(calls.every((c) => c.paths.length * c.length <= Math.max(c.length, 1 << 20))).toBe(true);
  });

  it("does not reuse a buffer the helper may still be writing into", () => {
    const { calls, readTails, settle } = fakeHelper();
    const files = paths(4000);
    const batches = new TailBatches(files, readTails, () => 4096);
    const ends = () => {
      let end = 0;
      return calls.map((c) => (end += c.paths.length));
    };
    // the reader goes from call to call; the helper finishes every call but every second one
    for (let n = 0, i = 0; n < 24; n++) {
      batches.ask(i);
      calls.forEach((c, k) => k % 2 === 0 && !c.settled && settle(c));
      i = ends()[n]!;
    }
    const reused = calls.map((c, k) => calls.findIndex((d, j) => j < k && d.data === c.data));
    // an unfinished call's buffer is never handed on; a finished one's is, once it is large enough
    expect(reused.every((j) => j === -1 || j % 2 === 0)).toBe(true);
    expect(reused.filter((j) => j >= 0).length).toBeGreaterThan(3);
    // the calls grow from a few files to their most, and then keep that size
    expectCallsGrowing(calls);
  });

  it("a file the helper could not read is left to the reader", () => {
    const { calls, readTails, settle } = fakeHelper();
    const files = paths(40);
    const batches = new TailBatches(files, readTails, () => 4096);
    batches.ask(0);
    settle(calls[0]!, (p) => p === "f3");
    expect(batches.take(2)).toBeDefined();
    expect(batches.take(3)).toBeUndefined();
  });

  it("after a call it refuses, the reader is on its own", () => {
    let n = 0;
    const refusing: ReadTails = () => {
      if (n++ === 1) throw new TypeError("refused");
      return Promise.resolve();
    };
    const batches = new TailBatches(paths(2000), refusing, () => 4096);
    expect(batches.ask(0)).toBe(true);
    expect(batches.ask(1)).toBe(false);
    expect(batches.ask(2)).toBe(false);
    expect(n).toBe(2);
    expect(batches.take(100)).toBeUndefined();
  });
});
