/**
 * The world's history as client-neutral events, in three phases. Each client writer maps events to
 * its own keys and values (Besu cf06/07/08/09/01/0a/0b, Nethermind flat/code/state, geth prefixes).
 */
import type { Phase } from "./logical.js";
import { Prng } from "./prng.js";
import { accountTrieNodes, branchNode, storageTrieNodes } from "./trie.js";
import type { AccountState, Block, World, WorldAccount } from "./world.js";

export type StateEvent =
  | { t: "account"; acc: WorldAccount; state: AccountState }
  | { t: "code"; acc: WorldAccount }
  | { t: "slot"; acc: WorldAccount; slotHash: Buffer; value: Buffer }
  | { t: "accountTrieNode"; path: Buffer; node: Buffer }
  | { t: "storageTrieNode"; acc: WorldAccount; path: Buffer; node: Buffer }
  | { t: "block"; block: Block }
  | { t: "head"; block: Block; finalized: Block };

export type PhasedEvents = Record<Phase, StateEvent[]>;

/** All events of the world, per phase; deterministic. */
export function worldEvents(world: World): PhasedEvents {
  const rng = Prng.derive(world.params.seed, "trie");
  const bulk: StateEvent[] = [];
  for (const acc of world.accounts) {
    bulk.push({ t: "account", acc, state: acc.initial });
    if (acc.kind !== "eoa") bulk.push({ t: "code", acc });
    for (const s of acc.slots) bulk.push({ t: "slot", acc, slotHash: s.hash, value: s.value });
  }
  const accountNodes = accountTrieNodes(rng, world.accounts.length);
  for (const n of accountNodes) bulk.push({ t: "accountTrieNode", path: n.path, node: n.node });
  for (const acc of world.accounts)
    for (const n of storageTrieNodes(rng, acc.slots.length))
      bulk.push({ t: "storageTrieNode", acc, path: n.path, node: n.node });
  const blocks = world.blocks;
  for (let b = 0; b < world.bulkBlocks; b++) bulk.push({ t: "block", block: blocks[b]! });
  bulk.push({
    t: "head",
    block: blocks[world.bulkBlocks - 1]!,
    finalized: blocks[Math.max(0, world.bulkBlocks - 3)]!,
  });

  const updates = (list: World["preRun"], rewriteNodes: number): StateEvent[] => {
    const ev: StateEvent[] = [];
    for (const u of list) {
      const acc = world.accounts[u.account]!;
      ev.push({ t: "account", acc, state: u.state });
      for (const s of u.slots) ev.push({ t: "slot", acc, slotHash: acc.slots[s.slot]!.hash, value: s.value });
      if (u.slots.length > 0)
        ev.push({ t: "storageTrieNode", acc, path: Buffer.alloc(0), node: branchNode(rng, 0.5) });
    }
    // the upper account-trie nodes change with every block: the root, and a share of the rest
    ev.push({ t: "accountTrieNode", path: Buffer.alloc(0), node: branchNode(rng, 1) });
    for (let k = 0; k < rewriteNodes; k++) {
      const n = accountNodes[rng.int(1, accountNodes.length - 1)]!;
      ev.push({ t: "accountTrieNode", path: n.path, node: branchNode(rng, 0.6) });
    }
    return ev;
  };

  const preRun = updates(world.preRun, Math.round(world.preRun.length / 4));
  const firstPre = world.bulkBlocks;
  for (let b = firstPre; b < firstPre + world.preRunBlocks; b++)
    preRun.push({ t: "block", block: blocks[b]! });
  const lastPre = firstPre + world.preRunBlocks - 1;
  preRun.push({ t: "head", block: blocks[lastPre]!, finalized: blocks[lastPre - 2]! });

  const wal = updates(world.lastWrites, Math.round(world.lastWrites.length / 4));
  const last = blocks[blocks.length - 1]!;
  wal.push({ t: "block", block: last });
  wal.push({ t: "head", block: last, finalized: blocks[blocks.length - 3]! });
  return { bulk, "pre-run": preRun, wal };
}
