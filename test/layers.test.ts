/**
 * The module map's layers hold (README, "Library"): no cycle among src/'s top-level directories, and the
 * readers and the analysis know nothing of the report, the TUI or the command line. Imports are read with
 * TypeScript's own scanner (ts.preProcessFile: static, type-only, re-exports and `import("…")` alike), so
 * a type-only import counts as much as any other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/index.js";

const SRC = join(REPO, "src");

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The top-level directory of src/ a file is in ("(root)" for src/index.ts). */
const area = (file: string): string => {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0]! : "(root)";
};

/** Imports between areas: "from -> to" with the importing files and specifiers. */
function areaImports(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const to = resolve(dirname(file), fileName);
      if (!to.startsWith(SRC + sep)) continue;
      const [a, b] = [area(file), area(to)];
      if (a === b) continue;
      const k = `${a} -> ${b}`;
      edges.set(k, [...(edges.get(k) ?? []), `${relative(SRC, file)} imports ${fileName}`]);
    }
  }
  return edges;
}

/** Strongly connected components of more than one node (Tarjan): each is a cycle. */
function cycles(edges: Iterable<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.split(" -> ") as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("module layers", () => {
  const edges = areaImports();

  it("finds a cycle when there is one (the check can fail)", () => {
    expect(cycles(["a -> b", "b -> c", "c -> a", "c -> d"])).toEqual([["a", "b", "c"]]);
    expect(cycles(["a -> b", "b -> c"])).toEqual([]);
    // the scan sees src/'s real imports: the CLI imports the reports
    expect(edges.has("cli -> report")).toBe(true);
  });

  it("has no cycle among src/'s top-level directories", () => {
    const found = cycles(edges.keys()).map((scc) => ({
      cycle: scc,
      imports: [...edges].filter(
        ([k]) => scc.includes(k.split(" -> ")[0]!) && scc.includes(k.split(" -> ")[1]!),
      ),
    }));
    expect(found).toEqual([]);
  });

  it("keeps the readers and the analysis below the report, the TUI and the command line", () => {
    const lower = ["base", "util", "format", "datadir", "lsm", "analysis"];
    const upper = ["report", "tui", "cli", "html"];
    const wrong = [...edges].filter(([k]) => {
      const [a, b] = k.split(" -> ") as [string, string];
      return lower.includes(a) && upper.includes(b);
    });
    expect(wrong).toEqual([]);
  });
});
