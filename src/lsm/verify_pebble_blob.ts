/**
 * One Pebble blob file under `inspect --verify`: every block read with its checksum checked (value
 * blocks, index, properties), every value block decoded, and the values' bytes summed against the
 * value bytes the MANIFEST records for the file (new-blob-file), as Pebble's own writer counted them.
 */
import { PebbleBlobFile } from "../format/pebble_blob_file.js";
import type { VerifyItem, VerifyItemResult } from "./verify_item.js";

export function verifyPebbleBlob(item: VerifyItem): VerifyItemResult {
  const out: VerifyItemResult = { kind: item.kind, path: item.path, units: 0, entries: 0, bytes: 0 };
  let f: PebbleBlobFile | undefined;
  try {
    f = new PebbleBlobFile(item.path);
    const r = f.verify();
    out.units = r.values;
    out.bytes = r.bytes;
    if (item.valueBytes !== undefined && r.valueBytes !== item.valueBytes)
      out.error = {
        message: `its ${r.values} values hold ${r.valueBytes} bytes, the MANIFEST says ${item.valueBytes}`,
      };
  } catch (e) {
    const err = e as Error & { offset?: number };
    out.error = { offset: typeof err.offset === "number" ? err.offset : undefined, message: err.message };
  } finally {
    f?.close();
  }
  return out;
}
