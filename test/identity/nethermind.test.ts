/**
 * Nethermind's chain head, on databases RocksDB itself wrote (@nxtedition/rocksdb, RocksDB 9.7.4, into
 * temp directories of this test): blockInfos' head pointer (32 zero bytes → head hash), blockNumbers
 * (hash → number) and headers keyed number ‖ hash as current Nethermind (HeaderStore.cs) does, and by
 * hash alone as older releases did.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { trackedTempDirs } from "../helpers/index.js";
import { keccak256 } from "../../src/eth/keccak.js";
import { bigintToBytes, rlpEncode } from "../../src/eth/rlp.js";
import { inspectDatadir } from "../../src/datadir/inspect.js";
import { readIdentity } from "../../src/identity/index.js";

const require = createRequire(import.meta.url);
const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-nm-identity-");
afterAll(cleanupTemps);

interface Db {
  open(o?: object): Promise<void>;
  close(): Promise<void>;
  put(k: Buffer, v: Buffer): Promise<void>;
}
const { RocksLevel } = require("@nxtedition/rocksdb") as { RocksLevel: new (dir: string, o: object) => Db };

async function write(dir: string, rows: [Buffer, Buffer][]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const db = new RocksLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open({ createIfMissing: true });
  for (const [k, v] of rows) await db.put(k, v);
  await db.close();
  // reopened once, RocksDB flushes its (zstd-compressed) WAL into an L0 table
  const again = new RocksLevel(dir, { keyEncoding: "buffer", valueEncoding: "buffer" });
  await again.open();
  await again.close();
}

function header(number: number, stateRoot: Buffer): Buffer {
  const h32 = (b: number) => Buffer.alloc(32, b);
  const fields = [
    h32(1),
    h32(2),
    Buffer.alloc(20, 3),
    stateRoot,
    h32(4),
    h32(5),
    Buffer.alloc(256),
    bigintToBytes(0n),
    bigintToBytes(BigInt(number)),
    bigintToBytes(30_000_000n),
    bigintToBytes(21_000n),
    bigintToBytes(1_700_000_000n),
    Buffer.alloc(0),
    h32(6),
    Buffer.alloc(8),
  ];
  return Buffer.from(rlpEncode(fields.map((f) => Uint8Array.from(f))));
}

const be8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};

describe("Nethermind chain head", () => {
  const root = Buffer.alloc(32, 0xab);
  const head = header(21_000_123, root);
  const hash = Buffer.from(keccak256(head));
  const older = header(21_000_122, Buffer.alloc(32, 0xcd));
  const olderHash = Buffer.from(keccak256(older));

  it("current layout: blockInfos → blockNumbers → headers[number ‖ hash]", async () => {
    const net = join(tempDir(), "nethermind_db", "mainnet");
    await write(join(net, "blockInfos"), [[Buffer.alloc(32), hash]]);
    await write(join(net, "blockNumbers"), [
      [hash, be8(21_000_123)],
      [olderHash, be8(21_000_122)],
    ]);
    // the older header keyed by hash alone, the head by number ‖ hash: the reader must pick the head's
    await write(join(net, "headers"), [
      [Buffer.concat([be8(21_000_123), hash]), head],
      [olderHash, older],
    ]);
    const id = readIdentity(await inspectDatadir(join(net, ".."), {}));
    expect(id.client).toBe("nethermind");
    expect(id.chainHead).toEqual({ number: 21_000_123, hash: "0x" + hash.toString("hex") });
    expect(id.stateRoot).toBe("0x" + root.toString("hex"));
    expect(id.writtenBy).toMatch(/^RocksDB 9\./);
  }, 60_000);

  it("older layout: headers keyed by hash alone, no blockNumbers entry", async () => {
    const net = join(tempDir(), "nethermind_db", "mainnet");
    await write(join(net, "blockInfos"), [[Buffer.alloc(32), hash]]);
    await write(join(net, "blockNumbers"), []);
    await write(join(net, "headers"), [[hash, head]]);
    const id = readIdentity(await inspectDatadir(join(net, ".."), {}));
    expect(id.chainHead?.number).toBe(21_000_123);
  }, 60_000);

  it("a header that does not hash to the head pointer is not a head", async () => {
    const net = join(tempDir(), "nethermind_db", "mainnet");
    await write(join(net, "blockInfos"), [[Buffer.alloc(32), hash]]);
    await write(join(net, "headers"), [[hash, older]]);
    await write(join(net, "blockNumbers"), []);
    const id = readIdentity(await inspectDatadir(join(net, ".."), {}));
    expect(id.chainHead).toBeUndefined();
    expect(id.note).toMatch(/does not hash to it/);
  }, 60_000);
});
