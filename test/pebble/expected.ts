/**
 * Readers of the expected outputs of Pebble's own tool (test/fixtures/pebble/expected/, the datadriven
 * files of Pebble's tool/testdata): each case is "command\nargs...\n----\noutput\n", cases separated by a
 * blank line. The tests compare lsmscope with what Pebble printed, never with lsmscope's earlier output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const PEBBLE_FIXTURES = join(import.meta.dirname, "..", "fixtures", "pebble");

export interface PebbleCase {
  command: string;
  args: string[];
  output: string;
}

/** Every case of one expected-output file. */
export function pebbleCases(file: string): PebbleCase[] {
  const text = readFileSync(join(PEBBLE_FIXTURES, "expected", file), "latin1");
  const cases: PebbleCase[] = [];
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && (lines[i]!.trim() === "" || lines[i]!.startsWith("#"))) i++;
    if (i >= lines.length) break;
    const command = lines[i++]!;
    const args: string[] = [];
    while (i < lines.length && lines[i] !== "----") args.push(lines[i++]!);
    i++; // ----
    const out: string[] = [];
    // a "----\n----" output block (db lsm) ends at the next "----\n----"; others at a blank line
    if (lines[i] === "----") {
      i++;
      while (i < lines.length && !(lines[i] === "----" && lines[i + 1] === "----")) out.push(lines[i++]!);
      i += 2;
    } else {
      while (i < lines.length && lines[i]!.trim() !== "") out.push(lines[i++]!);
    }
    cases.push({ command, args, output: out.join("\n") });
  }
  return cases;
}

/** The output of the first case whose command and last argument match. */
export function pebbleOutput(file: string, command: string, lastArg: string, flags: string[] = []): string {
  const c = pebbleCases(file).find(
    (k) =>
      k.command === command &&
      k.args[k.args.length - 1] === lastArg &&
      flags.every((f) => k.args.includes(f)) &&
      k.args.length === flags.length + 1,
  );
  if (!c) throw new Error(`no case "${command} ${lastArg}" in ${file}`);
  return c.output;
}

/** "name   value" lines of Pebble's `sstable properties` summary, keyed by their indented path. */
export function propertiesSummary(output: string): Map<string, string> {
  const m = new Map<string, string>();
  const stack: string[] = [];
  for (const line of output.split("\n").slice(1)) {
    const indent = line.length - line.trimStart().length;
    const [name, ...rest] = line.trim().split(/\s{2,}/);
    if (!name) continue;
    stack.length = indent / 2;
    stack.push(name);
    m.set(stack.join("."), rest.join(" "));
  }
  return m;
}

/** One live table of the version `manifest dump` prints after "EOF". */
export interface DumpedTable {
  level: number;
  fileNumber: number;
  size: number;
  smallestSeqno: number;
  largestSeqno: number;
}

/**
 * The version Pebble's `manifest dump` prints after its edits ("EOF", then "L0.0:" / "L6:" headers
 * and one "  000011:[...] seqnums:[#0-#19] ... size:870" line per table), and the last values of the
 * edits' fields.
 */
export function dumpedVersion(output: string): {
  tables: DumpedTable[];
  lastSeqNum?: number;
  nextFileNum?: number;
  logNum?: number;
  comparer?: string;
} {
  const lines = output.split("\n");
  const eof = lines.indexOf("EOF");
  const out: ReturnType<typeof dumpedVersion> = { tables: [] };
  for (const l of lines.slice(0, eof)) {
    const m = /^\s+(comparer|next-file-num|last-seq-num|log-num):\s+(.*)$/.exec(l);
    if (!m) continue;
    if (m[1] === "comparer") out.comparer ??= m[2]!;
    else if (m[1] === "next-file-num") out.nextFileNum = Number(m[2]);
    else if (m[1] === "last-seq-num") out.lastSeqNum = Number(m[2]);
    else out.logNum = Number(m[2]);
  }
  let level = -1;
  for (const l of lines.slice(eof + 1)) {
    const h = /^L(\d+)(\.\d+)?:$/.exec(l);
    if (h) {
      level = Number(h[1]);
      continue;
    }
    const t = /^\s+(\d+):\[.*\] seqnums:\[#(\d+)-#(\d+)\].* size:(\d+)/.exec(l);
    if (t && level >= 0)
      out.tables.push({
        level,
        fileNumber: Number(t[1]),
        smallestSeqno: Number(t[2]),
        largestSeqno: Number(t[3]),
        size: Number(t[4]),
      });
  }
  return out;
}

/** The hex values of the "key [hex]" / "key#seq,KIND [hex]" lines Pebble's scans print, in order. */
export const printedValues = (output: string): string[] =>
  output
    .split("\n")
    .map((l) => /\[([0-9a-f]*)\]$/.exec(l)?.[1])
    .filter((v): v is string => v !== undefined);
