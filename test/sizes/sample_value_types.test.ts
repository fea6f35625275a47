/**
 * Sample mode names entry types as full mode does (valueTypeName): DeletionWithTimestamp, WideColumnEntity
 * and ValuePreferredSeqno too, not only the five types sample mode once named by hand.
 */
import { describe, expect, it } from "vitest";
import { ValueType, valueTypeName } from "../../src/base/internal_key.js";
import { BlobTally } from "../../src/sizes/blob_tally.js";
import { RatioDist, SizeDist } from "../../src/sizes/dist.js";
import { BlockSizes } from "../../src/sizes/intervals.js";
import { cfResult, emptyRec, namedValueTypes, type CfSample } from "../../src/sizes/sample_estimate.js";

describe("sizes --sample value type names", () => {
  it("names every type byte as valueTypeName does", () => {
    for (let t = 0; t < 256; t++) expect(namedValueTypes({ [t]: 2 })).toEqual({ [valueTypeName(t)]: 2 });
  });

  it("names the timestamp, wide-column and preferred-seqno types like full mode", () => {
    const byType = {
      [ValueType.Value]: 5,
      [ValueType.DeletionWithTimestamp]: 1,
      [ValueType.WideColumnEntity]: 2,
      [ValueType.ValuePreferredSeqno]: 3,
    };
    expect(namedValueTypes(byType)).toEqual({
      value: 5,
      "deletion-with-timestamp": 1,
      "wide-column-entity": 2,
      "value-preferred-seqno": 3,
    });
  });

  it("reports those names in a column family's sampled sizes", () => {
    const rec = { ...emptyRec(100, 200), m: 6, live: 6, t: 1, e: 7 };
    const s = {
      plan: {
        instance: { relPath: "." },
        cf: { name: "default", nameHex: "64656661756c74", displayName: "default" },
        dataBytes: 100,
        dataBytesExact: true,
        files: 1,
      },
      totalBlocks: 1,
      recs: [rec],
      keySize: new SizeDist(),
      valueSize: new SizeDist(),
      keyBoot: new BlockSizes(),
      valueBoot: new BlockSizes(),
      ratio: new RatioDist(),
      valueTypes: {
        [ValueType.Value]: 4,
        [ValueType.DeletionWithTimestamp]: 1,
        [ValueType.WideColumnEntity]: 2,
      },
      blob: new BlobTally(),
      walRec: emptyRec(),
      // the fields cfResult reads of a sample; the rest (its readers and tallies of code) it does not
    } as unknown as CfSample;
    const r = cfResult(s, 1.96, 0.95, () => 0.5);
    expect(r.valueTypes).toEqual({
      [valueTypeName(ValueType.Value)]: 4,
      [valueTypeName(ValueType.DeletionWithTimestamp)]: 1,
      [valueTypeName(ValueType.WideColumnEntity)]: 2,
    });
    expect(Object.keys(r.valueTypes)).not.toContain("type-0x14");
  });
});
