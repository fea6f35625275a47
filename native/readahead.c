// lsmscope's read-ahead helper: asks the kernel to read byte ranges of files into the page cache
// (posix_fadvise(POSIX_FADV_WILLNEED)) on a thread of libuv's pool, one batch of files per call. The
// kernel reads those ranges asynchronously: the call only opens, advises and closes each file, so a
// cold datadir's table tails are read while the reader still works on earlier tables, without a thread
// woken per read (the read-ahead through Node's own fs.read: src/util/tail_read_ahead.ts says why that
// costs more). It reads no bytes itself and writes nothing: files are opened O_RDONLY and closed again.
// No librocksdb here: this is a separate target from the engine addon (binding.gyp).
#define _GNU_SOURCE
#include <node_api.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A batch is a few dozen files (the caller's batch); anything far larger is a caller's mistake.
#define MAX_FILES 4096
// A path longer than Linux's PATH_MAX cannot be opened anyway.
#define MAX_PATH_BYTES 4096

#ifdef POSIX_FADV_WILLNEED
typedef struct {
  char** paths;
  int64_t* offsets;
  int64_t* lengths;
  uint32_t count;
  // files that could not be opened or advised (the reader opens them itself and reports why)
  uint32_t failed;
  napi_async_work work;
  napi_deferred deferred;
} Batch;

static void free_batch(Batch* b) {
  if (b == NULL) return;
  if (b->paths != NULL)
    for (uint32_t i = 0; i < b->count; i++) free(b->paths[i]);
  free(b->paths);
  free(b->offsets);
  free(b->lengths);
  free(b);
}

// On a thread of libuv's pool: no N-API calls here.
static void execute(napi_env env, void* data) {
  (void)env;
  Batch* b = data;
  for (uint32_t i = 0; i < b->count; i++) {
    // posix_fadvise reads a length of 0 as "to the end of the file": an empty range asks for nothing
    if (b->lengths[i] == 0) continue;
    // O_NONBLOCK: a FIFO in place of a table (an untrusted datadir) must not hold the thread in open()
    int fd = open(b->paths[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
      b->failed++;
      continue;
    }
    // returns the error number, not -1
    if (posix_fadvise(fd, (off_t)b->offsets[i], (off_t)b->lengths[i], POSIX_FADV_WILLNEED) != 0) b->failed++;
    close(fd);
  }
}

static void complete(napi_env env, napi_status status, void* data) {
  Batch* b = data;
  napi_value failed;
  if (status == napi_ok && napi_create_uint32(env, b->failed, &failed) == napi_ok)
    napi_resolve_deferred(env, b->deferred, failed);
  else {
    napi_value message, error;
    napi_create_string_utf8(env, "read-ahead batch did not run", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, b->deferred, error);
  }
  napi_delete_async_work(env, b->work);
  free_batch(b);
}

static napi_value throw_type_error(napi_env env, const char* message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// A whole number in [0, 2^53): a file offset or length as JavaScript holds it.
static int get_extent(napi_env env, napi_value array, uint32_t i, int64_t* out) {
  napi_value v;
  double d;
  if (napi_get_element(env, array, i, &v) != napi_ok || napi_get_value_double(env, v, &d) != napi_ok)
    return 0;
  if (!(d >= 0 && d < 9007199254740992.0) || d != (double)(int64_t)d) return 0;
  *out = (int64_t)d;
  return 1;
}

// willNeed(paths: string[], offsets: number[], lengths: number[]): Promise<number>, resolved with the
// number of files that could not be opened or advised once the batch has been handed to the kernel.
static napi_value WillNeed(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3)
    return throw_type_error(env, "willNeed(paths, offsets, lengths): three arrays");
  uint32_t count = 0, offset_count = 0, length_count = 0;
  bool is_array[3];
  for (int k = 0; k < 3; k++)
    if (napi_is_array(env, argv[k], &is_array[k]) != napi_ok || !is_array[k])
      return throw_type_error(env, "willNeed(paths, offsets, lengths): three arrays");
  napi_get_array_length(env, argv[0], &count);
  napi_get_array_length(env, argv[1], &offset_count);
  napi_get_array_length(env, argv[2], &length_count);
  if (offset_count != count || length_count != count)
    return throw_type_error(env, "willNeed: paths, offsets and lengths differ in length");
  if (count > MAX_FILES) return throw_type_error(env, "willNeed: more than 4096 files in one batch");

  Batch* b = calloc(1, sizeof(Batch));
  if (b == NULL) return throw_type_error(env, "willNeed: out of memory");
  b->paths = calloc(count > 0 ? count : 1, sizeof(char*));
  b->offsets = calloc(count > 0 ? count : 1, sizeof(int64_t));
  b->lengths = calloc(count > 0 ? count : 1, sizeof(int64_t));
  if (b->paths == NULL || b->offsets == NULL || b->lengths == NULL) {
    free_batch(b);
    return throw_type_error(env, "willNeed: out of memory");
  }
  b->count = count;
  for (uint32_t i = 0; i < count; i++) {
    napi_value path;
    napi_valuetype type;
    size_t bytes = 0;
    if (napi_get_element(env, argv[0], i, &path) != napi_ok || napi_typeof(env, path, &type) != napi_ok ||
        type != napi_string || napi_get_value_string_utf8(env, path, NULL, 0, &bytes) != napi_ok ||
        bytes == 0 || bytes >= MAX_PATH_BYTES) {
      free_batch(b);
      return throw_type_error(env, "willNeed: every path is a non-empty string shorter than 4096 bytes");
    }
    b->paths[i] = malloc(bytes + 1);
    if (b->paths[i] == NULL) {
      free_batch(b);
      return throw_type_error(env, "willNeed: out of memory");
    }
    napi_get_value_string_utf8(env, path, b->paths[i], bytes + 1, &bytes);
    // a path with a NUL inside would name another file than the one asked for
    if (strlen(b->paths[i]) != bytes) {
      free_batch(b);
      return throw_type_error(env, "willNeed: a path holds a NUL byte");
    }
    if (!get_extent(env, argv[1], i, &b->offsets[i]) || !get_extent(env, argv[2], i, &b->lengths[i])) {
      free_batch(b);
      return throw_type_error(env, "willNeed: offsets and lengths are whole numbers >= 0");
    }
  }

  napi_value promise, name;
  if (napi_create_promise(env, &b->deferred, &promise) != napi_ok) {
    free_batch(b);
    return throw_type_error(env, "willNeed: could not make a promise");
  }
  if (napi_create_string_utf8(env, "lsmscope:willNeed", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, execute, complete, b, &b->work) != napi_ok ||
      napi_queue_async_work(env, b->work) != napi_ok) {
    // the promise exists: settle it rather than leave it pending
    napi_value message, error;
    napi_create_string_utf8(env, "willNeed: could not queue the batch", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, b->deferred, error);
    if (b->work != NULL) napi_delete_async_work(env, b->work);
    free_batch(b);
  }
  return promise;
}

#endif  // POSIX_FADV_WILLNEED

// Where the system has no posix_fadvise (macOS), the module exports nothing and the readers read ahead
// through Node's fs (src/util/readahead_helper.ts finds no willNeed).
NAPI_MODULE_INIT() {
#ifdef POSIX_FADV_WILLNEED
  napi_value fn;
  if (napi_create_function(env, "willNeed", NAPI_AUTO_LENGTH, WillNeed, NULL, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "willNeed", fn) != napi_ok)
    return NULL;
#endif
  return exports;
}
