/**
 * Reusable Ethereum helpers: RLP, keccak, account records and their classification, code facts and
 * the code-size model, and the key shapes each client uses.
 */
export * from "./rlp.js";
export * from "./keccak.js";
export * from "./account.js";
export * from "./code.js";
export * from "./keys.js";
export * from "./geth_schema.js";
