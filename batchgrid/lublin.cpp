#include "batchgrid/lublin.hpp"

#include "common/errors.hpp"

#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mcb::batchgrid {
namespace {

constexpr double kBucketSeconds = 1800;  // 48 half-hour buckets a day (the model's daily cycle)
constexpr int kBuckets = 48;
// The published code's day runs from hour 11 ("CYCLIC_DAY_START"): its gamma(anum, bnum)
// density is fitted to buckets 11..58 and wrapped onto 0..47.
constexpr int kCycleStart = 11;

void check_spec(const LublinSpec& s) {
  if (s.max_size < 16) {
    // Wide jobs need sizes above 10 (seed 003), so the smallest system is 16.
    throw UsageError("--size: '" + std::to_string(s.max_size) + "' is below 16");
  }
  if (!(s.mean_interarrival > 0)) {
    throw UsageError("--interarrival: '" + std::to_string(s.mean_interarrival) +
                     "' is not positive");
  }
  double sum = 0;
  for (double w : s.mix) {
    if (!(w >= 0)) throw UsageError("--mix: a weight is negative");
    sum += w;
  }
  if (!(sum > 0)) throw UsageError("--mix: the weights sum to 0");
}

}  // namespace

const char* class_name(JobClass c) {
  static const char* const names[] = {"model", "short", "long", "narrow", "wide"};
  return names[static_cast<int>(c)];
}

double gamma_draw(Rng& rng, double shape, double scale) {
  if (shape < 1) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a) (Marsaglia and Tsang 2000, section 6).
    const double u = 1 - rng.uniform();
    return gamma_draw(rng, shape + 1, scale) * std::pow(u, 1 / shape);
  }
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  while (true) {
    double x = 0, v = 0;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1 - rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
  }
}

double gamma_cdf(double x, double shape, double scale) {
  return x <= 0 ? 0 : boost::math::gamma_p(shape, x / scale);
}

double mean_exp_gamma(double shape, double scale, double cap) {
  // E[e^X; X <= c] = (1 - b)^-a P(Y <= c) with Y ~ gamma(a, b / (1 - b)) (completing the
  // exponent in the density), then divided by P(X <= c).
  const double tilted = scale / (1 - scale);
  return std::pow(1 - scale, -shape) * gamma_cdf(cap, shape, tilted) / gamma_cdf(cap, shape, scale);
}

double scale_for_mean(double shape, double cap, double target) {
  // The truncated mean grows with the scale: bisection on (0, 1).
  double lo = 1e-9, hi = 1 - 1e-9;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mean_exp_gamma(shape, mid, cap) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double mean_runtime(const RuntimeModel& m, double p) {
  // The whole hyper-gamma draw is repeated above the cap, so each branch is weighted by its
  // probability of landing under the cap.
  const double cap = std::log(m.max_runtime);
  const double w1 = p * gamma_cdf(cap, m.a1, m.b1), w2 = (1 - p) * gamma_cdf(cap, m.a2, m.b2);
  const double m1 = w1 > 0 ? mean_exp_gamma(m.a1, m.b1, cap) : 0;
  const double m2 = w2 > 0 ? mean_exp_gamma(m.a2, m.b2, cap) : 0;
  return (w1 * m1 + w2 * m2) / (w1 + w2);
}

LublinModel make_model(const LublinSpec& spec) {
  check_spec(spec);
  LublinModel model;
  const double uhi = std::log2(static_cast<double>(spec.max_size));
  // The model's parameters for all jobs together ("typeless" data), as the published code
  // (m_lublin99.c, Parallel Workloads Archive) gives them: SERIAL_PROB, POW2_PROB, ULOW, UMED,
  // UPROB, A1, B1, A2, B2, PA, PB, AARR, BARR, ANUM, BNUM, ARAR. UHI is log2 of the system
  // size, and UMED keeps the code's distance below UHI (7 - 4.5 = 2.5).
  const SizeModel all{0.244, 0.576, 0.8, uhi - 2.5, uhi, 0.86};
  const RuntimeModel runtime{4.2, 0.94, 312, 0.03, -0.0054, 0.78, spec.max_runtime};
  model.size.fill(all);
  model.runtime.fill(runtime);

  // Short and long jobs (seed 003: mean runtime 3-4 min, 6 h): only the hyper-gamma's first
  // (short) or second (long) gamma, its scale tuned so the mean runtime is the paper's.
  const double cap = std::log(spec.max_runtime);
  auto& shorts = model.runtime[static_cast<int>(JobClass::short_runtime)];
  shorts.b1 = scale_for_mean(shorts.a1, cap, spec.short_mean);
  auto& longs = model.runtime[static_cast<int>(JobClass::long_runtime)];
  longs.b2 = scale_for_mean(longs.a2, cap, spec.long_mean);

  // Narrow jobs (< 10 processors): log2 size up to log2(9); UMED 1.5 below UHI, the code's
  // rule "UMed in [UHi-3.5, UHi-1.5]" at the only end above ULOW.
  auto& narrow = model.size[static_cast<int>(JobClass::narrow)];
  narrow.uhi = std::log2(9.0);
  narrow.umed = narrow.uhi - 1.5;
  // Wide jobs (> 10 processors): no serial jobs, the power-of-two share among parallel jobs
  // kept, log2 size from 3.5 (2^3.5 rounds to 11, and a power of two to 16).
  auto& wide = model.size[static_cast<int>(JobClass::wide)];
  wide.serial = 0;
  wide.pow2 = all.pow2 / (1 - all.serial);
  wide.ulow = 3.5;
  wide.umed = std::max(uhi - 2.5, 0.5 * (wide.ulow + uhi));

  // Inter-arrival: the code's shape AARR * ARAR, its cap exp(13) s (5 days); the scale tuned so
  // the mean inter-arrival is seed 003's 3000 s (the code's BARR gives about 1080 s).
  model.arrival = {10.2303 * 1.0225, 0.4871, 8.1737, 3.9631, 13};
  model.arrival.scale = scale_for_mean(model.arrival.shape, 13, spec.mean_interarrival);
  double sum = 0;
  for (int i = kCycleStart; i < kBuckets + kCycleStart; ++i) {
    const double w = gamma_cdf(i + 0.5, model.arrival.anum, model.arrival.bnum) -
                     gamma_cdf(i - 0.5, model.arrival.anum, model.arrival.bnum);
    model.bucket_weight[static_cast<size_t>((i - 1) % kBuckets)] = w;
    sum += w;
  }
  for (double& w : model.bucket_weight) w /= sum / kBuckets;
  return model;
}

LublinGenerator::LublinGenerator(const LublinSpec& spec)
    : spec_(spec), model_(make_model(spec)), rng_(spec.seed) {
  const double total = std::accumulate(spec.mix.begin(), spec.mix.end(), 0.0);
  double run = 0;
  for (size_t i = 0; i < spec.mix.size(); ++i) cumulative_[i] = (run += spec.mix[i] / total);
}

int LublinGenerator::draw_size(const SizeModel& m) {
  const double u = rng_.uniform();
  if (u < m.serial) return 1;
  const bool low = rng_.uniform() < m.uprob;
  const double a = low ? m.ulow : m.umed, b = low ? m.umed : m.uhi;
  double par = a + rng_.uniform() * (b - a);
  if (u < m.serial + m.pow2) par = std::floor(par + 0.5);  // a power of two
  return static_cast<int>(std::floor(std::pow(2.0, par) + 0.5));
}

double LublinGenerator::draw_runtime(const RuntimeModel& m, double p) {
  const double cap = std::log(m.max_runtime);
  while (true) {
    const bool first = rng_.uniform() < p;
    const double x = first ? gamma_draw(rng_, m.a1, m.b1) : gamma_draw(rng_, m.a2, m.b2);
    if (x <= cap) return std::exp(x);
  }
}

double LublinGenerator::draw_interarrival() {
  // Rush-hour seconds become points, spent bucket by bucket at each bucket's weight: quiet
  // hours (small weights) stretch the gap, rush hours shrink it.
  const ArrivalModel& a = model_.arrival;
  double g = 0;
  do {
    g = gamma_draw(rng_, a.shape, a.scale);
  } while (g > a.max_log);
  points_ += std::exp(g) / kBucketSeconds;
  double gap = 0;
  while (points_ > model_.bucket_weight[static_cast<size_t>(bucket_)]) {
    points_ -= model_.bucket_weight[static_cast<size_t>(bucket_)];
    bucket_ = (bucket_ + 1) % kBuckets;
    gap += kBucketSeconds;
  }
  const double remainder = points_ / model_.bucket_weight[static_cast<size_t>(bucket_)];
  gap += kBucketSeconds * (remainder - remainder_);
  remainder_ = remainder;
  return gap;
}

LublinJob LublinGenerator::next() {
  LublinJob job;
  job.submit = now_;
  now_ += draw_interarrival();
  const double u = rng_.uniform();
  int c = 0;
  while (c < kClasses - 1 && u >= cumulative_[static_cast<size_t>(c)]) ++c;
  job.cls = static_cast<JobClass>(c);
  job.size = std::min(draw_size(model_.size[static_cast<size_t>(c)]), spec_.max_size);
  const RuntimeModel& r = model_.runtime[static_cast<size_t>(c)];
  const double forced = model_.forced_p[static_cast<size_t>(c)];
  const double p = forced >= 0 ? forced : std::clamp(r.pa * job.size + r.pb, 0.0, 1.0);
  job.runtime = draw_runtime(r, p);
  return job;
}

}  // namespace mcb::batchgrid
