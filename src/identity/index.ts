/**
 * Which chain a datadir holds: the client, the chain head (number and hash) and its header's state root,
 * read from the store's own keys, and the RocksDB version that wrote its OPTIONS.
 *
 *   Besu   VARIABLES (cf 0b) "chainHeadHash" → head hash (older Besu: BLOCKCHAIN (cf 01) 0x01‖"chainHeadHash");
 *          BLOCKCHAIN 0x02‖hash → header RLP
 *   geth   "LastBlock" → head hash; "H"‖hash → number (8 bytes, big-endian); "h"‖number‖hash → header RLP
 *
 * A header is [parentHash, ommersHash, coinbase, stateRoot, txRoot, receiptsRoot, bloom, difficulty,
 *   Nethermind  blockInfos: 32 zero bytes (BlockTree.HeadAddressInDb) → head hash (older releases: the
 *          head header's RLP itself); blockNumbers: hash → number (8 bytes, big-endian); headers:
 *          number ‖ hash → header RLP, or hash → header RLP as older releases keyed it (HeaderStore.cs)
 *
 * A header is [parentHash, ommersHash, coinbase, stateRoot, txRoot, receiptsRoot, bloom, difficulty,
 * number, …]; its keccak must be the head hash, or the identity says so instead of a head.
 */
import type { ColumnFamilyModel, DatadirIdentity, DatadirModel, InstanceModel } from "../datadir/model.js";
import {
  BESU_HEAD_KEYS,
  besuHeadColumnFamilies,
  GETH_HEAD_KEYS,
  gethHeadColumnFamily,
} from "../datadir/head_keys.js";
import { readLiveValue } from "../lsm/live.js";
import { WalLayers } from "../lsm/wal_layers.js";
import { keccak256 } from "../eth/keccak.js";
import { bytesToBigint, rlpDecode } from "../eth/rlp.js";
import { isUserError } from "../util/errors.js";

/** The figures read (declared with the model it is part of, src/datadir/model.ts). */
export type { DatadirIdentity };

const hex0x = (b: Uint8Array) => "0x" + Buffer.from(b).toString("hex");

interface HeadRead {
  hash: Buffer;
  header: Buffer;
}

/** A live value read for the head, its column family's WAL replayed once for all of them (WalLayers). */
type ReadLive = (inst: InstanceModel, cf: ColumnFamilyModel, key: Buffer) => Buffer | undefined;

function cfByHex(inst: InstanceModel, nameHex: string) {
  return inst.columnFamilies.find((c) => c.nameHex === nameHex);
}

function besuHead(inst: InstanceModel, readLive: ReadLive): HeadRead | string {
  const blockchain = cfByHex(inst, "01");
  if (!blockchain) return "no BLOCKCHAIN column family";
  const variables = cfByHex(inst, "0b");
  const key = Buffer.from("chainHeadHash");
  const hash =
    (variables && readLive(inst, variables, key)) ??
    readLive(inst, blockchain, Buffer.concat([Buffer.of(0x01), key]));
  if (!hash) return "no chainHeadHash";
  const header = readLive(inst, blockchain, Buffer.concat([Buffer.of(0x02), hash]));
  return header ? { hash, header } : `no header for head ${hex0x(hash)}`;
}

function gethHead(inst: InstanceModel, readLive: ReadLive): HeadRead | string {
  const cf = gethHeadColumnFamily(inst);
  if (!cf) return "no column family";
  const hash = readLive(inst, cf, Buffer.from("LastBlock"));
  if (!hash) return "no LastBlock";
  const num = readLive(inst, cf, Buffer.concat([Buffer.from("H"), hash]));
  if (!num || num.length !== 8) return `no block number for head ${hex0x(hash)}`;
  const header = readLive(inst, cf, Buffer.concat([Buffer.from("h"), num, hash]));
  // headers of blocks moved to the freezer are no longer in the key/value store
  return header ? { hash, header } : `no header for head ${hex0x(hash)} in the key/value store`;
}

function nethermindHead(model: DatadirModel, readLive: ReadLive): HeadRead | string {
  const db = (name: string) => {
    const inst = model.instances.find(
      (i) => i.readable && i.client === "nethermind" && i.clientDetail?.database === name,
    );
    const cf = inst?.columnFamilies.find((c) => c.name === "default");
    return inst && cf ? { inst, cf } : undefined;
  };
  const infos = db("blockInfos");
  if (!infos) return "no blockInfos database";
  const head = readLive(infos.inst, infos.cf, Buffer.alloc(32));
  if (!head) return "no head in blockInfos";
  // older releases stored the head header itself
  if (head.length !== 32) return { hash: Buffer.from(keccak256(head)), header: head };
  const headers = db("headers");
  if (!headers) return `no headers database for head ${hex0x(head)}`;
  const numbers = db("blockNumbers");
  const num = numbers && readLive(numbers.inst, numbers.cf, head);
  const header =
    (num?.length === 8 && readLive(headers.inst, headers.cf, Buffer.concat([num, head]))) ||
    readLive(headers.inst, headers.cf, head);
  return header ? { hash: head, header } : `no header for head ${hex0x(head)}`;
}

function decodeHead(h: HeadRead): Pick<DatadirIdentity, "chainHead" | "stateRoot" | "note"> {
  if (!keccak256(h.header).equals(h.hash))
    return { note: `the header stored for head ${hex0x(h.hash)} does not hash to it` };
  const fields = rlpDecode(h.header);
  const stateRoot = Array.isArray(fields) ? fields[3] : undefined;
  const number = Array.isArray(fields) ? fields[8] : undefined;
  if (!(stateRoot instanceof Uint8Array) || !(number instanceof Uint8Array) || number.length > 7)
    return { note: `the header of head ${hex0x(h.hash)} is not a block header` };
  return {
    chainHead: { number: Number(bytesToBigint(number, false)), hash: hex0x(h.hash) },
    stateRoot: hex0x(stateRoot),
  };
}

export function readIdentity(model: DatadirModel): DatadirIdentity {
  const id: DatadirIdentity = { client: model.client.kind };
  const versions = [
    ...new Set(model.instances.map((i) => i.options?.rocksdbVersion).filter((v) => v !== undefined)),
  ];
  if (versions.length > 0) id.writtenBy = versions.map((v) => `RocksDB ${v}`).join(", ");
  const readable = model.instances.filter((i) => i.readable);
  const besu = readable.find((i) => i.client === "besu" && cfByHex(i, "01"));
  const geth = readable.find((i) => i.client === "geth");
  const head = besu
    ? {
        read: (r: ReadLive) => besuHead(besu, r),
        keys: BESU_HEAD_KEYS,
        // VARIABLES and BLOCKCHAIN share the WAL: one pass for both
        together: besuHeadColumnFamilies(besu),
      }
    : geth
      ? { read: (r: ReadLive) => gethHead(geth, r), keys: GETH_HEAD_KEYS, together: [] }
      : model.client.kind === "nethermind"
        ? // its head's keys are 32 and 40 bytes, as most of its keys are: every write is kept
          { read: (r: ReadLive) => nethermindHead(model, r), keys: undefined, together: [] }
        : undefined;
  const layers = new WalLayers({ keys: head?.keys, together: head?.together });
  const readLive: ReadLive = (inst, cf, key) => readLiveValue(inst, cf, key, undefined, layers);
  const reader = head && (() => head.read(readLive));
  if (!reader) {
    id.note = "no store of a known client holds a chain head";
    return id;
  }
  try {
    const head = reader();
    if (typeof head === "string") id.note = head;
    else Object.assign(id, decodeHead(head));
  } catch (e) {
    if (!isUserError(e)) throw e;
    id.note = `chain head unreadable: ${e.oneLine()}`;
    id.damage = { file: e.file, offset: e.offset, message: e.message };
  }
  return id;
}

/**
 * The model's identity, read once and kept on the model; a damaged block met on the way to the head
 * is damage like any other: an error finding (identity-unreadable, located) and an incomplete picture.
 */
export function attachIdentity(model: DatadirModel): DatadirIdentity {
  if (model.identity) return model.identity;
  const id = (model.identity = readIdentity(model));
  const d = id.damage;
  if (d) {
    model.findings.push({
      severity: "error",
      code: "identity-unreadable",
      file: d.file ?? model.root,
      offset: d.offset,
      message: `chain head unreadable: ${d.message}`,
    });
    model.complete = false;
  }
  return id;
}
