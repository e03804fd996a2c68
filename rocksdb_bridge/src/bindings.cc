// pybind11 bindings of the RocksDB bridge (module rocksdb_bridge._rocksdb).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "database.h"
#include "read_only.h"
#include "trace.h"

namespace py = pybind11;
using wacky_rocksdb::Database;

namespace {

using Keys = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>;
using Values = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;
using Kinds = Values;  // run_mix's operations (Database::MixOp)

void PutMany(Database& db, const Keys& keys, const Values& values) {
  if (keys.ndim() != 1 || values.ndim() != 2 || values.shape(0) != keys.shape(0)) {
    throw std::invalid_argument("put_many needs keys (n,) and values (n, value_bytes)");
  }
  const uint64_t* k = keys.data();
  const uint8_t* v = values.data();
  size_t n = keys.shape(0), width = values.shape(1);
  py::gil_scoped_release release;
  db.PutMany(k, n, v, width);
}

// Database or ReadOnlyDatabase: its levels as dicts, level 0 first.
template <class DB>
py::list LevelList(const DB& db) {
  py::list out;
  for (const auto& l : db.Levels()) {
    py::dict d;
    d["level"] = l.level;
    d["files"] = l.files;
    d["bytes"] = l.bytes;
    d["entries"] = l.entries;
    out.append(d);
  }
  return out;
}

// Database or ReadOnlyDatabase: whether each key is found.
template <class DB>
py::array_t<bool> GetMany(const DB& db, const Keys& keys) {
  if (keys.ndim() != 1) throw std::invalid_argument("get_many needs keys (n,)");
  py::array_t<bool> found(keys.shape(0));
  const uint64_t* k = keys.data();
  bool* out = found.mutable_data();
  size_t n = keys.shape(0);
  {
    py::gil_scoped_release release;
    db.GetMany(k, n, out);
  }
  return found;
}

}  // namespace

PYBIND11_MODULE(_rocksdb, m) {
  m.doc() = "RocksDB opened from an OPTIONS file, for wacky's validation runs.";
  m.def("version", &wacky_rocksdb::RocksDBVersion);
  m.def("check_options_file", &wacky_rocksdb::CheckOptionsFile, py::arg("path"));
  // "" when no other DB::Open holds the database's LOCK, else RocksDB's message (read_only.h).
  m.def("database_in_use", &wacky_rocksdb::DatabaseInUse, py::arg("path"));
  // A RocksDB trace file decoded by RocksDB's reader (trace.h): a dict of numpy arrays "ops"
  // (uint8, trace.h's TraceOp), "keys", "timestamps", "lower", "upper" (uint64),
  // "value_bytes" (uint32), "has_lower", "has_upper" (bool), and "other_keys",
  // "header_timestamp", "complete".
  m.def("read_trace", [](const std::string& path) {
    wacky_rocksdb::DecodedTrace t;
    {
      py::gil_scoped_release release;
      t = wacky_rocksdb::ReadTrace(path);
    }
    auto array = [](const auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      py::array_t<T> out(v.size());
      std::copy(v.begin(), v.end(), out.mutable_data());
      return out;
    };
    auto flags = [](const std::vector<uint8_t>& v) {
      py::array_t<bool> out(v.size());
      bool* d = out.mutable_data();
      for (size_t i = 0; i < v.size(); ++i) d[i] = v[i] != 0;
      return out;
    };
    py::dict d;
    d["ops"] = array(t.ops);
    d["keys"] = array(t.keys);
    d["timestamps"] = array(t.timestamps);
    d["value_bytes"] = array(t.value_bytes);
    d["lower"] = array(t.lower);
    d["upper"] = array(t.upper);
    d["has_lower"] = flags(t.has_lower);
    d["has_upper"] = flags(t.has_upper);
    d["other_keys"] = t.other_keys;
    d["header_timestamp"] = t.header_timestamp;
    d["complete"] = t.complete;
    return d;
  }, py::arg("path"));
  py::class_<wacky_rocksdb::ReadOnlyDatabase>(m, "ReadOnlyDatabase")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def("get_many", &GetMany<wacky_rocksdb::ReadOnlyDatabase>, py::arg("keys"))
      .def("options_problem", &wacky_rocksdb::ReadOnlyDatabase::OptionsProblem)
      .def("count_keys", &wacky_rocksdb::ReadOnlyDatabase::CountKeys, py::arg("limit"),
           py::call_guard<py::gil_scoped_release>())
      .def("levels", &LevelList<wacky_rocksdb::ReadOnlyDatabase>);
  py::class_<Database>(m, "Database")
      .def(py::init<const std::string&, const std::string&, size_t, const std::vector<double>&,
                    bool, bool, int, const std::vector<std::pair<std::string, uint64_t>>&,
                    const std::string&, bool>(),
           py::arg("path"), py::arg("options_file"), py::arg("block_cache_bytes"),
           py::arg("filter_bits_per_level") = std::vector<double>{}, py::arg("driven") = false,
           py::arg("fill_cache") = false, py::arg("partitions") = 1,
           py::arg("db_paths") = std::vector<std::pair<std::string, uint64_t>>{},
           py::arg("wal_dir") = std::string(), py::arg("wal") = false)
      .def("start_trace", &Database::StartTrace, py::arg("trace_path"))
      .def("end_trace", &Database::EndTrace)
      .def("set_next_file_bits", &Database::SetNextFileBits, py::arg("bits_per_key"))
      .def("compact_files",
           [](Database& db, const std::vector<std::string>& inputs, int output_level) {
             wacky_rocksdb::CompactResult r;
             {
               py::gil_scoped_release release;
               r = db.CompactFiles(inputs, output_level);
             }
             py::dict d;
             d["outputs"] = r.outputs;
             d["records"] = r.records;
             d["bytes"] = r.bytes;
             return d;
           },
           py::arg("inputs"), py::arg("output_level"))
      .def("live_files", [](const Database& db) {
        py::list out;
        for (const auto& f : db.LiveFiles()) {
          py::dict d;
          d["name"] = f.name;
          d["level"] = f.level;
          d["entries"] = f.entries;
          d["bytes"] = f.bytes;
          d["smallest_seqno"] = f.smallest_seqno;
          d["largest_seqno"] = f.largest_seqno;
          d["smallest_key"] = f.smallest_key;
          d["largest_key"] = f.largest_key;
          d["db_path"] = f.db_path;
          out.append(d);
        }
        return out;
      })
      .def("put_many", &PutMany, py::arg("keys"), py::arg("values"))
      .def("get_many", &GetMany<Database>, py::arg("keys"))
      .def("scan_many",
           [](const Database& db, const Keys& starts, size_t length) {
             const uint64_t* s = starts.data();
             size_t n = starts.shape(0);
             py::gil_scoped_release release;
             return db.ScanMany(s, n, length);
           },
           py::arg("starts"), py::arg("length"))
      .def("run_mix",
           [](Database& db, const Kinds& kinds, const Keys& keys, const Values& value,
              size_t range_length) {
             if (kinds.ndim() != 1 || keys.ndim() != 1 || kinds.shape(0) != keys.shape(0) ||
                 value.ndim() != 1) {
               throw std::invalid_argument(
                   "run_mix needs kinds (n,), keys (n,) and one value (value_bytes,)");
             }
             size_t n = keys.shape(0);
             py::array_t<int64_t> nanos(n);
             py::array_t<uint32_t> blocks(n);
             py::array_t<uint64_t> results(n);
             const uint8_t* k = kinds.data();
             const uint64_t* s = keys.data();
             const uint8_t* v = value.data();
             size_t width = value.shape(0);
             int64_t* t = nanos.mutable_data();
             uint32_t* b = blocks.mutable_data();
             uint64_t* r = results.mutable_data();
             {
               py::gil_scoped_release release;
               db.RunMix(k, s, n, v, width, range_length, t, b, r);
             }
             return py::make_tuple(nanos, blocks, results);
           },
           py::arg("kinds"), py::arg("keys"), py::arg("value"), py::arg("range_length"))
      .def("flush", &Database::Flush, py::call_guard<py::gil_scoped_release>())
      .def("busy", &Database::Busy)
      .def("wait_for_background_work", &Database::WaitForBackgroundWork,
           py::arg("timeout_seconds"), py::call_guard<py::gil_scoped_release>())
      .def("tickers", &Database::Tickers)
      .def("histograms", &Database::Histograms)  // {name: (count, sum)}
      .def("read_counts", [](const Database& db) {  // [(hits, misses)] by level, level 0 first
        py::list out;
        for (const auto& c : db.ReadCounts()) out.append(py::make_tuple(c.hits, c.misses));
        return out;
      })
      .def("int_property", &Database::IntProperty, py::arg("name"))
      .def("filter_bytes", &Database::FilterBytes)
      .def("disk_bytes", &Database::DiskBytes)
      .def("peak_disk_bytes", &Database::PeakDiskBytes)
      .def("reset_peak_disk", &Database::ResetPeakDisk)
      // {directory: bytes} for each directory of table files (database.h).
      .def("path_bytes_written", &Database::PathBytesWritten)
      .def("path_bytes_read", &Database::PathBytesRead)
      .def("path_live_bytes", &Database::PathLiveBytes)
      // {directory: [bytes compactions wrote at level 0, 1, ...]}; flushes are not in it.
      .def("path_level_bytes_written", &Database::PathLevelBytesWritten)
      .def("reset_path_bytes", &Database::ResetPathBytes)
      .def("levels", &LevelList<Database>);
}
