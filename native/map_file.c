// lsmscope's file mapper, for the launcher (bin/load_cli.js): the CLI's bundle and its code cache are
// mapped read-only instead of read, and handed to JavaScript without a copy.
// - latin1(path): the file as a string whose characters are its bytes (an external one-byte string
//   over the mapping), or undefined when the file cannot be mapped or holds a byte above 0x7f (then it
//   is not the ASCII the build writes: the launcher decodes it as before).
// - bytes(path): the file as a Buffer over the mapping (external), or undefined.
// Why: a read copies the 1.2 MB bundle into fresh memory, and making a string of it copies it again,
// ~600 pages a process touches for the first time; on a virtual machine that hands free memory back to
// its host each costs ~12 us (README, Performance: Start-up). A mapping of a file in the page cache
// costs neither: V8 reads the code cache from it and the source only for functions it compiles anew.
// Nothing is written: the files are opened O_RDONLY and mapped PROT_READ, MAP_PRIVATE.
// No librocksdb here: a separate target from the engine addon (binding.gyp).
#define _GNU_SOURCE
#include <node_api.h>

#include "napi_helpers.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

// Node exports this since 20.4 (Node-API's external strings). Its header declares it only for
// NAPI_EXPERIMENTAL builds, which would register this module under the experimental version; the
// declaration here is the header's. Where Node lacks it, the module does not load and the launcher
// reads the files as before.
NAPI_EXTERN napi_status NAPI_CDECL node_api_create_external_string_latin1(
    napi_env env, char* str, size_t length, napi_finalize finalize_callback, void* finalize_hint,
    napi_value* result, bool* copied);

// The launcher's two files are ~1-2 MB; anything far larger is not what this is for (and V8's strings
// hold at most 2^29 - 24 characters).
#define MAX_FILE_BYTES ((size_t)1 << 28)
#define MAX_PATH_BYTES 4096

typedef struct {
  void* at;
  size_t length;
} Mapping;

// The regular file `path` (the call's first argument) mapped read-only; false when it is not one, is
// empty or too large, or cannot be mapped.
static bool map_file(napi_env env, napi_callback_info info, Mapping* m) {
  size_t argc = 1;
  napi_value arg;
  char path[MAX_PATH_BYTES];
  size_t length;
  // a path that fills the buffer may have been cut short, one with a NUL names another file
  if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_string_utf8(env, arg, path, sizeof path, &length) != napi_ok ||
      length + 1 >= sizeof path || strlen(path) != length)
    return false;
  // O_NONBLOCK: a FIFO in the bundle's place must not hold the launcher in open()
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            (uint64_t)st.st_size <= MAX_FILE_BYTES;
  void* at = ok ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (at == MAP_FAILED) return false;
  m->at = at;
  m->length = (size_t)st.st_size;
  return true;
}

// Called when the string or buffer over a mapping is collected (or, for a string V8 copied, at once).
static void unmap(napi_env env, void* data, void* hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

static napi_value undefined(napi_env env) {
  napi_value u;
  napi_get_undefined(env, &u);
  return u;
}

static bool is_ascii(const unsigned char* p, size_t n) {
  unsigned char any = 0;
  for (size_t i = 0; i < n; i++) any |= p[i];
  return any < 0x80;
}

static napi_value Latin1(napi_env env, napi_callback_info info) {
  Mapping m;
  if (!map_file(env, info, &m)) return undefined(env);
  if (!is_ascii(m.at, m.length)) {
    munmap(m.at, m.length);
    return undefined(env);
  }
  napi_value s;
  bool copied;
  if (node_api_create_external_string_latin1(env, m.at, m.length, unmap, (void*)(uintptr_t)m.length,
                                             &s, &copied) != napi_ok) {
    munmap(m.at, m.length);
    return undefined(env);
  }
  return s;
}

static napi_value Bytes(napi_env env, napi_callback_info info) {
  Mapping m;
  if (!map_file(env, info, &m)) return undefined(env);
  napi_value b;
  if (napi_create_external_buffer(env, m.length, m.at, unmap, (void*)(uintptr_t)m.length, &b) !=
      napi_ok) {
    munmap(m.at, m.length);
    return undefined(env);
  }
  return b;
}

NAPI_MODULE_INIT() {
  static const ExportedCall calls[] = {{"latin1", Latin1}, {"bytes", Bytes}};
  return EXPORT_CALLS(env, exports, calls);
}
