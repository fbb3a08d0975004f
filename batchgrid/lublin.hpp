#pragma once
/// @file
/// @brief The Lublin-Feitelson model of rigid parallel jobs (Lublin and Feitelson, "The workload
/// on parallel supercomputers: modeling the characteristics of rigid jobs", JPDC 63(11), 2003),
/// with the job classes seed 003 (Sundari, Vadhiyar and Nanjundiah, section 3) tunes it to:
/// short, long, narrow and wide jobs, and a mean inter-arrival time of 3000 s.
///
/// - Size: serial with probability `serial`; else log2(size) is two-stage uniform on
///   [ulow, umed] (probability uprob) or [umed, uhi], rounded to a power of two with
///   probability `pow2`.
/// - Runtime: log(runtime) is hyper-gamma, gamma(a1, b1) with probability p = pa * size + pb
///   (clamped to [0, 1]), else gamma(a2, b2); shape a, scale b; redrawn above the cap.
/// - Arrivals: log(inter-arrival at rush hours) is gamma(aarr * arar, barr), spent over a day
///   of 48 half-hour buckets weighted by the gamma(anum, bnum) density (the daily cycle).

#include "common/rng.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mcb::batchgrid {

/// @brief Job size: serial, power-of-two and two-stage uniform log2 size.
struct SizeModel {
  double serial = 0, pow2 = 0, ulow = 0, umed = 0, uhi = 0, uprob = 0;
};

/// @brief log(runtime) ~ hyper-gamma with size-dependent mixing p = pa * size + pb.
struct RuntimeModel {
  double a1 = 0, b1 = 0, a2 = 0, b2 = 0, pa = 0, pb = 0;
  double max_runtime = 0;  //!< seconds; longer draws are redrawn
};

/// @brief log(rush-hour inter-arrival) ~ gamma(shape, scale); daily cycle gamma(anum, bnum).
struct ArrivalModel {
  double shape = 0, scale = 0, anum = 0, bnum = 0;
  double max_log = 0;  //!< longer draws are redrawn
};

/// @brief The classes of seed 003's workloads (section 3): default model jobs, short (mean
/// runtime 3-4 min), long (mean 6 h), narrow (< 10 processors), wide (> 10 processors).
enum class JobClass { model, short_runtime, long_runtime, narrow, wide };
inline constexpr int kClasses = 5;

/// "model", "short", "long", "narrow", "wide".
const char* class_name(JobClass c);

/// @brief Everything a generator needs.
struct LublinSpec {
  int max_size = 128;               //!< system size: uhi = log2(max_size)
  double mean_interarrival = 3000;  //!< seconds (seed 003, section 3)
  double max_runtime = 2 * 86400;   //!< seconds (seed 003: "maximum execution time of 2 days")
  double short_mean = 210;          //!< seconds: mean of "3-4 min" (seed 003)
  double long_mean = 6 * 3600.0;    //!< seconds: "mean execution time of 6 h" (seed 003)
  /// Weights of model, short, long, narrow, wide jobs (normalised; a job has one class).
  std::array<double, kClasses> mix{1, 0, 0, 0, 0};
  std::uint64_t seed = 1;
};

/// @brief The fitted model, per class.
struct LublinModel {
  std::array<SizeModel, kClasses> size;
  std::array<RuntimeModel, kClasses> runtime;
  /// Runtime classes fix the hyper-gamma's branch: 1 (first gamma), 0 (second), -1 (p(size)).
  std::array<double, kClasses> forced_p{-1, 1, 0, -1, -1};
  ArrivalModel arrival;
  std::array<double, 48> bucket_weight{};  //!< mean 1
};

/// @brief The model's parameters for a spec, with the classes' parameters tuned.
/// @throws UsageError naming the spec's field for values out of range.
LublinModel make_model(const LublinSpec& spec);

/// @brief One generated job.
struct LublinJob {
  double submit = 0;   //!< seconds from the start (midnight)
  int size = 1;        //!< processors
  double runtime = 0;  //!< seconds
  JobClass cls = JobClass::model;
};

/// @brief Draws jobs of a spec in submit order, reproducibly from its seed.
class LublinGenerator {
 public:
  explicit LublinGenerator(const LublinSpec& spec);
  LublinJob next();
  const LublinModel& model() const { return model_; }
  /// Draws of the parts alone (tests check them against the formulas).
  int draw_size(const SizeModel& m);
  double draw_runtime(const RuntimeModel& m, double p);
  double draw_interarrival();

 private:
  LublinSpec spec_;
  LublinModel model_;
  std::array<double, kClasses> cumulative_{};
  Rng rng_;
  double now_ = 0;
  int bucket_ = 0;
  double points_ = 0, remainder_ = 0;
};

// --- Formulas (the tests compare the draws with them).

/// Gamma(shape, scale) draw (Marsaglia and Tsang 2000) on the portable generator.
double gamma_draw(Rng& rng, double shape, double scale);
/// P(X <= x) for X ~ gamma(shape, scale).
double gamma_cdf(double x, double shape, double scale);
/// E[exp(X) | X <= cap] for X ~ gamma(shape, scale), scale < 1.
double mean_exp_gamma(double shape, double scale, double cap);
/// The scale for which mean_exp_gamma(shape, scale, cap) equals @p target (bisection).
double scale_for_mean(double shape, double cap, double target);
/// Mean runtime (s) of the runtime model's branch chosen with probability p (0 or 1).
double mean_runtime(const RuntimeModel& m, double p);

}  // namespace mcb::batchgrid
