import type { DatadirModel } from "../datadir/model.js";
import type { SizesOptions, SizesReport } from "./types.js";
import { LsmscopeError } from "../util/errors.js";

export function computeSample(_model: DatadirModel, _opts: SizesOptions, _t0: number): Promise<SizesReport> {
  return Promise.reject(new LsmscopeError("sample mode: not yet"));
}
