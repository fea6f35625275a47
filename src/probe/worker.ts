/**
 * Child-process entry for one probe point: `node worker.js JOB.json OUT.json`. Reads the job, measures
 * it in this fresh process (runPoint) and writes {ok, point} or {ok: false, error} to OUT.json.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { isUserError } from "../util/errors.js";
import { runPoint, type PointJob } from "./point.js";

const [jobFile, outFile] = process.argv.slice(2);
if (!jobFile || !outFile) {
  process.stderr.write("usage: worker.js JOB.json OUT.json\n");
  process.exit(2);
}
try {
  const job = JSON.parse(readFileSync(jobFile, "utf8")) as PointJob;
  writeFileSync(outFile, JSON.stringify({ ok: true, point: runPoint(job) }));
} catch (err) {
  const msg = isUserError(err) ? err.oneLine() : ((err as Error).stack ?? String(err));
  writeFileSync(
    outFile,
    JSON.stringify({ ok: false, error: msg, exitCode: isUserError(err) ? err.exitCode : 1 }),
  );
  process.exitCode = 1;
}
