// bindings.cc — the pybind11 module native_engine._engine.
//
// Contract: exposes the C++ engine to Python with no logic of its own beyond type
// conversion. C++ exceptions map to Python ones: std::invalid_argument and
// EngineClosed -> ValueError, IOError -> OSError (with errno), anything else ->
// RuntimeError, Corruption -> native_engine.CorruptionError (an OSError). Every call
// that may wait for the engine's lock (open, put, delete, get, put_many, get_many, scan
// and its batches, flush, verify, stats, levels, n_est, buffer_size, close) releases the
// GIL while C++ runs, after copying its inputs into C++ buffers (another Python thread
// may change a bytearray or NumPy array meanwhile). Single put/delete/get first try
// Engine::TryWrite/TryGet with the GIL held: they never wait (try_lock), and when the
// engine is free and no flush or sync is due the call is a few microseconds, while
// giving up the GIL would make it wait for a busy thread's switch interval to win it
// back. `closed` reads an atomic flag and takes no lock.
// The public, documented API is native_engine.Engine (native_engine/engine.py); the
// test hooks (Engine::TEST_*) go to the submodule _engine.testing (bindings_testing.cc).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>

#include "bindings_testing.h"
#include "bloom_filter.h"
#include "directory_check.h"
#include "engine.h"
#include "engine_limits.h"
#include "file_io.h"
#include "hash.h"
#include "manifest.h"
#include "recovery.h"
#include "scan_iterator.h"
#include "structure.h"
#include "timed_mix.h"

namespace py = pybind11;
using namespace wacky;

namespace {

py::dict CounterDict(const IOCounter& c) {
  py::dict d;
  d["blocks_read"] = c.blocks_read;
  d["bytes_read"] = c.bytes_read;
  d["blocks_written"] = c.blocks_written;
  d["bytes_written"] = c.bytes_written;
  return d;
}

py::dict StatsDict(const IOStats& s) {
  py::dict d;
  d["flush"] = CounterDict(s.flush);
  py::list merge;
  for (const auto& m : s.merge) merge.append(CounterDict(m));
  d["merge"] = merge;
  d["merge_total"] = CounterDict(s.MergeTotal());
  d["point_read"] = CounterDict(s.point_read);
  d["range_read"] = CounterDict(s.range_read);
  d["recovery"] = CounterDict(s.recovery);
  d["total"] = CounterDict(s.Total());
  d["manifest_bytes_written"] = s.manifest_bytes_written;
  d["wal_bytes_written"] = s.wal_bytes_written;
  d["wal_syncs"] = s.wal_syncs;
  d["wal_dropped_bytes"] = s.wal_dropped_bytes;
  d["wal_replayed_entries"] = s.wal_replayed_entries;
  d["files_moved_to_lost"] = s.files_moved_to_lost;
  d["checksums"] = CounterDict(s.checksums);
  d["merge_seconds"] = s.merge_seconds;
  d["puts"] = s.puts;
  d["deletes"] = s.deletes;
  d["gets"] = s.gets;
  d["scans"] = s.scans;
  d["flushes"] = s.flushes;
  d["merges"] = s.merges;
  d["merges_per_level"] = s.merges_per_level;
  d["run_file_bytes"] = s.space->current();
  d["peak_run_file_bytes"] = s.space->peak();
  // [devices] Bytes read and written on each device's run files (devices.h), device 0 (the
  // engine's directory) first.
  py::list devices;
  if (s.devices)
    for (size_t i = 0; i < s.devices->size(); ++i) {
      py::dict dev;
      dev["dir"] = s.devices->dir(i);
      dev["bytes_read"] = s.devices->io(i)->bytes_read();
      dev["bytes_written"] = s.devices->io(i)->bytes_written();
      devices.append(dev);
    }
  d["devices"] = devices;
  d["major_compactions"] = s.major_compactions;
  d["runs_created"] = s.runs_created;
  d["runs_deleted"] = s.runs_deleted;
  d["range_runs_probed"] = s.range_runs_probed;
  d["cache_hits"] = s.CacheHits();
  d["cache_misses"] = s.CacheMisses();
  d["cache_hits_per_level"] = s.cache_hits;  // [0] = level 0, [i] = Level i
  d["cache_misses_per_level"] = s.cache_misses;
  d["cache_invalidated_blocks"] = s.cache_invalidated_blocks;
  d["cache_blocks"] = s.cache_blocks;
  // [paged metadata] (options.h paged_metadata; zeros pinned): the filter and index blocks
  // read (their purposes, in total) and found cached, per level, and the gauges.
  d["filter"] = CounterDict(s.filter_read);
  d["index"] = CounterDict(s.index_read);
  d["paged_meta_written"] = CounterDict(s.paged_meta_written);
  d["filter_hits_per_level"] = s.filter_hits;  // [0] = level 0, [i] = Level i
  d["filter_misses_per_level"] = s.filter_misses;
  d["index_hits_per_level"] = s.index_hits;
  d["index_misses_per_level"] = s.index_misses;
  auto sum = [](const std::vector<uint64_t>& v) {
    uint64_t t = 0;
    for (uint64_t x : v) t += x;
    return t;
  };
  d["filter_hits"] = sum(s.filter_hits);
  d["filter_misses"] = sum(s.filter_misses);
  d["index_hits"] = sum(s.index_hits);
  d["index_misses"] = sum(s.index_misses);
  d["meta_cache_bytes"] = s.meta_cache_bytes;
  d["pinned_meta_bytes"] = s.pinned_meta_bytes;
  // [compaction buffer] (compaction_buffer.h; zeros without it)
  d["buffer_files"] = s.buffer_files;
  d["buffer_bytes"] = s.buffer_bytes;
  d["buffer_reads"] = s.buffer_reads;
  d["buffer_trimmed"] = s.buffer_trimmed;
  d["buffer_drained"] = s.buffer_drained;
  d["buffer_unreadable"] = s.buffer_unreadable;
  d["buffer_entries_per_level"] = s.buffer_entries;  // [0] = level 0, [i] = Level i
  // L2SM's per-level log (io_stats.h): zero without logs.
  d["pseudo_compactions"] = s.pseudo_compactions;
  d["aggregated_compactions"] = s.aggregated_compactions;
  d["log_files_merged"] = s.log_files_merged;
  d["log_entries_per_level"] = s.log_entries;  // [0] = Level 1
  d["hotness_picks"] = s.hotness_picks;
  d["hotness_picks_agree"] = s.hotness_picks_agree;
  // Point lookups (io_stats.h): files checked, and by the lookups that found their key.
  d["get_files_checked"] = s.get_files_checked;
  d["gets_found"] = s.gets_found;
  d["found_get_files_checked"] = s.found_get_files_checked;
  // Tidal-tree's floating (floating.h): zero without float_gamma.
  d["float"] = CounterDict(s.floating);
  d["floats"] = s.floats;
  d["floated_entries"] = s.floated_entries;
  d["float_dropped_entries"] = s.float_dropped_entries;
  d["float_eta"] = s.float_eta;
  return d;
}

// One run (or file) of Engine::Levels().
py::dict RunDict(const RunInfo& r) {
  py::dict rd;
  rd["id"] = r.id;
  rd["entries"] = r.entries;
  rd["tombstones"] = r.tombstones;
  rd["blocks"] = r.blocks;
  rd["file_bytes"] = r.file_bytes;
  rd["min_key"] = r.min_key;
  rd["max_key"] = r.max_key;
  rd["filter_bits_per_key"] = r.filter_bits_per_key;
  rd["filter_bits_target"] = r.filter_bits_target;
  rd["filter_probes"] = r.filter_probes;
  rd["hash_indexed"] = r.hash_indexed;
  rd["filter_fpr"] = r.theoretical_fpr;
  rd["filter_fpr_given_fill"] = r.fpr_given_fill;
  rd["file"] = r.file;
  return rd;
}

// An OptionTable() value as Python gets it: float, int, bool or the choice's name.
py::object OptionValue(const OptionSpec& spec, double v) {
  switch (spec.kind) {
    case OptionSpec::kInt:
      return py::int_(static_cast<int64_t>(v));
    case OptionSpec::kBool:
      return py::bool_(v != 0.0);
    case OptionSpec::kChoice:
      return py::str(spec.choices.at(static_cast<size_t>(v)));
    default:
      return py::float_(v);
  }
}

// A run set aside by a salvage open, or found unreadable by verify_directory (recovery.h).
py::dict DamagedRunDict(const DamagedRun& r) {
  py::dict d;
  d["file"] = r.file;
  d["id"] = r.id;
  d["level"] = r.level;
  d["min_key"] = r.min_key;
  d["max_key"] = r.max_key;
  d["entries"] = r.entries;
  d["tombstones"] = r.tombstones;
  d["log"] = r.in_log;  // a file of the level's L2SM log
  d["why"] = r.why;
  return d;
}

py::list DamagedRunList(const std::vector<DamagedRun>& runs) {
  py::list out;
  for (const auto& r : runs) out.append(DamagedRunDict(r));
  return out;
}

class PyScan {
 public:
  explicit PyScan(std::unique_ptr<ScanIterator> it, size_t vb) : it_(std::move(it)), vb_(vb) {}
  py::list NextBatch(size_t n) {
    std::vector<uint64_t> keys;
    std::vector<uint8_t> values;
    {
      py::gil_scoped_release release;
      it_->NextBatch(n, &keys, &values);
    }
    py::list out;
    for (size_t i = 0; i < keys.size(); ++i)
      out.append(py::make_tuple(
          keys[i], py::bytes(reinterpret_cast<const char*>(values.data() + i * vb_), vb_)));
    return out;
  }

 private:
  std::unique_ptr<ScanIterator> it_;
  size_t vb_;
};

const uint8_t* CheckValue(const py::buffer_info& info, size_t vb) {
  if (static_cast<size_t>(info.size * info.itemsize) != vb)
    throw std::invalid_argument("value must be exactly " + std::to_string(vb) + " bytes, got " +
                                std::to_string(info.size * info.itemsize));
  return static_cast<const uint8_t*>(info.ptr);
}

}  // namespace

PYBIND11_MODULE(_engine, m) {
  m.doc() = "wacky native LSM engine (C++17)";
  m.attr("__version__") = "0.1.0";

  m.attr("MAX_RUNS_PER_LEVEL") = kMaxRunsPerLevel;
  m.attr("MAX_LEVELS") = kMaxLevels;
  // A subclass of OSError (errno EIO), so code that handles I/O errors handles it too.
  static py::exception<Corruption> corruption(m, "CorruptionError", PyExc_OSError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Corruption& e) {
      py::object err = py::reinterpret_borrow<py::object>(corruption.ptr())(EIO, e.what());
      PyErr_SetObject(corruption.ptr(), err.ptr());
    } catch (const IOError& e) {
      py::object err = py::module_::import("builtins").attr("OSError")(e.code(), e.what());
      PyErr_SetObject(PyExc_OSError, err.ptr());
    } catch (const EngineClosed& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def(
      "structure",
      [](double T, double C, double X, double K, double Z, double n_buffers, bool integer_runs) {
        const auto s = structure::ComputeShape(T, C, X, K, Z, n_buffers, integer_runs);
        py::dict d;
        d["L"] = s.L;
        d["ratios"] = s.ratios;
        d["fractions"] = s.fractions;
        d["runs"] = s.runs;
        return d;
      },
      py::arg("T"), py::arg("C"), py::arg("X"), py::arg("K"), py::arg("Z"), py::arg("n_buffers"),
      py::arg("integer_runs") = false,
      "Per-level structure (Eq 8, 9, 10, 13) as the engine computes it: dict with L and "
      "level-first lists ratios, fractions (N_i/N) and runs (a_i).");
  m.def("validate_design", &structure::ValidateDesign, py::arg("T"), py::arg("C"), py::arg("X"),
        py::arg("K"), py::arg("Z"));
  m.def("lagrangian_fprs_for_sum", &structure::LagrangianFprsForSum, py::arg("n"), py::arg("a"),
        py::arg("p"));
  m.def("lagrangian_fprs_for_memory", &structure::LagrangianFprsForMemory, py::arg("n"),
        py::arg("a"), py::arg("bits_per_entry"));
  m.def("uniform_fprs_for_sum", &structure::UniformFprsForSum, py::arg("a"), py::arg("p"));
  m.def("uniform_fprs_for_memory", &structure::UniformFprsForMemory, py::arg("a"),
        py::arg("bits_per_entry"));
  m.def("hash64", &Hash64, py::arg("key"));
  m.def(
      "stored_options",
      [](const std::string& dir) {
        CheckPath(dir);
        const std::string path = ManifestFileName(dir);
        const Manifest man = Manifest::Decode(ReadWholeFile(path), path);
        const Options& o = man.options;
        py::dict d;
        d["T"] = o.T;
        d["C"] = o.C;
        d["X"] = o.X;
        d["K"] = o.K;
        d["Z"] = o.Z;
        d["entry_bytes"] = o.entry_bytes;
        d["block_bytes"] = o.block_bytes;
        d["buffer_bytes"] = o.buffer_bytes;
        if (o.use_sum_fpr)
          d["sum_fpr"] = o.sum_fpr;
        else
          d["bits_per_entry"] = o.bits_per_entry;
        d["filters"] = o.uniform_filters ? "uniform" : "optimized";
        d["hash_levels"] = o.hash_levels;
        d["granularity"] = o.granularity == kFileGranularity ? "file" : "level";
        // Only what applies: file_bytes and file_pick mean nothing for whole levels.
        if (o.granularity == kFileGranularity) {
          if (o.file_bytes != 0) d["file_bytes"] = o.file_bytes;
          d["file_pick"] = o.file_pick == kRoundRobin ? "round_robin" : "least_overlap";
        }
        d["level1_runs"] = o.level1_runs;
        // The design's table options (options.h) that the MANIFEST records: like file_pick,
        // only what applies (L2SM's with its log on, compaction_buffer when on).
        for (const OptionSpec& spec : OptionTable())
          if (RecordsOption(o, spec)) d[spec.name] = OptionValue(spec, spec.get(o));
        if (!o.level_dirs.empty()) d["level_dirs"] = o.level_dirs;  // [devices]
        return d;
      },
      py::arg("path"),
      "The design and layout a directory's MANIFEST records (checksum verified).");

  m.def(
      "verify_directory",
      [](const std::string& dir) {
        DirectoryReport r;
        {
          py::gil_scoped_release release;  // reads every block of every run
          r = CheckDirectory(dir);
        }
        py::dict d;
        d["ok"] = r.ok();
        d["lost_writes"] = r.lost_writes;
        d["problems"] = r.problems;
        d["warnings"] = r.warnings;
        d["runs"] = r.runs;
        d["blocks"] = r.blocks;
        d["entries"] = r.entries;
        d["logs"] = r.logs;
        d["log_records"] = r.log_records;
        d["log_entries"] = r.log_entries;
        d["log_tail_dropped_bytes"] = r.log_tail_dropped_bytes;
        d["lost_files"] = r.lost_files;
        d["lost_bytes"] = r.lost_bytes;
        d["damaged_runs"] = DamagedRunList(r.damaged_runs);
        return d;
      },
      py::arg("path"),
      "Checks an engine directory read-only (directory_check.h); a dict of what was found.");
  m.def(
      "clean_lost",
      [](const std::string& dir) {
        CheckPath(dir);
        LostContents c;
        {
          py::gil_scoped_release release;
          DirLock lock(dir, "directory '" + dir + "'");
          c = CleanLost(dir);
        }
        py::dict d;
        d["files"] = c.files;
        d["bytes"] = c.bytes;
        return d;
      },
      py::arg("path"), "Empties path/lost/; returns the files and bytes removed.");

  py::class_<BloomFilter>(m, "BloomFilter", "A standalone engine Bloom filter (for tests).")
      .def(py::init([](uint64_t n, double bits) {
             if (!(bits > 0) || bits > 64) throw std::invalid_argument("bits_per_key must be in (0, 64]");
             return BloomFilter(n, bits);
           }),
           py::arg("num_keys"), py::arg("bits_per_key"))
      .def("add_many",
           [](BloomFilter& f, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> k) {
             const auto* p = k.data();
             for (py::ssize_t i = 0; i < k.size(); ++i) f.AddHash(Hash64(p[i]));
           })
      .def("contains_many",
           [](const BloomFilter& f,
              py::array_t<uint64_t, py::array::c_style | py::array::forcecast> k) {
             py::array_t<bool> out(k.size());
             auto* o = out.mutable_data();
             const auto* p = k.data();
             for (py::ssize_t i = 0; i < k.size(); ++i) o[i] = f.MayContainHash(Hash64(p[i]));
             return out;
           })
      .def_property_readonly("num_bits", &BloomFilter::num_bits)
      .def_property_readonly("num_probes", &BloomFilter::num_probes)
      .def_property_readonly("bits_set", &BloomFilter::BitsSet)
      .def("theoretical_fpr", &BloomFilter::TheoreticalFpr, py::arg("n"));

  py::class_<PyScan>(m, "_Scan").def("next_batch", &PyScan::NextBatch, py::arg("n"));

  py::class_<Engine>(m, "_Engine")
      .def(py::init([](const std::string& path, double T, double C, double X, double K, double Z,
                       uint64_t entry_bytes, uint64_t block_bytes, uint64_t buffer_bytes,
                       bool use_sum_fpr, double bits_per_entry, double sum_fpr,
                       bool uniform_filters, int hash_levels, bool sync, bool wal,
                       bool retain, int granularity, uint64_t file_bytes, int file_pick,
                       int level1_runs, uint64_t cache_bytes, int wal_recovery,
                       uint64_t max_lost_bytes, bool salvage, double log_ratio,
                       double log_alpha, const std::string& hotness, int hotmap_layers,
                       int log_batch_cap, bool hotness_audit, bool compaction_buffer,
                       double buffer_trim, uint64_t buffer_trim_interval,
                       int l0_partitions, const std::vector<std::string>& level_dirs,
                       double float_gamma, double float_alpha, double float_probe_cost,
                       double float_stretch, uint64_t float_decay, int float_per_flush,
                       bool paged_metadata, bool direct_reads) {
             Options o;
             o.T = T;
             o.C = C;
             o.X = X;
             o.K = K;
             o.Z = Z;
             o.entry_bytes = entry_bytes;
             o.block_bytes = block_bytes;
             o.buffer_bytes = buffer_bytes;
             o.use_sum_fpr = use_sum_fpr;
             o.bits_per_entry = bits_per_entry;
             o.sum_fpr = sum_fpr;
             o.uniform_filters = uniform_filters;
             o.hash_levels = hash_levels;
             o.sync = sync;
             o.wal = wal;
             o.granularity = granularity;
             o.file_bytes = file_bytes;
             o.file_pick = file_pick;
             o.level1_runs = level1_runs;
             o.cache_bytes = cache_bytes;
             o.wal_recovery = wal_recovery;
             o.max_lost_bytes = max_lost_bytes;
             o.salvage = salvage;
             o.log_ratio = log_ratio;
             o.log_alpha = log_alpha;
             o.hotness = static_cast<int>(FindOption("hotness")->Parse(hotness));
             o.hotmap_layers = hotmap_layers;
             o.log_batch_cap = log_batch_cap;
             o.hotness_audit = hotness_audit;
             o.compaction_buffer = compaction_buffer;  // [compaction buffer]
             o.buffer_trim = buffer_trim;
             o.buffer_trim_interval = buffer_trim_interval;
             o.l0_partitions = l0_partitions;  // OHDB (file_compaction.h)
             o.level_dirs = level_dirs;        // devices (devices.h)
             o.float_gamma = float_gamma;      // Tidal-tree (floating.h)
             o.float_alpha = float_alpha;
             o.float_probe_cost = float_probe_cost;
             o.float_stretch = float_stretch;
             o.float_decay = float_decay;
             o.float_per_flush = float_per_flush;
             o.paged_metadata = paged_metadata;  // paged filters and indexes (run.h)
             o.direct_reads = direct_reads;      // O_DIRECT reads (file_io.h)
             o.Validate();
             py::gil_scoped_release release;  // opening reads every run and replays logs
             return std::make_unique<Engine>(path, o, retain);
           }),
           py::arg("path"), py::arg("T"), py::arg("C"), py::arg("X"), py::arg("K"), py::arg("Z"),
           py::arg("entry_bytes"), py::arg("block_bytes"), py::arg("buffer_bytes"),
           py::arg("use_sum_fpr"), py::arg("bits_per_entry"), py::arg("sum_fpr"),
           py::arg("uniform_filters"), py::arg("hash_levels"), py::arg("sync"), py::arg("wal"),
           py::arg("retain_obsolete_runs"), py::arg("granularity") = 0,
           py::arg("file_bytes") = 0, py::arg("file_pick") = 0, py::arg("level1_runs") = 1,
           py::arg("cache_bytes") = 0, py::arg("wal_recovery") = 0,
           py::arg("max_lost_bytes") = uint64_t{256} << 20, py::arg("salvage") = false,
           py::arg("log_ratio") = 0.0, py::arg("log_alpha") = 0.5,
           py::arg("hotness") = "exact", py::arg("hotmap_layers") = 5,
           py::arg("log_batch_cap") = 10, py::arg("hotness_audit") = false,
           py::arg("compaction_buffer") = false, py::arg("buffer_trim") = Options().buffer_trim,
           py::arg("buffer_trim_interval") = Options().buffer_trim_interval,
           py::arg("l0_partitions") = 1, py::arg("level_dirs") = std::vector<std::string>{},
           py::arg("float_gamma") = Options().float_gamma,
           py::arg("float_alpha") = Options().float_alpha,
           py::arg("float_probe_cost") = Options().float_probe_cost,
           py::arg("float_stretch") = Options().float_stretch,
           py::arg("float_decay") = Options().float_decay,
           py::arg("float_per_flush") = Options().float_per_flush,
           py::arg("paged_metadata") = false, py::arg("direct_reads") = false)
      .def("put",
           [](Engine& e, uint64_t key, py::buffer value) {
             const py::buffer_info info = value.request();
             const uint8_t* v = CheckValue(info, e.options().value_bytes());
             if (e.TryWrite(key, v, false)) return;
             const std::vector<uint8_t> copy(v, v + e.options().value_bytes());
             py::gil_scoped_release release;
             e.Put(key, copy.data());
           })
      .def("delete",
           [](Engine& e, uint64_t key) {
             if (e.TryWrite(key, nullptr, true)) return;
             py::gil_scoped_release release;
             e.Delete(key);
           })
      .def("verify",
           [](Engine& e) {
             VerifyReport r;
             {
               py::gil_scoped_release release;
               r = e.Verify();
             }
             py::dict d;
             d["runs"] = r.runs;
             d["blocks"] = r.blocks;
             d["entries"] = r.entries;
             d["set_aside"] = r.set_aside;
             return d;
           })
      .def("set_aside",
           [](const Engine& e) {
             // Fixed at open (no lock needed): the runs a salvage open left out.
             return DamagedRunList(e.SetAside());
           })
      .def_property_readonly("read_only", &Engine::read_only)
      .def("get",
           [](Engine& e, uint64_t key) -> py::object {
             std::string v(e.options().value_bytes(), '\0');
             bool found = false;
             if (!e.TryGet(key, reinterpret_cast<uint8_t*>(v.data()), &found)) {
               py::gil_scoped_release release;
               found = e.Get(key, reinterpret_cast<uint8_t*>(v.data()));
             }
             if (!found) return py::none();
             return py::bytes(v);
           })
      .def("put_many",
           [](Engine& e, py::array_t<uint64_t, py::array::c_style> keys,
              py::array_t<uint8_t, py::array::c_style> values) {
             const size_t vb = e.options().value_bytes();
             if (keys.ndim() != 1) throw std::invalid_argument("keys must be a 1-D array");
             const size_t n = static_cast<size_t>(keys.shape(0));
             if (static_cast<size_t>(values.size()) != n * vb ||
                 (values.ndim() == 2 && static_cast<size_t>(values.shape(1)) != vb) ||
                 values.ndim() > 2)
               throw std::invalid_argument(
                   "values must be a (len(keys), " + std::to_string(vb) +
                   ") uint8 array (or a flat buffer of len(keys)*" + std::to_string(vb) +
                   " bytes); got " + std::to_string(values.size()) + " bytes for " +
                   std::to_string(n) + " keys");
             const std::vector<uint64_t> k(keys.data(), keys.data() + n);
             const std::vector<uint8_t> v(values.data(), values.data() + n * vb);
             py::gil_scoped_release release;
             e.PutMany(k.data(), v.data(), n);
           })
      .def("get_many",
           [](Engine& e, py::array_t<uint64_t, py::array::c_style> keys) {
             const size_t vb = e.options().value_bytes();
             if (keys.ndim() != 1) throw std::invalid_argument("keys must be a 1-D array");
             const size_t n = static_cast<size_t>(keys.shape(0));
             py::array_t<uint8_t> values({n, vb});
             py::array_t<bool> found(n);
             uint8_t* v = values.mutable_data();  // new arrays: no other thread sees them yet
             bool* f = found.mutable_data();
             const std::vector<uint64_t> k(keys.data(), keys.data() + n);
             {
               py::gil_scoped_release release;
               e.GetMany(k.data(), n, v, f);
             }
             return py::make_tuple(values, found);
           })
      .def(
          "scan",
          [](Engine& e, uint64_t lo, uint64_t hi) {
            std::unique_ptr<ScanIterator> it;
            {
              py::gil_scoped_release release;
              it = e.Scan(lo, hi);
            }
            return PyScan(std::move(it), e.options().value_bytes());
          },
          py::keep_alive<0, 1>())
      .def("run_mix",
           [](Engine& e, py::array_t<uint8_t, py::array::c_style> kinds,
              py::array_t<uint64_t, py::array::c_style> keys,
              py::array_t<uint8_t, py::array::c_style> value, uint64_t range_span) {
             const size_t vb = e.options().value_bytes();
             if (kinds.ndim() != 1 || keys.ndim() != 1 || kinds.shape(0) != keys.shape(0) ||
                 value.ndim() != 1 || static_cast<size_t>(value.shape(0)) != vb)
               throw std::invalid_argument("run_mix needs kinds (n,), keys (n,) and one value (" +
                                           std::to_string(vb) + ",)");
             const size_t n = static_cast<size_t>(keys.shape(0));
             py::array_t<int64_t> nanos(n);
             py::array_t<uint32_t> blocks(n);
             py::array_t<uint64_t> results(n);
             const std::vector<uint8_t> k(kinds.data(), kinds.data() + n);
             const std::vector<uint64_t> s(keys.data(), keys.data() + n);
             const std::vector<uint8_t> v(value.data(), value.data() + vb);
             int64_t* t = nanos.mutable_data();
             uint32_t* b = blocks.mutable_data();
             uint64_t* r = results.mutable_data();
             {
               py::gil_scoped_release release;
               RunMix(&e, k.data(), s.data(), n, v.data(), range_span, t, b, r);
             }
             return py::make_tuple(nanos, blocks, results);
           },
           py::arg("kinds"), py::arg("keys"), py::arg("value"), py::arg("range_span"),
           "One client's operations in order, each timed (timed_mix.h): (nanos, blocks, "
           "results).")
      .def("flush", &Engine::Flush, py::call_guard<py::gil_scoped_release>())
      .def("close", &Engine::Close, py::call_guard<py::gil_scoped_release>())
      .def("reset_peak_space", &Engine::ResetPeakSpace,
           "Starts stats()['peak_run_file_bytes'] again at the run files' bytes now.")
      .def_property_readonly("closed", &Engine::closed)
      .def_property_readonly("n_est",
                             [](const Engine& e) {
                               py::gil_scoped_release release;
                               return e.n_est();
                             })
      .def_property_readonly("buffer_size",
                             [](const Engine& e) {
                               py::gil_scoped_release release;
                               return e.buffer_size();
                             })
      .def_property_readonly("value_bytes",
                             [](const Engine& e) { return e.options().value_bytes(); })
      .def_property_readonly("entries_per_block",
                             [](const Engine& e) { return e.options().entries_per_block(); })
      .def_property_readonly("buffer_entries",
                             [](const Engine& e) { return e.options().buffer_entries(); })
      .def("stats",
           [](const Engine& e) {
             IOStats s;
             {
               py::gil_scoped_release release;
               s = e.Stats();
             }
             return StatsDict(s);
           })
      .def("levels",
           [](const Engine& e) {
             std::vector<LevelInfo> levels;
             {
               py::gil_scoped_release release;
               levels = e.Levels();
             }
             py::list out;
             for (const auto& l : levels) {
               py::dict d;
               d["level"] = l.level;
               d["ratio"] = l.ratio;
               d["capacity"] = l.capacity;
               d["max_runs"] = l.max_runs;
               d["held_runs"] = l.held_runs;
               d["fpr"] = l.fpr;
               d["hash_table"] = l.hash_table;
               d["hash_signature_bits"] = l.hash_sig_bits;
               d["files"] = l.files;
               uint64_t entries = 0, log_entries = 0;
               py::list runs, log;
               for (const auto& r : l.runs) {
                 runs.append(RunDict(r));
                 entries += r.entries;
               }
               for (const auto& r : l.log) {
                 log.append(RunDict(r));
                 log_entries += r.entries;
               }
               d["entries"] = entries;
               d["runs"] = runs;
               d["log"] = log;  // L2SM: the level's log files, oldest first
               d["log_entries"] = log_entries;
               d["log_capacity"] = l.log_capacity;
               if (e.options().compaction_buffer) {  // [compaction buffer] newest table first
                 py::list tables;
                 for (const auto& t : l.buffer) {
                   py::list table;
                   for (const BufferedInfo& f : t) {
                     py::dict fd;
                     fd["removed"] = f.removed;
                     fd["min_key"] = f.min_key;
                     fd["max_key"] = f.max_key;
                     if (!f.removed) {
                       fd["id"] = f.id;
                       fd["entries"] = f.entries;
                       fd["blocks"] = f.blocks;
                       fd["file_bytes"] = f.file_bytes;
                       fd["cached_blocks"] = f.cached_blocks;
                     }
                     table.append(fd);
                   }
                   tables.append(table);
                 }
                 d["buffer"] = tables;
               }
               out.append(d);
             }
             return out;
           });

  BindTesting(m.def_submodule("testing", "Test hooks (native_engine.testing); not public API."));
}
