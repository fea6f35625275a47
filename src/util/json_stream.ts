/**
 * JSON.stringify(value, null, 2), written in pieces. A datadir model's JSON grows with the table count
 * (21 MB for 4,537 tables with `--deep`): built whole it was one string that stdout then copied into a
 * buffer, about 40 MB of peak memory beside the model. Here containers that hold arrays, or many
 * members, are walked member by member; the rest is stringified whole (natively) at the depth where it
 * sits, the elements of an array that are printed whole RUN at a time.
 */

import { once } from "node:events";

/** Objects with more members than this are walked member by member even without arrays inside. */
const MANY_MEMBERS = 64;
/** Pieces are gathered into writes of about this many characters. */
const CHUNK = 1 << 16;
/** Pieces this long are written on their own, not gathered. */
const ALONE = CHUNK / 4;
/**
 * Consecutive array elements printed whole that are stringified together: one native call instead of
 * one each, with its generator and re-indenting. On 4,354 tables' 20 MB of `inspect --deep --json` the
 * tables took ~22 ms in runs of 16 or 64 against ~26-31 ms one at a time (steady state, best of 15);
 * 16 tables' text (~75 KB) stays below V8's large-object size, 64 tables' did not (+14 MiB peak RSS).
 */
const RUN = 16;

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/**
 * A Map printed as the object Object.fromEntries() makes of it (its toJSON), without that copy when
 * streamed: a record by table (`inspect --deep --json`'s `deep`, one member per table) is written from
 * the Map it was gathered in. Keys are strings that are not array indices (an object lists those
 * first, a Map in insertion order).
 */
export class MapRecord<V> {
  constructor(readonly map: ReadonlyMap<string, V>) {}
  toJSON(): Record<string, V> {
    return Object.fromEntries(this.map);
  }
}

function toJsonValue(v: unknown, key: string): unknown {
  // walked member by member below, not copied
  if (v instanceof MapRecord) return v;
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function")
    return (v as { toJSON(k: string): unknown }).toJSON(key);
  return v;
}

function walked(v: object): boolean {
  if (Array.isArray(v)) return true;
  let n = 0;
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    if (Array.isArray((v as Record<string, unknown>)[k]) || ++n > MANY_MEMBERS) return true;
  }
  return false;
}

/**
 * Called before a member of a container that is walked member by member (one holding arrays) is
 * printed, before its value is read: it may fill the value in, and return a promise to wait for first
 * (streamJson waits; writeJson and jsonChunks take no hook). Array elements printed whole are printed
 * RUN at a time: each one's hook is called before any of them is printed.
 */
export type BeforeMember = (holder: object, key: string | number) => void | Promise<void>;

/** What streamJson calls around the members of walked containers. */
export interface MemberHooks {
  before?: BeforeMember;
  /** Called once the member has been printed (handed to the stream, or about to be). */
  after?: (holder: object, key: string | number) => void;
}

/** `value` exactly as JSON.stringify(value, null, 2) prints it, in chunks of about CHUNK characters. */
export function* jsonChunks(value: unknown): Generator<string, void, undefined> {
  yield* chunked(value) as Generator<string, void, undefined>;
}

/** The chunks of `value`, and each promise `before` returns where the writer must wait for it. */
function* chunked(value: unknown, hooks?: MemberHooks): Generator<string | Promise<void>, void, undefined> {
  let buf = "";
  for (const piece of pieces(toJsonValue(value, ""), "", hooks)) {
    if (typeof piece !== "string") {
      yield piece;
      continue;
    }
    if (piece.length >= ALONE) {
      // a run's text (a flat slice): written as it is; appended to `buf` it was copied once more when
      // the joined chunk was written (~20 MB more garbage for 4,354 tables' --deep --json)
      if (buf.length > 0) yield buf;
      buf = "";
      yield piece;
      continue;
    }
    buf += piece;
    if (buf.length >= CHUNK) {
      yield buf;
      buf = "";
    }
  }
  if (buf.length > 0) yield buf;
}

/** Write `value` exactly as JSON.stringify(value, null, 2) prints it, in chunks of about CHUNK characters. */
export function writeJson(value: unknown, write: (s: string) => void): void {
  for (const chunk of jsonChunks(value)) write(chunk);
}

/**
 * Write `value` as writeJson does to a stream, waiting for it to drain when its buffer is full. A pipe
 * to a slower reader (`| jq`) otherwise queues the whole JSON in memory: `inspect --deep --json` on
 * 4,688 tables peaked at 206 MiB into `| cat` against 139 MiB into a file.
 */
export async function streamJson(
  value: unknown,
  stream: NodeJS.WritableStream,
  hooks?: MemberHooks,
): Promise<void> {
  for (const chunk of chunked(value, hooks))
    if (typeof chunk !== "string") await chunk;
    else if (!stream.write(chunk)) await once(stream, "drain");
}

/**
 * JSON.stringify(v, null, 2) with every line after the first indented by `indent` (spaces, two per
 * level), as one stringify of `v` nested in as many arrays as there are levels, less what those arrays
 * print around it (a slice: no copy). Re-indenting the text afterwards (replaceAll) copied and scanned
 * it again: ~12 of ~35 ms for 20 MB of `inspect --deep --json` on 4,354 tables.
 */
function indented(v: object, indent: string): string {
  const depth = indent.length / 2;
  // a toJSON result with a toJSON of its own: printed as before (JSON.stringify calls the outer one only)
  if (depth === 0 || typeof (v as { toJSON?: unknown }).toJSON === "function") {
    const s = JSON.stringify(v, null, 2) ?? "null";
    return indent ? s.replaceAll("\n", "\n" + indent) : s;
  }
  let nested: unknown = v;
  for (let d = 0; d < depth; d++) nested = [nested];
  const s = JSON.stringify(nested, null, 2);
  // "[\n" + 2(j + 1) spaces before it for j = 0 .. depth-1, "\n" + 2j spaces + "]" after it
  return s.slice(2 * depth + depth * (depth + 1), s.length - (2 * depth + depth * (depth - 1)));
}

/** Whether an array element (toJSON applied) can be printed in a run: it is printed whole as it is. */
function printedWhole(e: unknown): boolean {
  return (
    e === null ||
    typeof e !== "object" ||
    (typeof (e as { toJSON?: unknown }).toJSON !== "function" && !walked(e))
  );
}

/**
 * The text of array elements `run` as they follow "[" (or a ",") in an array printed at `indent`:
 * "\n" + indent + "  " + element, joined by ",". The run printed as an array where it sits
 * (indented()), without its brackets.
 */
function runText(run: unknown[], indent: string): string {
  return indented(run, indent).slice(1, -(indent.length + 2));
}

function* pieces(
  v: unknown,
  indent: string,
  hooks?: MemberHooks,
): Generator<string | Promise<void>, void, undefined> {
  if (v instanceof MapRecord) return yield* mapPieces(v.map, indent, hooks);
  if (v === null || typeof v !== "object") {
    yield JSON.stringify(v) ?? "null";
    return;
  }
  if (!walked(v)) {
    yield indented(v, indent);
    return;
  }
  const inner = indent + "  ";
  const before = hooks?.before;
  const after = hooks?.after;
  if (Array.isArray(v)) {
    if (v.length === 0) return yield "[]";
    yield "[";
    const run: unknown[] = [];
    let i = 0;
    while (i < v.length) {
      // the elements from i on that are printed whole (up to RUN), then one that is walked, if any
      run.length = 0;
      let walkedNext: object | undefined;
      while (i + run.length < v.length && run.length < RUN) {
        const j = i + run.length;
        const wait = before?.(v, j);
        if (wait) yield wait;
        const e = toJsonValue(v[j], String(j));
        if (!printedWhole(e)) {
          walkedNext = e as object;
          break;
        }
        run.push(e);
      }
      if (run.length > 0) {
        // the comma apart: joined to the run's text, the two were copied into one string
        if (i) yield ",";
        yield runText(run, indent);
        if (after) for (let k = 0; k < run.length; k++) after(v, i + k);
        i += run.length;
      }
      if (walkedNext !== undefined) {
        yield `${i ? "," : ""}\n${inner}`;
        yield* pieces(walkedNext, inner, hooks);
        after?.(v, i);
        i++;
      }
    }
    return yield `\n${indent}]`;
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const wait = before?.(v, k);
    if (wait) yield wait;
    const e = toJsonValue((v as Record<string, unknown>)[k], k);
    if (omitted(e)) continue;
    yield `${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* pieces(e, inner, hooks);
    after?.(v, k);
  }
  yield first ? "{}" : `\n${indent}}`;
}

/** A MapRecord's Map as its toJSON() object would print (members walked as an object's are). */
function* mapPieces(
  m: ReadonlyMap<string, unknown>,
  indent: string,
  hooks?: MemberHooks,
): Generator<string | Promise<void>, void, undefined> {
  const inner = indent + "  ";
  let first = true;
  for (const [k, value] of m) {
    const e = toJsonValue(value, k);
    if (omitted(e)) continue;
    yield `${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* pieces(e, inner, hooks);
  }
  yield first ? "{}" : `\n${indent}}`;
}
