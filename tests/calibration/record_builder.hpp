#pragma once
// Records built in code for calibration tests, as mcb::RunRecord (the contract mcb-poisson and
// mcb-links write through), with the numbers a test wants to recover.

#include "calibration/records.hpp"
#include "common/run_record.hpp"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mcb::calib::test {

using nlohmann::json;

/// A valid Poisson run on an h x v process grid split into `components` vertical strips. Every
/// rank receives `iterations` messages from each neighbour it has (top/bottom: grid/h points,
/// left/right: grid/v points, 8 bytes each); channel times are 0.01 s per neighbour.
inline json poisson_record(const std::string& run_id, int h, int v, int components,
                           const std::string& system, double wall, double compute,
                           int iterations = 100, int grid = 64, bool sync = false) {
  const int size = h * v;
  const int width = h / components;
  std::vector<int> cluster(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) cluster[static_cast<size_t>(r)] = (r / v) / width;
  json ranks = json::array();
  for (int r = 0; r < size; ++r) {
    const int col = r / v;
    const int row = r % v;
    const std::map<std::string, int> peers = {{"top", row + 1 < v ? r + 1 : -1},
                                              {"bottom", row > 0 ? r - 1 : -1},
                                              {"left", col > 0 ? r - v : -1},
                                              {"right", col + 1 < h ? r + v : -1}};
    json channels = json::object();
    for (const auto& [name, peer] : peers) {
      json none = {{"messages", 0}, {"bytes", 0}};
      json traffic = {{"intra", none}, {"inter", none}};
      json time = {{"intra", 0.0}, {"inter", 0.0}};
      if (peer >= 0) {
        const char* cls = cluster[static_cast<size_t>(peer)] == cluster[static_cast<size_t>(r)]
                              ? "intra"
                              : "inter";
        const int points = (name == "top" || name == "bottom") ? grid / h : grid / v;
        traffic[cls] = {{"messages", iterations},
                        {"bytes", static_cast<std::int64_t>(iterations) * points * 8}};
        time[cls] = 0.01;
      }
      channels[name] = {{"time", time}, {"sent", traffic}, {"received", traffic}};
    }
    ranks.push_back({{"rank", r},
                     {"host", "node1"},
                     {"cluster", cluster[static_cast<size_t>(r)]},
                     {"compute_time", compute},
                     {"comm_time", 0.04},
                     {"counters", nullptr},
                     {"channels", channels}});
  }
  json names = json::array();
  for (int c = 0; c < components; ++c) names.push_back(std::to_string(c));
  RunRecord record;
  record.run_id = run_id;
  record.campaign = "test";
  record.repetition = 1;
  record.app = "poisson";
  record.status = "valid";
  record.extra = {{"verdict", {{"figure_of_merit", {{"value", 1.0}, {"unit", "LUP/s"}}}}},
                  {"counters", nullptr}};
  record.config = json{{"problem", std::to_string(grid) + "x" + std::to_string(grid)},
                       {"grid", grid},
                       {"procs", std::to_string(h) + "x" + std::to_string(v)},
                       {"h", h},
                       {"v", v},
                       {"total_size", size},
                       {"clusters", components},
                       {"components", components},
                       {"cluster_map", cluster},
                       {"cluster_names", names},
                       {"system", system},
                       {"halo", "paper"},
                       {"sync", sync},
                       {"omega", 1.0},
                       {"tolerance", 1e-6},
                       {"max_iterations", 200000},
                       {"kernel", "tuned"},
                       {"instrumented", true},
                       {"seed", 1},
                       {"wan", nullptr}};
  record.env = json{{"host", "node1"},
                    {"hosts", json::array({"node1"})},
                    {"date", "2026-11-21T12:00:00Z"},
                    {"revision", "test-rev"},
                    {"compiler", "test"},
                    {"build_type", "Release"},
                    {"command_line", json::array({"mcb-poisson"})}};
  record.result = json{{"iterations", iterations},
                       {"converged", true},
                       {"wall_time", wall},
                       {"compute_time", {{"min", compute}, {"avg", compute}, {"max", compute}}},
                       {"comm_time", {{"min", 0.0}, {"avg", 0.0}, {"max", 0.0}}},
                       {"comm_time_paper", 0.5},
                       {"transfer_rate", 1e6}};
  record.ranks = ranks;
  return record.to_json();
}

/// One link class of a link-calibration run: its one-way time law t0 + N / bandwidth.
struct LinkLaw {
  double t0;
  double bandwidth;
};

/// A valid link-calibration run whose points lie on each class's law, times `scale` (1: exact).
inline json links_record(const std::string& run_id, const std::string& system,
                         const std::vector<double>& sizes,
                         const std::map<std::string, LinkLaw>& classes,
                         const std::vector<double>& scale = {}) {
  json out = json::object();
  for (const auto& [name, law] : classes) {
    json points = json::array();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double t = (law.t0 + sizes[i] / law.bandwidth) * (scale.empty() ? 1.0 : scale[i]);
      points.push_back({{"bytes", sizes[i]}, {"min", t}, {"avg", t}, {"max", t}});
    }
    out[name] = {{"pairs", json::array({json::array({0, 1})})}, {"points", points}};
  }
  RunRecord record;
  record.run_id = run_id;
  record.campaign = "test-links";
  record.repetition = 1;
  record.app = "links";
  record.status = "valid";
  record.config = json{{"sizes", sizes},   {"warmup", 10},    {"iterations", 100},
                       {"repetitions", 5}, {"wan", nullptr},  {"cluster_map", {0, 0, 1, 1}},
                       {"components", 2},  {"system", system}};
  record.env = json{{"host", "node1"}, {"date", "2026-11-21T11:00:00Z"}, {"revision", "test-rev"}};
  record.result = json{{"classes", out}};
  record.ranks = json::array();
  record.extra = {{"counters", nullptr}};
  return record.to_json();
}

/// Wraps documents as records read from "<file>" at lines 1, 2, ...
inline std::vector<Record> as_records(const std::vector<json>& docs,
                                      const std::string& file = "test.jsonl") {
  std::vector<Record> out;
  for (std::size_t i = 0; i < docs.size(); ++i) out.push_back(Record{docs[i], file, i + 1});
  return out;
}

/// Pointers to every record, for the builders that take runs.
inline std::vector<const Record*> pointers(const std::vector<Record>& records) {
  std::vector<const Record*> out;
  for (const Record& r : records) out.push_back(&r);
  return out;
}

/// Writes documents as a JSON Lines file.
inline void write_jsonl(const std::filesystem::path& path, const std::vector<json>& docs) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  for (const json& d : docs) out << d.dump() << "\n";
}

/// A fresh empty folder under the system's temporary directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mcb-calib-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mcb::calib::test
