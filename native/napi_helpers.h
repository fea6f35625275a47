// What the C helpers of the engine addon share (native/codec.c, checksum.c, map_file.c, readahead.c):
// their exports registered from one table, the TypeError they throw for arguments they refuse, and
// the checks of the arguments two of them take (a Uint8Array, a whole-number bound within it).
// Header-only (static inline): each helper is a module of its own, built and loaded on its own.
#ifndef LSMSCOPE_NAPI_HELPERS_H
#define LSMSCOPE_NAPI_HELPERS_H

#include <node_api.h>

#include <stddef.h>

// One exported call: its JavaScript name and its function.
typedef struct {
  const char* name;
  napi_callback fn;
} ExportedCall;

// Set each call of `calls` on `exports`; NULL (the module fails to load) when one cannot be.
static inline napi_value export_calls(napi_env env, napi_value exports, const ExportedCall* calls,
                                      size_t count) {
  for (size_t i = 0; i < count; i++) {
    napi_value fn;
    if (napi_create_function(env, calls[i].name, NAPI_AUTO_LENGTH, calls[i].fn, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, calls[i].name, fn) != napi_ok)
      return NULL;
  }
  return exports;
}

#define EXPORT_CALLS(env, exports, calls) export_calls(env, exports, calls, sizeof calls / sizeof calls[0])

static inline napi_value throw_type_error(napi_env env, const char* message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// The bytes of a Uint8Array argument (its view: offset and length); 0 when it is not one.
static inline int uint8_bytes(napi_env env, napi_value v, unsigned char** data, size_t* length) {
  napi_typedarray_type type;
  size_t count;
  void* base;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, &count, &base, &buffer, &offset) != napi_ok ||
      type != napi_uint8_array)
    return 0;
  *data = base;
  *length = count;
  return 1;
}

// A whole number in [0, most] (a range's bound); 0 when the argument is not one.
static inline int index_of(napi_env env, napi_value v, size_t most, size_t* out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok || !(d >= 0 && d <= (double)most) || d != (size_t)d)
    return 0;
  *out = (size_t)d;
  return 1;
}

#endif  // LSMSCOPE_NAPI_HELPERS_H
