/**
 * Compression types (include/rocksdb/compression_type.h): the byte stored in block trailers, blob file
 * headers and blob records, with its spelling in OPTIONS files ("kLZ4Compression") and the name RocksDB
 * prints in the "rocksdb.compression" property and lsmscope prints everywhere ("LZ4").
 */

export enum CompressionType {
  None = 0x00,
  Snappy = 0x01,
  Zlib = 0x02,
  BZip2 = 0x03,
  LZ4 = 0x04,
  LZ4HC = 0x05,
  Xpress = 0x06,
  ZSTD = 0x07,
  ZSTDNotFinal = 0x40,
}

/** Type byte → [OPTIONS spelling, display name]. */
const SPELLINGS: ReadonlyMap<number, readonly [options: string, name: string]> = new Map([
  [CompressionType.None, ["kNoCompression", "NoCompression"]],
  [CompressionType.Snappy, ["kSnappyCompression", "Snappy"]],
  [CompressionType.Zlib, ["kZlibCompression", "Zlib"]],
  [CompressionType.BZip2, ["kBZip2Compression", "BZip2"]],
  [CompressionType.LZ4, ["kLZ4Compression", "LZ4"]],
  [CompressionType.LZ4HC, ["kLZ4HCCompression", "LZ4HC"]],
  [CompressionType.Xpress, ["kXpressCompression", "Xpress"]],
  [CompressionType.ZSTD, ["kZSTD", "ZSTD"]],
  [CompressionType.ZSTDNotFinal, ["kZSTDNotFinalCompression", "ZSTDNotFinal"]],
]);

const BY_OPTIONS: ReadonlyMap<string, string> = new Map([...SPELLINGS.values()].map(([o, n]) => [o, n]));

/** Display name of a compression type byte ("LZ4"); "Unknown(0x..)" for one RocksDB does not define. */
export function compressionName(t: number): string {
  return SPELLINGS.get(t)?.[1] ?? `Unknown(0x${t.toString(16).padStart(2, "0")})`;
}

/** OPTIONS spelling → display name ("kLZ4Compression" → "LZ4"); undefined when not a known spelling. */
export function compressionNameFromOptions(v: string): string | undefined {
  return BY_OPTIONS.get(v);
}

/**
 * The compression a table states in its "rocksdb.compression" property, as a display name. Up to
 * format_version 6 the property is one name ("LZ4"; the configured type when every block was stored
 * raw). From 7 (FormatVersionUsesCompressionManagerName) it is `<manager>;<types>;`: the compression
 * manager's compatibility name (empty when compression was off) and the types of the blocks stored
 * compressed, two uppercase hex digits each, kNoCompression left out (BlockBasedTableBuilder's
 * PostPopulateCompressionProperties), more fields possibly after. Read so: the types' names joined by
 * "+" ("LZ4", "LZ4+ZSTD"), "NoCompression" when no block is compressed; a value that is not of that
 * form is given as it stands; undefined without the property (LevelDB's tables have none).
 */
export function tableCompressionName(
  property: string | undefined,
  formatVersion: number,
): string | undefined {
  if (property === undefined || formatVersion < 7) return property;
  const fields = property.split(";");
  const types = fields[1];
  if (fields.length < 3 || types === undefined || !/^(?:[0-9A-F]{2})*$/.test(types)) return property;
  if (types.length === 0) return compressionName(CompressionType.None);
  const names: string[] = [];
  for (let i = 0; i < types.length; i += 2) names.push(compressionName(parseInt(types.slice(i, i + 2), 16)));
  return names.join("+");
}
