// lsmscope's read-ahead helper, two calls, each one batch of files on a thread of libuv's pool:
// - willNeed asks the kernel to read byte ranges of files into the page cache
//   (posix_fadvise(POSIX_FADV_WILLNEED)). The kernel reads those ranges asynchronously: the call only
//   opens, advises and closes each file, so a cold datadir's table tails are read while the reader
//   still works on earlier tables, without a thread woken per read (the read-ahead through Node's own
//   fs.read: src/util/tail_read_ahead.ts says why that costs more).
// - readTails reads the files' last bytes into the caller's buffers, so that the reader's thread parses
//   each table from memory without opening it (src/util/tail_batches.ts).
// Neither writes to a file: files are opened O_RDONLY and closed again.
// No librocksdb here: this is a separate target from the engine addon (binding.gyp).
#define _GNU_SOURCE
#include <node_api.h>

#include "napi_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
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

// Element i of `array` as a path: a non-empty string shorter than MAX_PATH_BYTES, without NUL (one
// inside would name another file than the one asked for), copied to *out (malloc). NULL, or why not.
static const char* get_path(napi_env env, napi_value array, uint32_t i, char** out) {
  napi_value path;
  napi_valuetype type;
  size_t bytes = 0;
  if (napi_get_element(env, array, i, &path) != napi_ok || napi_typeof(env, path, &type) != napi_ok ||
      type != napi_string || napi_get_value_string_utf8(env, path, NULL, 0, &bytes) != napi_ok ||
      bytes == 0 || bytes >= MAX_PATH_BYTES)
    return "every path is a non-empty string shorter than 4096 bytes";
  *out = malloc(bytes + 1);
  if (*out == NULL) return "out of memory";
  napi_get_value_string_utf8(env, path, *out, bytes + 1, &bytes);
  if (strlen(*out) != bytes) return "a path holds a NUL byte";
  return NULL;
}

// A promise for the batch `data`, run by `execute` on a pool thread and settled by `complete`; when it
// cannot be queued, the promise is rejected and the batch freed (`release`).
static napi_value queue(napi_env env, const char* name, napi_async_execute_callback execute,
                        napi_async_complete_callback complete, void* data, napi_deferred* deferred,
                        napi_async_work* work, void (*release)(void*)) {
  napi_value promise, resource_name;
  if (napi_create_promise(env, deferred, &promise) != napi_ok) {
    release(data);
    return throw_type_error(env, "could not make a promise");
  }
  if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) != napi_ok ||
      napi_create_async_work(env, NULL, resource_name, execute, complete, data, work) != napi_ok ||
      napi_queue_async_work(env, *work) != napi_ok) {
    // the promise exists: settle it rather than leave it pending
    napi_value message, error;
    napi_create_string_utf8(env, "could not queue the batch", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, *deferred, error);
    if (*work != NULL) napi_delete_async_work(env, *work);
    release(data);
  }
  return promise;
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
    const char* why = get_path(env, argv[0], i, &b->paths[i]);
    if (why != NULL) {
      free_batch(b);
      return throw_type_error(env, why);
    }
    if (!get_extent(env, argv[1], i, &b->offsets[i]) || !get_extent(env, argv[2], i, &b->lengths[i])) {
      free_batch(b);
      return throw_type_error(env, "willNeed: offsets and lengths are whole numbers >= 0");
    }
  }

  return queue(env, "lsmscope:willNeed", execute, complete, b, &b->deferred, &b->work,
               (void (*)(void*))free_batch);
}

// ---- readTails: the tails themselves, read on a pool thread ----
//
// readTails(paths: string, count: number, length: number, data: Uint8Array, info: Float64Array,
// done: Int32Array): Promise<void>. `paths` holds `count` paths, each followed by a NUL (one string:
// a conversion per path cost ~1-3 us of the caller's thread). File k's last min(size, length) bytes
// are read into data at k * length, its size, inode number and the bytes read into info[3k..3k+3),
// and then done[k] is set (atomically, after the rest): 1 read, 2 not (the file could not be opened or
// read, or is not a regular file). The reader (src/util/tail_batches.ts) looks at done[k] when it
// comes to file k, without waiting for the batch: a tail read by then is parsed from memory, any other
// file is opened and read by the reader itself (which reports what is wrong with it). The promise
// settles once the batch is done. Files CHUNK at a time: each is opened and its tail advised (the
// kernel then reads a cold chunk's tails at once), then each is read and closed.

// The reader asks for at most 32 KiB of each; a batch holds a few hundred files.
#define MAX_TAIL_BYTES (64 * 1024 * 1024)
#define CHUNK 32
#define TAIL_READ 1
#define TAIL_NOT_READ 2

typedef struct {
  // the paths, NUL-terminated one after the other, and where each starts
  char* text;
  char** paths;
  uint32_t count;
  int64_t length;
  uint8_t* data;
  double* info;
  int32_t* done;
  // the caller's arrays, kept alive while the pool thread writes into them
  napi_ref refs[3];
  napi_env env;
  napi_async_work work;
  napi_deferred deferred;
} TailBatch;

static void free_tail_batch(TailBatch* b) {
  if (b == NULL) return;
  free(b->text);
  free(b->paths);
  free(b);
}

// A batch that could not be queued: its references are dropped with it.
static void release_tail_batch(TailBatch* b) {
  for (int k = 0; k < 3; k++) napi_delete_reference(b->env, b->refs[k]);
  free_tail_batch(b);
}

static void set_done(TailBatch* b, uint32_t k, int32_t outcome) {
  __atomic_store_n(&b->done[k], outcome, __ATOMIC_RELEASE);
}

static void execute_tails(napi_env env, void* data) {
  (void)env;
  TailBatch* b = data;
  int fds[CHUNK];
  for (uint32_t first = 0; first < b->count; first += CHUNK) {
    uint32_t end = b->count - first < CHUNK ? b->count : first + CHUNK;
    for (uint32_t k = first; k < end; k++) {
      double* r = &b->info[3 * k];
      int fd = open(b->paths[k], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
      struct stat st;
      if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
      }
      fds[k - first] = fd;
      if (fd < 0) {
        set_done(b, k, TAIL_NOT_READ);
        continue;
      }
      r[0] = (double)st.st_size;
      r[1] = (double)st.st_ino;
      int64_t len = st.st_size < b->length ? st.st_size : b->length;
      if (len > 0) posix_fadvise(fd, (off_t)(st.st_size - len), (off_t)len, POSIX_FADV_WILLNEED);
    }
    for (uint32_t k = first; k < end; k++) {
      int fd = fds[k - first];
      if (fd < 0) continue;
      double* r = &b->info[3 * k];
      int64_t size = (int64_t)r[0];
      int64_t len = size < b->length ? size : b->length;
      uint8_t* slot = b->data + (int64_t)k * b->length;
      int64_t got = 0;
      int failed = 0;
      while (got < len) {
        ssize_t n = pread(fd, slot + got, (size_t)(len - got), (off_t)(size - len + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          // an error, or the file ended early (it shrank since the fstat): the reader finds out
          failed = 1;
          break;
        }
        got += n;
      }
      close(fd);
      r[2] = (double)got;
      set_done(b, k, failed ? TAIL_NOT_READ : TAIL_READ);
    }
  }
}

static void complete_tails(napi_env env, napi_status status, void* data) {
  TailBatch* b = data;
  for (int k = 0; k < 3; k++) napi_delete_reference(env, b->refs[k]);
  if (status == napi_ok) {
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    napi_resolve_deferred(env, b->deferred, undefined);
  } else {
    // cancelled before it ran: files left undone are read by the reader
    napi_value message, error;
    napi_create_string_utf8(env, "tail batch did not run", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, b->deferred, error);
  }
  napi_delete_async_work(env, b->work);
  free_tail_batch(b);
}

// The elements of typed array `v` of type `type`, at least `count` of them: *out, or 0.
static int get_typed(napi_env env, napi_value v, napi_typedarray_type type, size_t count, void** out) {
  bool is_typed;
  napi_typedarray_type actual;
  size_t length;
  napi_value buffer;
  size_t offset;
  if (napi_is_typedarray(env, v, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, v, &actual, &length, out, &buffer, &offset) != napi_ok)
    return 0;
  return actual == type && length >= count && (*out != NULL || count == 0);
}

// The NUL-terminated paths in `text` (bytes long): exactly `count`, each non-empty and shorter than
// MAX_PATH_BYTES, their starts in paths[]. 0 if not.
static int split_paths(char* text, size_t bytes, uint32_t count, char** paths) {
  uint32_t k = 0;
  size_t start = 0;
  for (size_t i = 0; i < bytes; i++) {
    if (text[i] != '\0') continue;
    if (i == start || i - start >= MAX_PATH_BYTES || k == count) return 0;
    paths[k++] = text + start;
    start = i + 1;
  }
  return k == count && start == bytes;
}

static napi_value ReadTails(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_valuetype type;
  const char* usage = "readTails(paths, count, length, data, info, done): a string, two numbers, three typed arrays";
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 6 ||
      napi_typeof(env, argv[0], &type) != napi_ok || type != napi_string)
    return throw_type_error(env, usage);
  double count_d, length_d;
  if (napi_get_value_double(env, argv[1], &count_d) != napi_ok || !(count_d >= 0 && count_d <= MAX_FILES) ||
      count_d != (double)(uint32_t)count_d)
    return throw_type_error(env, "readTails: the count is a whole number from 0 to 4096");
  if (napi_get_value_double(env, argv[2], &length_d) != napi_ok ||
      !(length_d >= 0 && length_d <= MAX_TAIL_BYTES) || length_d != (double)(int64_t)length_d)
    return throw_type_error(env, "readTails: the length is a whole number from 0 to 64 MiB");
  uint32_t count = (uint32_t)count_d;
  size_t bytes = 0;
  if (napi_get_value_string_utf8(env, argv[0], NULL, 0, &bytes) != napi_ok ||
      bytes > (size_t)MAX_FILES * MAX_PATH_BYTES)
    return throw_type_error(env, "readTails: the paths are too long");

  TailBatch* b = calloc(1, sizeof(TailBatch));
  if (b == NULL) return throw_type_error(env, "readTails: out of memory");
  b->length = (int64_t)length_d;
  b->env = env;
  b->count = count;
  void *data, *infos, *done;
  if (!get_typed(env, argv[3], napi_uint8_array, (size_t)count * (size_t)b->length, &data) ||
      !get_typed(env, argv[4], napi_float64_array, 3 * (size_t)count, &infos) ||
      !get_typed(env, argv[5], napi_int32_array, count, &done)) {
    free_tail_batch(b);
    return throw_type_error(env, "readTails: data (bytes), info (3 per file) and done (1 per file) too short");
  }
  b->data = data;
  b->info = infos;
  b->done = done;
  b->text = malloc(bytes + 1);
  b->paths = calloc(count > 0 ? count : 1, sizeof(char*));
  if (b->text == NULL || b->paths == NULL) {
    free_tail_batch(b);
    return throw_type_error(env, "readTails: out of memory");
  }
  napi_get_value_string_utf8(env, argv[0], b->text, bytes + 1, &bytes);
  if (!split_paths(b->text, bytes, count, b->paths)) {
    free_tail_batch(b);
    return throw_type_error(env, "readTails: paths are `count` non-empty paths, each followed by a NUL");
  }
  for (int k = 0; k < 3; k++)
    if (napi_create_reference(env, argv[3 + k], 1, &b->refs[k]) != napi_ok) {
      for (int j = 0; j < k; j++) napi_delete_reference(env, b->refs[j]);
      free_tail_batch(b);
      return throw_type_error(env, "readTails: could not hold the arrays");
    }
  return queue(env, "lsmscope:readTails", execute_tails, complete_tails, b, &b->deferred, &b->work,
               (void (*)(void*))release_tail_batch);
}

#endif  // POSIX_FADV_WILLNEED

// Where the system has no posix_fadvise (macOS), the module exports nothing and the readers read ahead
// through Node's fs (src/util/readahead_helper.ts finds no willNeed).
NAPI_MODULE_INIT() {
#ifdef POSIX_FADV_WILLNEED
  static const ExportedCall calls[] = {{"willNeed", WillNeed}, {"readTails", ReadTails}};
  return EXPORT_CALLS(env, exports, calls);
#else
  return exports;
#endif
}
