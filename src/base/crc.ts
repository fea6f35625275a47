/**
 * The crc32c mask of LevelDB and RocksDB (util/crc32c.h Mask/Unmask): stored crc32c values are
 * rotated right by 15 bits and offset, so that a crc over bytes that embed crcs stays well-behaved.
 * Block trailers and log (WAL, MANIFEST) records both store masked values.
 *
 *   mask(c)   = ((c >>> 15) | (c << 17)) + 0xa282ead8
 *   unmask(m) = rotl(m − 0xa282ead8, 15)
 */

const MASK_DELTA = 0xa282ead8;

export function maskCrc32c(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

export function unmaskCrc32c(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}
