/**
 * devParts (src/util/dev.ts): a Linux dev_t split as glibc's sysmacros.h does it:
 *
 *   gnu_dev_major(dev) = ((dev >> 8) & 0xfff) | ((unsigned int)(dev >> 32) & ~0xfff)
 *   gnu_dev_minor(dev) = (dev & 0xff)         | ((unsigned int)(dev >> 12) & ~0xff)
 *   gnu_dev_makedev(major, minor) = ((major & 0xfff) << 8) | ((major & 0xfffff000) << 32)
 *                                 | (minor & 0xff)        | ((minor & 0xffffff00) << 12)
 *
 * The dev numbers below are makedev(major, minor) worked out by hand from the last formula.
 */
import { describe, expect, it } from "vitest";
import { statSync } from "node:fs";
import { devParts } from "../../src/util/dev.js";
import { deviceOf } from "../../src/probe/cold.js";

describe("devParts", () => {
  it("splits small device numbers (major << 8 | minor)", () => {
    expect(devParts(0x801)).toEqual([8, 1]); // makedev(8, 1): /dev/sda1
    expect(devParts(0xfd00)).toEqual([253, 0]); // makedev(253, 0): dm-0
    expect(devParts(0)).toEqual([0, 0]);
  });

  it("a dev number at or above 2^31 gives the whole minor, never a negative one", () => {
    // makedev(259, 1048575) = (0x103 << 8) | 0xff | (0xfff00 << 12) = 0xfff103ff = 4293985279
    // (32-bit signed shifts read it as negative: minor -1)
    expect(devParts(0xfff103ff)).toEqual([259, 1048575]);
    // makedev(8, 0x100000) = 0x800 | (0x100000 << 12) = 0x1_0000_0800: minor bit 20 sits at dev bit 32
    expect(devParts(0x1_0000_0800)).toEqual([8, 0x100000]);
    // makedev(0xfffff, 0xffffffff) = 0xf_ffff_ffff_ffff (every bit below 52 set; still < 2^53)
    expect(devParts(0xf_ffff_ffff_ffff)).toEqual([0xfffff, 0xffffffff]);
  });

  it("major bits above 12 stay out of the minor (the (unsigned int) cast)", () => {
    // makedev(0x1008, 1) = (0x008 << 8) | (0x1000 << 32) | 1 = 0x1000_0000_0801: major 4104, minor 1
    // ((dev >> 12) & ~0xff without the 32-bit cast would give minor 0x1_0000_0001)
    expect(devParts(0x1000_0000_0801)).toEqual([0x1008, 1]);
    // makedev(0x12345, 0x6789a) = 0x120006783459a
    expect(devParts(0x1_2000_6783_459a)).toEqual([0x12345, 0x6789a]);
  });

  it("takes a bigint dev_t (stat with { bigint: true }) up to 64 bits", () => {
    // makedev(0xffffffff, 0xffffffff) = 2^64 - 1
    expect(devParts(0xffff_ffff_ffff_ffffn)).toEqual([0xffffffff, 0xffffffff]);
    expect(devParts(0x1000_0000_0801n)).toEqual([0x1008, 1]);
  });

  it("deviceOf (cold runs) names the same device as devParts of stat().dev", () => {
    const [major, minor] = devParts(statSync(".").dev);
    expect(deviceOf(".")).toEqual({ major, minor });
  });
});
