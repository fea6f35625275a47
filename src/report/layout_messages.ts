/**
 * The one-line text of a layout flag (src/analysis/layout.ts), written from the column family's layout:
 * the inspect report's flags and `check`'s l0-pileup finding say it this way. One case per flag id.
 */
import type { CfLayout, LayoutFlag } from "../analysis/layout.js";
import { placementBottomName } from "../datadir/placement.js";
import { int, pct, plural } from "../util/words.js";

export function layoutFlagMessage(f: LayoutFlag, c: CfLayout): string {
  const p = c.placement;
  const bottomName = p ? placementBottomName(p) : "the bottom";
  const entries =
    c.entriesAboveBottom !== undefined && c.entriesInBottom !== undefined
      ? `, ${plural(c.entriesAboveBottom, "entry", "entries")} above vs ${int(c.entriesInBottom)} in ${bottomName}`
      : "";
  switch (f.id) {
    case "files-missing":
      return `${c.missingFiles} of ${plural(c.files, "SST")} named by the MANIFEST are missing on disk`;
    case "small-files-above-bottom":
      return (
        `${p!.filesAboveBottom} small ${p!.filesAboveBottom === 1 ? "file" : "files"} in L0 above ${bottomName} ` +
        `(${pct(p!.byteShareAboveBottom)} of the bytes${entries}), nothing between: below the L0 compaction ` +
        `trigger (${c.l0Trigger}) they stay there, every read checks them first and their keys shadow older copies below`
      );
    case "above-bottom":
      return `${plural(p!.filesAboveBottom, "file")} (${pct(p!.byteShareAboveBottom)} of the bytes${entries}) above ${p!.oldestL0AsBottom ? bottomName : `the bottom level ${bottomName}`}`;
    case "l0-pileup":
      return (
        `L0 holds ${plural(c.l0Files, "table")} (writes slow at ${c.l0SlowdownTrigger}, stop at ${c.l0StopTrigger}): ` +
        `a lookup of an absent key consults up to ${plural(c.maxFilesPerLookup, "table")}` +
        ` (probe --keys absent measures it); compaction was held back or never ran`
      );
    case "l0-at-trigger":
      return `L0 holds ${plural(c.l0Files, "file")}, at or over its compaction trigger (${c.l0Trigger}): compaction was pending when the store closed`;
    case "blob-garbage":
      return `blob garbage: ${c.blob.garbageRecordBytes} of ${c.blob.recordBytes} blob record bytes (${pct(c.blob.garbageShare)}) in ${plural(c.blob.files, "blob file")}`;
  }
}
