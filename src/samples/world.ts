/**
 * The logical Ethereum world every sample is written from: accounts (EOAs, EIP-7702 delegated EOAs,
 * contracts), contract code, storage slots, a short chain, and the history a benchmarked node leaves
 * behind (an initial bulk state, a "pre-run" that rewrites part of it, and a few last writes).
 *
 * Everything is drawn from seeded PRNG streams, one per concern, so the same seed and account count
 * always give byte-identical worlds. Values are shaped like the real thing (sizes, key shapes, reuse);
 * storage roots and trie nodes are random bytes of the right size, not a consistent trie.
 */
import {
  EMPTY_CODE_HASH,
  EMPTY_TRIE_ROOT,
  MAX_CODE_SIZE,
  bigintToBytes,
  delegationCode,
  keccak256,
  rlpEncode,
  type AccountKind,
} from "../eth/index.js";
import { MINIMAL_PROXY_SIZE, minimalProxy, synthBytecode } from "./bytecode.js";
import { Prng, Zipf } from "./prng.js";

export interface WorldParams {
  seed: string;
  accounts: number;
}

export interface Slot {
  /** 32-byte slot key */
  slot: Buffer;
  /** keccak(slot) */
  hash: Buffer;
  /** RLP of the value as a minimal big-endian integer */
  value: Buffer;
}

export interface AccountState {
  nonce: bigint;
  balance: bigint;
  storageRoot: Buffer;
}

export interface WorldAccount {
  index: number;
  address: Buffer;
  /** keccak(address) */
  hash: Buffer;
  kind: AccountKind;
  /** state after the bulk load */
  initial: AccountState;
  /** for contracts: index into `templates` (the shared bytecode in the snapshot-style population) */
  template?: number;
  /** for delegated EOAs: the 23-byte delegation code */
  delegation?: Buffer;
  /** storage after the bulk load */
  slots: Slot[];
}

/** One rewrite of an account (and some of its slots) in the pre-run or the final WAL-only writes. */
export interface AccountUpdate {
  account: number;
  state: AccountState;
  /** indexes into the account's slots, with their new values */
  slots: { slot: number; value: Buffer }[];
}

export interface Block {
  number: number;
  hash: Buffer;
  header: Buffer;
  body: Buffer;
  receipts: Buffer;
  txHashes: Buffer[];
  /** bytes of the Bonsai trie log for this block */
  trieLog: Buffer;
}

export interface World {
  params: WorldParams;
  accounts: WorldAccount[];
  /** distinct contract bytecodes of the snapshot-style population, by template index */
  templates: Buffer[];
  /** code hashes of `templates` */
  templateHashes: Buffer[];
  /** accounts rewritten by the pre-run (in order) */
  preRun: AccountUpdate[];
  /** accounts rewritten after the last flush (left only in the WAL / LevelDB log) */
  lastWrites: AccountUpdate[];
  /** blocks of the bulk-loaded chain, then the pre-run's blocks, then one last block */
  blocks: Block[];
  /** how many of `blocks` the bulk load holds; the pre-run adds `preRunBlocks` more; the last one is WAL-only */
  bulkBlocks: number;
  preRunBlocks: number;
}

/** Shares of account kinds (mainnet has far more EOAs; contracts are over-represented to exercise code). */
const SHARE_DELEGATED = 0.04;
const SHARE_CONTRACT = 0.22;
/** Contracts per distinct bytecode in the snapshot-style population (mainnet: ~28; scaled down). */
const REUSE_TARGET = 8;
/** Distinct bytecodes forced to exactly MAX_CODE_SIZE. */
const MIN_MAX_SIZE_TEMPLATES = 3;

/**
 * Code-size model for distinct bytecodes: a mixture of EIP-1167 minimal proxies, tiny stubs, and
 * log-uniform small/medium/large contracts, with a few at exactly the EIP-170 maximum.
 */
export function sampleCodeSize(rng: Prng): number {
  const u = rng.float();
  if (u < 0.2) return MINIMAL_PROXY_SIZE;
  if (u < 0.3) return rng.logUniform(24, 255);
  if (u < 0.65) return rng.logUniform(256, 4095);
  if (u < 0.9) return rng.logUniform(4096, 16_383);
  if (u < 0.97) return rng.logUniform(16_384, MAX_CODE_SIZE - 1);
  return MAX_CODE_SIZE;
}

/** Bytecode of a given size: a minimal proxy for 45 bytes, synthetic solc-like code otherwise. */
export function makeCode(rng: Prng, size: number): Buffer {
  return size === MINIMAL_PROXY_SIZE ? minimalProxy(rng.bytes(20)) : synthBytecode(rng, size);
}

function slotValue(rng: Prng): Buffer {
  // many small counters and flags, some full-width hashes/addresses
  const v = rng.chance(0.4)
    ? BigInt(rng.int(1, 1000))
    : rng.chance(0.5)
      ? BigInt("0x" + rng.bytes(20).toString("hex"))
      : BigInt("0x" + rng.bytes(32).toString("hex"));
  return Buffer.from(rlpEncode(bigintToBytes(v === 0n ? 1n : v)));
}

function makeSlot(rng: Prng, i: number): Slot {
  // low slots are plain variables (0, 1, 2, ...); the rest are mapping entries (keccak-derived keys)
  const slot = i < 6 && rng.chance(0.7) ? Buffer.alloc(32) : rng.bytes(32);
  if (slot.every((b) => b === 0)) slot.writeUInt32BE(i, 28);
  return { slot, hash: keccak256(slot), value: slotValue(rng) };
}

function balance(rng: Prng): bigint {
  if (rng.chance(0.08)) return 0n;
  return BigInt("0x" + rng.bytes(rng.int(4, 10)).toString("hex"));
}

function makeBlock(rng: Prng, number: number, parent: Buffer): Block {
  const txCount = rng.int(2, 24);
  const txHashes = Array.from({ length: txCount }, () => rng.bytes(32));
  const header = Buffer.from(
    rlpEncode([
      parent,
      keccak256(Buffer.alloc(0)),
      rng.bytes(20),
      rng.bytes(32),
      rng.bytes(32),
      rng.bytes(32),
      rng.bytes(256),
      new Uint8Array(0),
      bigintToBytes(BigInt(number)),
      bigintToBytes(30_000_000n),
      bigintToBytes(BigInt(rng.int(1_000_000, 29_000_000))),
      bigintToBytes(BigInt(1_700_000_000 + number * 12)),
      rng.bytes(rng.int(0, 32)),
      rng.bytes(32),
      Buffer.alloc(8),
      bigintToBytes(BigInt(rng.int(1, 100) * 1_000_000_000)),
    ]),
  );
  const hash = keccak256(header);
  const tx = () =>
    Buffer.from(
      rlpEncode([
        bigintToBytes(BigInt(rng.int(0, 5000))),
        bigintToBytes(BigInt(rng.int(1, 100) * 1_000_000_000)),
        bigintToBytes(BigInt(rng.int(21_000, 500_000))),
        rng.bytes(20),
        bigintToBytes(BigInt("0x" + rng.bytes(8).toString("hex"))),
        rng.chance(0.5)
          ? Buffer.concat([rng.bytes(4), Buffer.alloc(rng.int(0, 3) * 32, 0)])
          : Buffer.alloc(0),
        bigintToBytes(BigInt(rng.int(27, 28))),
        rng.bytes(32),
        rng.bytes(32),
      ]),
    );
  const body = Buffer.from(rlpEncode([txHashes.map(() => tx()), []]));
  const receipts = Buffer.from(
    rlpEncode(
      txHashes.map(() => [
        Uint8Array.of(1),
        bigintToBytes(BigInt(rng.int(21_000, 30_000_000))),
        rng.chance(0.2) ? rng.bytes(256) : Buffer.alloc(256),
        Array.from({ length: rng.int(0, 3) }, () => [rng.bytes(20), [rng.bytes(32)], rng.bytes(32)]),
      ]),
    ),
  );
  return { number, hash, header, body, receipts, txHashes, trieLog: Buffer.alloc(0) };
}

function updateFor(rng: Prng, acc: WorldAccount, prev: AccountState, slotShare: number): AccountUpdate {
  const slots: AccountUpdate["slots"] = [];
  if (acc.slots.length > 0) {
    const n = Math.max(1, Math.round(acc.slots.length * slotShare * rng.float()));
    const chosen = new Set<number>();
    for (let k = 0; k < n && chosen.size < acc.slots.length; k++)
      chosen.add(rng.int(0, acc.slots.length - 1));
    for (const s of [...chosen].sort((a, b) => a - b)) slots.push({ slot: s, value: slotValue(rng) });
  }
  return {
    account: acc.index,
    state: {
      nonce: acc.kind === "contract" ? prev.nonce : prev.nonce + 1n,
      balance: prev.balance + BigInt(rng.int(1, 1_000_000)) * 1_000_000_000n,
      storageRoot: slots.length > 0 ? rng.bytes(32) : prev.storageRoot,
    },
    slots,
  };
}

/** Build the world for `params`; deterministic. */
export function buildWorld(params: WorldParams): World {
  const { seed } = params;
  const n = Math.max(50, Math.floor(params.accounts));
  const rngAcc = Prng.derive(seed, "accounts");
  const rngCode = Prng.derive(seed, "code");
  const rngSlots = Prng.derive(seed, "slots");
  const rngHist = Prng.derive(seed, "history");
  const rngChain = Prng.derive(seed, "chain");

  // kinds: a deterministic shuffle of the right counts
  const nDelegated = Math.max(2, Math.round(n * SHARE_DELEGATED));
  const nContracts = Math.max(MIN_MAX_SIZE_TEMPLATES + 2, Math.round(n * SHARE_CONTRACT));
  const kinds: AccountKind[] = [
    ...Array<AccountKind>(nDelegated).fill("delegated-eoa"),
    ...Array<AccountKind>(nContracts).fill("contract"),
    ...Array<AccountKind>(n - nDelegated - nContracts).fill("eoa"),
  ];
  rngAcc.shuffle(kinds);

  // distinct bytecodes: sizes from the model, a few forced to the maximum; popularity rank biased to
  // small code (proxies and token clones are the most duplicated on mainnet)
  const nTemplates = Math.max(MIN_MAX_SIZE_TEMPLATES + 2, Math.round(nContracts / REUSE_TARGET));
  const sizes = Array.from({ length: nTemplates }, (_, i) =>
    i < MIN_MAX_SIZE_TEMPLATES ? MAX_CODE_SIZE : sampleCodeSize(rngCode),
  );
  const rankKey = sizes.map((s) => Math.log(s) + rngCode.float() * 4);
  const order = sizes.map((_, i) => i).sort((a, b) => rankKey[a]! - rankKey[b]! || a - b);
  const templates: Buffer[] = [];
  const seen = new Set<string>();
  for (const i of order) {
    let code = makeCode(rngCode, sizes[i]!);
    while (seen.has(keccak256(code).toString("hex"))) code = makeCode(rngCode, sizes[i]!);
    seen.add(keccak256(code).toString("hex"));
    templates.push(code);
  }
  const templateHashes = templates.map((c) => keccak256(c));
  const zipf = new Zipf(nTemplates, 1.1);

  // delegation targets: a handful of popular smart-wallet implementations
  const targets = Array.from({ length: 6 }, () => rngAcc.bytes(20));
  const targetZipf = new Zipf(targets.length, 1.3);

  const accounts: WorldAccount[] = [];
  let contractNo = 0;
  for (let i = 0; i < n; i++) {
    const address = rngAcc.bytes(20);
    const kind = kinds[i]!;
    const acc: WorldAccount = {
      index: i,
      address,
      hash: keccak256(address),
      kind,
      initial: { nonce: 0n, balance: balance(rngAcc), storageRoot: EMPTY_TRIE_ROOT },
      slots: [],
    };
    if (kind === "eoa") acc.initial.nonce = BigInt(rngAcc.chance(0.3) ? 0 : rngAcc.logUniform(1, 5000));
    if (kind === "delegated-eoa") {
      acc.initial.nonce = BigInt(rngAcc.logUniform(1, 2000));
      acc.delegation = delegationCode(targets[targetZipf.sample(rngAcc)]!);
    }
    if (kind === "contract") {
      acc.initial.nonce = 1n;
      // every template is used at least once, the rest by popularity
      acc.template = contractNo < nTemplates ? contractNo : zipf.sample(rngAcc);
      contractNo++;
      const nSlots = rngSlots.chance(0.4) ? 0 : rngSlots.logUniform(1, 120);
      for (let s = 0; s < nSlots; s++) acc.slots.push(makeSlot(rngSlots, s));
      if (nSlots > 0) acc.initial.storageRoot = rngSlots.bytes(32);
    }
    accounts.push(acc);
  }

  // history: the pre-run rewrites ~15% of the accounts (some of their slots too); the last writes
  // touch ~2% more (possibly the same accounts again)
  const current = accounts.map((a) => ({ ...a.initial }));
  const pickUpdates = (count: number, slotShare: number): AccountUpdate[] => {
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(rngHist.int(0, n - 1));
    return [...chosen].map((idx) => {
      const u = updateFor(rngHist, accounts[idx]!, current[idx]!, slotShare);
      current[idx] = u.state;
      return u;
    });
  };
  const preRun = pickUpdates(Math.max(5, Math.round(n * 0.15)), 0.3);
  const lastWrites = pickUpdates(Math.max(2, Math.round(n * 0.02)), 0.1);

  // chain: bulk blocks, pre-run blocks, one last block
  const bulkBlocks = Math.max(8, Math.round(n / 80));
  const preRunBlocks = Math.max(4, Math.round(n / 250));
  const blocks: Block[] = [];
  let parent: Buffer = Buffer.alloc(32);
  for (let b = 0; b < bulkBlocks + preRunBlocks + 1; b++) {
    const blk = makeBlock(rngChain, 20_000_000 + b, parent);
    parent = blk.hash;
    blocks.push(blk);
  }
  // trie logs: one per block, sized by how many accounts it touched
  const perBlock = Math.ceil(preRun.length / preRunBlocks);
  blocks.forEach((blk, b) => {
    const touched =
      b < bulkBlocks ? rngChain.int(5, 60) : b < bulkBlocks + preRunBlocks ? perBlock : lastWrites.length;
    blk.trieLog = Buffer.from(
      rlpEncode([
        blk.hash,
        Array.from({ length: Math.min(touched, 200) }, () => [
          rngChain.bytes(32),
          rngChain.bytes(rngChain.int(20, 90)),
        ]),
      ]),
    );
  });

  return {
    params: { seed, accounts: n },
    accounts,
    templates,
    templateHashes,
    preRun,
    lastWrites,
    blocks,
    bulkBlocks,
    preRunBlocks,
  };
}

/** Code population variant: "shared" reuses templates (a synced node); "distinct" gives every contract its own. */
export type CodePopulation = "shared" | "distinct";

/** Per-contract distinct code of the same size as its template (for state-generator samples). */
export function distinctCodeFor(world: World, acc: WorldAccount): Buffer {
  const size = world.templates[acc.template!]!.length;
  return makeCode(Prng.derive(world.params.seed, `distinct-code/${acc.index}`), size);
}

/** The code an account carries in a population, or undefined for a plain EOA. */
export function codeOf(world: World, acc: WorldAccount, population: CodePopulation): Buffer | undefined {
  if (acc.kind === "delegated-eoa") return acc.delegation;
  if (acc.kind !== "contract") return undefined;
  return population === "shared" ? world.templates[acc.template!] : distinctCodeFor(world, acc);
}

/** Code hash of an account in a population. */
export function codeHashOf(
  world: World,
  acc: WorldAccount,
  population: CodePopulation,
  cache?: Map<number, Buffer>,
): Buffer {
  if (acc.kind === "eoa") return EMPTY_CODE_HASH;
  if (acc.kind === "contract" && population === "shared") return world.templateHashes[acc.template!]!;
  const hit = cache?.get(acc.index);
  if (hit) return hit;
  const h = keccak256(codeOf(world, acc, population)!);
  cache?.set(acc.index, h);
  return h;
}
