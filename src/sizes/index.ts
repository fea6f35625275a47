/**
 * `sizes`: per column family key/value size distributions (newest version per key), physical vs
 * logical bytes, and Ethereum views (account kinds, code sizes, reuse, max-size co-tenancy).
 */
export { computeSizes } from "./compute.js";
export { decodeBlobIndex, type BlobIndex } from "../format/blob.js";
export type * from "./types.js";
export { renderSizesText, renderSizesSvg, sizesJson } from "./render.js";
