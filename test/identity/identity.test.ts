/**
 * Datadir identity against the samples' truth (the head the generator's Besu and geth writers pointed at
 * last, and its header's state root), against classic-level (LevelDB's own reader) on a geth copy, and a
 * Besu copy without its WAL: an older head, which `check --against` reports as chain-head.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { REPO, SAMPLES, copyInto, trackedTempDirs } from "../helpers/index.js";
import { keccak256 } from "../../src/eth/keccak.js";

const bin = join(REPO, "bin", "lsmscope.js");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-identity-");
afterAll(cleanupTemps);

const truth = (name: string) => JSON.parse(readFileSync(join(SAMPLES, `${name}.truth.json`), "utf8"));

describe("identity", () => {
  it.each(["besu-snapshot", "besu-generated", "geth-leveldb", "nethermind", "modern"])(
    "%s: inspect --json reads the identity the truth records",
    (name) => {
      const r = run(["inspect", "--json", join(SAMPLES, name)]);
      expect(r.status).toBe(0);
      const id = JSON.parse(r.stdout).identity;
      const { writtenBy, note, ...read } = id;
      expect(read).toEqual(truth(name).identity);
      if (!truth(name).identity.chainHead) expect(note).toBeTruthy();
      if (name === "geth-leveldb") expect(writtenBy).toBeUndefined();
      else expect(writtenBy).toMatch(/^RocksDB \d+\.\d+\.\d+$/);
    },
  );

  it("geth: the head agrees with classic-level reading LastBlock, H and h on a copy", async () => {
    const dir = copyInto(join(SAMPLES, "geth-leveldb", "geth", "chaindata"), tempDir(), "chaindata");
    const db = new ClassicLevel<Buffer, Buffer>(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
    const hash = await db.get(Buffer.from("LastBlock"));
    const num = await db.get(Buffer.concat([Buffer.from("H"), hash!]));
    const header = await db.get(Buffer.concat([Buffer.from("h"), num!, hash!]));
    await db.close();
    expect(keccak256(header!).equals(hash!)).toBe(true);
    const id = JSON.parse(run(["inspect", "--json", join(SAMPLES, "geth-leveldb")]).stdout).identity;
    expect(id.chainHead).toEqual({
      number: Number(num!.readBigUInt64BE()),
      hash: "0x" + hash!.toString("hex"),
    });
  });

  it("inspect shows it at the top; a copy without its WAL is at an older head and check flags the pair", () => {
    const text = run(["inspect", join(SAMPLES, "besu-snapshot")])
      .stdout.split("\n")
      .slice(0, 6)
      .join("\n");
    const t = truth("besu-snapshot").identity;
    expect(text).toContain(`chain head: #${t.chainHead.number.toLocaleString("en-US")}`);
    expect(text).toContain(`state root ${t.stateRoot}`);

    const copy = copyInto(join(SAMPLES, "besu-snapshot"), tempDir());
    const store = join(copy, "database");
    for (const n of readdirSync(store)) if (n.endsWith(".log")) rmSync(join(store, n));
    const older = JSON.parse(run(["inspect", "--json", copy]).stdout).identity;
    expect(older.chainHead.number).toBe(t.chainHead.number - 1); // the pre-run's last head
    expect(older.chainHead.hash).not.toBe(t.chainHead.hash);

    const r = run(["check", copy, "--against", join(SAMPLES, "besu-snapshot"), "--json"]);
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout);
    const f = report.findings.filter((x: { rule: string }) => x.rule === "chain-head");
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe("error");
    expect(report.subject.identity.chainHead).toEqual(older.chainHead);
    // the same state on both sides: no chain-head finding
    const same = run([
      "check",
      join(SAMPLES, "besu-generated"),
      "--against",
      join(SAMPLES, "besu-snapshot"),
      "--json",
    ]);
    expect(JSON.parse(same.stdout).findings.some((x: { rule: string }) => x.rule === "chain-head")).toBe(
      false,
    );
  });
});
