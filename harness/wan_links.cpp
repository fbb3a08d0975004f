#include "harness/wan_links.hpp"

#include "common/errors.hpp"
#include "common/ini.hpp"
#include "common/units.hpp"

#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

namespace mcb::harness {
namespace {

// "1.5ms" -> "1.5ms", "100Mbit/s" -> "100Mbit": labels are names, not quantities.
std::string rate_label(double bytes_per_second) {
  std::string text = format_rate(bytes_per_second);
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "/s") == 0) text.resize(text.size() - 2);
  return text;
}

std::string cluster_list(const ClusterMap& map) {
  std::string out;
  for (const auto& name : map.names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

LinkTable::LinkTable(int clusters, std::string platform)
    : clusters_(clusters),
      platform_(std::move(platform)),
      links_(static_cast<size_t>(clusters) * static_cast<size_t>(clusters)) {}

LinkTable LinkTable::uniform(int clusters, LinkParameters link) {
  LinkTable table(clusters, "");
  for (auto& l : table.links_) l = link;
  return table;
}

LinkTable LinkTable::from_platform_file(const std::string& path, const ClusterMap& map,
                                        std::optional<LinkParameters> fallback) {
  // The suite's line and comment rules (common/ini.hpp).
  const std::vector<ini::Line> lines = ini::read_lines(path, "--platform: ");
  const int clusters = map.clusters();
  auto cluster_number = [&](const std::string& name) {
    for (int c = 0; c < clusters; ++c) {
      if (map.names()[static_cast<size_t>(c)] == name) return c;
    }
    return -1;
  };

  std::map<std::pair<int, int>, std::pair<LinkParameters, int>> pairs;  // (a<b) -> link, line
  std::optional<LinkParameters> every;
  int every_line = 0;
  for (const auto& [number, line] : lines) {
    const std::string where = "--platform: " + path + ":" + std::to_string(number) + ": ";
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() != 4) {
      throw UsageError(where + "expected 'CLUSTER CLUSTER LATENCY BANDWIDTH', got " +
                       std::to_string(fields.size()) + " field(s) in '" + line + "'");
    }
    LinkParameters link;
    try {
      link.latency = parse_duration(fields[2]);
    } catch (const std::invalid_argument& e) {
      throw UsageError(where + "latency " + e.what());
    }
    try {
      link.bandwidth = parse_rate(fields[3]);
    } catch (const std::invalid_argument& e) {
      throw UsageError(where + "bandwidth " + e.what());
    }
    if (fields[0] == "*" || fields[1] == "*") {
      if (fields[0] != fields[1]) {
        throw UsageError(where + "'*' stands for every pair of clusters: write '* *', not '" +
                         fields[0] + " " + fields[1] + "'");
      }
      if (every) {
        throw UsageError(where + "a second '* *' line (the first is line " +
                         std::to_string(every_line) + ")");
      }
      every = link;
      every_line = number;
      continue;
    }
    int a = cluster_number(fields[0]);
    int b = cluster_number(fields[1]);
    for (const auto& [index, name] : {std::pair{a, fields[0]}, std::pair{b, fields[1]}}) {
      if (index < 0) {
        throw UsageError(where + "unknown cluster '" + name +
                         "' (this run's clusters: " + cluster_list(map) + ")");
      }
    }
    if (a == b) {
      throw UsageError(where + "cluster '" + fields[0] +
                       "' has no wide-area link to itself (intra-cluster traffic is not emulated)");
    }
    if (a > b) std::swap(a, b);
    const auto [it, inserted] = pairs.emplace(std::pair{a, b}, std::pair{link, number});
    if (!inserted) {
      throw UsageError(where + "clusters '" + fields[0] + "' and '" + fields[1] +
                       "' already have a link (line " + std::to_string(it->second.second) + ")");
    }
  }

  LinkTable table(clusters, path);
  for (int a = 0; a < clusters; ++a) {
    for (int b = a + 1; b < clusters; ++b) {
      std::optional<LinkParameters> link;
      if (const auto it = pairs.find({a, b}); it != pairs.end()) {
        link = it->second.first;
      } else if (every) {
        link = every;
      } else {
        link = fallback;
      }
      if (!link) {
        throw UsageError("--platform: " + path + ": no link between clusters '" +
                         map.names()[static_cast<size_t>(a)] + "' and '" +
                         map.names()[static_cast<size_t>(b)] +
                         "' (add a line for them, a '* *' line, or --wan-latency with "
                         "--wan-bandwidth)");
      }
      const auto n = static_cast<size_t>(clusters);
      table.links_[static_cast<size_t>(a) * n + static_cast<size_t>(b)] = *link;
      table.links_[static_cast<size_t>(b) * n + static_cast<size_t>(a)] = *link;
    }
  }
  return table;
}

std::optional<LinkTable> LinkTable::from_options(const RunOptions& o, const ClusterMap& map) {
  if (!emulates_wan(o)) return std::nullopt;
  std::optional<LinkParameters> given;
  if (o.wan_latency && o.wan_bandwidth) {
    given = LinkParameters{o.wan_latency->seconds, o.wan_bandwidth->bytes_per_second};
  } else if (o.wan_latency) {
    throw UsageError("--wan-latency: '" + o.wan_latency->text + "' given without --wan-bandwidth");
  } else if (o.wan_bandwidth) {
    throw UsageError("--wan-bandwidth: '" + o.wan_bandwidth->text +
                     "' given without --wan-latency");
  }
  if (!o.platform.empty()) return from_platform_file(o.platform, map, given);
  return uniform(map.clusters(), *given);
}

bool LinkTable::uniform_links() const {
  for (int a = 0; a < clusters_; ++a) {
    for (int b = 0; b < clusters_; ++b) {
      if (a != b && !(between(a, b) == typical())) return false;
    }
  }
  return true;
}

LinkParameters LinkTable::typical() const {
  return clusters_ > 1 ? between(0, 1) : (links_.empty() ? LinkParameters{} : links_[0]);
}

bool LinkTable::one_link() const {
  // A platform file for a single-cluster run names no link at all.
  return uniform_links() && (platform_.empty() || clusters_ > 1);
}

std::string LinkTable::label() const {
  if (one_link()) {
    const LinkParameters link = typical();
    return rate_label(link.bandwidth) + "-" + format_duration(link.latency);
  }
  return std::filesystem::path(platform_).stem().string();
}

nlohmann::json LinkTable::to_json(const ClusterMap& map) const {
  nlohmann::json links = nlohmann::json::array();
  for (int a = 0; a < clusters_; ++a) {
    for (int b = a + 1; b < clusters_; ++b) {
      const LinkParameters& l = between(a, b);
      links.push_back(
          {{"clusters", {map.names()[static_cast<size_t>(a)], map.names()[static_cast<size_t>(b)]}},
           {"latency", l.latency},
           {"bandwidth", megabytes_per_second(l.bandwidth)}});
    }
  }
  const bool same = one_link();
  const LinkParameters link = typical();
  return {{"model", "full-duplex link per cluster pair, FIFO, latency + bytes / bandwidth"},
          {"latency", same ? nlohmann::json(link.latency) : nlohmann::json(nullptr)},
          {"bandwidth",
           same ? nlohmann::json(megabytes_per_second(link.bandwidth)) : nlohmann::json(nullptr)},
          {"platform", platform_.empty() ? nlohmann::json(nullptr) : nlohmann::json(platform_)},
          {"links", links}};
}

}  // namespace mcb::harness
