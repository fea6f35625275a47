/**
 * src/eth against known vectors: RLP examples from the Ethereum wiki / Yellow Paper, keccak constants,
 * account encodings in both forms, classification, code-size classes and client key shapes.
 */
import { describe, expect, it } from "vitest";
import {
  DELEGATION_CODE_SIZE,
  EMPTY_CODE_HASH,
  EMPTY_TRIE_ROOT,
  MAX_CODE_SIZE,
  RlpError,
  besuStorageKey,
  classifyAccount,
  codeSizeClass,
  decodeAccount,
  delegationCode,
  delegationTarget,
  encodeAccountFull,
  encodeAccountSlim,
  gethAccountKey,
  isDelegationCode,
  keccak256,
  keccakImplementation,
  nethermindAccountKey,
  nethermindStorageKey,
  rlpDecode,
  rlpEncode,
  summariseCodeSizes,
  bigintToBytes,
  prepareKeccak,
} from "../../src/eth/index.js";
import { keccak_256 } from "@noble/hashes/sha3";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const u = (s: string) => Buffer.from(s, "utf8");

describe("RLP", () => {
  it("encodes the reference examples", () => {
    expect(hex(rlpEncode(u("dog")))).toBe("83646f67");
    expect(hex(rlpEncode([u("cat"), u("dog")]))).toBe("c88363617483646f67");
    expect(hex(rlpEncode(new Uint8Array(0)))).toBe("80");
    expect(hex(rlpEncode([]))).toBe("c0");
    expect(hex(rlpEncode(bigintToBytes(0n)))).toBe("80");
    expect(hex(rlpEncode(bigintToBytes(15n)))).toBe("0f");
    expect(hex(rlpEncode(bigintToBytes(1024n)))).toBe("820400");
    expect(hex(rlpEncode([[], [[]], [[], [[]]]]))).toBe("c7c0c1c0c3c0c1c0");
    const lorem = u("Lorem ipsum dolor sit amet, consectetur adipisicing elit");
    expect(hex(rlpEncode(lorem))).toBe("b838" + hex(lorem));
  });

  it("round-trips nested items and long lists", () => {
    const item = [u("a"), [u(""), Buffer.alloc(300, 7)], Array.from({ length: 40 }, (_, i) => Buffer.of(i))];
    const enc = rlpEncode(item);
    expect(rlpEncode(rlpDecode(enc))).toEqual(enc);
  });

  it("rejects truncated, trailing and non-canonical input", () => {
    expect(() => rlpDecode(Buffer.from("83646f", "hex"))).toThrow(RlpError);
    expect(() => rlpDecode(Buffer.from("83646f6700", "hex"))).toThrow(/trailing/);
    expect(() => rlpDecode(Buffer.from("8105", "hex"))).toThrow(/single byte/);
    expect(() => rlpDecode(Buffer.from("b80161", "hex"))).toThrow(/long form/);
    expect(() => rlpDecode(Buffer.from("b9000161", "hex"))).toThrow(/leading zero/);
    expect(() => rlpDecode(Buffer.from("c5836361", "hex"))).toThrow(RlpError);
    expect(() => rlpDecode(Buffer.from("bf" + "ff".repeat(8), "hex"))).toThrow(RlpError);
    expect(() => rlpDecode(Buffer.alloc(0))).toThrow(RlpError);
    expect(() => rlpDecode(Buffer.alloc(200, 0xc1))).toThrow(RlpError);
  });
});

describe("keccak and accounts", () => {
  it("has the right empty hashes", () => {
    expect(keccak256(new Uint8Array(0))).toEqual(EMPTY_CODE_HASH);
    expect(keccak256(rlpEncode(new Uint8Array(0)))).toEqual(EMPTY_TRIE_ROOT);
  });

  it("hashes through hash-wasm once prepared, with @noble/hashes' digests, each a buffer of its own", async () => {
    await prepareKeccak();
    expect(keccakImplementation()).toBe("wasm");
    expect(keccak256(Buffer.from("abc")).toString("hex")).toBe(
      "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45",
    );
    expect(keccak256(new Uint8Array(0))).toEqual(EMPTY_CODE_HASH);
    // every length around Keccak-256's 136-byte rate, contract-sized code, and views into a larger buffer
    const big = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 131 + 7) & 0xff));
    const inputs = [
      ...Array.from({ length: 300 }, (_, n) => big.subarray(0, n)),
      big.subarray(1, 24_577),
      big.subarray(5_000),
    ];
    const digests = inputs.map((d) => keccak256(d));
    inputs.forEach((d, i) => expect(digests[i], `length ${d.length}`).toEqual(Buffer.from(keccak_256(d))));
    expect(new Set(digests.map((d) => d.buffer)).size).toBe(digests.length);
  });

  it("encodes an EOA in full and slim form", () => {
    const eoa = { nonce: 1n, balance: 10n ** 18n, storageRoot: EMPTY_TRIE_ROOT, codeHash: EMPTY_CODE_HASH };
    const full = encodeAccountFull(eoa);
    const slim = encodeAccountSlim(eoa);
    expect(full.length).toBe(2 + 1 + 9 + 33 + 33);
    expect(hex(slim)).toBe("cc" + "01" + "880de0b6b3a7640000" + "80" + "80");
    expect(decodeAccount(full)).toMatchObject({ nonce: 1n, balance: 10n ** 18n, encoding: "full" });
    const d = decodeAccount(slim);
    expect(d.encoding).toBe("slim");
    expect(d.codeHash).toEqual(EMPTY_CODE_HASH);
    expect(d.storageRoot).toEqual(EMPTY_TRIE_ROOT);
    expect(() => decodeAccount(rlpEncode([u("a"), u("b")]))).toThrow(RlpError);
    expect(() => decodeAccount(rlpEncode([u(""), u(""), Buffer.alloc(31), u("")]))).toThrow(/storage root/);
  });

  it("classifies EOAs, EIP-7702 delegations and contracts", () => {
    const target = Buffer.alloc(20, 0xab);
    const del = delegationCode(target);
    expect(del.length).toBe(DELEGATION_CODE_SIZE);
    expect(isDelegationCode(del)).toBe(true);
    expect(delegationTarget(del)).toEqual(target);
    expect(isDelegationCode(Buffer.concat([del, Buffer.of(0)]))).toBe(false);
    expect(classifyAccount({ codeHash: EMPTY_CODE_HASH }, undefined)).toBe("eoa");
    expect(classifyAccount({ codeHash: keccak256(del) }, del)).toBe("delegated-eoa");
    const code = Buffer.alloc(23, 0x60);
    expect(classifyAccount({ codeHash: keccak256(code) }, code)).toBe("contract");
    expect(classifyAccount({ codeHash: keccak256(code) }, undefined)).toBeUndefined();
    expect(classifyAccount({ codeHash: keccak256(code) }, undefined, true)).toBe("contract");
  });
});

describe("code sizes and keys", () => {
  it("names size classes with the EIP-170 maximum called out", () => {
    expect(codeSizeClass(0)).toBe("empty");
    expect(codeSizeClass(delegationCode(Buffer.alloc(20)))).toBe("delegation");
    expect(codeSizeClass(23)).toBe("tiny");
    expect(codeSizeClass(MAX_CODE_SIZE - 1)).toBe("large");
    expect(codeSizeClass(MAX_CODE_SIZE)).toBe("max");
    expect(codeSizeClass(MAX_CODE_SIZE + 1)).toBe("over-max");
    const s = summariseCodeSizes([45, 45, 1000, MAX_CODE_SIZE]);
    expect(s).toMatchObject({ count: 4, min: 45, max: MAX_CODE_SIZE, p50: 45, atMax: 1, totalBytes: 25_666 });
  });

  it("builds each client's key shapes", () => {
    const acc = keccak256(Buffer.alloc(20, 1));
    const slot = keccak256(Buffer.alloc(32));
    expect(besuStorageKey(acc, slot).length).toBe(64);
    expect(nethermindAccountKey(acc)).toEqual(acc.subarray(0, 20));
    const nk = nethermindStorageKey(acc, slot);
    expect(nk.length).toBe(52);
    expect(nk.subarray(0, 4)).toEqual(acc.subarray(0, 4));
    expect(nk.subarray(4, 36)).toEqual(slot);
    expect(nk.subarray(36)).toEqual(acc.subarray(4, 20));
    expect(gethAccountKey(acc)[0]).toBe(0x61);
    expect(() => gethAccountKey(acc.subarray(0, 31))).toThrow(/32 bytes/);
  });
});
