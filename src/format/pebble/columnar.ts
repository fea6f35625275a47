/**
 * What the block-based reader (table.ts) needs to read a Pebble columnar table ((Pebble,v5)+), decided
 * once when the table opens, as the row layouts decide their index reader once:
 *
 *   metaindex    (Pebble,v6)+ a key-value block (colblk.ts) of name -> block handle; v5 a row block
 *   properties   (Pebble,v7)+ a key-value block of name -> value; v5, v6 a row block
 *   index        columnar index blocks (colblk_index.ts), single- or two-level by the index type property
 *   data         columnar data blocks (colblk_data.ts) under the key schema "pebble.colblk.schema" names
 *                (key_schema.ts); an unknown schema leaves the data blocks unread, with one clear line
 *   keyspans     range deletions and range keys in columnar keyspan blocks (colblk_keyspan.ts)
 */
import { cursor } from "../../util/coding.js";
import { LsmscopeError } from "../../util/errors.js";
import { BlockKind } from "../block_kind.js";
import { decodeBlockHandle } from "../handle.js";
import type { MetaBlockEntry } from "../metaindex.js";
import type { TableBlocks } from "../table_blocks.js";
import type { BlockHandle } from "../handle.js";
import { pebbleFormatName, type PebbleEntries } from "../pebble.js";
import { keyValueEntries } from "./colblk.js";
import { ColumnarDataCursor } from "./colblk_data.js";
import { keySchemaByName, type KeySchema } from "./key_schema.js";

/** First Pebble table format with columnar data, index and keyspan blocks. */
export const PEBBLE_COLUMNAR_FORMAT = 5;
/** First with a columnar metaindex, and with columnar properties. */
const COLUMNAR_METAINDEX_FORMAT = 6;
const COLUMNAR_PROPERTIES_FORMAT = 7;
/** The property naming a columnar table's key schema. */
export const KEY_SCHEMA_PROPERTY = "pebble.colblk.schema";

export function isColumnar(pebbleFormatVersion: number): boolean {
  return pebbleFormatVersion >= PEBBLE_COLUMNAR_FORMAT;
}

/**
 * Whether a table's metaindex block (decompressed `data`) is a key-value block: from (Pebble,v6) it
 * is, except in the tables of Pebble's development tree before April 2025, whose v6 kept the row
 * metaindex (Pebble's testdata keeps such tables). A row block starts with its first entry's shared-key
 * length, 0; a columnar block with its format version, 1.
 */
export function hasColumnarMetaindex(pebbleFormatVersion: number, data: Buffer): boolean {
  if (pebbleFormatVersion > COLUMNAR_METAINDEX_FORMAT) return true;
  return pebbleFormatVersion === COLUMNAR_METAINDEX_FORMAT && data.length > 0 && data[0] === 1;
}

/**
 * Whether a table's properties block (decompressed `data`) is a key-value block. From (Pebble,v7) it
 * always is; Pebble's development tree also wrote columnar properties under (Pebble,v6) for a time
 * (April to mid 2025, before v7 took that change; Pebble's own testdata keeps such tables). The two
 * layouts differ in their first byte: a row block starts with its first entry's shared-key length, 0;
 * a columnar block with its format version, 1.
 */
export function hasColumnarProperties(pebbleFormatVersion: number, data: Buffer): boolean {
  if (pebbleFormatVersion >= COLUMNAR_PROPERTIES_FORMAT) return true;
  return pebbleFormatVersion === COLUMNAR_METAINDEX_FORMAT && data.length > 0 && data[0] === 1;
}

/** A (Pebble,v6)+ metaindex: names and handles from a key-value block. */
export function decodeColumnarMetaindex(
  blocks: TableBlocks,
  handle: BlockHandle,
  data: Buffer,
): MetaBlockEntry[] {
  return blocks.guard(BlockKind.Metaindex, handle.offset, () =>
    keyValueEntries(data).map(({ key, value }) => {
      const c = cursor(value, 0, value.length);
      const entry: MetaBlockEntry = { name: key.toString("latin1"), handle: decodeBlockHandle(c) };
      // the value-block index's entry carries three more bytes after its handle (valblk.IndexHandle)
      if (c.pos < c.end) entry.trailing = Buffer.from(value.subarray(c.pos, c.end));
      return entry;
    }),
  );
}

/** A (Pebble,v7)+ properties block: every (name, raw value) of its key-value block. */
export function columnarProperties(
  blocks: TableBlocks,
  handle: BlockHandle,
  data: Buffer,
): { name: string; raw: Buffer }[] {
  return blocks.guard(BlockKind.Properties, handle.offset, () =>
    keyValueEntries(data).map(({ key, value }) => ({
      name: key.toString("latin1"),
      raw: Buffer.from(value),
    })),
  );
}

/** The data-block side of a columnar table: its key schema, known or not. */
export class ColumnarLayout {
  readonly schemaName: string | undefined;
  readonly schema: KeySchema | undefined;
  private readonly file: string;
  private readonly formatVersion: number;

  constructor(file: string, formatVersion: number, schemaName: string | undefined) {
    this.file = file;
    this.formatVersion = formatVersion;
    this.schemaName = schemaName;
    this.schema = keySchemaByName(schemaName);
  }

  /** A cursor over the table's data blocks; refused with one line when the key schema is unknown. */
  dataCursor(pebble?: PebbleEntries): ColumnarDataCursor {
    if (!this.schema) {
      const what =
        this.schemaName === undefined ? "names no key schema" : `uses the key schema "${this.schemaName}"`;
      throw new LsmscopeError(
        `Pebble table ${pebbleFormatName(this.formatVersion)} ${what}, which lsmscope does not know: its data blocks cannot be read (properties, index, filter and range deletions can)`,
        { file: this.file },
      );
    }
    return new ColumnarDataCursor(this.schema, pebble);
  }
}
