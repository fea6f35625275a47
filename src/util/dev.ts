/**
 * Linux device numbers (dev_t, as `stat().dev` gives them) split into major and minor, the way glibc's
 * sysmacros.h gnu_dev_major / gnu_dev_minor do:
 *
 *   major = ((dev >> 8) & 0xfff) | ((unsigned int)(dev >> 32) & ~0xfff)
 *   minor = (dev & 0xff)         | ((unsigned int)(dev >> 12) & ~0xff)
 *
 * (makedev puts major bits 0-11 at dev bits 8-19 and major bits 12-31 at dev bits 44-63; minor bits 0-7
 * at dev bits 0-7 and minor bits 8-31 at dev bits 20-43.) The arithmetic is done in BigInt: a dev_t is
 * 64 bits wide and JavaScript's bit operators work on 32.
 */

/** linux dev_t → [major, minor] (glibc gnu_dev_major / gnu_dev_minor). */
export function devParts(dev: number | bigint): [major: number, minor: number] {
  const big = BigInt(dev);
  // the `(unsigned int)` casts: keep 32 bits, so the minor does not pick up major bits 12+ (dev bits 44+)
  const major = Number(((big >> 8n) & 0xfffn) | ((big >> 32n) & 0xfffff000n));
  const minor = Number((big & 0xffn) | ((big >> 12n) & 0xffffff00n));
  return [major, minor];
}
