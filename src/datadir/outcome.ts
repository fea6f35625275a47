/**
 * What a command says about a datadir model it could not read whole or at all: the located lines of an
 * incomplete picture and its last line, and the refusals for a missing, unreadable or Pebble-only store.
 */
import { isAbsolute, relative } from "node:path";
import type { DatadirModel, Finding, InstanceModel } from "./model.js";
import { LsmscopeError } from "../util/errors.js";
import { escapeText } from "../util/bytes.js";

/**
 * A finding as one located line, "file @ offset N: message" (the offset when known), as text from the
 * files (raw: for --json and for renderers that escape). With `base` (the store's directory) the file is
 * named under it, and left out when it is the directory itself ("offset N: message" / "message").
 */
export function findingText(f: Finding, base?: string): string {
  const under = base === undefined ? f.file : relative(base, f.file);
  const file = base !== undefined && (/^\.\.(\/|$)/.test(under) || isAbsolute(under)) ? f.file : under;
  const at = f.offset !== undefined ? `${file ? `${file} @ ` : ""}offset ${f.offset}` : file;
  return `${at ? `${at}: ` : ""}${f.message}`;
}

/** findingText as printed: escaped (escapeText), so no control character or raw byte from a datadir reaches a terminal. */
export function findingLine(f: Finding, base?: string): string {
  return escapeText(findingText(f, base));
}

/**
 * The error findings that leave a model's picture incomplete, one located line each ("file @ offset N:
 * message", findingText: raw, --json carries them); empty when it is complete. Commands that report from
 * the model print them through incompleteLine and exit 2.
 */
export function incompleteReasons(model: DatadirModel): string[] {
  return model.findings.filter((f) => f.severity === "error").map((f) => findingText(f));
}

/** The last line of a command whose picture is incomplete (`reasons` from incompleteReasons), escaped. */
export function incompleteLine(reasons: string[]): string {
  return `picture incomplete: ${reasons.length} error${reasons.length === 1 ? "" : "s"} met while reading (first: ${escapeText(reasons[0] ?? "")}); exit 2`;
}

/**
 * Why a store cannot be read, one line, the same in every command: its first error finding (a dangling
 * CURRENT, a MANIFEST that does not decode, a permission) as findingLine puts it (the file left out when
 * it is the store's directory itself): "store cannot be read: /d/MANIFEST-000005 @ offset 123: ...".
 */
export function unreadableStoreReason(inst: Pick<InstanceModel, "path" | "findings">): string {
  const why = inst.findings.find((f) => f.severity === "error");
  if (!why) return "store cannot be read: its MANIFEST could not be read (no error recorded)";
  return `store cannot be read: ${findingLine(why.file === inst.path ? { ...why, file: "" } : why)}`;
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
 * the no-store finding (with what the walk could not see), or the unreadable instance's reason
 * (unreadableStoreReason).
 */
export function noReadableStoreError(
  model: DatadirModel,
  what = "RocksDB, LevelDB or Pebble store",
): LsmscopeError {
  const noStore = model.findings.find((f) => f.code === "no-store");
  if (noStore || model.instances.length === 0)
    return new LsmscopeError(escapeText(noStore?.message ?? `no ${what} found`), { file: model.root });
  const inst = model.instances.find((i) => !i.readable) ?? model.instances[0]!;
  return new LsmscopeError(unreadableStoreReason(inst), { file: inst.path });
}
