// workload.cc — see workload.h.
#include "workload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "hash.h"
#include "scan_iterator.h"

namespace wacky {

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void FillValue(uint64_t key, uint8_t* v, size_t n) {
  uint64_t x = Mix64(key ^ 0x5bd1e9955bd1e995ULL);
  for (size_t i = 0; i < n; i += 8) {
    const size_t m = n - i < 8 ? n - i : 8;
    std::memcpy(v + i, &x, m);
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  }
}

IOCounter Delta(const IOCounter& a, const IOCounter& b) {
  IOCounter d;
  d.blocks_read = a.blocks_read - b.blocks_read;
  d.bytes_read = a.bytes_read - b.bytes_read;
  d.blocks_written = a.blocks_written - b.blocks_written;
  d.bytes_written = a.bytes_written - b.bytes_written;
  return d;
}

class Keys {
 public:
  Keys(bool sequential, uint64_t seed) : seq_(sequential), salt_(Mix64(seed + 17)) {}
  // The i-th key ever inserted.
  uint64_t Inserted(uint64_t i) const { return seq_ ? 2 * i : Mix64(i ^ salt_); }
  // A key that is never inserted (j arbitrary, count = keys inserted so far).
  uint64_t Absent(uint64_t j, uint64_t count) const {
    if (seq_) return 2 * (j % (count ? count : 1)) + 1;
    return Mix64((j | (1ULL << 63)) ^ salt_);
  }

 private:
  bool seq_;
  uint64_t salt_;
};

}  // namespace

WorkloadResult RunWorkload(Engine* engine, const WorkloadSpec& spec) {
  const double fsum = spec.frac_get + spec.frac_zero + spec.frac_put + spec.frac_range;
  for (double f : {spec.frac_get, spec.frac_zero, spec.frac_put, spec.frac_range})
    if (!(f >= 0.0) || !std::isfinite(f))
      throw std::invalid_argument("operation fractions must be finite and >= 0");
  if (spec.n_ops > 0 && !(fsum > 0.0))
    throw std::invalid_argument("operation fractions must not all be 0 when n_ops > 0");
  if (spec.n_load >= (1ULL << 62) || spec.n_ops >= (1ULL << 62))
    throw std::invalid_argument("n_load and n_ops must be < 2^62");
  if (spec.sequential && spec.n_ops > 0 && spec.frac_zero > 0 && spec.n_load == 0)
    throw std::invalid_argument("sequential zero-result reads need n_load > 0");
  const size_t vb = engine->options().value_bytes();
  const Keys keys(spec.sequential, spec.seed);
  WorkloadResult res;
  std::mt19937_64 rng(spec.seed);

  // ---- load phase ----
  {
    const IOStats before = engine->Stats();
    const auto t0 = Clock::now();
    const size_t batch = 4096;
    std::vector<uint64_t> ks(batch);
    std::vector<uint8_t> vs(batch * vb);
    for (uint64_t i = 0; i < spec.n_load; i += batch) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(batch, spec.n_load - i));
      for (size_t j = 0; j < n; ++j) {
        ks[j] = keys.Inserted(i + j);
        FillValue(ks[j], vs.data() + j * vb, vb);
      }
      engine->PutMany(ks.data(), vs.data(), n);
    }
    res.load.seconds = Since(t0);
    res.load.stats = IOStats::Diff(engine->Stats(), before);
    OpTotals& put = res.load.ops["put"];
    put.count = spec.n_load;
    put.io = res.load.stats.Total();
    put.seconds = res.load.seconds;
  }

  // ---- mix phase ----
  std::vector<uint64_t> level_l_keys;
  if (spec.target_level_L && spec.frac_get > 0 && spec.n_ops > 0) {
    level_l_keys = engine->SampleKeysAtLevel(-1, 4096, spec.seed ^ 0xabcdef);
    res.level_L_sample = level_l_keys.size();
    if (level_l_keys.empty())
      throw std::runtime_error("target_level_L: Level L holds no entries to read");
  }
  uint64_t count = spec.n_load;
  const IOStats before = engine->Stats();
  const auto t0 = Clock::now();
  std::vector<uint8_t> value(vb), expect(vb);
  const char* names[4] = {"get", "zero", "put", "range"};
  const double cum[4] = {spec.frac_get / fsum, (spec.frac_get + spec.frac_zero) / fsum,
                         (spec.frac_get + spec.frac_zero + spec.frac_put) / fsum, 1.0};
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::vector<uint64_t> scan_keys;
  std::vector<uint8_t> scan_values;
  for (uint64_t op = 0; op < spec.n_ops; ++op) {
    const double u = uni(rng);
    int type = 0;
    while (type < 3 && u >= cum[type]) ++type;
    if (type == 0 && count == 0) type = 2;  // nothing to read yet: write instead
    const IOCounter s0 = engine->TotalIO();
    const auto o0 = Clock::now();
    switch (type) {
      case 0: {
        const uint64_t key = level_l_keys.empty() ? keys.Inserted(rng() % count)
                                                  : level_l_keys[rng() % level_l_keys.size()];
        if (!engine->Get(key, value.data())) {
          ++res.get_misses;
        } else {
          FillValue(key, expect.data(), vb);
          if (value != expect) ++res.wrong_values;
        }
        break;
      }
      case 1: {
        const uint64_t key = keys.Absent(rng(), count);
        if (engine->Get(key, value.data())) ++res.zero_hits;
        break;
      }
      case 2: {
        const uint64_t key = keys.Inserted(count++);
        FillValue(key, value.data(), vb);
        engine->Put(key, value.data());
        break;
      }
      default: {
        uint64_t lo, hi;
        if (spec.sequential) {
          lo = 2 * (rng() % (count ? count : 1));
          hi = lo + 2 * spec.range_entries - 1;
        } else {
          const uint64_t span = count ? (~0ULL / count) * spec.range_entries : ~0ULL;
          lo = rng();
          hi = lo > ~0ULL - span ? ~0ULL : lo + span;
        }
        auto it = engine->Scan(lo, hi);
        size_t n;
        do {
          scan_keys.clear();
          scan_values.clear();
          n = it->NextBatch(1024, &scan_keys, &scan_values);
          res.range_entries_returned += n;
        } while (n > 0);
        break;
      }
    }
    const IOCounter s1 = engine->TotalIO();
    OpTotals& t = res.mix.ops[names[type]];
    ++t.count;
    t.seconds += Since(o0);
    t.io.Add(Delta(s1, s0));
  }
  res.mix.seconds = Since(t0);
  res.mix.stats = IOStats::Diff(engine->Stats(), before);
  return res;
}

}  // namespace wacky
