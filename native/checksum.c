// lsmscope's checksum helper: the checksums RocksDB, LevelDB and Pebble store, through the system's own
// libraries: crc32c (Castagnoli) from Intel's ISA-L (Debian's libisal-dev: crc32_iscsi), XXH32, XXH64
// and XXH3 from xxHash (libxxhash-dev). The npm bindings (@node-rs/crc32, @node-rs/xxhash) give the
// same values; loading each cost ~2 ms here in every run that checks a block (this helper ~0.8 ms), and
// the xxHash one returns XXH3 and XXH64 as a BigInt: 1.9 us a 4 KiB block against 0.11 us here, where a
// pile-up's metadata blocks are checked by the thousand (src/base/checksum_helper.ts).
// Four calls, each over src[start, end) of a Uint8Array (a range, so that the caller makes no view per
// block), returning a uint32:
//   crc32c(src, start, end)      the crc32c, unmasked (the formats' mask is applied by the caller)
//   xxh32(src, start, end)       XXH32, seed 0
//   xxh64Low32(src, start, end)  the low 32 bits of XXH64, seed 0
//   xxh3Low32(src, start, end)   the low 32 bits of XXH3-64, seed 0
// Nothing is kept past the call, nothing allocated, no file touched; the ranges are checked against the
// array. A separate target from the engine addon (binding.gyp): no librocksdb here.
#include <node_api.h>

#include "napi_helpers.h"

#include <isa-l/crc.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>
// XXH3 through the library's dispatcher where it has one (x86: SSE2, AVX2 or AVX-512 chosen at the first
// call; 0.11 us a 4 KiB block here with AVX-512, the plain function 1.05 us); elsewhere the plain one
#if defined(__x86_64__) || defined(__i386__)
#include <xxh_x86dispatch.h>
#define XXH3_64BITS XXH3_64bits_dispatch
#else
#define XXH3_64BITS XXH3_64bits
#endif

// The range src[start, end) of the arguments (src, start, end): 1, or 0 having thrown a TypeError (not a
// Uint8Array and two numbers) or a RangeError (a range outside the array, as a view of it would throw:
// the readers take a RangeError met while decoding a block for a located corruption).
static int range_of(napi_env env, napi_callback_info info, const unsigned char** data, size_t* length) {
  size_t argc = 3;
  napi_value argv[3];
  unsigned char* base;
  size_t count, start, end;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 ||
      !uint8_bytes(env, argv[0], &base, &count)) {
    throw_type_error(env, "expected (Uint8Array, start, end)");
    return 0;
  }
  if (!index_of(env, argv[1], count, &start) || !index_of(env, argv[2], count, &end) || end < start) {
    napi_throw_range_error(env, NULL, "checksum range outside its array");
    return 0;
  }
  *data = base + start;
  *length = end - start;
  return 1;
}

static napi_value uint32_result(napi_env env, uint32_t v) {
  napi_value out;
  return napi_create_uint32(env, v, &out) == napi_ok ? out : NULL;
}

#define RANGE_OR_THROW(data, length) \
  const unsigned char* data;         \
  size_t length;                     \
  if (!range_of(env, info, &data, &length)) return NULL

static napi_value Crc32c(napi_env env, napi_callback_info info) {
  RANGE_OR_THROW(data, length);
  // ISA-L's crc32_iscsi takes and returns the register without the final inversion, and an int length:
  // ranges past INT_MAX bytes go in pieces
  unsigned int crc = 0xffffffffu;
  while (length > 0) {
    int piece = length > INT_MAX ? INT_MAX : (int)length;
    crc = crc32_iscsi((unsigned char*)data, piece, crc);
    data += piece;
    length -= (size_t)piece;
  }
  return uint32_result(env, ~crc);
}

static napi_value Xxh32(napi_env env, napi_callback_info info) {
  RANGE_OR_THROW(data, length);
  return uint32_result(env, XXH32(data, length, 0));
}

static napi_value Xxh64Low32(napi_env env, napi_callback_info info) {
  RANGE_OR_THROW(data, length);
  return uint32_result(env, (uint32_t)XXH64(data, length, 0));
}

static napi_value Xxh3Low32(napi_env env, napi_callback_info info) {
  RANGE_OR_THROW(data, length);
  return uint32_result(env, (uint32_t)XXH3_64BITS(data, length));
}

NAPI_MODULE_INIT() {
  static const ExportedCall calls[] = {
      {"crc32c", Crc32c}, {"xxh32", Xxh32}, {"xxh64Low32", Xxh64Low32}, {"xxh3Low32", Xxh3Low32}};
  return EXPORT_CALLS(env, exports, calls);
}
