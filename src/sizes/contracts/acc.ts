/**
 * Slots and bytes per contract, counted from the live storage records of one key range as the
 * newest-version merge visits them (in key order), in memory that does not grow with the store:
 * a group of keys (layout.ts) is counted while it lasts and folded into the distributions when the
 * next group starts. The first and last group of a range may continue in the neighbouring ranges,
 * so they are handed back whole (`edges`) and joined when the ranges' results are merged in key order.
 */
import { SizeDist, type SizeDistData } from "../dist.js";
import type { StorageLayout } from "./layout.js";

/** One contract's live slot records and their key + value bytes. */
export interface ContractTally {
  /** The contract id bytes as hex (layout.ts: account hash, or its first 20 bytes for Nethermind). */
  id: string;
  slots: number;
  bytes: number;
}

export interface GroupData {
  group: string;
  members: ContractTally[];
}

export interface StorageAccData {
  slotsPerContract: SizeDistData;
  bytesPerContract: SizeDistData;
  topBySlots: ContractTally[];
  topByBytes: ContractTally[];
  /** Groups not yet counted above: the range's first and last (they may continue next door). */
  edges: GroupData[];
}

/** Members of one group looked up by a linear scan up to this many, by a map beyond. */
const MEMBERS_BY_SCAN = 32;

/** Contracts kept per top list. */
export const TOP_CONTRACTS = 20;

type Rank = "slots" | "bytes";

/** The K largest contracts by one figure; ties go to the smaller id, so any split gives the same list. */
class TopList {
  items: ContractTally[] = [];
  private floorValue = -1;
  private floorId = Buffer.alloc(0);

  constructor(
    private readonly by: Rank,
    private readonly k: number,
  ) {}

  consider(value: number, id: Buffer, make: () => ContractTally): void {
    if (this.items.length >= this.k) {
      if (value < this.floorValue) return;
      if (value === this.floorValue && Buffer.compare(id, this.floorId) >= 0) return;
    }
    this.items.push(make());
    if (this.items.length >= 2 * this.k) this.trim();
  }

  trim(): ContractTally[] {
    const by = this.by;
    this.items.sort((a, b) => b[by] - a[by] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (this.items.length > this.k) this.items.length = this.k;
    if (this.items.length >= this.k) {
      const last = this.items[this.k - 1]!;
      this.floorValue = last[by];
      this.floorId = Buffer.from(last.id, "hex");
    }
    return this.items;
  }
}

interface Member {
  id: Buffer;
  slots: number;
  bytes: number;
}

/** Distributions and top lists over contracts counted whole. */
class ContractCounts {
  readonly slots = new SizeDist();
  readonly bytes = new SizeDist();
  readonly topSlots: TopList;
  readonly topBytes: TopList;

  constructor(k: number) {
    this.topSlots = new TopList("slots", k);
    this.topBytes = new TopList("bytes", k);
  }

  count(id: Buffer, slots: number, bytes: number, hex?: string): void {
    this.slots.add(slots);
    this.bytes.add(bytes);
    const make = () => ({ id: hex ?? id.toString("hex"), slots, bytes });
    this.topSlots.consider(slots, id, make);
    this.topBytes.consider(bytes, id, make);
  }

  mergeData(d: StorageAccData): void {
    this.slots.merge(d.slotsPerContract);
    this.bytes.merge(d.bytesPerContract);
    for (const t of d.topBySlots) this.topSlots.consider(t.slots, Buffer.from(t.id, "hex"), () => t);
    for (const t of d.topByBytes) this.topBytes.consider(t.bytes, Buffer.from(t.id, "hex"), () => t);
  }
}

function sameBytes(a: Buffer, b: Uint8Array, off: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[off + i]) return false;
  return true;
}

/** The accounting of one key range. */
export class StorageAcc {
  private readonly counts: ContractCounts;
  private readonly prefix: Buffer;
  /** The id is the group itself (Besu, geth): one member per group. */
  private readonly idIsGroup: boolean;
  private group: Buffer | undefined;
  private members: Member[] = [];
  /** Members by id (hex) once a group holds many: an untrusted store may put any number under one prefix. */
  private byId: Map<string, Member> | undefined;
  private first: GroupData | undefined;

  constructor(
    private readonly layout: StorageLayout,
    k = TOP_CONTRACTS,
  ) {
    this.counts = new ContractCounts(k);
    this.prefix = Buffer.from(layout.prefixHex, "hex");
    const id = layout.id;
    this.idIsGroup = id.length === 1 && id[0]![0] === layout.group[0] && id[0]![1] === layout.group[1];
  }

  /** Whether a key is a storage slot of this layout. */
  matches(key: Uint8Array, len: number): boolean {
    if (len !== this.layout.keyLength) return false;
    const p = this.prefix;
    for (let i = 0; i < p.length; i++) if (key[i] !== p[i]) return false;
    return true;
  }

  /** One live storage record (call only for keys that match()): its key + value bytes. */
  add(key: Uint8Array, bytes: number): void {
    const [go, gl] = this.layout.group;
    if (!this.group || !sameBytes(this.group, key, go)) {
      this.closeGroup();
      this.group = Buffer.from(key.subarray(go, go + gl));
      this.members = [];
      this.byId = undefined;
    }
    let m: Member | undefined;
    if (this.idIsGroup) m = this.members[0];
    else if (this.byId) m = this.byId.get(this.idOf(key).toString("hex"));
    else m = this.members.find((x) => this.idEquals(x.id, key));
    if (!m) {
      m = { id: this.idIsGroup ? this.group : this.idOf(key), slots: 0, bytes: 0 };
      this.members.push(m);
      if (this.byId) this.byId.set(m.id.toString("hex"), m);
      else if (this.members.length > MEMBERS_BY_SCAN)
        this.byId = new Map(this.members.map((x) => [x.id.toString("hex"), x]));
    }
    m.slots++;
    m.bytes += bytes;
  }

  private idOf(key: Uint8Array): Buffer {
    return Buffer.concat(this.layout.id.map(([o, l]) => key.subarray(o, o + l)));
  }

  private idEquals(id: Buffer, key: Uint8Array): boolean {
    let p = 0;
    for (const [o, l] of this.layout.id) {
      for (let i = 0; i < l; i++) if (id[p + i] !== key[o + i]) return false;
      p += l;
    }
    return true;
  }

  private groupData(): GroupData {
    return {
      group: this.group!.toString("hex"),
      members: this.members.map((m) => ({ id: m.id.toString("hex"), slots: m.slots, bytes: m.bytes })),
    };
  }

  private closeGroup(): void {
    if (!this.group) return;
    if (!this.first) this.first = this.groupData();
    else for (const m of this.members) this.counts.count(m.id, m.slots, m.bytes);
  }

  data(): StorageAccData {
    const edges: GroupData[] = [];
    if (this.first) edges.push(this.first);
    if (this.group && this.members.length > 0) edges.push(this.groupData());
    return {
      slotsPerContract: this.counts.slots.data(),
      bytesPerContract: this.counts.bytes.data(),
      topBySlots: this.counts.topSlots.trim(),
      topByBytes: this.counts.topBytes.trim(),
      edges,
    };
  }
}

/** Results of a column family's ranges, added in key order. */
export class StorageMerge {
  private readonly counts: ContractCounts;
  private pending: GroupData | undefined;

  constructor(k = TOP_CONTRACTS) {
    this.counts = new ContractCounts(k);
  }

  add(d: StorageAccData): void {
    this.counts.mergeData(d);
    for (const e of d.edges) {
      if (this.pending && this.pending.group === e.group) {
        const byId = new Map(this.pending.members.map((x) => [x.id, x]));
        for (const m of e.members) {
          const same = byId.get(m.id);
          if (same) {
            same.slots += m.slots;
            same.bytes += m.bytes;
          } else this.pending.members.push({ ...m });
        }
      } else {
        this.flushPending();
        this.pending = { group: e.group, members: e.members.map((m) => ({ ...m })) };
      }
    }
  }

  private flushPending(): void {
    for (const m of this.pending?.members ?? [])
      this.counts.count(Buffer.from(m.id, "hex"), m.slots, m.bytes, m.id);
    this.pending = undefined;
  }

  /** Every contract counted: the distributions and the top lists. */
  finish(): {
    slots: SizeDist;
    bytes: SizeDist;
    topBySlots: ContractTally[];
    topByBytes: ContractTally[];
  } {
    this.flushPending();
    return {
      slots: this.counts.slots,
      bytes: this.counts.bytes,
      topBySlots: this.counts.topSlots.trim(),
      topByBytes: this.counts.topBytes.trim(),
    };
  }
}
