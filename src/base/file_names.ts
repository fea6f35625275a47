/**
 * Names of numbered store files (RocksDB file/filename.cc MakeFileName, LevelDB db/filename.cc): the file
 * number zero-padded to six digits, then the type's extension ("000123.sst", "000007.log", "000042.blob").
 */
export function numberedFileName(fileNumber: number, ext: string): string {
  return `${String(fileNumber).padStart(6, "0")}.${ext}`;
}
