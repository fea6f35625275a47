/**
 * grownKeeping (src/util/grow.ts), the one growth of the arrays the readers write from their start:
 * the same array while it has room, else one of the same kind at least twice as long holding what
 * was written; a Buffer never a slice of Node's shared pool, shared memory kept shared.
 */
import { describe, expect, it } from "vitest";
import { grownKeeping } from "../../src/util/grow.js";

describe("grownKeeping", () => {
  it("returns the array itself while it holds what is needed", () => {
    const a = new Int32Array(8);
    expect(grownKeeping(a, 8, 8)).toBe(a);
  });

  it("grows to twice the length, or to what is needed, keeping the first `used` elements", () => {
    const a = Float64Array.from([1.5, 2.5, 3.5, 4.5]);
    const twice = grownKeeping(a, 3, 5);
    expect(twice).toBeInstanceOf(Float64Array);
    expect(twice.length).toBe(8);
    expect(Array.from(twice.subarray(0, 3))).toEqual([1.5, 2.5, 3.5]);
    const more = grownKeeping(a, 4, 100);
    expect(more.length).toBe(100);
    expect(Array.from(more.subarray(0, 4))).toEqual([1.5, 2.5, 3.5, 4.5]);
    const u = grownKeeping(Uint32Array.from([7, 8]), 2, 3);
    expect(u).toBeInstanceOf(Uint32Array);
    expect(Array.from(u.subarray(0, 2))).toEqual([7, 8]);
  });

  it("a Buffer grows into a Buffer of its own, not a slice of the shared pool", () => {
    const b = Buffer.from("abc");
    const g = grownKeeping(b, 3, 10);
    expect(Buffer.isBuffer(g)).toBe(true);
    expect(g.subarray(0, 3).toString()).toBe("abc");
    // a pooled Buffer.allocUnsafe of 10 bytes would be a view into an 8 KiB ArrayBuffer
    expect(g.buffer.byteLength).toBe(g.length);
  });

  it("an array over shared memory grows into shared memory", () => {
    const s = new Uint8Array(new SharedArrayBuffer(4));
    s.set([1, 2, 3, 4]);
    const g = grownKeeping(s, 4, 5);
    expect(g.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(g.subarray(0, 4))).toEqual([1, 2, 3, 4]);
    expect(grownKeeping(new Uint8Array(2), 0, 3).buffer).toBeInstanceOf(ArrayBuffer);
  });
});
