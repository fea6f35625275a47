/**
 * JSON.stringify(value, null, 2), written in pieces. A datadir model's JSON grows with the table count
 * (21 MB for 4,537 tables with `--deep`): built whole it was one string that stdout then copied into a
 * buffer, about 40 MB of peak memory beside the model. Here containers that hold arrays, or many
 * members, are walked member by member; the rest is stringified whole (natively) and re-indented.
 */

/** Objects with more members than this are walked member by member even without arrays inside. */
const MANY_MEMBERS = 64;
/** Pieces are gathered into writes of about this many characters. */
const CHUNK = 1 << 20;

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

function toJsonValue(v: unknown, key: string): unknown {
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

/** Write `value` exactly as JSON.stringify(value, null, 2) prints it, in chunks of about 1 MiB. */
export function writeJson(value: unknown, write: (s: string) => void): void {
  let buf = "";
  const out = (s: string) => {
    buf += s;
    if (buf.length >= CHUNK) {
      write(buf);
      buf = "";
    }
  };
  emit(toJsonValue(value, ""), "", out);
  if (buf.length > 0) write(buf);
}

function emit(v: unknown, indent: string, out: (s: string) => void): void {
  if (v === null || typeof v !== "object" || !walked(v)) {
    const s = JSON.stringify(v, null, 2);
    out(s === undefined ? "null" : indent ? s.replaceAll("\n", "\n" + indent) : s);
    return;
  }
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return out("[]");
    out("[");
    for (let i = 0; i < v.length; i++) {
      out(`${i ? "," : ""}\n${inner}`);
      const e = toJsonValue(v[i], String(i));
      emit(omitted(e) ? null : e, inner, out);
    }
    return out(`\n${indent}]`);
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const e = toJsonValue((v as Record<string, unknown>)[k], k);
    if (omitted(e)) continue;
    out(`${first ? "{" : ","}\n${inner}${JSON.stringify(k)}: `);
    first = false;
    emit(e, inner, out);
  }
  out(first ? "{}" : `\n${indent}}`);
}
