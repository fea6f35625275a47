/**
 * `lsmscope report A B --html FILE` in a real browser: headless Chromium (Debian's `chromium`) loads the
 * page from disk with networking off; its DOM holds the identity, the column families, the level bars
 * and the size histograms as SVG, and check's findings; its screenshot has the window's dimensions and is
 * far from blank. The page references nothing outside itself, and the command refuses to write into a
 * datadir it reports on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, SAMPLES, snapshotTree, trackedTempDirs } from "../helpers/index.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-html-");
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

function browse(args: string[]): string {
  const r = spawnSync(
    chromium!,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      `--user-data-dir=${tempDir("lsmscope-chromium-")}`,
      ...args,
    ],
    { encoding: "utf8", timeout: 120_000, maxBuffer: 64 << 20 },
  );
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr}`);
  return r.stdout;
}

const A = join(SAMPLES, "besu-snapshot");
const B = join(SAMPLES, "besu-generated");
const truthA = JSON.parse(readFileSync(join(SAMPLES, "besu-snapshot.truth.json"), "utf8"));
let file: string;
let html: string;

beforeAll(() => {
  file = join(tempDir(), "report.html");
  const before = [snapshotTree(A), snapshotTree(B)];
  const r = run(["report", A, B, "--html", file]);
  expect(r.status).toBe(0);
  expect([snapshotTree(A), snapshotTree(B)]).toEqual(before);
  html = readFileSync(file, "utf8");
}, 180_000);
afterAll(cleanupTemps);

describe("report --html", () => {
  it("is self-contained: no scripts, stylesheets, images or URLs to fetch", () => {
    expect(html).not.toMatch(/<script|<link|<img|<iframe|url\(|@import/i);
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
  });

  it("refuses an output path inside a datadir it reports on, and writes nothing", () => {
    const before = snapshotTree(A);
    const r = run(["report", A, B, "--html", join(A, "report.html")]);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/inside the datadir/);
    expect(snapshotTree(A)).toEqual(before);
  });

  describe.skipIf(!chromium)("in headless Chromium", () => {
    /**
     * The report loaded once for the two tests that read it: its DOM and its screenshot come from one
     * Chromium run (both flags in one launch; the page holds no script, so the window's size changes
     * nothing in its DOM). A launch costs ~2 s here.
     */
    let loaded: { dom: string; shot: string } | undefined;
    function reportInBrowser(): { dom: string; shot: string } {
      if (loaded) return loaded;
      const shot = join(tempDir(), "report.png");
      const dom = browse(["--window-size=1200,1600", `--screenshot=${shot}`, "--dump-dom", `file://${file}`]);
      return (loaded = { dom, shot });
    }

    it("the DOM holds identity, column families, SVG charts and check's verdicts", () => {
      const { dom } = reportInBrowser();
      expect(dom).toContain(truthA.identity.chainHead.hash);
      expect(dom).toContain(truthA.identity.stateRoot);
      expect(dom).toContain("cf06 ACCOUNT_INFO_STATE");
      expect(dom).toMatch(/check: \d+ errors/);
      expect(dom).toContain("small-files-above-bottom");
      // level bars: one per column family with files, in each arm; and a size-histogram SVG per arm
      const bars = dom.match(/<svg class="levels"/g) ?? [];
      expect(bars.length).toBeGreaterThanOrEqual(12);
      expect((dom.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(bars.length + 2);
      expect(dom).toMatch(/<rect [^>]*width="\d+"/);
    }, 180_000);

    it("--probe: each definition's points in the arm of its client, equal to `probe --json`", () => {
      const dir = tempDir();
      const def = join(dir, "slot.json");
      writeFileSync(
        def,
        JSON.stringify({
          name: "slot-reader",
          client: "besu",
          cf: "08",
          keys: "present",
          count: [200],
          path: "reader",
        }),
      );
      const out = join(dir, "probe.html");
      const r = run([
        "report",
        A,
        "--html",
        out,
        "--probe",
        def,
        "--probe",
        join(REPO, "probes", "geth-absent-account.json"),
      ]);
      expect(r.status).toBe(0);
      const dom = browse(["--dump-dom", `file://${out}`]);
      const probe = JSON.parse(run(["probe", A, "--def", def, "--seed", "report", "--json"]).stdout);
      const pt = probe.points[0];
      const table = dom.slice(dom.indexOf('<table class="probes">'));
      expect(table).toContain("slot-reader");
      const cells = [...table.matchAll(/<td class="n">([^<]*)<\/td>/g)].slice(0, 7).map((m) => m[1]);
      // as the text report prints them (probe/render.ts perLookupCells): whole numbers bare, else 3
      // decimals, data blocks 4
      const fixed = (n: number, d = 3) => (Number.isInteger(n) ? String(n) : n.toFixed(d));
      expect(cells).toEqual([
        "200",
        String(pt.found),
        fixed(pt.filesPerLookup),
        fixed(pt.filterChecksPerLookup),
        fixed(pt.filterRejectionsPerLookup),
        fixed(pt.indexBlocksPerLookup),
        fixed(pt.dataBlocksPerLookup, 4),
      ]);
      expect(pt.found).toBe(200);
      expect(table).toMatch(
        /geth-absent-account<\/td><td colspan="8" class="info">for geth stores; this datadir is besu/,
      );
    }, 180_000);

    it("renders: a screenshot of the window's size, far from blank", () => {
      const { shot } = reportInBrowser();
      const blank = join(tempDir(), "blank.png");
      browse(["--window-size=1200,1600", `--screenshot=${blank}`, "about:blank"]);
      const png = readFileSync(shot);
      expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 1600]);
      // a blank page compresses to almost nothing; text, bars and histograms do not
      expect(statSync(shot).size).toBeGreaterThan(10 * statSync(blank).size);
    }, 180_000);
  });
});
