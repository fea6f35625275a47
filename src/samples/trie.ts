/**
 * Stand-in trie nodes: RLP branch/extension/leaf shaped byte strings of realistic sizes, keyed the
 * way each client keys them (Besu/Nethermind by path, hash-scheme stores by keccak of the node). They
 * are not a consistent Merkle-Patricia trie; nothing in lsmscope walks the trie.
 */
import { keccak256, rlpEncode } from "../eth/index.js";
import type { Prng } from "./prng.js";

/** A branch node: 16 child hashes (some empty) and an empty value, ~ 100–532 bytes. */
export function branchNode(rng: Prng, density = 0.7): Buffer {
  const items: Uint8Array[] = [];
  for (let i = 0; i < 16; i++) items.push(rng.chance(density) ? rng.bytes(32) : new Uint8Array(0));
  items.push(new Uint8Array(0));
  return Buffer.from(rlpEncode(items));
}

/** A leaf node: compact path and an RLP account/slot value, ~ 40–120 bytes. */
export function leafNode(rng: Prng, value: Uint8Array): Buffer {
  return Buffer.from(rlpEncode([rng.bytes(rng.int(1, 32)), value]));
}

/** Nibble path as Besu stores trie locations: one nibble per byte. */
export function nibblePath(rng: Prng, depth: number): Buffer {
  const out = Buffer.alloc(depth);
  for (let i = 0; i < depth; i++) out[i] = rng.int(0, 15);
  return out;
}

/** Every nibble path of a given depth, in order (depth ≤ 3). */
export function allPaths(depth: number): Buffer[] {
  const out: Buffer[] = [];
  const total = 16 ** depth;
  for (let x = 0; x < total; x++) {
    const p = Buffer.alloc(depth);
    for (let i = 0, v = x; i < depth; i++, v = Math.floor(v / 16)) p[depth - 1 - i] = v % 16;
    out.push(p);
  }
  return out;
}

export interface TrieNode {
  path: Buffer;
  node: Buffer;
}

/**
 * Account-trie nodes for a store of `accounts` accounts: the root (empty path), all depth-1 and
 * depth-2 branches as the count allows, then random deeper paths; about accounts/3 nodes in all.
 */
export function accountTrieNodes(rng: Prng, accounts: number): TrieNode[] {
  const target = Math.max(17, Math.round(accounts / 3));
  const nodes: TrieNode[] = [{ path: Buffer.alloc(0), node: branchNode(rng, 1) }];
  for (const depth of [1, 2]) {
    for (const p of allPaths(depth)) {
      if (nodes.length >= target) break;
      nodes.push({ path: p, node: branchNode(rng, depth === 1 ? 1 : 0.8) });
    }
  }
  const seen = new Set(nodes.map((n) => n.path.toString("hex")));
  while (nodes.length < target) {
    const p = nibblePath(rng, rng.int(3, 6));
    if (seen.has(p.toString("hex"))) continue;
    seen.add(p.toString("hex"));
    nodes.push({
      path: p,
      node: rng.chance(0.5) ? branchNode(rng, 0.3) : leafNode(rng, rng.bytes(rng.int(40, 80))),
    });
  }
  return nodes;
}

/** Storage-trie nodes of one contract with `slots` slots: the root plus about slots/4 more. */
export function storageTrieNodes(rng: Prng, slots: number): TrieNode[] {
  if (slots === 0) return [];
  const nodes: TrieNode[] = [
    { path: Buffer.alloc(0), node: slots > 1 ? branchNode(rng, 0.5) : leafNode(rng, rng.bytes(33)) },
  ];
  const seen = new Set([""]);
  const target = 1 + Math.floor(slots / 4);
  while (nodes.length < target) {
    const p = nibblePath(rng, rng.int(1, 3));
    if (seen.has(p.toString("hex"))) continue;
    seen.add(p.toString("hex"));
    nodes.push({ path: p, node: rng.chance(0.3) ? branchNode(rng, 0.3) : leafNode(rng, rng.bytes(33)) });
  }
  return nodes;
}

/** Hash-scheme node: key keccak(node). */
export function hashKeyed(node: Buffer): { key: Buffer; node: Buffer } {
  return { key: keccak256(node), node };
}
