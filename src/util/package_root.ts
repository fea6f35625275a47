/**
 * lsmscope's package root: where the native builds live (build/Release/*.node, scripts/build-addon.mjs).
 * The nearest directory upwards from this module holding lsmscope's package.json, so it is found from
 * src/ (tests), dist/src/ and the CLI bundle (dist/src/bundle/) alike.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let found: { root: string | undefined } | undefined;

export function packageRoot(): string | undefined {
  found ??= { root: search() };
  return found.root;
}

function search(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "lsmscope") return dir;
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The path of a native build of ours (`lsmscope_engine`, `lsmscope_readahead`), if the package root is found. */
export function nativeBuildPath(target: string): string | undefined {
  const root = packageRoot();
  return root === undefined ? undefined : join(root, "build", "Release", `${target}.node`);
}

/**
 * The exports of an optional native build of ours (`lsmscope_readahead`, `lsmscope_codec`): undefined
 * where it is not built, or does not load here (built for another Node or machine); the caller checks
 * each export it uses and goes without the build otherwise.
 */
export function nativeHelper(target: string): Record<string, unknown> | undefined {
  const file = nativeBuildPath(target);
  if (file === undefined || !existsSync(file)) return undefined;
  try {
    return createRequire(import.meta.url)(file) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
