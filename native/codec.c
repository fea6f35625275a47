// lsmscope's block codec helper: Snappy and LZ4 blocks decompressed into a buffer the caller gives,
// through the system's own libraries (Debian's libsnappy-dev and liblz4-dev, which librocksdb-dev
// depends on). The npm bindings (snappy, lz4-napi) return a new buffer for every block: the codec's own
// allocation, a copy into memory V8 owns and a collection later, 5-11 us a 4 KiB block here against
// ~1-2 us for the decompression itself (src/format/compression.ts says where it pays). Two calls,
// each decompressing src[start, end) into dst[0, capacity) and returning the bytes written, or -1:
//   snappyInto(src, start, end, dst, capacity)  a whole raw Snappy block (its varint length first)
//   lz4Into(src, start, end, dst, capacity)     one raw LZ4 block
// -1 when the input is damaged or its output does not fit in `capacity`. src and dst are Uint8Arrays
// (Buffers), the ranges checked against them; ranges rather than views, so that the caller makes no
// view object per block. Nothing is kept past the call, nothing allocated, no file touched. Both
// libraries check their input: a damaged block is refused, never read or written past its bounds.
// No librocksdb here: this is a separate target from the engine addon (binding.gyp).
#include <node_api.h>

#include "napi_helpers.h"

#include <limits.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stddef.h>

// The arguments of both calls (src, start, end, dst, capacity) as the input's first byte and length
// and the output's first byte and room; 0 when they are not, or a range lies outside its array.
static int arguments(napi_env env, napi_callback_info info, const char** in, size_t* in_len, char** out,
                     size_t* out_len) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) return 0;
  unsigned char *src, *dst;
  size_t src_len, dst_len, start, end, capacity;
  if (!uint8_bytes(env, argv[0], &src, &src_len) || !uint8_bytes(env, argv[3], &dst, &dst_len)) return 0;
  if (!index_of(env, argv[1], src_len, &start) || !index_of(env, argv[2], src_len, &end) || end < start ||
      !index_of(env, argv[4], dst_len, &capacity))
    return 0;
  *in = (const char*)src + start;
  *in_len = end - start;
  *out = (char*)dst;
  *out_len = capacity;
  return 1;
}

static napi_value result(napi_env env, double n) {
  napi_value v;
  napi_create_double(env, n, &v);
  return v;
}

static napi_value SnappyInto(napi_env env, napi_callback_info info) {
  const char* in;
  char* out;
  size_t in_len, room;
  if (!arguments(env, info, &in, &in_len, &out, &room))
    return throw_type_error(env, "snappyInto(src, start, end, dst, capacity): ranges inside Uint8Arrays");
  size_t want;
  // the declared length (Snappy's varint preamble), checked against the room before anything is written
  if (snappy_uncompressed_length(in, in_len, &want) != SNAPPY_OK || want > room) return result(env, -1);
  size_t got = room;
  if (snappy_uncompress(in, in_len, out, &got) != SNAPPY_OK || got != want) return result(env, -1);
  return result(env, (double)got);
}

static napi_value Lz4Into(napi_env env, napi_callback_info info) {
  const char* in;
  char* out;
  size_t in_len, room;
  if (!arguments(env, info, &in, &in_len, &out, &room))
    return throw_type_error(env, "lz4Into(src, start, end, dst, capacity): ranges inside Uint8Arrays");
  if (in_len > INT_MAX || room > INT_MAX) return result(env, -1);
  // _safe: never reads past the input nor writes past the room, whatever the input holds
  int got = LZ4_decompress_safe(in, out, (int)in_len, (int)room);
  return result(env, got < 0 ? -1 : (double)got);
}

NAPI_MODULE_INIT() {
  static const ExportedCall calls[] = {{"snappyInto", SnappyInto}, {"lz4Into", Lz4Into}};
  return EXPORT_CALLS(env, exports, calls);
}
