/**
 * Pebble's remote object catalog (objstorage/objstorageprovider/remoteobjcat): the tables and blob
 * files a store keeps on shared or external storage instead of its directory. The marker
 * `marker.remote-obj-catalog.<n>.REMOTE-OBJ-CATALOG-<m>` names the current catalog, a log file
 * (log_reader.ts records) of edits:
 *
 *   1 new object      uvarint file number, uvarint object type (1 table, 2 blob file), uvarint creator id,
 *                     uvarint creator file number, uvarint cleanup method, then optional fields until 0:
 *                     4 locator (uvarint length, bytes), 5 custom object name (uvarint length, bytes)
 *   2 deleted object  uvarint file number
 *   3 creator id      uvarint
 *
 * lsmscope reads no remote storage: a live table found here is named as remote (its locator and name),
 * not as missing from the directory.
 */
import { join } from "node:path";
import { cursor, getVarint64Number, type Cursor } from "../util/coding.js";
import { scanLogFile } from "./log_reader.js";
import type { PebbleMarker } from "./pebble_store.js";

export interface RemoteObject {
  fileNumber: number;
  kind: "table" | "blob" | `type ${number}`;
  /** The remote storage's locator (empty for the store's shared storage). */
  locator: string;
  /** The object's name there, when set (external objects). */
  customName?: string;
}

export interface RemoteCatalog {
  file: string;
  objects: Map<number, RemoteObject>;
  /** Why the catalog could not be read whole, with the offset. */
  problem?: { offset: number; message: string };
}

function getString(c: Cursor): string {
  const n = getVarint64Number(c);
  if (n > c.end - c.pos) throw new RangeError(`a ${n}-byte string in a shorter record`);
  const s = Buffer.from(c.buf.subarray(c.pos, c.pos + n)).toString("latin1");
  c.pos += n;
  return s;
}

function applyEdit(rec: Uint8Array, objects: Map<number, RemoteObject>): void {
  const c = cursor(rec);
  while (c.pos < c.end) {
    const tag = getVarint64Number(c);
    if (tag === 1) {
      const fileNumber = getVarint64Number(c);
      const type = getVarint64Number(c);
      getVarint64Number(c); // creator id
      getVarint64Number(c); // creator file number
      getVarint64Number(c); // cleanup method
      const o: RemoteObject = {
        fileNumber,
        kind: type === 1 ? "table" : type === 2 ? "blob" : `type ${type}`,
        locator: "",
      };
      for (let t = getVarint64Number(c); t !== 0; t = getVarint64Number(c)) {
        if (t === 4) o.locator = getString(c);
        else if (t === 5) o.customName = getString(c);
        else throw new RangeError(`unknown new-object field ${t}`);
      }
      objects.set(fileNumber, o);
    } else if (tag === 2) objects.delete(getVarint64Number(c));
    else if (tag === 3) getVarint64Number(c);
    else throw new RangeError(`unknown remote catalog tag ${tag}`);
  }
}

/** The catalog the marker names, read to its end (or to the first bad record, noted as the problem). */
export function readRemoteCatalog(
  dir: string,
  markers: Map<string, PebbleMarker>,
): RemoteCatalog | undefined {
  const name = markers.get("remote-obj-catalog")?.value;
  if (name === undefined || !/^REMOTE-OBJ-CATALOG-\d+$/.test(name)) return undefined;
  const out: RemoteCatalog = { file: name, objects: new Map() };
  try {
    const r = scanLogFile(join(dir, name), (rec) => {
      if (out.problem) return;
      try {
        applyEdit(rec.data, out.objects);
      } catch (e) {
        out.problem = { offset: rec.offset, message: (e as Error).message };
      }
    });
    const bad = r.issues.find((i) => i.kind !== "torn-tail" && i.kind !== "zero-tail");
    if (bad && !out.problem) out.problem = { offset: bad.offset, message: bad.message };
  } catch (e) {
    out.problem = { offset: 0, message: (e as Error).message };
  }
  return out;
}
