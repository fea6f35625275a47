/** Cold point-lookup probes: reader path (TypeScript LSM walk) and engine path (RocksDB with the store's OPTIONS). */
export {
  runProbe,
  probeColumnFamily,
  resolveColumnFamily,
  buildTarget,
  type ProbeOptions,
  type KeySource,
} from "./probe.js";
export { LsmReader, type ReaderOpenStats } from "./reader_path.js";
export {
  EngineProber,
  checkEngineOptions,
  ENGINE_MAX_FORMAT_VERSION,
  type EngineOptionsInForce,
} from "./engine_path.js";
export {
  presentKeys,
  absentKeys,
  keysFromFile,
  addressKey,
  inferShape,
  SeededRandom,
  type KeyShape,
  type AddressHashing,
  type KeySetResult,
} from "./keys.js";
export { runPoint, runPointInChild, type PointJob } from "./point.js";
export {
  coldMethodAvailable,
  dropPageCache,
  procReadBytes,
  deviceOf,
  deviceReadBytes,
  type ColdMethod,
} from "./cold.js";
export { replayWals, type Memtable, type MemEntry } from "./memtable.js";
export { decodeBlobIndex, readBlobRecord, type BlobIndex } from "../format/blob.js";
export { loadProbeDefinition, type ProbeDefinition } from "./definitions.js";
export { renderProbeReport, renderProbeStart } from "./render.js";
export type * from "./types.js";
