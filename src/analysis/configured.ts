/**
 * The configured side of the knobs: a column family's table options as its store's configuration states
 * them, normalised to the names the files use ("kLZ4Compression" → "LZ4", "kTwoLevelIndexSearch" →
 * "two-level"). One reader per configuration format (CONFIGURED_READERS); a store whose format no reader
 * knows (LevelDB records none) has no configured side, and the comparison is skipped.
 */
import type { ColumnFamilyModel, InstanceModel } from "../datadir/model.js";
import type { CfOptionsModel } from "../datadir/options_file.js";
import { checksumNameFromOptions } from "../base/checksum_type.js";
import { compressionNameFromOptions } from "../base/compression_type.js";
import { indexTypeNameFromOptions } from "../base/index_type.js";
import type { ConfiguredFilter, ConfiguredKnobs } from "./knob_types.js";

/** OPTIONS compression name → the name files carry ("kLZ4Compression" → "LZ4"); undefined for "disabled". */
export function normalizeCompression(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === "" || t === "kDisableCompressionOption") return undefined;
  return compressionNameFromOptions(t) ?? t;
}

/** OPTIONS checksum name → reader's name ("kXXH3" → "xxh3"). */
export function normalizeChecksum(v: string | undefined): string | undefined {
  return v === undefined ? undefined : (checksumNameFromOptions(v.trim()) ?? v.trim());
}

/** OPTIONS index_type → reader's name ("kTwoLevelIndexSearch" → "two-level"). */
export function normalizeIndexType(v: string | undefined): string | undefined {
  return v === undefined ? undefined : (indexTypeNameFromOptions(v.trim()) ?? v.trim());
}

/** Short form of a configured filter: "bloomfilter:10", "ribbonfilter:10:3", "none". */
export function describeConfiguredFilter(f: ConfiguredFilter): string {
  if (f.kind === "none") return "none";
  if (f.kind === "bloom")
    return `bloomfilter${f.bitsPerKey !== undefined ? `:${f.bitsPerKey}` : ""}${f.blockBased ? ":block-based" : ""}`;
  if (f.kind === "ribbon")
    return `ribbonfilter${f.bitsPerKey !== undefined ? `:${f.bitsPerKey}` : ""}${
      f.bloomBeforeLevel !== undefined && f.bloomBeforeLevel !== 0 ? `:${f.bloomBeforeLevel}` : ""
    }`;
  return f.policy;
}

/** The configured knobs of one CF from its typed OPTIONS. */
export function configuredKnobs(
  options: CfOptionsModel,
  optionsFile?: string,
  rocksdbVersion?: string,
): ConfiguredKnobs {
  const t = options.table;
  const fp = t?.filterPolicy;
  const indexType = normalizeIndexType(t?.indexType);
  return {
    optionsFile,
    rocksdbVersion,
    tableFactory: t?.factory,
    filter: fp
      ? {
          policy: fp.raw,
          kind: fp.kind,
          bitsPerKey: fp.bitsPerKey,
          blockBased: fp.blockBased,
          bloomBeforeLevel: fp.bloomBeforeLevel,
        }
      : { policy: "nullptr", kind: "none" },
    compression: normalizeCompression(options.compression),
    compressionPerLevel: options.compressionPerLevel?.length
      ? options.compressionPerLevel.map((c) => normalizeCompression(c) ?? c)
      : undefined,
    bottommostCompression: normalizeCompression(options.bottommostCompression),
    formatVersion: t?.formatVersion,
    blockSize: t?.blockSize,
    indexType,
    partitionFilters: t?.partitionFilters,
    partitionFiltersEffective: Boolean(t?.partitionFilters) && indexType === "two-level",
    wholeKeyFiltering: t?.wholeKeyFiltering,
    optimizeFiltersForHits: options.optimizeFiltersForHits,
    checksum: normalizeChecksum(t?.checksum),
    blockRestartInterval: t?.blockRestartInterval,
    indexBlockRestartInterval: t?.indexBlockRestartInterval,
    dataBlockIndexType: t?.dataBlockIndexType,
    dataBlockHashTableUtilRatio: t?.dataBlockHashTableUtilRatio,
    prefixExtractor: options.prefixExtractor,
    numLevels: options.numLevels,
    levelCompactionDynamicLevelBytes: options.levelCompactionDynamicLevelBytes,
    blob: {
      enableBlobFiles: options.blob.enableBlobFiles,
      minBlobSize: options.blob.minBlobSize,
      blobFileSize: options.blob.blobFileSize,
      blobCompression: normalizeCompression(options.blob.blobCompressionType),
      enableBlobGarbageCollection: options.blob.enableBlobGarbageCollection,
      blobGarbageCollectionAgeCutoff: options.blob.blobGarbageCollectionAgeCutoff,
      blobFileStartingLevel: options.blob.blobFileStartingLevel,
    },
  };
}

/** One configuration format's reader: the CF's configured knobs, or undefined when it does not apply. */
type ConfiguredKnobsReader = (instance: InstanceModel, cf: ColumnFamilyModel) => ConfiguredKnobs | undefined;

/** RocksDB's OPTIONS file (the newest one, typed per column family by src/datadir/options_file.ts). */
const fromRocksdbOptions: ConfiguredKnobsReader = (instance, cf) =>
  cf.options
    ? configuredKnobs(cf.options, instance.options?.file, instance.options?.rocksdbVersion)
    : undefined;

/** Tried in order; the first that answers wins. Another engine's configuration adds its reader here. */
const CONFIGURED_READERS: readonly ConfiguredKnobsReader[] = [fromRocksdbOptions];

/** The configured knobs of one CF, from whichever configuration its store holds (undefined: none read). */
export function configuredKnobsOf(
  instance: InstanceModel,
  cf: ColumnFamilyModel,
): ConfiguredKnobs | undefined {
  for (const read of CONFIGURED_READERS) {
    const c = read(instance, cf);
    if (c) return c;
  }
  return undefined;
}
