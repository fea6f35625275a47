/** prefixSuccessor: the end of a prefix's key range (probe's candidate blocks, sizes' code and storage ranges). */
import { describe, expect, it } from "vitest";
import { prefixSuccessor } from "../../src/util/prefix.js";

const hex = (s: string) => Buffer.from(s, "hex");

describe("prefixSuccessor", () => {
  it("increments the last byte below 0xff and drops the 0xff bytes after it", () => {
    expect(prefixSuccessor(hex("6f00"))?.toString("hex")).toBe("6f01");
    expect(prefixSuccessor(hex("6fff"))?.toString("hex")).toBe("70");
    expect(prefixSuccessor(hex("01ffff"))?.toString("hex")).toBe("02");
  });

  it("has none for an all-0xff or empty prefix, and leaves its argument unchanged", () => {
    expect(prefixSuccessor(hex("ffff"))).toBeUndefined();
    expect(prefixSuccessor(Buffer.alloc(0))).toBeUndefined();
    const p = hex("6f00");
    prefixSuccessor(p);
    expect(p.toString("hex")).toBe("6f00");
  });

  it("is above every key with the prefix and at or below every key after them", () => {
    const p = hex("6fa0");
    const end = prefixSuccessor(p)!;
    for (const k of ["6fa0", "6fa000", "6fa0ffffff"]) expect(Buffer.compare(hex(k), end)).toBe(-1);
    for (const k of ["6fa1", "6fa100", "70"]) expect(Buffer.compare(hex(k), end)).toBeGreaterThanOrEqual(0);
  });
});
