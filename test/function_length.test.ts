/**
 * No function in src/ runs over 150 lines (the project's limit: a longer one is split into named steps),
 * and no source file over 700 (a longer one holds more than one job).
 * Functions are found with TypeScript's own parser: declarations, methods, accessors, constructors,
 * function expressions and arrow functions alike; a function's lines run from its first token to its
 * closing brace, nested functions included (a long function does not get shorter by nesting its steps).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/index.js";

const SRC = join(REPO, "src");
const MAX_LINES = 150;
const MAX_FILE_LINES = 700;

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** What a function is called where it is written: its name, the variable or property it is bound to. */
function functionName(fn: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (fn.name) return fn.name.getText(sf);
  const p = fn.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && p.name) return p.name.getText(sf);
  return "(anonymous)";
}

/** "lines\tfile:line\tname" for every function with a body longer than `max` lines in `text`. */
function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const first = lineOf(n.getStart(sf));
      const lines = lineOf(n.end) - first + 1;
      if (lines > max) out.push(`${lines}\t${file}:${first + 1}\t${functionName(n, sf)}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("function length", () => {
  it("finds a function over the limit when there is one (the check can fail)", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join("\n");
    const long = `let x = 0;\nfunction long(): void {\n${body(MAX_LINES - 1)}\n}\n`;
    const arrow = `const f = () => {\n${body(MAX_LINES)}\n};\n`;
    const ok = `class C {\n  m(): void {\n${body(MAX_LINES - 2)}\n  }\n}\n`;
    expect(longFunctions("a.ts", long)).toEqual([`${MAX_LINES + 1}\ta.ts:2\tlong`]);
    expect(longFunctions("b.ts", arrow)).toEqual([`${MAX_LINES + 2}\tb.ts:1\tf`]);
    expect(longFunctions("c.ts", ok)).toEqual([]);
  });

  it(`has no function over ${MAX_LINES} lines in src/`, () => {
    const long = sources(SRC).flatMap((f) => longFunctions(relative(REPO, f), readFileSync(f, "utf8")));
    expect(long).toEqual([]);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines in src/`, () => {
    const long = sources(SRC)
      .map((f) => `${readFileSync(f, "utf8").split("\n").length - 1}\t${relative(REPO, f)}`)
      .filter((row) => Number(row.split("\t")[0]) > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });
});
