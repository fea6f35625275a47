/**
 * Probe pane: run a warm point-lookup probe on the selected column family and show what a lookup
 * costs (files, filter checks and rejections, data blocks, bytes, where it was answered). Keys while
 * focused: a = absent keys, e = existing keys, c = cycle the count (100 / 1,000 / 10,000),
 * g = reader only ⇄ reader and engine side by side. Cold runs (dropping the page cache, one process per
 * point) are for the `probe --cold` command, not for an interactive pane.
 */
import { useEffect, useState } from "react";
import { useInput } from "ink";
import { probeColumnFamily } from "../../probe/probe.js";
import { renderProbeReport, renderProbeStart } from "../../probe/render.js";
import { buildTarget } from "../../probe/probe.js";
import { engineAvailable } from "../../engine/index.js";
import { isUserError } from "../../util/errors.js";
import { ActionOutput } from "./action_output.js";
import type { PaneProps, TuiPane } from "./types.js";
import { registerPane } from "./registry.js";
import { plural, wrap } from "../../util/words.js";

const COUNTS = [100, 1000, 10000];

export function ProbePane(p: PaneProps) {
  const [count, setCount] = useState(1000);
  const [both, setBoth] = useState(false);
  const [pending, setPending] = useState<"present" | "absent" | undefined>();
  const [lines, setLines] = useState<string[]>([]);
  const inst = p.instance?.instance;
  const cf = p.cf?.cf;

  useEffect(() => setLines([]), [cf]);

  useInput(
    (input) => {
      if (input === "a") setPending("absent");
      else if (input === "e") setPending("present");
      else if (input === "c") setCount((c) => COUNTS[(COUNTS.indexOf(c) + 1) % COUNTS.length]!);
      else if (input === "g") setBoth((b) => !b && engineAvailable());
    },
    { isActive: p.focused },
  );

  // run after the "running" line has been drawn
  useEffect(() => {
    if (!pending || !inst || !cf) return;
    setLines([`running ${pending} probe: ${plural(count, "lookup")}${both ? ", reader and engine" : ""}…`]);
    const t = setTimeout(() => {
      try {
        const target = buildTarget(inst, cf);
        const r = probeColumnFamily(p.result.model.root, inst, cf, {
          keys: pending,
          counts: [count],
          path: both ? "both" : "reader",
        });
        // prose wraps to the pane, the table splits into column groups that fit it
        const start = renderProbeStart(target, r.enginePolicies)
          .split("\n")
          .filter((l) => l !== "")
          .flatMap((l) => wrap(l, p.width, "", "  "));
        setLines([...start, ...renderProbeReport(r, p.width).split("\n")]);
      } catch (err) {
        setLines([`probe failed: ${isUserError(err) ? err.oneLine() : (err as Error).message}`]);
      }
      setPending(undefined);
    }, 10);
    return () => clearTimeout(t);
  }, [pending]);

  return (
    <ActionOutput
      pane={p}
      keys={`a: absent keys · e: existing keys · c: count ${count} · g: ${both ? "reader + engine" : "reader only"}${engineAvailable() ? "" : " (engine addon not built)"}`}
      focusHint="(Tab to focus this pane, then a or e to run a warm probe; lsmscope probe --cold for cold runs)"
      lines={lines}
    />
  );
}

export const probePane: TuiPane = {
  id: "probe",
  title: "Probe",
  key: "p",
  order: 70,
  help: "a absent · e existing · c count · g engine",
  Component: ProbePane,
};

registerPane(probePane);
