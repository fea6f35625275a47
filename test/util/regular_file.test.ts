/**
 * The capped reads of a datadir's text files (src/util/regular_file.ts): a file over the cap is
 * refused with its size, by the size its descriptor's fstat gives, without reading it; a head read
 * takes the first bytes only; a FIFO is refused at once, as every datadir read refuses one.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileTooLargeError, readRegularFileHead, readRegularFileUpTo } from "../../src/util/regular_file.js";
import { trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-regular-");
afterAll(cleanupTemps);

describe("capped reads of regular files", () => {
  it("reads a file up to the cap whole, and refuses a larger one with its size", () => {
    const dir = tempDir();
    const small = join(dir, "small");
    writeFileSync(small, "MANIFEST-000012\n");
    expect(readRegularFileUpTo(small, 16, "latin1")).toBe("MANIFEST-000012\n");
    expect(readRegularFileUpTo(small, 16)).toEqual(Buffer.from("MANIFEST-000012\n"));
    const big = join(dir, "big");
    writeFileSync(big, "");
    truncateSync(big, 1 << 30);
    let caught: unknown;
    try {
      readRegularFileUpTo(big, 64);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(FileTooLargeError);
    expect((caught as FileTooLargeError).size).toBe(1 << 30);
    expect((caught as FileTooLargeError).file).toBe(big);
  });

  it("reads the first bytes of a file, or all of a shorter one", () => {
    const dir = tempDir();
    const p = join(dir, "options");
    writeFileSync(p, "[Version]\n  pebble_version=0.1\n");
    expect(readRegularFileHead(p, 9).toString()).toBe("[Version]");
    expect(readRegularFileHead(p, 4096).toString()).toBe("[Version]\n  pebble_version=0.1\n");
    const big = join(dir, "big");
    writeFileSync(big, "x");
    truncateSync(big, 1 << 30);
    expect(readRegularFileHead(big, 4096).length).toBe(4096);
  });

  it("refuses a FIFO at once", () => {
    const dir = tempDir();
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    expect(() => readRegularFileUpTo(fifo, 64)).toThrow(/not a regular file/);
    expect(() => readRegularFileHead(fifo, 64)).toThrow(/not a regular file/);
  });
});
