/**
 * How the CLI imports an ES module that is not part of it: the TUI (src/tui/), since Ink is an ES module
 * with top-level await, which the CLI's CommonJS bundle cannot hold (scripts/bundle-cli.mjs). The bundle
 * runs as a script compiled from V8's code cache, and Node 20 gives code from that cache no way to call
 * import() (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the launcher (bin/load_cli.js), an ordinary
 * CommonJS module loaded by Node, hands its own import() over.
 */
export type EsImport = (url: string) => Promise<unknown>;

let esImport: EsImport = (url) => import(url);

/** Import ES modules through `f` from now on (the launcher's import()). */
export function setEsImport(f: EsImport): void {
  esImport = f;
}

/** The ES module at `url` (a file: URL). */
export function importEsModule<T>(url: string): Promise<T> {
  return esImport(url) as Promise<T>;
}
