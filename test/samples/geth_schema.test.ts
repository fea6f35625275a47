/** geth key categories follow core/rawdb/schema.go and `geth db inspect`'s names, key by key. */
import { describe, expect, it } from "vitest";
import { gethKeyCategory } from "../../src/eth/geth_schema.js";

const num = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const hash = Buffer.alloc(32, 0xab);
const k = (...parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : p)));

describe("gethKeyCategory", () => {
  it("names every schema key as geth db inspect does", () => {
    const cases: [Buffer, string][] = [
      [k("h", num(7), hash), "Headers"],
      [k("h", num(7), "n"), "Block number->hash"],
      [k("h", num(7), hash, "t"), "Difficulties"],
      [k("H", hash), "Block hash->number"],
      [k("b", num(7), hash), "Bodies"],
      [k("r", num(7), hash), "Receipt lists"],
      [k("l", hash), "Transaction index"],
      [k("a", hash), "Account snapshot"],
      [k("o", hash, hash), "Storage snapshot"],
      [k("c", hash), "Contract codes"],
      [hash, "Hash trie nodes"],
      [k("L", hash), "Path trie state lookups"],
      [k("A", Buffer.from([1, 2, 3])), "Path trie account nodes"],
      [k("O", hash, Buffer.from([1])), "Path trie storage nodes"],
      [k("secure-key-", hash), "Trie preimages"],
      [k("ethereum-config-", hash), "Singleton metadata"],
      [k("LastBlock"), "Singleton metadata"],
      [k("LastHeader"), "Singleton metadata"],
      [k("LastFast"), "Singleton metadata"],
      [k("DatabaseVersion"), "Singleton metadata"],
      [k("S", num(1)), "Beacon sync headers"],
      [k("zzz"), "Unaccounted"],
    ];
    for (const [key, cat] of cases) expect(gethKeyCategory(key), key.toString("hex")).toBe(cat);
  });
});
