/**
 * Key schemas of Pebble's columnar data blocks: how a user key is split into columns, named in the
 * table's property "pebble.colblk.schema". Two are known (their user keys are rebuilt byte for byte as
 * Pebble's KeySeeker.MaterializeUserKey does):
 *
 *   DefaultKeySchema(<comparer>,<bundle size>)   (Pebble's sstable/colblk/data_block.go)
 *     no schema header; columns: prefix (prefix bytes), suffix (bytes); key = prefix | suffix
 *   crdb1                                         (CockroachDB's, Pebble's cockroachkvs/cockroachkvs.go)
 *     1-byte schema header (suffix kinds present); columns: roach key (prefix bytes), MVCC wall time
 *     (uint), MVCC logical time (uint), untyped version (bytes). key = roach key | 0x00 | version, where
 *     version = wall (8 bytes big-endian) [| logical (4 bytes big-endian)] | its length + 1 (9 or 13)
 *     for an MVCC timestamp; an untyped version | its length + 1; nothing when neither is set.
 *
 * A table naming another schema can still be read for everything outside its data blocks (properties,
 * index, filters, range deletions and range keys): the reader refuses the data blocks with one line.
 */
import {
  ColumnType,
  copyBytes,
  type ColumnarBlock,
  type PrefixBytes,
  type RawBytes,
  type Uints,
} from "./colblk.js";

/** Decodes the user keys of one data block. */
export interface BlockKeys {
  /** Write row `row`'s user key at out[0...] (out holds the block's maximum key length); its length. */
  materialize(row: number, out: Buffer): number;
}

export interface KeySchema {
  /** The name as stored in "pebble.colblk.schema". */
  name: string;
  /** Bytes of the schema's own header at the start of each data block. */
  headerSize: number;
  /** Its key columns (the data block's first columns). */
  columnTypes: ColumnType[];
  /** The most bytes materialize() adds beyond the block's maximum key length. */
  extraKeyBytes: number;
  keys(block: ColumnarBlock): BlockKeys;
}

const DEFAULT_SCHEMA = /^DefaultKeySchema\((.*),(\d+)\)$/;

const defaultSchema = (name: string): KeySchema => ({
  name,
  headerSize: 0,
  columnTypes: [ColumnType.PrefixBytes, ColumnType.Bytes],
  extraKeyBytes: 0,
  keys(block) {
    const prefixes: PrefixBytes = block.prefixBytes(0);
    const suffixes: RawBytes = block.rawBytes(1);
    return {
      materialize(row, out) {
        const n = prefixes.materialize(row, out, 0);
        suffixes.bounds(row);
        copyBytes(block.data, suffixes.s, suffixes.e, out, n);
        return n + suffixes.e - suffixes.s;
      },
    };
  },
});

/** CockroachDB's MVCC version lengths + 1 (the trailing length byte). */
const WALL_SUFFIX = 9;
const WALL_LOGICAL_SUFFIX = 13;

const crdb1: KeySchema = {
  name: "crdb1",
  headerSize: 1,
  columnTypes: [ColumnType.PrefixBytes, ColumnType.Uint, ColumnType.Uint, ColumnType.Bytes],
  // the maximum key length counts the synthetic-bit byte a 14-byte version may carry; rebuilt keys
  // never exceed it, but the roach key's sentinel and length bytes are written around it
  extraKeyBytes: 2,
  keys(block) {
    const roachKeys: PrefixBytes = block.prefixBytes(0);
    const wall: Uints = block.uints(1);
    const logical: Uints = block.uints(2);
    const untyped: RawBytes = block.rawBytes(3);
    const d = block.data;
    return {
      materialize(row, out) {
        let n = roachKeys.materialize(row, out, 0);
        out[n++] = 0;
        wall.get64(row);
        const wallHi = wall.hi;
        const wallLo = wall.lo;
        const lt = logical.at(row);
        if (wallHi === 0 && wallLo === 0 && lt === 0) {
          untyped.bounds(row);
          const s = untyped.s;
          const e = untyped.e;
          if (s === e) return n;
          copyBytes(d, s, e, out, n);
          n += e - s;
          out[n++] = e - s + 1;
          return n;
        }
        out.writeUInt32BE(wallHi, n);
        out.writeUInt32BE(wallLo, n + 4);
        n += 8;
        if (lt === 0) {
          out[n++] = WALL_SUFFIX;
          return n;
        }
        out.writeUInt32BE(lt >>> 0, n);
        out[n + 4] = WALL_LOGICAL_SUFFIX;
        return n + 5;
      },
    };
  },
};

/** The key schema a table names, or undefined when this reader does not know it. */
export function keySchemaByName(name: string | undefined): KeySchema | undefined {
  if (name === undefined) return undefined;
  if (name === crdb1.name) return crdb1;
  if (DEFAULT_SCHEMA.test(name)) return defaultSchema(name);
  return undefined;
}
