/**
 * Names of numbered store files (RocksDB file/filename.cc MakeFileName, LevelDB db/filename.cc): the file
 * number zero-padded to six digits, then the type's extension ("000123.sst", "000007.log", "000042.blob").
 */
/** A numbered table file's name as a store directory lists it (RocksDB and Pebble .sst, LevelDB .ldb). */
const TABLE_FILE_NAME = /^\d+\.(sst|ldb)$/;

/** Whether `name` (a directory entry) is a numbered table file: "000123.sst" or LevelDB's "000123.ldb". */
export function isTableFileName(name: string): boolean {
  return TABLE_FILE_NAME.test(name);
}

export function numberedFileName(fileNumber: number, ext: string): string {
  return `${String(fileNumber).padStart(6, "0")}.${ext}`;
}
