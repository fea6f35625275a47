/**
 * File table of the selected column family, sortable by level, size or age, and a detail view of one
 * table read through the SST reader on demand (footer, meta blocks, filter, checksum/compression,
 * properties). Only the selected file is opened, with a handful of positioned reads.
 */
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import type { SstFileModel } from "../../datadir/model.js";
import { describeTable, renderTableText } from "../../report/sst.js";
import { formatBytes } from "../../util/bytes.js";
import { fileFilterKey } from "../../analysis/knobs.js";
import { age, clip, pad, padLeft } from "../text.js";
import { ScrollText, useCursor } from "../scroll.js";
import type { PaneProps, TuiPane } from "./types.js";
import { DEFAULT_WIDTH, fitLine, plural } from "../../util/words.js";

export type FileSort = "level" | "size" | "age";

/** Cells of a row of the file table: lvl 3, file 12, size 10, entries 9, filter 18, compr. 12, age 5. */
const TABLE_WIDTH = 3 + 12 + 10 + 9 + 18 + 12 + 5 + 6;
export const FILE_SORTS: FileSort[] = ["level", "size", "age"];

/** Newer files have larger numbers; the creation time is preferred when the MANIFEST recorded it. */
const newness = (f: SstFileModel): number =>
  f.fileCreationTime && f.fileCreationTime > 0 ? f.fileCreationTime : 0;

export function sortFiles(files: SstFileModel[], by: FileSort, reverse = false): SstFileModel[] {
  const out = [...files];
  const cmp: Record<FileSort, (a: SstFileModel, b: SstFileModel) => number> = {
    level: (a, b) => a.level - b.level || a.fileNumber - b.fileNumber,
    size: (a, b) => b.fileSize - a.fileSize || a.fileNumber - b.fileNumber,
    // newest first
    age: (a, b) => newness(b) - newness(a) || b.fileNumber - a.fileNumber,
  };
  out.sort(cmp[by]);
  if (reverse) out.reverse();
  return out;
}

/** Lines of the detail view for one table: what the MANIFEST says of it, then `sst FILE`'s report in `width` columns. */
export function fileDetailLines(f: SstFileModel, nowSec: number, width: number = DEFAULT_WIDTH): string[] {
  const out: string[] = [];
  out.push(
    `${f.fileName}  L${f.level}  ${formatBytes(f.fileSize)} (${f.fileSize} bytes)${f.present ? "" : "  MISSING ON DISK"}`,
  );
  out.push(
    `MANIFEST: seq ${f.smallestSeqno ?? "-"}..${f.largestSeqno ?? "-"}` +
      (f.epochNumber !== undefined ? `, epoch ${f.epochNumber}` : "") +
      (f.fileCreationTime
        ? `, created ${new Date(f.fileCreationTime * 1000).toISOString()} (${age(nowSec - f.fileCreationTime)} ago)`
        : "") +
      (f.oldestBlobFileNumber ? `, oldest blob file ${f.oldestBlobFileNumber}` : ""),
  );
  out.push(`smallest key ${f.smallestKey} (seq ${f.smallest.seqno}, ${f.smallest.typeName})`);
  out.push(`largest  key ${f.largestKey} (seq ${f.largest.seqno}, ${f.largest.typeName})`);
  if (!f.present) return out;
  try {
    // the table as `lsmscope sst FILE` reports it, at the pane's width (named as above, not by its whole path)
    const text = renderTableText({ ...describeTable(f.path), file: f.fileName }, width);
    out.push(" ", ...text.replace(/\n$/, "").split("\n"));
  } catch (e) {
    out.push(...fitLine(`SST reader: ${(e as Error).message}`, width));
  }
  return out;
}

export function FilesPane({ cf, width, height, focused }: PaneProps) {
  const [sortIdx, setSortIdx] = useState(0);
  const [reverse, setReverse] = useState(false);
  const [detail, setDetail] = useState<SstFileModel | undefined>(undefined);
  // ←/→ shift the table sideways (8 cells a step) so the columns past the pane's width can be read
  const [shift, setShift] = useState(0);
  const files = useMemo(
    () => sortFiles(cf ? cf.cf.levels.flatMap((l) => l.files) : [], FILE_SORTS[sortIdx]!, reverse),
    [cf, sortIdx, reverse],
  );
  const body = Math.max(1, height - 2);
  const [cur] = useCursor(files.length, body, focused && !detail, true, cf);
  const nowSec = Math.floor(Date.now() / 1000);
  useInput(
    (input, key) => {
      if (detail) {
        if (key.escape || key.backspace || key.delete) setDetail(undefined);
        return;
      }
      if (input === "s") setSortIdx((i) => (i + 1) % FILE_SORTS.length);
      else if (input === "r") setReverse((r) => !r);
      else if (key.rightArrow) setShift((s) => Math.min(Math.max(0, TABLE_WIDTH - width), s + 8));
      else if (key.leftArrow) setShift((s) => Math.max(0, s - 8));
      else if (key.return && files[cur.index]) setDetail(files[cur.index]);
    },
    { isActive: focused },
  );
  const detailLines = useMemo(
    () => (detail ? fileDetailLines(detail, Math.floor(Date.now() / 1000), width) : []),
    [detail, width],
  );
  if (!cf) return <Text>no column family selected</Text>;
  if (detail)
    return (
      <Box flexDirection="column" width={width} height={height}>
        <Text bold wrap="truncate">
          {clip(`${detail.fileName} — Esc back`, width)}
        </Text>
        <ScrollText
          lines={detailLines}
          width={width}
          height={height - 1}
          focused={focused}
          resetKey={detail}
        />
      </Box>
    );
  if (files.length === 0) return <Text>no SSTs in this column family</Text>;
  // columns: TABLE_WIDTH
  const cols = (f: SstFileModel | undefined): string => {
    if (!f)
      return `${pad("lvl", 3)} ${pad("file", 12)} ${padLeft("size", 10)} ${padLeft("entries", 9)} ${pad("filter", 18)} ${pad("compr.", 12)} ${padLeft("age", 5)}`;
    const d = f.details;
    return (
      `${pad(`L${f.level}`, 3)} ${pad(f.fileName, 12)} ${padLeft(formatBytes(f.fileSize), 10)} ` +
      `${padLeft(d?.numEntries !== undefined ? String(d.numEntries) : "-", 9)} ${pad(d?.filter ? fileFilterKey(d.filter) : d?.error ? "error" : "-", 18)} ` +
      `${pad(d?.compression ?? "-", 12)} ${padLeft(f.fileCreationTime ? age(nowSec - f.fileCreationTime) : "-", 5)}`
    );
  };
  const shown = files.slice(cur.offset, cur.offset + body);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text dimColor wrap="truncate">
        {clip(
          `${plural(files.length, "file")} · sort: ${FILE_SORTS[sortIdx]}${reverse ? " (reversed)" : ""} · ${cur.index + 1}/${files.length}` +
            (TABLE_WIDTH > width ? ` · ←→ more columns${shift > 0 ? ` (+${shift})` : ""}` : ""),
          width,
        )}
      </Text>
      <Text bold wrap="truncate">
        {clip(cols(undefined).slice(shift), width)}
      </Text>
      {shown.map((f, i) => (
        <Text key={f.fileNumber} wrap="truncate" inverse={cur.offset + i === cur.index}>
          {clip(cols(f).slice(shift), width)}
        </Text>
      ))}
    </Box>
  );
}

export const filesPane: TuiPane = {
  id: "files",
  title: "Files",
  key: "f",
  order: 20,
  help: "↑↓ select · ←→ scroll · s sort · r reverse · ⏎ detail · Esc back",
  Component: FilesPane,
};
