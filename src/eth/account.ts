/**
 * Account records as clients store them, and their classification.
 *
 * Full form (Besu cf06 ACCOUNT_INFO_STATE, and hash-scheme state trie leaves):
 *   RLP [nonce, balance, storageRoot (32 B), codeHash (32 B)]
 *   an EOA stores EMPTY_TRIE_ROOT and EMPTY_CODE_HASH explicitly.
 * Slim form (geth snapshot `a`+hash, Nethermind flat `Account`):
 *   RLP [nonce, balance, storageRoot or "", codeHash or ""]
 *   an empty storage root and the empty code hash are stored as empty strings (0x80), so an EOA is
 *   [nonce, balance, 0x80, 0x80].
 * nonce and balance are RLP scalars: minimal big-endian bytes, 0 as the empty string.
 */
import { RlpError, bigintToBytes, bytesToBigint, rlpDecode, rlpEncode } from "./rlp.js";
import { EMPTY_CODE_HASH, EMPTY_TRIE_ROOT } from "./keccak.js";
import { isDelegationCode } from "./code.js";

export interface Account {
  nonce: bigint;
  balance: bigint;
  /** 32 bytes; EMPTY_TRIE_ROOT when the account has no storage */
  storageRoot: Buffer;
  /** 32 bytes; EMPTY_CODE_HASH when the account has no code */
  codeHash: Buffer;
}

/** How an account record was encoded. */
export type AccountEncoding = "full" | "slim";

/** EOA: no code. Delegated EOA: EIP-7702 code 0xef0100‖address (23 B). Contract: any other code. */
export type AccountKind = "eoa" | "delegated-eoa" | "contract";

/** RLP [nonce, balance, storageRoot, codeHash] with both hashes written out (Besu). */
export function encodeAccountFull(a: Account): Uint8Array {
  return rlpEncode([bigintToBytes(a.nonce), bigintToBytes(a.balance), a.storageRoot, a.codeHash]);
}

/** Slim RLP: empty storage root and empty code hash become empty strings (geth snapshot, Nethermind flat). */
export function encodeAccountSlim(a: Account): Uint8Array {
  return rlpEncode([
    bigintToBytes(a.nonce),
    bigintToBytes(a.balance),
    a.storageRoot.equals(EMPTY_TRIE_ROOT) ? new Uint8Array(0) : a.storageRoot,
    a.codeHash.equals(EMPTY_CODE_HASH) ? new Uint8Array(0) : a.codeHash,
  ]);
}

/** Encode in the given form. */
export function encodeAccount(a: Account, encoding: AccountEncoding): Uint8Array {
  return encoding === "full" ? encodeAccountFull(a) : encodeAccountSlim(a);
}

/**
 * Decode either form. Throws RlpError on anything that is not a 4-item list of strings with
 * scalars of ≤ 32 bytes and hashes of 0 or 32 bytes. `encoding` is "slim" when either hash was empty.
 */
export function decodeAccount(value: Uint8Array): Account & { encoding: AccountEncoding } {
  const item = rlpDecode(value);
  if (!Array.isArray(item) || item.length !== 4)
    throw new RlpError("account record is not a list of 4 items", 0);
  const [n, b, r, c] = item;
  for (const x of item) if (!(x instanceof Uint8Array)) throw new RlpError("account field is a list", 0);
  const nonceB = n as Uint8Array;
  const balB = b as Uint8Array;
  const rootB = r as Uint8Array;
  const codeB = c as Uint8Array;
  if (nonceB.length > 8) throw new RlpError("nonce longer than 8 bytes", 0);
  if (balB.length > 32) throw new RlpError("balance longer than 32 bytes", 0);
  if (rootB.length !== 0 && rootB.length !== 32) throw new RlpError("storage root is not 0 or 32 bytes", 0);
  if (codeB.length !== 0 && codeB.length !== 32) throw new RlpError("code hash is not 0 or 32 bytes", 0);
  return {
    nonce: bytesToBigint(nonceB),
    balance: bytesToBigint(balB),
    storageRoot: rootB.length === 0 ? EMPTY_TRIE_ROOT : Buffer.from(rootB),
    codeHash: codeB.length === 0 ? EMPTY_CODE_HASH : Buffer.from(codeB),
    encoding: rootB.length === 0 || codeB.length === 0 ? "slim" : "full",
  };
}

/** True when the account has code (its code hash is not keccak("")). */
export function hasCode(a: Pick<Account, "codeHash">): boolean {
  return !a.codeHash.equals(EMPTY_CODE_HASH);
}

/**
 * Classify an account. An account with code needs its code (or at least its size and first bytes) to
 * tell an EIP-7702 delegation from a contract: pass the code, or `undefined` when it could not be found
 * (the result is then "contract" only if `assumeContractWithoutCode`, else undefined).
 */
export function classifyAccount(
  a: Pick<Account, "codeHash">,
  code: Uint8Array | undefined,
  assumeContractWithoutCode = false,
): AccountKind | undefined {
  if (!hasCode(a)) return "eoa";
  if (code === undefined) return assumeContractWithoutCode ? "contract" : undefined;
  return isDelegationCode(code) ? "delegated-eoa" : "contract";
}
