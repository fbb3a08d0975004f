#include "calibration/links/app.hpp"

#include "calibration/links/link_classes.hpp"
#include "calibration/links/link_fit.hpp"
#include "calibration/links/measure.hpp"
#include "calibration/links/options.hpp"
#include "calibration/links/relay_study.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"
#include "harness/driver.hpp"
#include "harness/record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

namespace mcb::links {
namespace {

using nlohmann::json;

constexpr const char* kProgram = "mcb-links";
// An emulated link is delivered when the fit of the best times lands this close to it.
constexpr double kEmulationTolerance = 0.10;
constexpr double kLatencyFloor = 50e-6;  // seconds: below this, latency errors are host noise
// The shared-link test streams windows of this many bytes, at least this many times: the
// emulated link serves messages first come first served, so a window sent alone is served at
// full speed and the shares even out over the iterations.
constexpr std::size_t kSharedLinkBytes = std::size_t{256} << 10;
constexpr int kSharedLinkIterations = 8;

struct ClassResult {
  LinkClass link_class;
  RankPair pair;
  std::vector<Stats> one_way;      // seconds
  std::vector<Stats> bandwidth;    // bytes/s
  std::optional<LinkFit> fit;      // of the averages (the record's "fit")
  std::optional<LinkFit> fit_min;  // of the minima: the link with the least host noise
  std::optional<SharedLink> shared;
};

std::optional<LinkFit> try_fit(const std::vector<std::size_t>& sizes,
                               const std::vector<Stats>& points, double Stats::*column) {
  std::vector<double> x;
  std::vector<double> y;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    x.push_back(static_cast<double>(sizes[i]));
    y.push_back(points[i].*column);
  }
  try {
    return fit_link(x, y);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

json class_json(const ClassResult& c, const std::vector<std::size_t>& sizes,
                const harness::WideArea* wide, const harness::ClusterMap& map) {
  json points = json::array();
  json rates = json::array();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    json p = c.one_way[i].to_json();
    p["bytes"] = sizes[i];
    p["gap"] = c.fit ? json(c.fit->gaps[i]) : json(nullptr);
    points.push_back(p);
    json r = c.bandwidth[i].rate_json();
    r["bytes"] = sizes[i];
    rates.push_back(r);
  }
  json out = {{"pairs", {{c.pair.first, c.pair.second}}},
              {"points", points},
              {"bandwidth", rates},
              {"fit", c.fit ? c.fit->to_json() : json(nullptr)},
              {"fit_min", c.fit_min ? c.fit_min->to_json() : json(nullptr)}};
  if (c.shared) out["shared"] = c.shared->to_json();
  if (c.link_class == LinkClass::cross_cluster && wide != nullptr && wide->emulated()) {
    const auto& link =
        wide->clock()->links().between(map.cluster_of(c.pair.first), map.cluster_of(c.pair.second));
    out["nominal"] = {{"t0", link.latency}, {"bandwidth", megabytes_per_second(link.bandwidth)}};
  }
  return out;
}

// Whether the fitted cross-cluster link is the emulated one; fills the verdict's entry.
bool emulation_delivered(const ClassResult& c, const harness::LinkParameters& link,
                         std::size_t largest, json& entry) {
  const LinkFit& fit = *c.fit_min;
  const double latency_error = std::fabs(fit.t0 - link.latency);
  const bool latency_ok =
      latency_error <= std::max(kEmulationTolerance * link.latency, kLatencyFloor);
  // The slope is only measured when the largest message spends at least the latency on the wire.
  const bool resolved = static_cast<double>(largest) / link.bandwidth >= link.latency;
  const double bandwidth_error = fit.usable() ? std::fabs(fit.bandwidth / link.bandwidth - 1) : 1.0;
  const bool bandwidth_ok = !resolved || bandwidth_error <= kEmulationTolerance;
  entry = {{"nominal", {{"t0", link.latency}, {"bandwidth", megabytes_per_second(link.bandwidth)}}},
           {"fitted", {{"t0", fit.t0}, {"bandwidth", megabytes_per_second(fit.bandwidth)}}},
           {"from", "fit_min"},
           {"latency_error", latency_error},
           {"bandwidth_relative_error", bandwidth_error},
           {"bandwidth_resolved", resolved},
           {"tolerance", kEmulationTolerance}};
  return latency_ok && bandwidth_ok;
}

// One table per link class as OSU's benchmarks print theirs: '#' lines for what the numbers
// are, then plain columns (size in bytes, one-way latency in us, bandwidth in MB/s), so that
// tools reading OSU output read this too.
void print_class(const ClassResult& c, const std::vector<std::size_t>& sizes) {
  std::printf(
      "# %s (ranks %d-%d): latency the one-way time, bandwidth from windows of messages in "
      "flight, both averaged over the repetitions\n",
      class_name(c.link_class), c.pair.first, c.pair.second);
  if (c.fit) {
    std::printf("# fit: T(N) = %.6g us + N / %s, r2 %.4f, max gap %.1f%%\n", c.fit->t0 * 1e6,
                c.fit->usable() ? format_bandwidth(c.fit->bandwidth).c_str() : "inf", c.fit->r2,
                100 * c.fit->max_relative_gap);
  } else {
    std::printf("# fit: none (fewer than two sizes)\n");
  }
  std::printf("%-10s %17s %19s\n", "# Size", "Latency (us)", "Bandwidth (MB/s)");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::printf("%-10zu %17.2f %19.2f\n", sizes[i], c.one_way[i].avg * 1e6,
                megabytes_per_second(c.bandwidth[i].avg));
  }
  if (c.shared) {
    const SharedLink& s = *c.shared;
    std::printf(
        "# shared link, %zu-byte windows: alone %s; together %s (ranks %d-%d) and %s "
        "(ranks %d-%d)\n",
        s.bytes, format_bandwidth(s.alone.avg).c_str(), format_bandwidth(s.together[0].avg).c_str(),
        s.pairs[0].first, s.pairs[0].second, format_bandwidth(s.together[1].avg).c_str(),
        s.pairs[1].first, s.pairs[1].second);
  }
}

void print_relay(const RelayStudy& study) {
  std::printf("relay (gateways");
  for (int g : study.gateways) std::printf(" %d", g);
  std::printf("), point-to-point ranks %d-%d; lower bound %s + N / %s\n", study.pair.first,
              study.pair.second, format_duration(study.bound.t0).c_str(),
              format_bandwidth(study.bound.bandwidth).c_str());
  const std::pair<const char*, const std::vector<RelayPoint>*> ops[] = {
      {"point-to-point", &study.point_to_point},
      {"broadcast", &study.broadcast},
      {"alltoall", &study.alltoall}};
  for (const auto& [name, points] : ops) {
    std::printf("  %-14s %10s %12s %12s %12s %10s %10s\n", name, "bytes", "direct us", "relay us",
                "bound us", "vs direct", "vs bound");
    for (const RelayPoint& p : *points) {
      std::printf("  %-14s %10zu %12.2f %12.2f %12.2f %9.1f%% %9.1f%%\n", "", p.bytes,
                  p.direct.avg * 1e6, p.relay.avg * 1e6, p.lower_bound * 1e6,
                  100 * (p.relay.avg / p.direct.avg - 1), 100 * (p.relay.avg / p.lower_bound - 1));
    }
  }
}

// One mcb-links run: ping-pong and window bandwidth per link class, the shared-link test and
// the relay study, judged by intact data, usable fits and the emulated link delivered.
class LinksRun : public harness::Measurement {
 public:
  bool parse(int argc, char** argv, int ranks, bool is_root) override {
    const bool proceed = parse_options(argc, argv, is_root, config_);
    if (proceed) check_ranks(ranks);
    return proceed;
  }
  const harness::RunOptions& run_options() const override { return config_.options.run; }
  harness::ClusterMap default_cluster_map(int ranks, int clusters) const override {
    return links::default_cluster_map(ranks, clusters);
  }
  json config(const harness::Run& run) const override {
    const LinksOptions& o = config_.options;
    const harness::ClusterMap& map = run.clusters();
    json names = map.names();
    return {{"sizes", config_.sizes},
            {"warmup", o.warmup},
            {"iterations", o.iterations},
            {"repetitions", o.repetitions},
            {"max_time", config_.settings.max_time},
            {"window", o.window},
            {"window_bytes", config_.settings.window_bytes},
            {"total_size", run.size},
            {"components", map.clusters()},
            {"cluster_map", map.as_vector()},
            {"cluster_names", names},
            {"system", harness::system_label(o.run, run.wide.get())},
            {"seed", o.run.seed},
            {"wan", run.wide ? run.wide->wan_json() : json(nullptr)},
            {"relay", run.wide ? run.wide->relay_json() : json(nullptr)}};
  }
  std::string counters_reason() const override {
    return "link calibration counts no hardware events";
  }

  void measure(harness::Run& run, harness::Counters& /*counters*/) override {
    const harness::ClusterMap& map = run.clusters();
    const std::vector<std::string> hosts = run.env["hosts"].get<std::vector<std::string>>();
    const double started = MPI_Wtime();
    // The link classes are measured direct; the relay is measured on its own below.
    harness::InstrumentedComm comm(run.world, map, {"link"}, true, run.wide);
    comm.set_relay(false);
    for (const auto& [link_class, pair] : representative_pairs(hosts, map)) {
      classes_.push_back(measure_class(comm, map, link_class, pair));
    }
    for (const auto& c : classes_) {
      if (c.link_class == LinkClass::cross_cluster) cross_ = &c;
    }
    if (run.wide && run.wide->relays() && cross_ != nullptr && cross_->fit) {
      study_ = relay_study(comm, *relay_pair(map), config_.sizes, config_.settings, *cross_->fit,
                           data_ok_);
    }
    wall_ = MPI_Wtime() - started;
  }

  json conclude(const harness::Run& run) override {
    int local_ok = data_ok_ ? 1 : 0;
    MPI_Allreduce(&local_ok, &all_ok_, 1, MPI_INT, MPI_MIN, run.world);
    return json::object();
  }

  harness::Judgement judge(const harness::Run& run) override {
    harness::Judgement j;
    j.verdict = {{"checks", checks(run, j.reason)}};
    j.valid = j.reason.empty();
    // Figure of merit: the bandwidth of the slowest class (the link that limits a multicluster
    // run).
    double merit = 0;
    for (const auto& c : classes_) {
      if (c.fit && c.fit->usable() && (merit == 0 || c.fit->bandwidth < merit))
        merit = c.fit->bandwidth;
    }
    json class_records = json::object();
    for (const auto& c : classes_)
      class_records[class_name(c.link_class)] =
          class_json(c, config_.sizes, run.wide.get(), run.clusters());
    j.result = {{"classes", class_records}, {"wall_time", wall_}};
    if (study_) j.result["relay_study"] = study_->to_json();
    j.figure = megabytes_per_second(merit);
    j.unit = "MB/s";
    j.figure_text = format_bandwidth(merit);
    j.meaning = "bandwidth of the slowest link class";
    return j;
  }

  void print_summary(const harness::Run& run, const json& record) const override {
    std::printf("%s: %d ranks on %d cluster(s), %zu sizes from %zu to %zu bytes, system %s\n",
                kProgram, run.size, run.clusters().clusters(), config_.sizes.size(),
                config_.sizes.front(), config_.sizes.back(),
                record["config"]["system"].get<std::string>().c_str());
    for (const auto& c : classes_) print_class(c, config_.sizes);
    if (study_) print_relay(*study_);
  }

 private:
  ClassResult measure_class(harness::InstrumentedComm& comm, const harness::ClusterMap& map,
                            LinkClass link_class, const RankPair& pair) {
    ClassResult c{link_class, pair, {}, {}, {}, {}, {}};
    c.one_way = ping_pong(comm, pair, config_.sizes, config_.settings, data_ok_);
    c.bandwidth = window_bandwidth(comm, pair, config_.sizes, config_.settings, data_ok_);
    c.fit = try_fit(config_.sizes, c.one_way, &Stats::avg);
    c.fit_min = try_fit(config_.sizes, c.one_way, &Stats::min);
    if (link_class == LinkClass::cross_cluster) {
      if (const auto pairs = pairs_sharing_a_link(map)) {
        std::size_t bytes = config_.sizes.front();
        for (std::size_t n : config_.sizes) {
          if (n <= kSharedLinkBytes) bytes = n;
        }
        MeasureSettings settings = config_.settings;
        settings.window_bytes = std::min(settings.window_bytes, kSharedLinkBytes);
        settings.min_iterations = kSharedLinkIterations;
        c.shared = shared_link(comm, *pairs, bytes, settings, data_ok_);
      }
    }
    return c;
  }

  // The verdict's checks: data intact everywhere, a usable fit per class, the emulated link
  // delivered. Sets @p reason to the first that fails.
  json checks(const harness::Run& run, std::string& reason) const {
    json checks = {{"data_verified", all_ok_ == 1}};
    if (all_ok_ != 1) reason = "a message arrived with wrong contents";
    json class_checks = json::object();
    for (const auto& c : classes_) {
      const bool usable = c.fit && c.fit->usable();
      class_checks[class_name(c.link_class)] = usable;
      if (!usable && reason.empty()) {
        reason = std::string(class_name(c.link_class)) +
                 ": the fitted time does not grow with the "
                 "message size (give sizes spanning more than the latency-bound range)";
      }
    }
    checks["fits_usable"] = class_checks;
    if (cross_ != nullptr && run.wide && run.wide->emulated() && cross_->fit_min) {
      const harness::ClusterMap& map = run.clusters();
      const auto& link = run.wide->clock()->links().between(map.cluster_of(cross_->pair.first),
                                                            map.cluster_of(cross_->pair.second));
      json entry;
      const bool delivered = emulation_delivered(*cross_, link, config_.sizes.back(), entry);
      checks["emulated_link"] = entry;
      if (!delivered && reason.empty()) {
        reason =
            "the emulated cross-cluster link measured more than 10% off its parameters "
            "(an overloaded host?)";
      }
    }
    return checks;
  }

  LinksConfig config_;
  bool data_ok_ = true;
  int all_ok_ = 0;
  std::vector<ClassResult> classes_;
  const ClassResult* cross_ = nullptr;  // into classes_, filled before it is taken
  std::optional<RelayStudy> study_;
  double wall_ = 0;
};

}  // namespace

int run_program(int argc, char** argv) {
  return harness::run_measurement(kProgram, "links", argc, argv, check_options,
                                  [] { return std::make_unique<LinksRun>(); });
}

}  // namespace mcb::links
