// structure.h — the one header of Wacky structure equations used by the engine.
//
// Contract: pure functions, no I/O, no state. Every formula mirrors
// cost_models/structure.py exactly (same branches, same tolerances), so that the
// engine builds the shape the cost model predicts; tests/test_engine_structure.py
// checks the two against each other on thousands of random designs.
//
//   exponent_sum(k, X) = (X^k - 1)/(X - 1), and k when |X - 1| < 1e-12.
//   Eq 10  L = ceil(1 + log_X((X-1) log_T(n/(C+1) (T-1)/T) + 1)), at least 1.
//   Eq 8   r_i = T^(X^(L-i-1)) for i < L (errata 1), r_L = C T/(T-1).
//   Eq 9   N_i/N = T^-exponent_sum(L-i-1, X) (r_i-1)/r_i/(C+1) for i < L, C/(C+1) at L.
//   Eq 13  a_i = (r_i-1)^K for i < L, a_L = C^Z; the engine uses max(1, floor(a_i + 0.5)).
//
// Everything is a function of a level's depth d = L - i (0 at Level L), so a level
// keeps its ratio and run bound when L grows or shrinks; only capacities change.
//
// The header also holds the Lagrangian Bloom-filter allocation (App. C, with caps
// p_i <= 1): p_i = min(1, mu n_i/a_i), mu chosen for a target FPR sum p or for a
// memory budget of M bits per entry; and the uniform allocation of industry systems
// (cost_models/filters.py uniform_fprs_for_*): one FPR for every run of every level,
// p_i = min(1, p / sum_i a_i) for a target sum p, or e^(-M ln(2)^2) for M bits per entry.
//
// And L2SM's Inverse Proportional Log Size (l2sm paper III.B): LogCapacities(N, omega) gives
// the log of Level i (1-based) lambda^i N_i entries, for i = 1..L-1 (Level L has no log),
// with lambda >= 0 solving sum_{i<L} lambda^i N_i = omega sum_{i<=L} N_i: all the logs
// together hold omega times what the tree holds, and the log-to-tree ratio lambda^i falls
// level by level when lambda < 1. The Python model keeps a copy (tests compare the two).
#ifndef WACKY_NATIVE_ENGINE_STRUCTURE_H_
#define WACKY_NATIVE_ENGINE_STRUCTURE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace wacky {
namespace structure {

constexpr double kLevelCeilTolerance = 1e-9;
constexpr double kXOneTolerance = 1e-12;

inline double ExponentSum(double k, double X) {
  const double d = X - 1.0;
  if (std::fabs(d) < kXOneTolerance) return k;
  return std::expm1(k * std::log1p(d)) / d;
}

// The real-valued argument of the ceiling in Eq 10 (may be -inf or NaN).
inline double LevelsReal(double T, double C, double X, double n_buffers) {
  const double log_t = std::log(n_buffers / (C + 1.0) * (T - 1.0) / T) / std::log(T);
  const double d = X - 1.0;
  if (std::fabs(d) < kXOneTolerance) return 1.0 + log_t;
  const double inner = d * log_t;
  if (!(inner > -1.0)) return -std::numeric_limits<double>::infinity();
  return 1.0 + std::log1p(inner) / std::log1p(d);
}

// Eq 10: number of levels for N/F = n_buffers; 1 when the logarithm is invalid.
inline int NumLevels(double T, double C, double X, double n_buffers) {
  const double real = LevelsReal(T, C, X, n_buffers);
  if (std::isnan(real) || std::isinf(real)) return real > 0 ? 1 << 20 : 1;
  const double ceiled = std::ceil(real - kLevelCeilTolerance * std::max(1.0, std::fabs(real)));
  if (ceiled < 1.0) return 1;
  if (ceiled > 1e6) return 1 << 20;
  return static_cast<int>(ceiled);
}

// How the engine turns a real run bound into a whole number of runs.
inline double RoundRuns(double runs) {
  if (std::isnan(runs)) return runs;  // like numpy.maximum, NaN propagates
  return std::max(1.0, std::floor(runs + 0.5));
}

struct LevelShape {
  double ratio;     // r_i
  double fraction;  // N_i / N
  double runs;      // a_i (real, Eq 13) or rounded when integer_runs
};

// Shape of the level at depth d (0 = Level L) for design (T, C, X, K, Z).
inline LevelShape LevelAtDepth(double T, double C, double X, double K, double Z, int depth,
                               bool integer_runs) {
  LevelShape s;
  if (depth == 0) {
    s.ratio = C * T / (T - 1.0);
    s.fraction = C / (C + 1.0);
    s.runs = std::pow(C, Z);
  } else {
    const double log_t = std::log(T);
    const double log_r = std::pow(X, static_cast<double>(depth - 1)) * log_t;
    s.ratio = std::exp(log_r);
    const double shrink = std::exp(-ExponentSum(static_cast<double>(depth - 1), X) * log_t);
    const double fill = -std::expm1(-log_r);
    s.fraction = shrink * fill / (C + 1.0);
    double runs = std::exp(K * std::log(std::expm1(log_r)));
    if (std::isfinite(log_r) && log_r > 50) runs = std::exp(K * log_r);
    s.runs = runs;
  }
  if (integer_runs) s.runs = RoundRuns(s.runs);
  return s;
}

struct Shape {
  int L = 1;
  std::vector<double> ratios;     // level-first: index 0 is Level 1
  std::vector<double> fractions;  // N_i / N
  std::vector<double> runs;       // a_i
};

inline Shape ComputeShape(double T, double C, double X, double K, double Z, double n_buffers,
                          bool integer_runs) {
  Shape shape;
  shape.L = NumLevels(T, C, X, n_buffers);
  if (shape.L > 4096) throw std::overflow_error("structure: number of levels overflows");
  for (int i = 1; i <= shape.L; ++i) {
    const LevelShape s = LevelAtDepth(T, C, X, K, Z, shape.L - i, integer_runs);
    shape.ratios.push_back(s.ratio);
    shape.fractions.push_back(s.fraction);
    shape.runs.push_back(s.runs);
  }
  return shape;
}

// Throws std::invalid_argument naming the first knob outside its valid range.
inline void ValidateDesign(double T, double C, double X, double K, double Z) {
  auto bad = [](const std::string& name, double v, const std::string& range) {
    throw std::invalid_argument("invalid design: " + name + " = " + std::to_string(v) +
                                " must be " + range);
  };
  if (!std::isfinite(T) || T < 2.0) bad("T", T, "a finite number >= 2");
  if (!std::isfinite(C) || C < 1.0) bad("C", C, "a finite number >= 1");
  if (!std::isfinite(X) || X < 1.0) bad("X", X, "a finite number >= 1");
  if (!std::isfinite(K) || K < 0.0 || K > 1.0) bad("K", K, "in [0, 1]");
  if (!std::isfinite(Z) || Z < 0.0 || Z > 1.0) bad("Z", Z, "in [0, 1]");
}

// ---- Lagrangian filter allocation (App. C with caps) -------------------------------

// Per-level FPRs p_i = min(1, mu n_i/a_i) with sum a_i p_i = p. n: level sizes
// (any common scale), a: runs per level. p >= sum a_i gives p_i = 1 everywhere.
inline std::vector<double> LagrangianFprsForSum(const std::vector<double>& n,
                                                const std::vector<double>& a, double p) {
  const size_t L = n.size();
  std::vector<double> out(L, 1.0);
  if (!(p > 0.0)) throw std::invalid_argument("sum_fpr must be > 0");
  const double total_a = std::accumulate(a.begin(), a.end(), 0.0);
  if (p >= total_a) return out;
  // Levels with n_i = 0 have no entries: give them p_i = 1 but no share of p... they
  // never hold data, so they are capped (a_i p_i = a_i would waste the budget): exclude.
  std::vector<size_t> order;
  for (size_t i = 0; i < L; ++i)
    if (n[i] > 0) order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return a[x] / n[x] < a[y] / n[y]; });
  // sum_i min(a_i, mu n_i) = p; levels in order cap first (smallest b_i = a_i/n_i).
  double capped_a = 0.0;
  double free_n = 0.0;
  for (size_t i : order) free_n += n[i];
  double mu = 0.0;
  size_t k = 0;
  for (; k <= order.size(); ++k) {
    if (free_n <= 0) break;
    mu = (p - capped_a) / free_n;
    const double next_b =
        k < order.size() ? a[order[k]] / n[order[k]] : std::numeric_limits<double>::infinity();
    if (mu <= next_b) break;
    capped_a += a[order[k]];
    free_n -= n[order[k]];
  }
  for (size_t i : order) out[i] = std::min(1.0, mu * n[i] / a[i]);
  return out;
}

// Per-level FPRs for a memory budget of bits_per_entry bits per entry on average:
// sum_i n_i ln(1/p_i)/ln(2)^2 = bits_per_entry sum_i n_i.
inline std::vector<double> LagrangianFprsForMemory(const std::vector<double>& n,
                                                   const std::vector<double>& a,
                                                   double bits_per_entry) {
  const size_t L = n.size();
  std::vector<double> out(L, 1.0);
  if (!(bits_per_entry >= 0.0) || !std::isfinite(bits_per_entry))
    throw std::invalid_argument("bits_per_entry must be a finite number >= 0");
  if (bits_per_entry == 0.0) return out;
  const double ln2sq = std::log(2.0) * std::log(2.0);
  std::vector<size_t> order;
  double total_n = 0.0;
  for (size_t i = 0; i < L; ++i) {
    if (n[i] > 0) order.push_back(i);
    total_n += n[i];
  }
  if (order.empty()) return out;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return a[x] / n[x] < a[y] / n[y]; });
  const double budget = bits_per_entry * ln2sq * total_n;
  // Segment k: levels order[k..] uncapped, mu in [b_(k-1), b_k].
  double sum_n = 0.0, sum_nlogb = 0.0;
  for (size_t i : order) {
    sum_n += n[i];
    sum_nlogb += n[i] * std::log(a[i] / n[i]);
  }
  double log_mu = 0.0;
  for (size_t k = 0; k < order.size(); ++k) {
    log_mu = (sum_nlogb - budget) / sum_n;
    const double log_b = std::log(a[order[k]] / n[order[k]]);
    if (log_mu <= log_b) break;
    // Level order[k] caps at p = 1 within this segment: drop it.
    sum_n -= n[order[k]];
    sum_nlogb -= n[order[k]] * log_b;
    if (sum_n <= 0) return out;  // unreachable for bits_per_entry > 0
  }
  for (size_t i : order) out[i] = std::min(1.0, std::exp(log_mu) * n[i] / a[i]);
  return out;
}

// ---- Uniform filter allocation (industry baseline) ----------------------------------

// One FPR for every run with sum a_i p_i = p: p_i = min(1, p / sum_i a_i) on levels with
// a_i > 0 (1 elsewhere). Like LagrangianFprsForSum, p >= sum a_i gives p_i = 1 everywhere.
inline std::vector<double> UniformFprsForSum(const std::vector<double>& a, double p) {
  if (!(p > 0.0) || !std::isfinite(p))
    throw std::invalid_argument("sum_fpr must be a finite number > 0");
  double total_a = 0.0;
  for (double v : a)
    if (v > 0) total_a += v;
  const double eps = std::min(1.0, p / total_a);
  std::vector<double> out(a.size(), 1.0);
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > 0) out[i] = eps;
  return out;
}

// Every filter gets bits_per_entry bits per key: p_i = e^(-M ln(2)^2) on levels with
// a_i > 0 (1 elsewhere); M = 0 gives p_i = 1 (no filters).
inline std::vector<double> UniformFprsForMemory(const std::vector<double>& a,
                                                double bits_per_entry) {
  if (!(bits_per_entry >= 0.0) || !std::isfinite(bits_per_entry))
    throw std::invalid_argument("bits_per_entry must be a finite number >= 0");
  const double ln2 = std::log(2.0);
  const double eps = std::exp(-bits_per_entry * ln2 * ln2);
  std::vector<double> out(a.size(), 1.0);
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] > 0) out[i] = eps;
  return out;
}

// ---- L2SM log sizes ------------------------------------------------------------------

// capacities: N_1..N_L (entries, level-first). Returns the log capacities, same length, the
// last 0; all 0 when omega = 0, L = 1 or N_1..N_{L-1} are all 0. lambda is found by
// bisection (the left side is increasing in lambda >= 0) to 1e-12 relative.
inline std::vector<double> LogCapacities(const std::vector<double>& capacities, double omega) {
  if (!std::isfinite(omega) || omega < 0.0 || omega > 1.0)
    throw std::invalid_argument("omega (log_ratio) = " + std::to_string(omega) +
                                " must be in [0, 1]");
  double total = 0.0;
  for (double n : capacities) {
    if (!std::isfinite(n) || n < 0.0)
      throw std::invalid_argument("level capacities must be finite and >= 0; got " +
                                  std::to_string(n));
    total += n;
  }
  const size_t L = capacities.size();
  std::vector<double> out(L, 0.0);
  bool upper = false;  // some level above Level L has a capacity
  for (size_t i = 0; i + 1 < L; ++i) upper = upper || capacities[i] > 0.0;
  const double target = omega * total;
  if (!upper || !(target > 0.0)) return out;
  auto logs = [&](double lambda) {  // sum_{i<L} lambda^i N_i
    double sum = 0.0, power = 1.0;
    for (size_t i = 0; i + 1 < L; ++i) {
      power *= lambda;
      sum += power * capacities[i];
    }
    return sum;
  };
  double lo = 0.0, hi = 1.0;
  while (logs(hi) < target) {  // ends: the sum grows without bound (it may reach inf)
    lo = hi;
    hi *= 2.0;
  }
  while (hi - lo > 1e-12 * hi) {
    const double mid = 0.5 * (lo + hi);
    if (logs(mid) < target)
      lo = mid;
    else
      hi = mid;
  }
  const double lambda = 0.5 * (lo + hi);
  double power = 1.0;
  for (size_t i = 0; i + 1 < L; ++i) {
    power *= lambda;
    out[i] = power * capacities[i];
  }
  return out;
}

// Bits per key of a Bloom filter with false-positive rate p (0 when p >= 1).
inline double BloomBitsPerKey(double p) {
  if (p >= 1.0) return 0.0;
  const double ln2 = std::log(2.0);
  return std::log(1.0 / p) / (ln2 * ln2);
}

// Number of probes k = max(1, round(bits ln 2)).
inline int BloomProbes(double bits_per_key) {
  return std::max(1, static_cast<int>(std::lround(bits_per_key * std::log(2.0))));
}

}  // namespace structure
}  // namespace wacky

#endif  // WACKY_NATIVE_ENGINE_STRUCTURE_H_
