/**
 * JSON.stringify(value, null, 2), written in pieces. A datadir model's JSON grows with the table count
 * (21 MB for 4,537 tables with `--deep`): built whole it was one string that stdout then copied into a
 * buffer, about 40 MB of peak memory beside the model. Here containers that hold arrays, or many
 * members, are walked member by member; the rest is stringified whole (natively) and re-indented.
 */

import { once } from "node:events";

/** Objects with more members than this are walked member by member even without arrays inside. */
const MANY_MEMBERS = 64;
/** Pieces are gathered into writes of about this many characters. */
const CHUNK = 1 << 16;

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
 * (streamJson waits; writeJson and jsonChunks take no hook).
 */
export type BeforeMember = (holder: object, key: string | number) => void | Promise<void>;

/** `value` exactly as JSON.stringify(value, null, 2) prints it, in chunks of about CHUNK characters. */
export function* jsonChunks(value: unknown): Generator<string, void, undefined> {
  yield* chunked(value) as Generator<string, void, undefined>;
}

/** The chunks of `value`, and each promise `before` returns where the writer must wait for it. */
function* chunked(value: unknown, before?: BeforeMember): Generator<string | Promise<void>, void, undefined> {
  let buf = "";
  for (const piece of pieces(toJsonValue(value, ""), "", before)) {
    if (typeof piece !== "string") {
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
  before?: BeforeMember,
): Promise<void> {
  for (const chunk of chunked(value, before))
    if (typeof chunk !== "string") await chunk;
    else if (!stream.write(chunk)) await once(stream, "drain");
}

function* pieces(
  v: unknown,
  indent: string,
  before?: BeforeMember,
): Generator<string | Promise<void>, void, undefined> {
  if (v instanceof MapRecord) return yield* mapPieces(v.map, indent, before);
  if (v === null || typeof v !== "object" || !walked(v)) {
    const s = JSON.stringify(v, null, 2);
    yield s === undefined ? "null" : indent ? s.replaceAll("\n", "\n" + indent) : s;
    return;
  }
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return yield "[]";
    yield "[";
    for (let i = 0; i < v.length; i++) {
      const wait = before?.(v, i);
      if (wait) yield wait;
      yield `${i ? "," : ""}\n${inner}`;
      const e = toJsonValue(v[i], String(i));
      yield* pieces(omitted(e) ? null : e, inner, before);
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
    yield* pieces(e, inner, before);
  }
  yield first ? "{}" : `\n${indent}}`;
}

/** A MapRecord's Map as its toJSON() object would print (members walked as an object's are). */
function* mapPieces(
  m: ReadonlyMap<string, unknown>,
  indent: string,
  before?: BeforeMember,
): Generator<string | Promise<void>, void, undefined> {
  const inner = indent + "  ";
  let first = true;
  for (const [k, value] of m) {
    const e = toJsonValue(value, k);
    if (omitted(e)) continue;
    yield `${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* pieces(e, inner, before);
  }
  yield first ? "{}" : `\n${indent}}`;
}
