/**
 * Imported first by run.tsx, before ink: Ink decides once, at import, whether it runs "in CI" (the CI or
 * CONTINUOUS_INTEGRATION variable set) and then draws only the last frame at exit. The TUI starts only
 * when stdin and stdout are terminals, so a person is looking at it even where CI is set (a CI runner's
 * shell, a tmux session opened from a job): mark this process as interactive for ink.
 */
for (const key of ["CI", "CONTINUOUS_INTEGRATION"]) {
  if (key in process.env) process.env[key] = "false";
}
