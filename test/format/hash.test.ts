/**
 * The filter hashes against RocksDB's own schema test vectors (util/hash_test.cc: Hash64SmallValueSchema,
 * Hash64LargeValueSchema, Hash32SmallValueSchema): XXPH3 for FastLocalBloom/Ribbon, Murmur-style
 * BloomHash for the legacy Bloom filters. Plus the LevelDB variant of the latter (unsigned tail bytes).
 */
import { describe, expect, it } from "vitest";
import { bloomHash32, rocksdbHash64 } from "../../src/format/index.js";
import { murmurHash32 } from "../../src/format/hash.js";
import { hash64Parts } from "../../src/format/hash_fast.js";

function fast64(b: Buffer): bigint {
  const out = new Uint32Array(2);
  hash64Parts(b, out);
  return (BigInt(out[1]!) << 32n) | BigInt(out[0]!);
}

// prettier-ignore
const HASH64: [string, string][] = [
  ["", "5999572062939766020"],
  ["08", "583283813901344696"],
  ["17", "16175549975585474943"],
  ["9a", "16322991629225003903"],
  ["1c", "13269285487706833447"],
  ["4d76", "6859542833406258115"],
  ["52d5", "4919611532550636959"],
  ["91f7", "14199427467559720719"],
  ["d627", "12292689282614532691"],
  ["30460b", "11404699285340020889"],
  ["56dcd6", "12404347133785524237"],
  ["d45233", "15853805298481534034"],
  ["6ab5f4", "16863488758399383382"],
  ["6753811c", "9010661983527562386"],
  ["69b8c088", "6611781377647041447"],
  ["1e84af2d", "15290969111616346501"],
  ["46dc54be", "7063754590279313623"],
  ["d07a6eea56", "6384167718754869899"],
  ["8683d5a4d8", "16874407254108011067"],
  ["b746bb77ce", "16809880630149135206"],
  ["6ca8bce599", "1249038833153141148"],
  ["5c5ee1a07381", "17358142495308219330"],
  ["085d731ce52e", "4237646583134806322"],
  ["42fbf252b410", "4373664924115234051"],
  ["73e1ff569cce", "12012981210634596029"],
  ["5cbe9775549a52", "5716522398211028826"],
  ["16823949882b36", "15604531309862565013"],
  ["5977f0a724f478", "8601330687345614172"],
  ["d3a57c0ec00207", "8088079329364056942"],
  ["311b98759622d39a", "9844314944338447628"],
  ["38d6f72820b48ae9", "10973293517982163143"],
  ["bb185df41203f799", "9986007080564743219"],
  ["80d43b3bae22a278", "1729303145008254458"],
  ["1ab5d0feabc361b299", "13253403748084181481"],
  ["8e4ac318202f06e63c", "7768754303876232188"],
  ["b6c0dd053fc4864cef", "12439346786701492"],
  ["9a5f780daf50e11f55", "10841838338450144690"],
  ["226f391ff8dd4f521794", "12883919702069153152"],
  ["32892a75483a4a0269dd", "12692903507676842188"],
  ["06925cf4880e7e68383e", "6540985900674032620"],
  ["bd2c6338bfe978b7bf15", "10551812464348219044"],
];

// prettier-ignore
const HASH32_BLOOM_SEED: [string, number][] = [
  ["", 3164544308],
  ["08", 422599524],
  ["17", 3168152998],
  ["9a", 3195034349],
  ["1c", 2651681383],
  ["4d76", 2447836956],
  ["52d5", 3854228105],
  ["91f7", 31066776],
  ["d627", 1806091603],
  ["30460b", 3808221797],
  ["56dcd6", 2157698265],
  ["d45233", 1721992661],
  ["6ab5f4", 2469105222],
  ["6753811c", 118283265],
  ["69b8c088", 3416318611],
  ["1e84af2d", 3315003572],
  ["46dc54be", 447346355],
  ["d07a6eea56", 4255445370],
  ["8683d5a4d8", 2390603402],
  ["b746bb77ce", 2048907743],
  ["6ca8bce599", 2177978500],
  ["5c5ee1a07381", 1036846008],
  ["085d731ce52e", 229980482],
  ["42fbf252b410", 3655585422],
  ["73e1ff569cce", 3502708029],
  ["5cbe9775549a52", 815120748],
  ["16823949882b36", 3056033698],
  ["5977f0a724f478", 587205227],
  ["d3a57c0ec00207", 2030937252],
  ["311b98759622d39a", 469635402],
  ["38d6f72820b48ae9", 3530274698],
  ["bb185df41203f799", 1974545809],
  ["80d43b3bae22a278", 3563570120],
  ["1ab5d0feabc361b299", 2706087434],
  ["8e4ac318202f06e63c", 1534654151],
  ["b6c0dd053fc4864cef", 2355554696],
  ["9a5f780daf50e11f55", 1400800912],
  ["226f391ff8dd4f521794", 3420325137],
  ["32892a75483a4a0269dd", 3427803584],
  ["06925cf4880e7e68383e", 1152407945],
  ["bd2c6338bfe978b7bf15", 3382479516],
];

// prettier-ignore
const DESCRIPTORS: [string, number, string][] = [
  ["foo", 430, "cRhyWsY67B6klRA1udmOuiYuX7IthyGBKqbeosz2hzVglWCmQx8nEdnpkvPfYX56Up2OWOTVlTzfAoYwvtqKzjD8E9xttR2unelbXbIV67NUe6bOO23BxaSFRcA3njGu5cUWfgwOqNoTsszpuPvKRP6qaUR5VdoBkJUCFIefd7edlNK5mv6JYWaGdwxehg65hTkTmjZoPKxTZo4PLyzbL9U4xt12ITSfeP2MfBHuLI2z2pDlBb44UQKVMx27LEoAHsdLp3WfWfgH3sdRBRCHm33UxCM4QmE2xJ7gqSvNwTeH7v9GlC8zWbGroyD3UVNeShMLx29O7tH1biemLULwAHyIw8zdtLMDpEJ8m2icl6Lb4fDuuFNAs1GCVUthjK8CV8SWI8Rsz5THSwn5CGhpqUwSZcFknjwWIl5rNCvDxXJqYr"],
  ["Rocks", 430, "c1EeRkrzgOYWLA8PuhJrwTePJewoB44WdXYDfhbk3ZxTqqg25WlPExDl7IKIQLJvnA6gJxxn9TCSLkFGfJeXehaSS1GBqWSzfhEH4VXiXIUCuxJXxtKXcSC6FrNIQGTZbYDiUOLD6Y5inzrF9etwQhXUBanw55xAUdNMFQAm2GjJ6UDWp2mISLiMMkLjANWMKLaZMqaFLX37qB4MRO1ooVRvzSvaNRSCLxlggQCasQq8icWjzf3HjBlZtU6pd4rkaUxSzHqmo9oM5MghbU5Rtxg8wEfO7lVN5wdMONYecslQTwjZUpO1K3LDf3K3XK6sUXM6ShQQ3RHmMn2acB4YtTZ3QQcHYJSOHn2DuWpaQ8RqzX5lab92YmOLaCdOHq1BPsM7SIBzMdLgePNsJ1vvMALxAaoDUHPxoFLO2wx18IXnyX"],
  ["RocksDB", 430, "c1EeRkukbkb28wLTahwD2sfUhZzaBEnF8SVrxnPVB6A7b8CaAl3UKsDZISF92GSq2wDCukOqJgrsp7A3KZhDiLW8dFXp8UPqPxMCRlMdZeVeJ2dJxrmA6cyt99zkQFj7ELbut6jAeVqARFnwfnWVXOsaLrq7bDCbMcns2DKvTaaqTCLMYxI7nhtLpFN1jR755FRQFcOzrrDbh7QhypjdvlYwcdAMSZgp9JMHxbM23wPSuH6BOFgxejz35PScZfhDPvTOxIy1jc3MZsWrMC3P324zNolO7JdWCX2I5UDKjjaEJfxbgVgJIXxtQGlmj2xkO5sPpjULQV4X2HlY7FQleJ4QRaJIB4buhCA4vUTFeMFlxCIYUpTCsal2qsmnGOWa8WCcefrohMjDj1fjzSvSaQwlpyR1GZHF2uPOoQagiCpHpm"],
];

const MOD61 = "abcdefghijklmnopqrstuvwxyz123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

describe("filter hashes", () => {
  it("Hash64 (XXPH3, seed 0) matches RocksDB's small-value schema", () => {
    for (const [hex, want] of HASH64) {
      expect(rocksdbHash64(Buffer.from(hex, "hex")).toString()).toBe(want);
      expect(fast64(Buffer.from(hex, "hex")).toString()).toBe(want);
    }
  });

  it("Hash64 matches RocksDB's large-value schema (every length up to 430)", () => {
    for (const [repeat, limit, want] of DESCRIPTORS) {
      const input = Buffer.from(repeat.repeat(Math.ceil(limit / repeat.length) + 1));
      let got = "";
      let gotFast = "";
      for (let i = 0; i < limit; i++) {
        got += MOD61[Number(rocksdbHash64(input.subarray(0, i)) % 61n)];
        gotFast += MOD61[Number(fast64(input.subarray(0, i)) % 61n)];
      }
      expect(got).toBe(want);
      expect(gotFast).toBe(want);
    }
  });

  it("BloomHash (Hash with seed 0xbc9f1d34, sign-extended tail) matches RocksDB's schema", () => {
    for (const [hex, want] of HASH32_BLOOM_SEED)
      expect(bloomHash32(Buffer.from(hex, "hex"), false)).toBe(want);
  });

  it("the LevelDB variant differs only when a tail byte is >= 0x80", () => {
    const same = Buffer.from("01020304057f", "hex");
    expect(murmurHash32(same, 0xbc9f1d34, true)).toBe(murmurHash32(same, 0xbc9f1d34, false));
    const differ = Buffer.from("0102030405ff", "hex");
    expect(murmurHash32(differ, 0xbc9f1d34, true)).not.toBe(murmurHash32(differ, 0xbc9f1d34, false));
  });
});
