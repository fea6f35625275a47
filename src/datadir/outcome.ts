/**
 * What a command says about a datadir model it could not read whole or at all: the located lines of an
 * incomplete picture and its last line, and the refusals for a missing, unreadable or Pebble-only store.
 */
import type { DatadirModel } from "./model.js";
import { LsmscopeError } from "../util/errors.js";

/**
 * The error findings that leave a model's picture incomplete, one located line each ("file @ offset N:
 * message"); empty when it is complete. Commands that report from the model print these and exit 2.
 */
export function incompleteReasons(model: DatadirModel): string[] {
  return model.findings
    .filter((f) => f.severity === "error")
    .map((f) => `${f.file}${f.offset !== undefined ? ` @ offset ${f.offset}` : ""}: ${f.message}`);
}

/** The last line of a command whose picture is incomplete (`reasons` from incompleteReasons). */
export function incompleteLine(reasons: string[]): string {
  return `picture incomplete: ${reasons.length} error${reasons.length === 1 ? "" : "s"} met while reading (first: ${reasons[0]}); exit 2`;
}

/**
 * The refusal of a command that writes through the RocksDB engine (compact) when the only stores are
 * Pebble's: no Pebble engine exists here, and RocksDB must never open a Pebble store. Undefined when the
 * model holds a RocksDB store or no Pebble store.
 */
export function pebbleEngineRefusal(model: DatadirModel, command: string): LsmscopeError | undefined {
  if (model.instances.some((i) => i.engine === "rocksdb")) return undefined;
  const p = model.instances.find((i) => i.engine === "pebble");
  if (!p) return undefined;
  return new LsmscopeError(
    `${command} refused: this is a Pebble store; no Pebble engine exists here and nothing is written to it`,
    { file: p.path, exitCode: 3 },
  );
}

/**
 * Why a command that needs a readable store has none, as a user error naming the path and the cause:
 * the no-store finding (with what the walk could not see), or the first error of the unreadable
 * instance (a dangling CURRENT, a MANIFEST that does not decode, a permission).
 */
export function noReadableStoreError(
  model: DatadirModel,
  what = "RocksDB, LevelDB or Pebble store",
): LsmscopeError {
  const noStore = model.findings.find((f) => f.code === "no-store");
  if (noStore || model.instances.length === 0)
    return new LsmscopeError(noStore?.message ?? `no ${what} found`, { file: model.root });
  const inst = model.instances.find((i) => !i.readable) ?? model.instances[0]!;
  const why = inst.findings.find((f) => f.severity === "error") ?? inst.findings[0];
  return new LsmscopeError(
    `store cannot be read${why ? `: ${why.file && why.file !== inst.path ? `${why.file}: ` : ""}${why.message}` : ""}`,
    { file: inst.path },
  );
}
