/**
 * TailReadAhead keeps reads going ahead of a synchronous reader and never stands in its way: every
 * ready() resolves, in order, whatever the files are (missing, shorter than the tail, empty), and the
 * reader then reads the files itself (the read-ahead only warms the page cache).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TailReadAhead } from "../../src/util/tail_read_ahead.js";

describe("TailReadAhead", () => {
  it("resolves every file in order, missing, short and empty ones included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-read-ahead-"));
    try {
      const files = Array.from({ length: 40 }, (_, i) => {
        const path = join(dir, `${i}.sst`);
        const size = i % 3 === 0 ? 0 : i * 1000;
        if (i % 7 !== 0) writeFileSync(path, Buffer.alloc(size, i));
        // a size that disagrees with the file (it changed since it was listed) must not hang either
        return { path, size: i % 5 === 0 ? size + 10 : size };
      });
      for (const start of ["now", "when-cold"] as const) {
        const ahead = new TailReadAhead(files, 4096, 4, start);
        const order: number[] = [];
        for (let i = 0; i < files.length; i++) {
          const tail = ahead.ready(i);
          if (tail) await tail;
          order.push(i);
        }
        expect(order).toEqual(files.map((_, i) => i));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
