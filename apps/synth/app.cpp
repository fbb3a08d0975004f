#include "apps/synth/app.hpp"

#include "apps/synth/kernels.hpp"
#include "apps/synth/options.hpp"
#include "apps/synth/patterns.hpp"
#include "harness/driver.hpp"
#include "harness/record.hpp"

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>

namespace mcb::synth {
namespace {

using nlohmann::json;

constexpr const char* kProgram = "mcb-synth";

// 64-bit checksums as hex text: JSON readers that hold numbers as doubles would round them.
std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}

// What the calibration groups runs by: pattern, message size, triad bytes and flops.
std::string problem_label(const SynthConfig& c) {
  char text[128];
  std::snprintf(text, sizeof text, "%s-m%llu-b%g-f%g", name_of(c.options.pattern),
                static_cast<unsigned long long>(c.message_bytes), c.options.bytes, c.options.flops);
  return text;
}

json config_json(const SynthConfig& c, const harness::ClusterMap& map,
                 const harness::WideArea* wide) {
  const SynthOptions& o = c.options;
  return {{"problem", problem_label(c)},
          {"pattern", name_of(o.pattern)},
          {"iterations", o.iterations},
          {"message_size", c.message_bytes},
          {"flops", o.flops},
          {"bytes", o.bytes},
          {"block", o.block},
          {"array", o.array},
          {"products", c.products},
          {"triad_elements", c.triad_elements},
          {"procs", o.pattern == Pattern::nearest ? json(c.grid.to_string()) : json(nullptr)},
          {"total_size", c.ranks},
          {"clusters", map.clusters()},
          {"components", map.clusters()},
          {"cluster_map", map.as_vector()},
          {"cluster_names", map.names()},
          {"system", harness::system_label(o.run, wide)},
          {"seed", o.run.seed},
          {"wan", wide ? wide->wan_json() : json(nullptr)},
          {"relay", wide ? wide->relay_json() : json(nullptr)}};
}

// Per-rank times of the loop.
struct Times {
  double wall = 0, compute = 0, check = 0;
};

// One mcb-synth run: K iterations of computation and communication, judged on the checksum of
// everything received and on the kernels' spot checks.
class SynthRun : public harness::Measurement {
 public:
  bool parse(int argc, char** argv, int ranks, bool is_root) override {
    return parse_options(argc, argv, ranks, is_root, config_);
  }
  const harness::RunOptions& run_options() const override { return config_.options.run; }
  harness::ClusterMap default_cluster_map(int ranks, int clusters) const override {
    return synth::default_cluster_map(ranks, clusters);
  }
  json config(const harness::Run& run) const override {
    return config_json(config_, run.clusters(), run.wide.get());
  }

  void measure(harness::Run& run, harness::Counters& counters) override {
    const SynthOptions& o = config_.options;
    comm_.emplace(run.world, run.clusters(), channel_names(o.pattern), true, run.wide);
    Triad triad(o.array, config_.triad_elements);
    DenseBlock dense(o.block, config_.products);
    PatternRunner pattern(config_, *comm_);
    comm_->barrier();
    counters.start();
    const double start = MPI_Wtime();
    for (long k = 0; k < o.iterations; ++k) {
      const double t0 = MPI_Wtime();
      compute_errors_ += triad.run(k) + dense.run(k);
      times_.compute += MPI_Wtime() - t0;
      pattern.run(k);
    }
    times_.wall = MPI_Wtime() - start;
    counters.stop();
    times_.check = pattern.check_time();
    receipts_ = pattern.receipts();
  }

  json conclude(const harness::Run& run) override {
    const double my_comm = comm_->total_time();
    wall_ = harness::spread(run.world, times_.wall);
    compute_ = harness::spread(run.world, times_.compute);
    comm_spread_ = harness::spread(run.world, my_comm);
    check_ = harness::spread(run.world, times_.check);
    // Sums over ranks of what was received and of the kernels' wrong results (mod 2^64).
    const std::array<std::uint64_t, 4> mine = {receipts_.messages, receipts_.checksum,
                                               receipts_.bad_words,
                                               static_cast<std::uint64_t>(compute_errors_)};
    MPI_Reduce(mine.data(), totals_.data(), 4, MPI_UINT64_T, MPI_SUM, 0, run.world);
    return {{"wall_time", times_.wall},
            {"compute_time", times_.compute},
            {"comm_time", my_comm},
            {"check_time", times_.check},
            {"messages", receipts_.messages},
            {"checksum", hex(receipts_.checksum)},
            {"bad_words", receipts_.bad_words},
            {"compute_errors", compute_errors_},
            {"channels", comm_->stats_json()}};
  }

  harness::Judgement judge(const harness::Run& run) override {
    Receipts expected;
    for (int r = 0; r < run.size; ++r) {
      const Receipts e = expected_receipts(config_, r);
      expected.messages += e.messages;
      expected.checksum += e.checksum;
    }
    const auto [messages, checksum, bad_words, compute_errors] = totals_;
    harness::Judgement j;
    if (compute_errors != 0) {
      j.reason = std::to_string(compute_errors) + " wrong results in the kernels' spot checks";
    } else if (messages != expected.messages) {
      j.reason = "received " + std::to_string(messages) + " messages of the " +
                 std::to_string(expected.messages) + " the pattern sends";
    } else if (bad_words != 0) {
      j.reason = std::to_string(bad_words) + " received words differ from the prediction";
    } else if (checksum != expected.checksum) {
      j.reason = "checksum " + hex(checksum) + " is not the predicted " + hex(expected.checksum);
    }
    j.valid = j.reason.empty();
    j.verdict = {{"messages", messages},      {"expected_messages", expected.messages},
                 {"checksum", hex(checksum)}, {"expected_checksum", hex(expected.checksum)},
                 {"bad_words", bad_words},    {"compute_errors", compute_errors}};
    const SynthOptions& o = config_.options;
    const double wall_time = wall_["max"].get<double>();
    rate_ = wall_time > 0 ? static_cast<double>(o.iterations) / wall_time : 0.0;
    const double flops = 2.0 * o.block * o.block * o.block * static_cast<double>(config_.products);
    j.result = {{"iterations", o.iterations},
                {"wall_time", wall_time},
                {"compute_time", compute_},
                {"comm_time", comm_spread_},
                {"check_time", check_},
                {"flops_per_iteration", flops},
                {"bytes_per_iteration", 24.0 * static_cast<double>(config_.triad_elements)},
                {"compute_comm_ratio", ratio()},
                {"iterations_per_second", rate_}};
    j.figure = rate_;
    j.unit = "it/s";
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.4g it/s", rate_);
    j.figure_text = figure;
    j.meaning = "bulk-synchronous iterations per second";
    return j;
  }

  void print_summary(const harness::Run& run, const json& record) const override {
    const SynthOptions& o = config_.options;
    std::printf(
        "%s: %s, %ld iterations on %d ranks in %d cluster(s), messages of %llu B, "
        "%ld block products and %ld triad elements per iteration\n",
        kProgram, name_of(o.pattern), o.iterations, run.size, run.clusters().clusters(),
        static_cast<unsigned long long>(config_.message_bytes), config_.products,
        config_.triad_elements);
    if (run.wide) {
      std::printf("  wide area: %s\n", record["config"]["system"].get<std::string>().c_str());
    }
    std::printf(
        "  wall %.6g s, compute %.6g s, communication %.6g s (means over ranks; ratio "
        "%.4g), checks %.6g s\n",
        wall_["max"].get<double>(), compute_["avg"].get<double>(),
        comm_spread_["avg"].get<double>(), ratio(), check_["avg"].get<double>());
    std::printf("  checksum %s (predicted %s) over %s messages\n",
                record["verdict"]["checksum"].get<std::string>().c_str(),
                record["verdict"]["expected_checksum"].get<std::string>().c_str(),
                record["verdict"]["messages"].dump().c_str());
  }

 private:
  // Computation over communication, the means over ranks (0 without communication).
  double ratio() const {
    const double comm = comm_spread_["avg"].get<double>();
    return comm > 0 ? compute_["avg"].get<double>() / comm : 0.0;
  }

  SynthConfig config_;
  std::optional<harness::InstrumentedComm> comm_;
  Times times_;
  Receipts receipts_;
  long compute_errors_ = 0;
  std::array<std::uint64_t, 4> totals_{};
  json wall_, compute_, comm_spread_, check_;
  double rate_ = 0;
};

}  // namespace

int run_program(int argc, char** argv) {
  return harness::run_measurement(kProgram, "synth", argc, argv, check_options,
                                  [] { return std::make_unique<SynthRun>(); });
}

}  // namespace mcb::synth
