export { locateStorage, type StorageLayout, type StorageLocation } from "./layout.js";
export { StorageAcc, StorageMerge, TOP_CONTRACTS, type ContractTally, type StorageAccData } from "./acc.js";
export { storageView, type PerContract, type StorageView } from "./view.js";
export { renderContractsCsv, CONTRACTS_CSV_COLUMNS } from "./render.js";
