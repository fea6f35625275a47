/**
 * The Ink app through ink-testing-library on the committed samples: list and panes render at 80×24,
 * keys navigate (column families, panes, sort, file detail read through the SST reader), narrow and tiny
 * terminals and an empty datadir render without crashing, q exits.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { render, cleanup } from "ink-testing-library";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, listItems } from "../../src/tui/app.js";
import { sortFiles } from "../../src/tui/panes/files.js";
import { runInspect, type InspectResult } from "../../src/report/deep.js";
import { buildInspectReport } from "../../src/report/build.js";
import { registerPane, unregisterPane, listPanes } from "../../src/tui/panes/index.js";
import { Text } from "ink";

const samplesDir = new URL("../../samples/", import.meta.url).pathname;
const have = (s: string) => existsSync(join(samplesDir, s));
const tick = (ms = 120) => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];
afterEach(() => cleanup());
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const ARROW_DOWN = "\u001B[B";
const TAB = "\t";
const ENTER = "\r";
const ESC = "\u001B";

/** Every line of a frame fits the width (no wrap, no overflow). */
function fits(frame: string, width: number): boolean {
  return frame.split("\n").every((l) => [...l].length <= width);
}

async function load(sample: string): Promise<InspectResult> {
  return runInspect(join(samplesDir, sample));
}

async function press(stdin: { write(s: string): void }, ...keys: string[]) {
  for (const k of keys) {
    stdin.write(k);
    await tick();
  }
}

describe.skipIf(!have("besu-snapshot"))("TUI on besu-snapshot", () => {
  it("renders the list, the layout bars and the help line at 80×24", async () => {
    const result = await load("besu-snapshot");
    const { lastFrame } = render(<App result={result} width={80} height={24} />);
    await tick();
    const f = lastFrame()!;
    expect(f.split("\n").length).toBeLessThanOrEqual(24);
    expect(fits(f, 80)).toBe(true);
    expect(f).toContain("[1l Layout]");
    expect(f).toContain("database [rocksdb]");
    expect(f).toMatch(/!cf01 BLOCKCHA/);
    expect(f).toContain("database › cf01 BLOCKCHAIN");
    // bars: L0 and L6 hold data
    expect(f).toMatch(/L0\s+█/);
    expect(f).toMatch(/L6\s+█+/);
    expect(f).toContain("q quit");
  });

  it("moves between column families with ↓ and ], switches panes by digit and letter", async () => {
    const result = await load("besu-snapshot");
    const { lastFrame, stdin } = render(<App result={result} width={100} height={30} />);
    await tick();
    await press(stdin, ARROW_DOWN);
    expect(lastFrame()).toContain("› cf06 ACCOUNT_INFO_STATE");
    await press(stdin, "]");
    expect(lastFrame()).toContain("› cf07 CODE_STORAGE");
    await press(stdin, "[", "[");
    expect(lastFrame()).toContain("› cf01 BLOCKCHAIN");
    await press(stdin, "3");
    expect(lastFrame()).toContain("[3o Options]");
    expect(lastFrame()).toMatch(/filter\s+bloomfilter:10/);
    await press(stdin, "w");
    expect(lastFrame()).toContain("[4w WAL]");
    expect(lastFrame()).toMatch(/holds \d+ unflushed writes/);
    await press(stdin, "b");
    expect(lastFrame()).toMatch(/2 blob files [\d.]+ KiB, \d+ records/);
  });

  it("sorts the file table and opens a file's detail through the SST reader", async () => {
    const result = await load("besu-snapshot");
    const { lastFrame, stdin } = render(<App result={result} width={100} height={30} />);
    await tick();
    await press(stdin, ARROW_DOWN, "f", TAB);
    let f = lastFrame()!;
    expect(f).toContain("sort: level");
    const rowsOf = (frame: string) =>
      [...frame.matchAll(/(L\d)\s+(\d{6}\.sst)/g)].map((m) => `${m[1]} ${m[2]}`);
    const byLevel = rowsOf(f);
    expect(byLevel.map((r) => r.slice(0, 2))).toEqual(["L0", "L6"]);
    await press(stdin, "s");
    f = lastFrame()!;
    expect(f).toContain("sort: size");
    expect(rowsOf(f)[0]!.startsWith("L6")).toBe(true); // the bottom file is the larger one
    await press(stdin, "s");
    expect(lastFrame()).toContain("sort: age");
    await press(stdin, ENTER);
    f = lastFrame()!;
    expect(f).toContain("Esc back");
    // the table as `sst FILE` reports it, at the pane's width
    expect(f).toMatch(/format: block-based v5, checksum xxh3, compression LZ4/);
    expect(f).toMatch(/filter: fastbloom/);
    await press(stdin, ESC);
    expect(lastFrame()).toContain("sort: age");
  });

  it("does not crash narrow or tiny, and q exits", async () => {
    const result = await load("besu-snapshot");
    for (const [w, h] of [
      [40, 24],
      [59, 12],
      [30, 8],
    ] as const) {
      const { lastFrame, stdin, unmount } = render(<App result={result} width={w} height={h} />);
      await tick();
      for (const k of ["2", TAB, ARROW_DOWN, ENTER, "3", ARROW_DOWN, "4", "5", "1"]) await press(stdin, k);
      expect(fits(lastFrame()!, w)).toBe(true);
      unmount();
    }
    const tiny = render(<App result={result} width={30} height={5} />);
    await tick();
    expect(tiny.lastFrame()).toContain("terminal too small");
    const app = render(<App result={result} width={80} height={24} />);
    await tick();
    await press(app.stdin, "q");
    const before = app.frames.length;
    await press(app.stdin, "2", "3");
    // after q the app has exited: keys no longer produce frames
    expect(app.frames.length).toBe(before);
  });
});

describe("TUI on an empty datadir", () => {
  it("says no store was found and keeps working", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lsmscope-tui-empty-"));
    dirs.push(dir);
    const result = await runInspect(dir);
    const { lastFrame, stdin } = render(<App result={result} width={80} height={24} />);
    await tick();
    expect(lastFrame()).toContain("no RocksDB, LevelDB or Pebble store found");
    await press(stdin, "2", TAB, ARROW_DOWN, "]", "3", "4", "5");
    expect(lastFrame()).toContain("no RocksDB, LevelDB or Pebble store found");
  });
});

describe.skipIf(!have("nethermind"))("TUI on several instances", () => {
  it("lists every Nethermind instance with its CFs and skips headers when moving", async () => {
    const result = await load("nethermind");
    const items = listItems(buildInspectReport(result.model));
    expect(items.filter((i) => i.kind === "instance").map((i) => i.label)).toEqual([
      "nethermind_db/mainnet/code [rocksdb]",
      "nethermind_db/mainnet/flat [rocksdb]",
      "nethermind_db/mainnet/state [rocksdb]",
    ]);
    const { lastFrame, stdin } = render(<App result={result} width={80} height={24} />);
    await tick();
    expect(lastFrame()).toContain("› code");
    await press(stdin, "]");
    expect(lastFrame()).toContain("flat › flat/Account");
  });
});

describe("pane registry", () => {
  it("adds a pane with its own hotkey and refuses reserved or taken keys", async () => {
    // the built-ins come first, in order (other modules may have registered more after them)
    const ids = listPanes().map((p) => p.id);
    expect(ids.slice(0, 5)).toEqual(["layout", "files", "options", "wal", "blob"]);
    expect(() => registerPane({ id: "x", title: "X", key: "q", Component: () => null })).toThrow(/reserved/);
    expect(() => registerPane({ id: "x", title: "X", key: "f", Component: () => null })).toThrow(
      /already belongs/,
    );
    // a pane of a test's own (the real "sizes"/"probe" panes may already be registered)
    registerPane({
      id: "test-pane",
      title: "Dist",
      key: "x",
      order: 999,
      Component: ({ cf }) => <Text>distributions of {cf?.cf.displayName ?? "-"}</Text>,
    });
    try {
      if (!have("besu-snapshot")) return;
      const result = await load("besu-snapshot");
      const { lastFrame, stdin } = render(<App result={result} width={100} height={24} />);
      await tick();
      expect(lastFrame()).toMatch(/\dx Dist/);
      await press(stdin, "x");
      expect(lastFrame()).toContain("distributions of cf01 BLOCKCHAIN");
    } finally {
      unregisterPane("test-pane");
    }
  });
});

describe("file sorting", () => {
  it("orders by level, size and age (newest first)", () => {
    const f = (n: number, level: number, size: number, t?: number) =>
      ({ fileNumber: n, level, fileSize: size, fileCreationTime: t }) as never;
    const files = [f(1, 6, 500, 100), f(2, 0, 50, 300), f(3, 6, 900, 200)];
    const nums = (xs: { fileNumber: number }[]) => xs.map((x) => x.fileNumber);
    expect(nums(sortFiles(files, "level"))).toEqual([2, 1, 3]);
    expect(nums(sortFiles(files, "size"))).toEqual([3, 1, 2]);
    expect(nums(sortFiles(files, "age"))).toEqual([2, 3, 1]);
    expect(nums(sortFiles(files, "size", true))).toEqual([2, 1, 3]);
  });
});
