/**
 * A Besu (Bonsai) store whose state column families are L0 pile-ups, as a node's store is after a bulk
 * import with auto-compaction off: written by RocksDB (7.8.3, through the engine addon) with Besu's
 * column families, 64 KiB memtables each flushed into L0, compactions off. Accounts (RLP, a tenth of
 * them contracts with code of 200 to 3,199 bytes keyed by its Keccak hash), storage slots spread over
 * the contracts, then a third of the accounts written again (older versions shadowed). At 600,000
 * accounts: 2,415 tables, 860 of them the accounts', 660 the code's, 895 the storage's, 273 MiB.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDb, type WriteOp } from "../src/engine/index.js";
import { encodeAccountFull } from "../src/eth/account.js";
import { rlpEncode } from "../src/eth/rlp.js";
import { keccak256 } from "../src/eth/keccak.js";
import { Prng } from "../src/samples/prng.js";

const EMPTY_ROOT = Buffer.from("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", "hex");
const EMPTY_CODE = Buffer.from("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470", "hex");
const TABLES =
  "block_based_table_factory={format_version=5;block_size=4096;filter_policy=bloomfilter:10:false}";
const PILE_UP = `write_buffer_size=65536;max_write_buffer_number=8;disable_auto_compactions=true;level0_slowdown_writes_trigger=100000;level0_stop_writes_trigger=100000;compression=kNoCompression;${TABLES}`;
/** Besu's column families (byte names), the state ones 0x06 accounts, 0x07 code, 0x08 storage. */
const CFS = ["default", "\x01", "\x06", "\x07", "\x08", "\x09", "\x0a", "\x0b"];

/** What the tests vary; the bench's store takes the defaults. */
export interface BesuPileupOptions {
  /** Bytes of the code of contract account i (default 200 + i mod 3,000). */
  codeBytes?: (i: number) => number;
  /** Storage slots written per account (default 1.5). */
  slotsPerAccount?: number;
  /** Compact every column family into its bottom level once written (the same contents, no pile-up). */
  compact?: boolean;
}

/** Write the store into `dir` (a Besu datadir: DATABASE_METADATA.json and database/). */
export function writeBesuPileup(dir: string, accounts: number, opts: BesuPileupOptions = {}): void {
  const codeBytes = opts.codeBytes ?? ((i: number) => 200 + (i % 3000));
  mkdirSync(join(dir, "database"), { recursive: true });
  writeFileSync(join(dir, "DATABASE_METADATA.json"), '{"v2":{"format":"BONSAI","version":2}}');
  const db = openDb(join(dir, "database"), {
    createIfMissing: true,
    dbOptions: "max_background_flushes=2",
    columnFamilies: CFS.map((n) => ({ name: Buffer.from(n, "latin1"), options: PILE_UP })),
  });
  try {
    const rng = new Prng("besu-pileup");
    const [acc, code, storage] = [Buffer.from([6]), Buffer.from([7]), Buffer.from([8])];
    let ops: WriteOp[] = [];
    const put = (cf: Buffer, key: Buffer, value: Uint8Array) => {
      ops.push({ type: "put", cf, key, value: Buffer.from(value) });
      if (ops.length >= 1000) {
        db.write(ops, { disableWal: true });
        ops = [];
      }
    };
    const hashes: Buffer[] = [];
    for (let i = 0; i < accounts; i++) {
      const h = rng.bytes(32);
      hashes.push(h);
      const contract = i % 10 === 0;
      let codeHash: Buffer = EMPTY_CODE;
      if (contract) {
        // keyed by its code hash, as Besu keys code (the accounts name it by that hash)
        const bytecode = rng.bytes(codeBytes(i));
        codeHash = keccak256(bytecode);
        put(code, codeHash, bytecode);
      }
      const storageRoot = contract ? rng.bytes(32) : EMPTY_ROOT;
      put(
        acc,
        h,
        encodeAccountFull({ nonce: BigInt(i % 50), balance: BigInt(i) * 1000n, storageRoot, codeHash }),
      );
    }
    const contracts = Math.max(1, Math.floor(accounts / 10));
    for (let i = 0; i < (opts.slotsPerAccount ?? 1.5) * accounts; i++) {
      const owner = hashes[((i * 7919) % contracts) * 10]!;
      put(storage, Buffer.concat([owner, rng.bytes(32)]), rlpEncode(rng.bytes(1 + (i % 32))));
    }
    for (let i = 0; i < accounts; i += 3)
      put(
        acc,
        hashes[i]!,
        encodeAccountFull({ nonce: 99n, balance: 1n, storageRoot: EMPTY_ROOT, codeHash: EMPTY_CODE }),
      );
    if (ops.length > 0) db.write(ops, { disableWal: true });
    db.flush();
    if (opts.compact)
      for (const cf of [acc, code, storage]) db.compactRange(cf, { bottommost: "force", exclusive: true });
  } finally {
    db.close();
  }
}
