/** Every value of a Pebble table as lsmscope's table reader scans it, for comparison with Pebble's scans. */
import { openTable } from "../../src/format/index.js";

/** The hex of every value in scan order (value-block values resolved), and how many were behind a handle. */
export function scanValues(file: string): { values: string[]; inValueBlocks: number } {
  const t = openTable(file);
  try {
    const values: string[] = [];
    let inValueBlocks = 0;
    t.scan((e) => {
      values.push(e.data.toString("hex", e.valueOffset, e.valueOffset + e.valueLength));
      if ((e as { valueInValueBlock?: boolean }).valueInValueBlock) inValueBlocks++;
    });
    return { values, inValueBlocks };
  } finally {
    t.close();
  }
}
