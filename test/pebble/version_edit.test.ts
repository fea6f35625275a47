/**
 * Pebble's VersionEdit tags, decoded by lsmscope from the bytes Pebble's own test encodes, against the
 * edits Pebble decodes from them (internal/manifest/testdata/version_edit_decode: every case's output
 * is the edit's bytes in hex, then Pebble's `String()` of the decoded edit). Covers new-file4 with
 * custom fields (creation time, virtual backing, blob references with and without backing value
 * sizes), created backing tables, new and deleted blob files, excises and tables marked for compaction.
 */
import { describe, expect, it } from "vitest";
import { decodePebbleVersionEdit } from "../../src/datadir/pebble_version_edit.js";
import type { VersionEdit } from "../../src/datadir/version_edit.js";
import { pebbleCases } from "./expected.js";

const pad = (n: number) => String(n).padStart(6, "0");
const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");

/** Pebble's String() lines of the fields lsmscope models, rendered from lsmscope's decode. */
function pebbleLines(e: VersionEdit): string[] {
  const out: string[] = [];
  if (e.comparator !== undefined) out.push(`comparer: ${e.comparator}`);
  if (e.logNumber !== undefined) out.push(`log-num: ${e.logNumber}`);
  if (e.nextFileNumber !== undefined) out.push(`next-file-num: ${e.nextFileNumber}`);
  // Go's String() leaves zero fields out
  if (e.lastSequence) out.push(`last-seq-num: ${e.lastSequence}`);
  for (const f of e.newFiles) {
    const backing = f.virtualBacking !== undefined ? `(${pad(f.virtualBacking)})` : "";
    const refs = f.blobReferences
      ?.map(
        (r) =>
          `(B${pad(r.blobFileId)}: ${r.valueSize}${r.backingValueSize !== undefined ? `/${r.backingValueSize}` : ""})`,
      )
      .join(", ");
    out.push(
      `add-table: L${f.level} ${pad(f.fileNumber)}${backing}:[${text(f.smallest.userKey)}#${f.smallest.seqno}-` +
        `${text(f.largest.userKey)}#${f.largest.seqno}] seqnums:[#${f.smallestSeqno}-#${f.largestSeqno}]` +
        (f.fileSize > 0 ? ` size:${f.fileSize}` : "") +
        (refs ? ` blobrefs:[${refs}]` : ""),
    );
  }
  for (const b of e.createdBackingTables ?? []) out.push(`add-backing: ${pad(b.fileNumber)}`);
  for (const b of e.newBlobFiles ?? [])
    out.push(
      `add-blob-file: B${pad(b.blobFileId)} physical:{${pad(b.fileNumber)} size:[${b.size}] vals:[${b.valueSize}]}`,
    );
  for (const b of e.deletedBlobFiles ?? [])
    out.push(`del-blob-file: B${pad(b.blobFileId)} ${pad(b.fileNumber)}`);
  for (const m of e.tablesMarkedForCompaction ?? [])
    out.push(`mark-for-compaction: L${m.level} ${pad(m.fileNumber)}`);
  for (const x of e.excises ?? [])
    out.push(`excise-op: [${text(x.start)}, ${text(x.end)}${x.endInclusive ? "]" : ")"} #${x.seqno}`);
  return out;
}

/** Pebble's lines reduced to the same fields: kinds, points, depth, humanized sizes and times dropped. */
function normalise(line: string): string {
  return line
    .trim()
    .replace(/:\s+/, ": ")
    .replace(/#(\d+),[A-Z]+/g, "#$1")
    .replace(/ points:\[[^\]]*\]/, "")
    .replace(/ \(\d{4}-\d\d-\d\dT[^)]*\)$/, "")
    .replace(/; depth:\d+\]/, "]")
    .replace(/ \([\d.]+[KMG]?B\)\]/g, "]");
}

describe("Pebble VersionEdit tags against Pebble's own decoding (version_edit_decode)", () => {
  // "encode" cases print the edit given, not a decoding of their bytes (a non-virtual table's backing
  // value size is not encoded): only "decode" cases are Pebble's reading of bytes
  const cases = pebbleCases("version_edit_decode.txt").filter(
    (c) => c.command.startsWith("decode") && /^[0-9a-f]+$/.test(c.output.split("\n")[0]!),
  );
  it("holds the cases this test expects", () => {
    expect(cases.length).toBe(7);
  });
  cases.forEach((c, i) => {
    const lines = c.output.split("\n");
    const hex = lines.filter((l) => /^[0-9a-f]+$/.test(l)).join("");
    const want = lines.filter((l) => !/^[0-9a-f]+$/.test(l)).map(normalise);
    it(`case ${i + 1} (${c.command}): ${want.map((l) => l.split(":")[0]).join(", ")}`, () => {
      const edit = decodePebbleVersionEdit(Buffer.from(hex, "hex"));
      expect(pebbleLines(edit)).toEqual(want);
    });
  });
});
