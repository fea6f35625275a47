/**
 * Imported first by run.tsx, before ink: Ink decides once, at import, whether it runs "in CI" (the CI or
 * CONTINUOUS_INTEGRATION variable set) and then draws only the last frame at exit. The TUI starts only
 * when stdin and stdout are terminals, so a person is looking at it even where CI is set (a CI runner's
 * shell, a tmux session opened from a job): mark this process as interactive for ink. The variables are
 * removed, not set to "false": chalk (through supports-color) turns every style off while `CI` merely
 * exists, and the TUI marks focus and selection with bold and reverse video.
 */
for (const key of ["CI", "CONTINUOUS_INTEGRATION"]) delete process.env[key];
