/**
 * The properties meta block "rocksdb.properties" (table/meta_blocks.cc ReadTablePropertiesHelper,
 * table/table_properties.cc TablePropertiesNames). A meta block (block.ts layout, restart interval 1
 * in practice) whose keys are property names and values:
 *   varint64              for the predefined numeric properties (NUMERIC_FIELDS below)
 *   raw bytes             for the predefined string properties and every user-collected property
 *                         (e.g. "rocksdb.block.based.table.index.type" = fixed32 LE)
 * Old RocksDB versions named the block "rocksdb.stats".
 *
 * Decoded once per table into TableProperties: typed fields named after what they hold (each field's
 * on-disk name written once, in the tables below, like Pebble's sstable.Properties tags), every property
 * under its on-disk name for display, and the user-collected ones in their own map.
 */
import { sharedString } from "../util/shared_text.js";
import { isPrintableAscii, toHex } from "../util/bytes.js";
import { PEBBLE_NUMERIC_PROPERTIES } from "./pebble.js";
import { readFixed32 } from "../util/coding.js";

/** Predefined uint64 properties, stored as varint64. "deleted.keys"/"merge.operands" included. */
export const NUMERIC_FIELDS = {
  originalFileNumber: "rocksdb.original.file.number",
  dataSize: "rocksdb.data.size",
  indexSize: "rocksdb.index.size",
  indexPartitions: "rocksdb.index.partitions",
  topLevelIndexSize: "rocksdb.top-level.index.size",
  indexKeyIsUserKey: "rocksdb.index.key.is.user.key",
  indexValueIsDeltaEncoded: "rocksdb.index.value.is.delta.encoded",
  udiIsPrimaryIndex: "rocksdb.udi.is.primary.index",
  filterSize: "rocksdb.filter.size",
  rawKeySize: "rocksdb.raw.key.size",
  rawValueSize: "rocksdb.raw.value.size",
  numDataBlocks: "rocksdb.num.data.blocks",
  numDataBlocksCompressionRejected: "rocksdb.num.data.blocks.compression.rejected",
  numDataBlocksCompressionBypassed: "rocksdb.num.data.blocks.compression.bypassed",
  numUniformBlocks: "rocksdb.num.uniform.blocks",
  numEntries: "rocksdb.num.entries",
  numFilterEntries: "rocksdb.num.filter_entries",
  numDeletions: "rocksdb.deleted.keys",
  numMergeOperands: "rocksdb.merge.operands",
  numRangeDeletions: "rocksdb.num.range-deletions",
  formatVersion: "rocksdb.format.version",
  fixedKeyLength: "rocksdb.fixed.key.length",
  columnFamilyId: "rocksdb.column.family.id",
  creationTime: "rocksdb.creation.time",
  oldestKeyTime: "rocksdb.oldest.key.time",
  newestKeyTime: "rocksdb.newest.key.time",
  fileCreationTime: "rocksdb.file.creation.time",
  slowCompressionEstimatedDataSize: "rocksdb.sample_for_compression.slow.data.size",
  fastCompressionEstimatedDataSize: "rocksdb.sample_for_compression.fast.data.size",
  tailStartOffset: "rocksdb.tail.start.offset",
  userDefinedTimestampsPersisted: "rocksdb.user.defined.timestamps.persisted",
  keyLargestSeqno: "rocksdb.key.largest.seqno",
  keySmallestSeqno: "rocksdb.key.smallest.seqno",
  dataBlockRestartInterval: "rocksdb.data.block.restart.interval",
  indexBlockRestartInterval: "rocksdb.index.block.restart.interval",
  separateKeyValueInDataBlock: "rocksdb.separate.key.value.in.data.block",
} as const;

/** Predefined string properties (stored as raw text). */
export const STRING_FIELDS = {
  dbId: "rocksdb.creating.db.identity",
  dbSessionId: "rocksdb.creating.session.identity",
  dbHostId: "rocksdb.creating.host.identity",
  filterPolicyName: "rocksdb.filter.policy",
  columnFamilyName: "rocksdb.column.family.name",
  comparatorName: "rocksdb.comparator",
  mergeOperatorName: "rocksdb.merge.operator",
  prefixExtractorName: "rocksdb.prefix.extractor.name",
  propertyCollectorsNames: "rocksdb.property.collectors",
  compressionName: "rocksdb.compression",
  compressionOptions: "rocksdb.compression_options",
  seqnoToTimeMapping: "rocksdb.seqno.time.map",
} as const;

/**
 * Properties that BlockBasedTable's own collector adds (table/block_based/block_based_table_builder.cc
 * BlockBasedTablePropertiesCollector): user-collected by RocksDB's rules (raw bytes), but the reader
 * needs them, so they are decoded into typed fields too.
 */
export const BLOCK_BASED_FIELDS = {
  /** fixed32 LE: BlockBasedTableOptions::IndexType. */
  indexType: "rocksdb.block.based.table.index.type",
  /** "0" / "1" text. */
  wholeKeyFiltering: "rocksdb.block.based.table.whole.key.filtering",
  prefixFiltering: "rocksdb.block.based.table.prefix.filtering",
} as const;

/** Numeric properties: RocksDB's, and Pebble's own (pebble.ts), all uvarint-encoded. */
export const NUMERIC_PROPERTIES: ReadonlySet<string> = new Set([
  ...Object.values(NUMERIC_FIELDS),
  ...PEBBLE_NUMERIC_PROPERTIES,
]);
export const STRING_PROPERTIES: ReadonlySet<string> = new Set(Object.values(STRING_FIELDS));

/** A property value: numbers for numeric properties, text when printable, else "0x" + hex. */
export type PropertyValue = number | string;

type NumericFields = { -readonly [K in keyof typeof NUMERIC_FIELDS]?: number };
type StringFields = { -readonly [K in keyof typeof STRING_FIELDS]?: string };

/** A table's properties, decoded once. A field is absent when the table does not carry it. */
export interface TableProperties extends NumericFields, StringFields {
  /** BlockBasedTableOptions::IndexType number ("rocksdb.block.based.table.index.type"). */
  indexType?: number;
  /** Whole keys were added to the filter (absent: RocksDB's default, true). */
  wholeKeyFiltering?: boolean;
  /** Every property under its on-disk name, rendered (numbers, text, or "0x" + hex). */
  readonly all: Record<string, PropertyValue>;
  /** The user-collected properties (neither numeric nor string predefined ones), rendered. */
  readonly user: Map<string, PropertyValue>;
}

/**
 * A table's properties as the reader keeps them: `all` and the two block-based fields the reader
 * decodes from raw bytes; every other typed field is a getter over `all` (defined below from the field
 * tables), so a table costs one record of its properties, not two (readers holding thousands of tables
 * open: probe's reader path, a merge over an L0 pile-up).
 */
class DecodedProperties {
  constructor(
    readonly all: Record<string, PropertyValue>,
    readonly indexType: number | undefined,
    readonly wholeKeyFiltering: boolean | undefined,
  ) {}

  get user(): Map<string, PropertyValue> {
    const user = new Map<string, PropertyValue>();
    for (const [name, value] of Object.entries(this.all))
      if (!NUMERIC_PROPERTIES.has(name) && !STRING_PROPERTIES.has(name)) user.set(name, value);
    return user;
  }
}
for (const [field, name] of Object.entries(NUMERIC_FIELDS))
  Object.defineProperty(DecodedProperties.prototype, field, {
    get(this: DecodedProperties) {
      const v = this.all[name];
      return typeof v === "number" ? v : undefined;
    },
  });
for (const [field, name] of Object.entries(STRING_FIELDS))
  Object.defineProperty(DecodedProperties.prototype, field, {
    get(this: DecodedProperties) {
      const v = this.all[name];
      return v === undefined ? undefined : String(v);
    },
  });

/** No properties (LevelDB tables have no properties block). */
export function emptyTableProperties(): TableProperties {
  return new DecodedProperties({}, undefined, undefined) as unknown as TableProperties;
}

/**
 * The names of a properties block in their order, as many tables share them (every table one
 * RocksDB version wrote with one set of options): each name's bytes, to recognise it without decoding
 * it, and a record of the names that each table's own record is cloned from. V8 gives records built
 * one computed key at a time a hash table each (~1.6 KiB per table against ~0.4 KiB); a clone of the
 * layout's template shares its hidden class with every other table's.
 */
class PropertyLayout {
  readonly nameBytes: Buffer[];
  readonly numeric: boolean[];
  readonly template: Record<string, PropertyValue>;
  constructor(readonly names: readonly string[]) {
    this.nameBytes = names.map((n) => Buffer.from(n, "latin1"));
    this.numeric = names.map((n) => NUMERIC_PROPERTIES.has(n));
    const t: Record<string, PropertyValue> = {};
    // a placeholder of neither kind, so that the clones' fields take numbers and text alike
    for (const n of names) t[n] = null as unknown as PropertyValue;
    this.template = { ...t };
  }
}

/** Layouts kept (a store's tables use a handful); past this many, records are built without one. */
const MAX_LAYOUTS = 64;
const layouts = new Map<string, PropertyLayout>();

function bytesEqual(a: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[start + i]) return false;
  return true;
}

/**
 * Builds one table's TableProperties from its properties block, one entry at a time (add), then
 * finish(). Where a name or a text value has the same bytes at the same position as in the table
 * decoded before (tables of one store repeat their names, comparator, policy, compression options,
 * db and session ids), the string decoded then is reused: no string is made per property per table.
 * One builder per thread is reused (`propertiesBuilder()`); it keeps the last table's values only.
 */
export class PropertiesBuilder {
  private layout: PropertyLayout | undefined;
  private readonly names: string[] = [];
  private readonly values: PropertyValue[] = [];
  /** The text values decoded last by position: their bytes, name and value (undefined: a number). */
  private readonly prevText: (Buffer | undefined)[] = [];
  private readonly prevNames: string[] = [];
  private readonly prevValues: PropertyValue[] = [];
  private count = 0;
  private indexType: number | undefined;
  private wholeKeyFiltering: boolean | undefined;

  /** Start a table. */
  begin(): this {
    this.count = 0;
    this.indexType = undefined;
    this.wholeKeyFiltering = undefined;
    return this;
  }

  /** One property: name bytes `nb[ns, ne)`, raw value bytes `vb[vs, ve)` (read now, not kept). */
  add(nb: Uint8Array, ns: number, ne: number, vb: Uint8Array, vs: number, ve: number): void {
    const i = this.count++;
    const layout = this.layout;
    const known = layout?.nameBytes[i];
    const name =
      known !== undefined && bytesEqual(known, nb, ns, ne)
        ? layout!.names[i]!
        : Buffer.from(nb.buffer, nb.byteOffset + ns, ne - ns).toString("latin1");
    this.names[i] = name;
    let value: PropertyValue;
    if (NUMERIC_PROPERTIES.has(name)) {
      value = numericValue(vb, vs, ve);
      this.prevText[i] = undefined;
    } else {
      const before = this.prevText[i];
      if (before !== undefined && this.prevNames[i] === name && bytesEqual(before, vb, vs, ve))
        value = this.prevValues[i]!;
      else {
        const raw = Buffer.from(vb.buffer, vb.byteOffset + vs, ve - vs);
        // text that thousands of tables repeat (comparator, compression options, db and session ids): one copy
        value = sharedString(textValue(raw));
        // kept together, so that a table whose block fails half-way leaves no mismatched pair
        this.prevText[i] = Buffer.from(raw);
        this.prevNames[i] = name;
        this.prevValues[i] = value;
      }
      if (name === BLOCK_BASED_FIELDS.indexType) {
        if (ve - vs >= 4) this.indexType = readFixed32(vb, vs);
      } else if (name === BLOCK_BASED_FIELDS.wholeKeyFiltering)
        this.wholeKeyFiltering = !(ve - vs === 1 && vb[vs] === 0x30);
    }
    this.values[i] = value;
  }

  /** The table's properties (the names and values added since begin()). */
  finish(): TableProperties {
    const n = this.count;
    const names = this.names;
    const values = this.values;
    let layout = this.layout;
    if (!layout || !sameNames(layout.names, names, n)) {
      const key = names.slice(0, n).join("\0");
      layout = layouts.get(key);
      if (!layout && layouts.size < MAX_LAYOUTS) {
        layout = new PropertyLayout(names.slice(0, n));
        layouts.set(key, layout);
      }
      this.layout = layout;
    }
    let all: Record<string, PropertyValue>;
    if (layout) {
      all = { ...layout.template };
      for (let i = 0; i < n; i++) all[names[i]!] = values[i]!;
    } else {
      const d: Record<string, PropertyValue> = {};
      for (let i = 0; i < n; i++) d[names[i]!] = values[i]!;
      all = { ...d };
    }
    return new DecodedProperties(all, this.indexType, this.wholeKeyFiltering) as unknown as TableProperties;
  }
}

function sameNames(a: readonly string[], b: readonly string[], n: number): boolean {
  if (a.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

let builder: PropertiesBuilder | undefined;

/** This thread's builder (reading tables is synchronous: one table's properties at a time). */
export function propertiesBuilder(): PropertiesBuilder {
  return (builder ??= new PropertiesBuilder()).begin();
}

/** A numeric property's value: a number, the decimal text of one past 2^53, or "0x" + hex when malformed. */
function numericValue(b: Uint8Array, start: number, end: number): PropertyValue {
  // values of up to 7 bytes (< 2^49) exactly in doubles: most properties, without BigInt's cost
  let small = 0;
  let mul = 1;
  for (let i = start; i < end && i < start + 7; i++) {
    const x = b[i]!;
    small += (x & 0x7f) * mul;
    if (x < 0x80) return small;
    mul *= 128;
  }
  const raw = b.subarray(start, end);
  const v = decodeVarint64Value(raw);
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v.toString();
  return "0x" + toHex(raw); // malformed: RocksDB skips it, we show the bytes
}

/** A text property's value: the text when printable, else "0x" + hex. */
function textValue(raw: Buffer): string {
  if (raw.length === 0) return "";
  if (isPrintableAscii(raw)) return raw.toString("latin1");
  return "0x" + toHex(raw);
}

export function decodeVarint64Value(v: Uint8Array): number | bigint | undefined {
  // values of up to 7 bytes (< 2^49) exactly in doubles: most properties, without BigInt's cost
  let small = 0;
  let mul = 1;
  for (let i = 0; i < v.length && i < 7; i++) {
    const b = v[i]!;
    small += (b & 0x7f) * mul;
    if (b < 0x80) return small;
    mul *= 128;
  }
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < v.length && i < 10; i++) {
    const b = v[i]!;
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return result <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(result) : result;
    shift += 7n;
  }
  return undefined;
}

/** Render one raw property value the way lsmscope reports it. */
export function propertyValue(name: string, raw: Uint8Array): PropertyValue {
  if (NUMERIC_PROPERTIES.has(name)) {
    const v = decodeVarint64Value(raw);
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return v.toString();
    return "0x" + toHex(raw); // malformed: RocksDB skips it, we show the bytes
  }
  if (raw.length === 0) return "";
  if (isPrintableAscii(raw))
    return (Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).toString(
      "latin1",
    );
  return "0x" + toHex(raw);
}
