/**
 * The JS LZ4 and Snappy block decoders (selectable through `codecChoice`) against the native packages
 * (lz4-napi, snappy) on real tables, dictionary included: the same entries, byte for byte.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { openTable } from "../../src/format/index.js";
import { codecChoice } from "../../src/format/compression.js";
import { dbBench, makeTempDir, removeDir } from "./oracle.js";

let root: string;
beforeAll(() => {
  root = makeTempDir("codecs");
});
afterAll(() => removeDir(root));
afterEach(() => {
  codecChoice.lz4 = "native";
  codecChoice.snappy = "native";
});

function digest(file: string): string {
  const h = createHash("sha256");
  const t = openTable(file, { verifyChecksums: true });
  try {
    const s = t.scan((e) => {
      h.update(e.key.subarray(0, e.keyLength));
      h.update(e.data.subarray(e.valueOffset, e.valueOffset + e.valueLength));
    });
    h.update(String(s.entries));
  } finally {
    t.close();
  }
  return h.digest("hex");
}

describe("JS block decoders agree with the native codecs", () => {
  for (const [name, key, flags] of [
    ["LZ4", "lz4", ["--compression_type=lz4"]],
    ["LZ4 with dictionary", "lz4", ["--compression_type=lz4", "--compression_max_dict_bytes=8192"]],
    ["LZ4HC", "lz4", ["--compression_type=lz4hc"]],
    ["Snappy", "snappy", ["--compression_type=snappy"]],
  ] as const) {
    it(name, () => {
      const [file] = dbBench(join(root, name.replace(/\W+/g, "_")), ["--num=5000", ...flags]);
      codecChoice[key] = "native";
      const native = digest(file!);
      codecChoice[key] = "js";
      expect(digest(file!)).toBe(native);
    });
  }
});
