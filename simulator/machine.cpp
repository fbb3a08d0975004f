#include "simulator/machine.hpp"

#include "common/errors.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace mcb::sim {
namespace {

bool parse_int(std::string_view s, long long& out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

// Largest cluster, and largest system: totals are ints, and job sizes are summed in them.
constexpr long long kLargestSize = 1'000'000'000;

}  // namespace

int MachineSpec::total() const {
  int t = 0;
  for (int s : sizes) t += s;
  return t;
}

int MachineSpec::largest() const { return *std::max_element(sizes.begin(), sizes.end()); }
int MachineSpec::smallest() const { return *std::min_element(sizes.begin(), sizes.end()); }

std::string MachineSpec::describe() const {
  if (std::all_of(sizes.begin(), sizes.end(), [&](int s) { return s == sizes.front(); })) {
    return std::to_string(sizes.size()) + "x" + std::to_string(sizes.front());
  }
  std::string out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(sizes[i]);
  }
  return out;
}

MachineSpec parse_clusters(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return UsageError("--clusters: '" + text + "' " + why);
  };
  MachineSpec spec;
  const auto x = text.find('x');
  if (x != std::string::npos) {
    long long count = 0, size = 0;
    if (!parse_int(std::string_view(text).substr(0, x), count) ||
        !parse_int(std::string_view(text).substr(x + 1), size)) {
      throw bad("is not COUNTxSIZE (e.g. 4x32) or a list of sizes (e.g. 32,32,32,32)");
    }
    if (count <= 0) throw bad("needs at least one cluster");
    if (count > kMaxClusters)
      throw bad("has more than " + std::to_string(kMaxClusters) + " clusters");
    if (size <= 0) throw bad("has a cluster size <= 0");
    if (size > kLargestSize) throw bad("has a cluster size too large (at most 1000000000)");
    spec.sizes.assign(static_cast<size_t>(count), static_cast<int>(size));
  } else {
    for (const std::string& part : split(text, ',')) {
      long long size = 0;
      if (!parse_int(part, size)) {
        throw bad("is not COUNTxSIZE (e.g. 4x32) or a list of sizes (e.g. 32,32,32,32)");
      }
      if (size <= 0) throw bad("has a cluster size <= 0 ('" + part + "')");
      if (size > kLargestSize) throw bad("has a cluster size too large ('" + part + "')");
      spec.sizes.push_back(static_cast<int>(size));
    }
    if (spec.sizes.empty()) throw bad("needs at least one cluster");
    if (spec.sizes.size() > static_cast<size_t>(kMaxClusters)) {
      throw bad("has more than " + std::to_string(kMaxClusters) + " clusters");
    }
  }
  long long total = 0;
  for (int s : spec.sizes) total += s;
  if (total > kLargestSize) throw bad("has more than 1000000000 processors in all");
  spec.speeds.assign(spec.sizes.size(), 1.0);
  return spec;
}

std::vector<double> parse_speeds(const std::string& text, int clusters) {
  std::vector<double> speeds;
  for (const std::string& part : split(text, ',')) {
    double v = 0;
    std::string_view s(part);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || v <= 0) {
      throw UsageError("--speeds: '" + part + "' is not a speed > 0");
    }
    speeds.push_back(v);
  }
  if (speeds.size() == 1) speeds.assign(static_cast<size_t>(clusters), speeds.front());
  if (speeds.size() != static_cast<size_t>(clusters)) {
    throw UsageError("--speeds: '" + text + "' gives " + std::to_string(speeds.size()) +
                     " speeds for " + std::to_string(clusters) + " clusters");
  }
  return speeds;
}

Machine::Machine(MachineSpec spec) : spec_(std::move(spec)), idle_(spec_.sizes) {}

void Machine::allocate(std::span<const int> procs) {
  for (size_t c = 0; c < procs.size(); ++c) {
    if (procs[c] > idle_[c]) throw std::logic_error("allocation beyond the idle processors");
    idle_[c] -= procs[c];
    busy_ += procs[c];
  }
}

void Machine::release(std::span<const int> procs) {
  for (size_t c = 0; c < procs.size(); ++c) {
    idle_[c] += procs[c];
    busy_ -= procs[c];
  }
}

double Machine::slowest(std::span<const int> procs) const {
  double s = kNever;
  for (size_t c = 0; c < procs.size(); ++c) {
    if (procs[c] > 0) s = std::min(s, spec_.speeds[c]);
  }
  return s == kNever ? 1.0 : s;
}

double Machine::slowest(ClusterMask mask) const {
  double s = kNever;
  for (int c = 0; c < clusters(); ++c) {
    if (mask >> c & 1) s = std::min(s, spec_.speeds[static_cast<size_t>(c)]);
  }
  return s == kNever ? 1.0 : s;
}

}  // namespace mcb::sim
