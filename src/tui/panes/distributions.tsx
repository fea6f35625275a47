/**
 * Distributions pane: key and value size distributions of the selected column family (newest version
 * per key), its compression, and — on a client's account or code column family — the account kinds,
 * code sizes, reuse and max-size co-tenancy. Keys while focused: r = full scan of this column family,
 * s = sample 200 blocks. Nothing is read until asked (a full scan of a large column family takes time).
 */
import { useEffect, useState } from "react";
import { useInput } from "ink";
import { computeSizes } from "../../sizes/compute.js";
import { renderSizesText } from "../../sizes/render.js";
import { nonEmptySpan } from "../../sizes/dist.js";
import type { HistogramBucket, SizesReport } from "../../sizes/types.js";
import { isUserError } from "../../util/errors.js";
import { ActionOutput } from "./action_output.js";
import type { PaneProps, TuiPane } from "./types.js";
import { registerPane } from "./registry.js";
import { plural } from "../../util/words.js";

const SAMPLE_BLOCKS = 200;

function sizeLabel(le: number): string {
  if (le >= 1024 * 1024) return `${le / (1024 * 1024)} MiB`;
  if (le >= 1024) return `${le / 1024} KiB`;
  return `${le} B`;
}

/** Horizontal bars, one row per non-empty log2 bucket range. */
export function histogramRows(title: string, h: HistogramBucket[], width: number): string[] {
  const rows = nonEmptySpan(h);
  if (rows.length === 0) return [];
  const max = Math.max(...rows.map((b) => b.count));
  const barW = Math.max(5, width - 24);
  const out = [title];
  for (const b of rows) {
    const n = Math.round((b.count / max) * barW);
    out.push(
      `  ≤ ${sizeLabel(b.le).padStart(8)} ${"█".repeat(n)}${n === 0 && b.count > 0 ? "▏" : ""} ${b.count}`,
    );
  }
  return out;
}

export function distributionLines(r: SizesReport, width: number): string[] {
  const lines = renderSizesText(r, { width, notes: false })
    .split("\n")
    .filter((l) => l !== "");
  const cf = r.columnFamilies[0];
  if (cf) {
    lines.push("", ...histogramRows("value bytes", cf.valueSize.histogram, width));
    lines.push("", ...histogramRows("key bytes", cf.keySize.histogram, width));
  }
  const code = r.eth?.code;
  if (code && cf && code.location.includes(cf.displayName))
    lines.push("", ...histogramRows("contract code bytes", code.codeSize.histogram, width));
  return lines;
}

export function DistributionsPane(p: PaneProps) {
  const [pending, setPending] = useState<"full" | "sample" | undefined>();
  const [lines, setLines] = useState<string[]>([]);
  const inst = p.instance?.instance;
  const cf = p.cf?.cf;

  useEffect(() => setLines([]), [cf]);

  useInput(
    (input) => {
      if (input === "r") setPending("full");
      else if (input === "s") setPending("sample");
    },
    { isActive: p.focused },
  );

  useEffect(() => {
    if (!pending || !inst || !cf) return;
    setLines([
      pending === "full"
        ? "reading every block of this column family…"
        : `sampling ${plural(SAMPLE_BLOCKS, "block")}…`,
    ]);
    let cancelled = false;
    const t = setTimeout(() => {
      computeSizes(p.result.model.root, {
        model: p.result.model,
        cf: `${inst.relPath}/0x${cf.nameHex}`,
        mode: pending,
        sampleBlocks: SAMPLE_BLOCKS,
        workers: 1,
      })
        .then((r) => {
          if (!cancelled) setLines(distributionLines(r, p.width));
        })
        .catch((err: unknown) => {
          if (!cancelled)
            setLines([`sizes failed: ${isUserError(err) ? err.oneLine() : (err as Error).message}`]);
        })
        .finally(() => setPending(undefined));
    }, 10);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [pending]);

  return (
    <ActionOutput
      pane={p}
      keys={`r: full scan (newest version per key) · s: sample ${plural(SAMPLE_BLOCKS, "block")}`}
      focusHint="(Tab to focus this pane, then r or s)"
      lines={lines}
    />
  );
}

export const distributionsPane: TuiPane = {
  id: "distributions",
  title: "Sizes",
  key: "d",
  order: 60,
  help: "r full scan · s sample",
  Component: DistributionsPane,
};

registerPane(distributionsPane);
