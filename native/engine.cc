// lsmscope engine addon: a thin N-API layer over the system RocksDB (Debian librocksdb-dev 7.8.3).
//
// It exposes what lsmscope needs from a real engine and nothing more: list column families, load the
// newest OPTIONS file, open read-only (DB::OpenForReadOnly, no LOCK, no LOG file) or read-write with
// per-column-family option strings, writes, flush, manual compaction (sync and on a libuv worker, with
// cancellation), properties, point gets measured with PerfContext / IOStatsContext / Statistics, and
// posix_fadvise(DONTNEED) on a file. The typed API lives in src/engine/index.ts; this file only
// converts arguments and turns every non-OK rocksdb::Status into a JS Error carrying Status::ToString().
//
// Column family names cross the boundary as Buffers (Besu names its CFs with single raw bytes).

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <napi.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/iostats_context.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>

using rocksdb::ColumnFamilyDescriptor;
using rocksdb::ColumnFamilyHandle;
using rocksdb::ColumnFamilyOptions;
using rocksdb::ConfigOptions;
using rocksdb::DBOptions;
using rocksdb::Status;

namespace {

// ---------------------------------------------------------------------------------------------------
// Conversions and errors

void ThrowIfError(Napi::Env env, const Status& s) {
  if (!s.ok()) throw Napi::Error::New(env, s.ToString());
}

std::string BytesArg(const Napi::Value& v, const char* what) {
  if (v.IsBuffer()) {
    auto b = v.As<Napi::Buffer<char>>();
    return std::string(b.Data(), b.Length());
  }
  if (v.IsString()) return v.As<Napi::String>().Utf8Value();
  throw Napi::TypeError::New(v.Env(), std::string(what) + " must be a Buffer or string");
}

// Column family names may be raw bytes: error messages show them in hex, never raw.
std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Napi::Buffer<char> ToBuffer(Napi::Env env, const std::string& s) {
  return Napi::Buffer<char>::Copy(env, s.data(), s.size());
}

std::string StringProp(const Napi::Object& o, const char* key, const std::string& dflt = "") {
  Napi::Value v = o.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : dflt;
}

bool BoolProp(const Napi::Object& o, const char* key, bool dflt = false) {
  Napi::Value v = o.Get(key);
  return v.IsBoolean() ? v.As<Napi::Boolean>().Value() : dflt;
}

// Strict parsing for option strings the caller wrote: a typo must fail, not be ignored.
ConfigOptions StrictConfig() {
  ConfigOptions c;
  c.ignore_unknown_options = false;
  c.input_strings_escaped = true;
  return c;
}

// Lenient parsing for OPTIONS files, which may come from a newer RocksDB with options 7.8.3 lacks.
ConfigOptions LenientConfig() {
  ConfigOptions c;
  c.ignore_unknown_options = true;
  c.ignore_unsupported_options = true;
  return c;
}

// A logger that drops everything: a read-only open must not create or rotate the store's LOG file.
class NullLogger : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

// Debian's 7.8.3 is built with assertions: partition_filters=true without a two-level index aborts the
// process when a table is built. RocksDB ignores the combination anyway, so switch it off before a
// read-write open. Returns a note when it changed something.
std::string NormalisePartitionFilters(ColumnFamilyOptions* cf, const std::string& cf_name) {
  if (!cf->table_factory) return "";
  auto* t = cf->table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (t == nullptr || !t->partition_filters ||
      t->index_type == rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch)
    return "";
  rocksdb::BlockBasedTableOptions copy = *t;
  copy.partition_filters = false;
  cf->table_factory.reset(rocksdb::NewBlockBasedTableFactory(copy));
  return "column family " + cf_name +
         ": partition_filters=true without index_type=kTwoLevelIndexSearch has no effect; opened with "
         "partition_filters=false";
}

// ---------------------------------------------------------------------------------------------------
// Module functions that need no open DB

Napi::Value ListColumnFamilies(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string dir = info[0].As<Napi::String>().Utf8Value();
  std::vector<std::string> names;
  ThrowIfError(env, rocksdb::DB::ListColumnFamilies(DBOptions(), dir, &names));
  Napi::Array out = Napi::Array::New(env, names.size());
  for (size_t i = 0; i < names.size(); i++) out.Set(i, ToBuffer(env, names[i]));
  return out;
}

Napi::Value LoadLatestOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string dir = info[0].As<Napi::String>().Utf8Value();
  ConfigOptions config = LenientConfig();
  DBOptions db_opts;
  std::vector<ColumnFamilyDescriptor> cfs;
  ThrowIfError(env, rocksdb::LoadLatestOptions(config, dir, &db_opts, &cfs));

  Napi::Object out = Napi::Object::New(env);
  std::string s;
  ThrowIfError(env, rocksdb::GetStringFromDBOptions(config, db_opts, &s));
  out.Set("dbOptions", s);
  Napi::Array arr = Napi::Array::New(env, cfs.size());
  for (size_t i = 0; i < cfs.size(); i++) {
    Napi::Object cf = Napi::Object::New(env);
    cf.Set("name", ToBuffer(env, cfs[i].name));
    std::string opts, table;
    ThrowIfError(env, rocksdb::GetStringFromColumnFamilyOptions(config, cfs[i].options, &opts));
    cf.Set("options", opts);
    // GetStringFromColumnFamilyOptions leaves the table options out; ask the factory itself.
    if (cfs[i].options.table_factory) {
      ThrowIfError(env, cfs[i].options.table_factory->GetOptionString(config, &table));
      cf.Set("tableFactory", std::string(cfs[i].options.table_factory->Name()));
    }
    cf.Set("tableOptions", table);
    arr.Set(i, cf);
  }
  out.Set("columnFamilies", arr);
  return out;
}

Napi::Value DropFileCache(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Napi::Error::New(env, path + ": " + strerror(errno));
  int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // returns the error number, not -1
  close(fd);
  if (rc != 0) throw Napi::Error::New(env, path + ": posix_fadvise: " + strerror(rc));
  return env.Undefined();
}

// ---------------------------------------------------------------------------------------------------
// An open database

class Db : public Napi::ObjectWrap<Db> {
 public:
  static Napi::Function Init(Napi::Env env) {
    Napi::Function f = DefineClass(
        env, "Db",
        {InstanceMethod("columnFamilyNames", &Db::ColumnFamilyNames),
         InstanceMethod("notes", &Db::Notes),
         InstanceMethod("put", &Db::Put),
         InstanceMethod("delete", &Db::Delete),
         InstanceMethod("write", &Db::Write),
         InstanceMethod("get", &Db::Get),
         InstanceMethod("getManyWithStats", &Db::GetManyWithStats),
         InstanceMethod("flush", &Db::Flush),
         InstanceMethod("compactRange", &Db::CompactRange),
         InstanceMethod("compactRangeAsync", &Db::CompactRangeAsync),
         InstanceMethod("cancelManualCompaction", &Db::CancelManualCompaction),
         InstanceMethod("cancelAllBackgroundWork", &Db::CancelAllBackgroundWork),
         InstanceMethod("getProperty", &Db::GetProperty),
         InstanceMethod("latestSequenceNumber", &Db::LatestSequenceNumber),
         InstanceMethod("createColumnFamily", &Db::CreateColumnFamily),
         InstanceMethod("close", &Db::Close)});
    return f;
  }

  // new Db(dir, {readOnly, createIfMissing, dbOptions, columnFamilies: [{name: Buffer, options}],
  //              useLatestOptionsFile, statistics})
  explicit Db(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Db>(info) {
    Napi::Env env = info.Env();
    std::string dir = info[0].As<Napi::String>().Utf8Value();
    Napi::Object o = info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    bool read_only = BoolProp(o, "readOnly");
    ConfigOptions strict = StrictConfig();

    DBOptions db_opts;
    std::vector<ColumnFamilyDescriptor> descs;
    if (BoolProp(o, "useLatestOptionsFile")) {
      // Exactly what the store's OPTIONS file says (filters included: a reader without the filter
      // policy would never consult the filters in the files).
      ThrowIfError(env, rocksdb::LoadLatestOptions(LenientConfig(), dir, &db_opts, &descs));
    }
    // Caller's DB options go on top of the defaults or of the loaded ones.
    std::string db_str = StringProp(o, "dbOptions");
    if (!db_str.empty()) ThrowIfError(env, rocksdb::GetDBOptionsFromString(strict, db_opts, db_str, &db_opts));
    if (BoolProp(o, "createIfMissing")) {
      db_opts.create_if_missing = true;
      db_opts.create_missing_column_families = true;
    }
    if (BoolProp(o, "statistics")) {
      statistics_ = rocksdb::CreateDBStatistics();
      db_opts.statistics = statistics_;
    }

    // Caller's CF option strings: on top of the loaded options of the same CF, else of the defaults.
    Napi::Value cfv = o.Get("columnFamilies");
    if (cfv.IsArray()) {
      Napi::Array arr = cfv.As<Napi::Array>();
      for (uint32_t i = 0; i < arr.Length(); i++) {
        Napi::Object c = arr.Get(i).As<Napi::Object>();
        std::string name = BytesArg(c.Get("name"), "column family name");
        ColumnFamilyDescriptor* d = nullptr;
        for (auto& e : descs)
          if (e.name == name) d = &e;
        if (d == nullptr) {
          descs.emplace_back(name, ColumnFamilyOptions());
          d = &descs.back();
        }
        std::string s = StringProp(c, "options");
        if (!s.empty()) ThrowIfError(env, rocksdb::GetColumnFamilyOptionsFromString(strict, d->options, s, &d->options));
      }
    }
    bool has_default = false;
    for (auto& e : descs) has_default |= e.name == rocksdb::kDefaultColumnFamilyName;
    if (!has_default) descs.emplace_back(rocksdb::kDefaultColumnFamilyName, ColumnFamilyOptions());

    Status s;
    if (read_only) {
      db_opts.info_log = std::make_shared<NullLogger>();
      s = rocksdb::DB::OpenForReadOnly(db_opts, dir, descs, &handles_, &db_);
    } else {
      for (auto& e : descs) {
        std::string note = NormalisePartitionFilters(&e.options, e.name);
        if (!note.empty()) notes_.push_back(note);
      }
      s = rocksdb::DB::Open(db_opts, dir, descs, &handles_, &db_);
    }
    ThrowIfError(env, s);
  }

  ~Db() override { CloseDb(); }

 private:
  rocksdb::DB* db_ = nullptr;
  std::vector<ColumnFamilyHandle*> handles_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
  std::vector<std::string> notes_;
  std::atomic<bool> compaction_canceled_{false};
  // Async compactions in flight: close() must wait for them before deleting the DB.
  std::mutex busy_mu_;
  std::condition_variable busy_cv_;
  int busy_ = 0;

  friend class CompactWorker;

  void CloseDb() {
    if (db_ == nullptr) return;
    {
      std::unique_lock<std::mutex> lock(busy_mu_);
      if (busy_ > 0) compaction_canceled_ = true;
      busy_cv_.wait(lock, [this] { return busy_ == 0; });
    }
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    handles_.clear();
    db_->Close();
    delete db_;
    db_ = nullptr;
  }

  rocksdb::DB* Open(Napi::Env env) {
    if (db_ == nullptr) throw Napi::Error::New(env, "database is closed");
    return db_;
  }

  ColumnFamilyHandle* Cf(const Napi::Value& v) {
    Open(v.Env());
    std::string name = BytesArg(v, "column family");
    for (auto* h : handles_)
      if (h->GetName() == name) return h;
    throw Napi::Error::New(v.Env(), "no such column family: 0x" + Hex(name));
  }

  Napi::Value ColumnFamilyNames(const Napi::CallbackInfo& info) {
    Napi::Array out = Napi::Array::New(info.Env(), handles_.size());
    for (size_t i = 0; i < handles_.size(); i++) out.Set(i, ToBuffer(info.Env(), handles_[i]->GetName()));
    return out;
  }

  Napi::Value Notes(const Napi::CallbackInfo& info) {
    Napi::Array out = Napi::Array::New(info.Env(), notes_.size());
    for (size_t i = 0; i < notes_.size(); i++) out.Set(i, notes_[i]);
    return out;
  }

  // put(cf, key, value)
  Napi::Value Put(const Napi::CallbackInfo& info) {
    auto* cf = Cf(info[0]);
    ThrowIfError(info.Env(), db_->Put(rocksdb::WriteOptions(), cf, BytesArg(info[1], "key"), BytesArg(info[2], "value")));
    return info.Env().Undefined();
  }

  // delete(cf, key)
  Napi::Value Delete(const Napi::CallbackInfo& info) {
    auto* cf = Cf(info[0]);
    ThrowIfError(info.Env(), db_->Delete(rocksdb::WriteOptions(), cf, BytesArg(info[1], "key")));
    return info.Env().Undefined();
  }

  // write([{type, cf, key, value}], {disableWal, sync}) as one atomic WriteBatch
  Napi::Value Write(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Array ops = info[0].As<Napi::Array>();
    rocksdb::WriteBatch batch;
    for (uint32_t i = 0; i < ops.Length(); i++) {
      Napi::Object op = ops.Get(i).As<Napi::Object>();
      std::string type = StringProp(op, "type");
      auto* cf = Cf(op.Get("cf"));
      std::string key = BytesArg(op.Get("key"), "key");
      Status s;
      if (type == "put") s = batch.Put(cf, key, BytesArg(op.Get("value"), "value"));
      else if (type == "delete") s = batch.Delete(cf, key);
      else if (type == "singleDelete") s = batch.SingleDelete(cf, key);
      else throw Napi::TypeError::New(env, "unknown write op type: " + type);
      ThrowIfError(env, s);
    }
    rocksdb::WriteOptions wo;
    if (info[1].IsObject()) {
      wo.disableWAL = BoolProp(info[1].As<Napi::Object>(), "disableWal");
      wo.sync = BoolProp(info[1].As<Napi::Object>(), "sync");
    }
    ThrowIfError(env, Open(env)->Write(wo, &batch));
    return env.Undefined();
  }

  // get(cf, key, fillCache) -> Buffer | undefined
  Napi::Value Get(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto* cf = Cf(info[0]);
    rocksdb::ReadOptions ro;
    ro.fill_cache = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
    rocksdb::PinnableSlice value;
    Status s = db_->Get(ro, cf, BytesArg(info[1], "key"), &value);
    if (s.IsNotFound()) return env.Undefined();
    ThrowIfError(env, s);
    return Napi::Buffer<char>::Copy(env, value.data(), value.size());
  }

  // getManyWithStats(cf, keys[], fillCache, countOnly) -> {found[], valueBytes, stats: {perf, perLevel, iostats, tickers}}
  // countOnly: PerfLevel kEnableCount (no timers: cheaper, for benchmarks); else timers as well.
  Napi::Value GetManyWithStats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto* cf = Cf(info[0]);
    Napi::Array keys = info[1].As<Napi::Array>();
    std::vector<std::string> ks(keys.Length());
    for (uint32_t i = 0; i < keys.Length(); i++) ks[i] = BytesArg(keys.Get(i), "key");
    rocksdb::ReadOptions ro;
    ro.fill_cache = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();

    std::vector<uint64_t> tickers_before;
    if (statistics_)
      for (auto& t : rocksdb::TickersNameMap) tickers_before.push_back(statistics_->getTickerCount(t.first));

    // PerfContext and IOStatsContext are thread-local: set up, reset, run the gets, read, switch off.
    bool count_only = info[3].IsBoolean() && info[3].As<Napi::Boolean>().Value();
    rocksdb::SetPerfLevel(count_only ? rocksdb::PerfLevel::kEnableCount
                                     : rocksdb::PerfLevel::kEnableTimeAndCPUTimeExceptForMutex);
    rocksdb::PerfContext* pc = rocksdb::get_perf_context();
    pc->EnablePerLevelPerfContext();
    pc->Reset();
    rocksdb::IOStatsContext* io = rocksdb::get_iostats_context();
    io->Reset();

    Napi::Array found = Napi::Array::New(env, ks.size());
    double value_bytes = 0;
    Status err;
    for (size_t i = 0; i < ks.size() && err.ok(); i++) {
      rocksdb::PinnableSlice value;
      Status s = db_->Get(ro, cf, ks[i], &value);
      if (s.ok()) value_bytes += value.size();
      else if (!s.IsNotFound()) err = s;
      found.Set(i, s.ok());
    }
    rocksdb::PerfContext perf = *pc;  // copy before any other RocksDB call on this thread
    rocksdb::IOStatsContext iostats = *io;
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    ThrowIfError(env, err);

    Napi::Object p = Napi::Object::New(env);
#define PERF(f) p.Set(#f, static_cast<double>(perf.f));
    PERF(user_key_comparison_count) PERF(block_cache_hit_count) PERF(block_read_count) PERF(block_read_byte)
    PERF(block_read_time) PERF(block_cache_index_hit_count) PERF(index_block_read_count)
    PERF(block_cache_filter_hit_count) PERF(filter_block_read_count) PERF(compression_dict_block_read_count)
    PERF(block_checksum_time) PERF(block_decompress_time) PERF(get_read_bytes) PERF(blob_cache_hit_count)
    PERF(blob_read_count) PERF(blob_read_byte) PERF(blob_read_time) PERF(blob_decompress_time)
    PERF(internal_key_skipped_count) PERF(internal_delete_skipped_count) PERF(get_snapshot_time)
    PERF(get_from_memtable_time) PERF(get_from_memtable_count) PERF(get_post_process_time)
    PERF(get_from_output_files_time) PERF(read_index_block_nanos) PERF(read_filter_block_nanos)
    PERF(new_table_block_iter_nanos) PERF(block_seek_nanos) PERF(find_table_nanos)
    PERF(bloom_memtable_hit_count) PERF(bloom_memtable_miss_count) PERF(bloom_sst_hit_count)
    PERF(bloom_sst_miss_count) PERF(get_cpu_nanos) PERF(env_new_random_access_file_nanos)
#undef PERF

    // Per-level counters (bloom_filter_useful etc.), keyed by level number.
    Napi::Object lv = Napi::Object::New(env);
    if (perf.level_to_perf_context != nullptr) {
      for (auto& kv : *perf.level_to_perf_context) {
        const rocksdb::PerfContextByLevel& l = kv.second;
        Napi::Object o = Napi::Object::New(env);
#define LEVEL(f) o.Set(#f, static_cast<double>(l.f));
        LEVEL(bloom_filter_useful) LEVEL(bloom_filter_full_positive) LEVEL(bloom_filter_full_true_positive)
        LEVEL(user_key_return_count) LEVEL(get_from_table_nanos) LEVEL(block_cache_hit_count)
        LEVEL(block_cache_miss_count)
#undef LEVEL
        lv.Set(std::to_string(kv.first), o);
      }
    }
    pc->ClearPerLevelPerfContext();

    Napi::Object i = Napi::Object::New(env);
#define IOS(f) i.Set(#f, static_cast<double>(iostats.f));
    IOS(bytes_read) IOS(bytes_written) IOS(open_nanos) IOS(read_nanos) IOS(cpu_read_nanos)
#undef IOS

    Napi::Object t = Napi::Object::New(env);
    if (statistics_) {
      size_t k = 0;
      for (auto& e : rocksdb::TickersNameMap) {
        uint64_t now = statistics_->getTickerCount(e.first);
        t.Set(e.second, static_cast<double>(now - tickers_before[k++]));
      }
    }

    Napi::Object stats = Napi::Object::New(env);
    stats.Set("perf", p);
    stats.Set("perLevel", lv);
    stats.Set("iostats", i);
    stats.Set("tickers", t);
    Napi::Object out = Napi::Object::New(env);
    out.Set("found", found);
    out.Set("valueBytes", value_bytes);
    out.Set("stats", stats);
    return out;
  }

  // flush(cf?) waits for the memtable(s) to reach L0
  Napi::Value Flush(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    rocksdb::FlushOptions fo;
    fo.wait = true;
    if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
      auto* cf = Cf(info[0]);
      ThrowIfError(env, db_->Flush(fo, cf));
    } else {
      ThrowIfError(env, Open(env)->Flush(fo, handles_));
    }
    return env.Undefined();
  }

  // {bottommost, exclusive, changeLevel, targetLevel} -> CompactRangeOptions
  rocksdb::CompactRangeOptions CompactOpts(const Napi::Value& v) {
    rocksdb::CompactRangeOptions c;
    Napi::Object o = v.IsObject() ? v.As<Napi::Object>() : Napi::Object::New(v.Env());
    std::string b = StringProp(o, "bottommost", "ifHaveFilter");
    using B = rocksdb::BottommostLevelCompaction;
    if (b == "skip") c.bottommost_level_compaction = B::kSkip;
    else if (b == "ifHaveFilter") c.bottommost_level_compaction = B::kIfHaveCompactionFilter;
    else if (b == "force") c.bottommost_level_compaction = B::kForce;
    else if (b == "forceOptimized") c.bottommost_level_compaction = B::kForceOptimized;
    else throw Napi::TypeError::New(v.Env(), "unknown bottommost mode: " + b);
    c.exclusive_manual_compaction = BoolProp(o, "exclusive");
    c.change_level = BoolProp(o, "changeLevel");
    Napi::Value tl = o.Get("targetLevel");
    if (tl.IsNumber()) c.target_level = tl.As<Napi::Number>().Int32Value();
    c.canceled = &compaction_canceled_;
    return c;
  }

  // compactRange(cf, opts): the whole key range of one CF, on the calling thread
  Napi::Value CompactRange(const Napi::CallbackInfo& info) {
    auto* cf = Cf(info[0]);
    rocksdb::CompactRangeOptions c = CompactOpts(info[1]);
    compaction_canceled_ = false;
    ThrowIfError(info.Env(), db_->CompactRange(c, cf, nullptr, nullptr));
    return info.Env().Undefined();
  }

  Napi::Value CompactRangeAsync(const Napi::CallbackInfo& info);

  // Ask running manual compactions to stop (they end with "Incomplete: Manual compaction paused").
  Napi::Value CancelManualCompaction(const Napi::CallbackInfo& info) {
    compaction_canceled_ = true;
    return info.Env().Undefined();
  }

  Napi::Value CancelAllBackgroundWork(const Napi::CallbackInfo& info) {
    compaction_canceled_ = true;
    rocksdb::CancelAllBackgroundWork(Open(info.Env()), info[0].IsBoolean() && info[0].As<Napi::Boolean>().Value());
    return info.Env().Undefined();
  }

  // getProperty(cf, name) -> string | undefined
  Napi::Value GetProperty(const Napi::CallbackInfo& info) {
    auto* cf = Cf(info[0]);
    std::string value;
    if (!db_->GetProperty(cf, info[1].As<Napi::String>().Utf8Value(), &value)) return info.Env().Undefined();
    return Napi::String::New(info.Env(), value);
  }

  Napi::Value LatestSequenceNumber(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(Open(info.Env())->GetLatestSequenceNumber()));
  }

  // createColumnFamily(name, optionString)
  Napi::Value CreateColumnFamily(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string name = BytesArg(info[0], "column family name");
    ColumnFamilyOptions cf;
    std::string s = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
    if (!s.empty()) ThrowIfError(env, rocksdb::GetColumnFamilyOptionsFromString(StrictConfig(), cf, s, &cf));
    std::string note = NormalisePartitionFilters(&cf, name);
    if (!note.empty()) notes_.push_back(note);
    ColumnFamilyHandle* h = nullptr;
    ThrowIfError(env, Open(env)->CreateColumnFamily(cf, name, &h));
    handles_.push_back(h);
    return env.Undefined();
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    CloseDb();
    return info.Env().Undefined();
  }
};

// CompactRange on a libuv worker thread; resolves or rejects a Promise on the JS thread.
class CompactWorker : public Napi::AsyncWorker {
 public:
  CompactWorker(Napi::Env env, Db* db, ColumnFamilyHandle* cf, rocksdb::CompactRangeOptions opts)
      : Napi::AsyncWorker(env), db_(db), cf_(cf), opts_(opts), deferred_(Napi::Promise::Deferred::New(env)) {
    db_->Ref();  // keep the JS object (and so the DB) alive while we run
    std::lock_guard<std::mutex> lock(db_->busy_mu_);
    db_->busy_++;
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    Status s = db_->db_->CompactRange(opts_, cf_, nullptr, nullptr);
    {
      std::lock_guard<std::mutex> lock(db_->busy_mu_);
      db_->busy_--;
    }
    db_->busy_cv_.notify_all();
    if (!s.ok()) SetError(s.ToString());
  }
  void OnOK() override {
    db_->Unref();
    deferred_.Resolve(Env().Undefined());
  }
  void OnError(const Napi::Error& e) override {
    db_->Unref();
    deferred_.Reject(e.Value());
  }

 private:
  Db* db_;
  ColumnFamilyHandle* cf_;
  rocksdb::CompactRangeOptions opts_;
  Napi::Promise::Deferred deferred_;
};

Napi::Value Db::CompactRangeAsync(const Napi::CallbackInfo& info) {
  auto* cf = Cf(info[0]);
  rocksdb::CompactRangeOptions c = CompactOpts(info[1]);
  compaction_canceled_ = false;
  auto* w = new CompactWorker(info.Env(), this, cf, c);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Db", Db::Init(env));
  exports.Set("listColumnFamilies", Napi::Function::New(env, ListColumnFamilies));
  exports.Set("loadLatestOptions", Napi::Function::New(env, LoadLatestOptions));
  exports.Set("dropFileCache", Napi::Function::New(env, DropFileCache));
  exports.Set("rocksdbVersion", Napi::String::New(env, std::to_string(ROCKSDB_MAJOR) + "." +
                                                           std::to_string(ROCKSDB_MINOR) + "." +
                                                           std::to_string(ROCKSDB_PATCH)));
  return exports;
}

}  // namespace

NODE_API_MODULE(lsmscope_engine, Init)
