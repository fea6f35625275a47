#!/usr/bin/env node
// Writes test/setup/durations.json, the order in which the suite's files start on a clean clone
// (test/setup/sequencer.ts), from a run's JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json
//   node scripts/test-durations.mjs /tmp/vitest.json
// Each file's whole run in its fork (its hooks and tests), in seconds; files under half a second are
// left out (they start after the listed ones, in vitest's own order).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const report = process.argv[2];
if (!report) {
  console.error("usage: node scripts/test-durations.mjs <vitest JSON report>");
  process.exit(2);
}
const { testResults } = JSON.parse(readFileSync(report, "utf8"));
const durations = Object.fromEntries(
  testResults
    .map((f) => [relative(root, f.name), Math.round((f.endTime - f.startTime) / 100) / 10])
    .filter(([, seconds]) => seconds >= 0.5)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
const out = join(root, "test", "setup", "durations.json");
writeFileSync(out, JSON.stringify(durations, null, 2) + "\n");
console.log(`${Object.keys(durations).length} files -> ${relative(root, out)}`);
