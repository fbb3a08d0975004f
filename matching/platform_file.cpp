#include "matching/platform_file.hpp"

#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/ini.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace mcb::matching {
namespace {

struct Range {
  double lo;
  double hi;
  bool lo_open;
};

double number(const ini::File& file, const ini::Entry& e, const std::string& word, Range r) {
  const std::string where = file.where(e.line) + ": " + e.key + ": '" + word + "' ";
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(word.c_str(), &end);
  if (word.empty() || end != word.c_str() + word.size() || errno == ERANGE || std::isnan(v)) {
    throw UsageError(where + "is not a number");
  }
  if ((r.lo_open ? v <= r.lo : v < r.lo) || v > r.hi) {
    throw UsageError(where + "must be in " + (r.lo_open ? "(" : "[") +
                     (std::isinf(r.lo) ? "-inf" : std::to_string(r.lo)) + ", " +
                     (std::isinf(r.hi) ? "inf" : std::to_string(r.hi)) + "]");
  }
  return v;
}

// One value for every node, or one per node.
std::vector<double> per_node(const ini::File& file, const ini::Entry& e, int nodes, Range r) {
  std::vector<std::string> words;
  try {
    words = ini::split_words(e.value);
  } catch (const std::invalid_argument&) {
    throw UsageError(file.where(e.line) + ": " + e.key + ": unterminated quote");
  }
  if (words.size() != 1 && words.size() != static_cast<std::size_t>(nodes)) {
    throw UsageError(file.where(e.line) + ": " + e.key + ": " + std::to_string(words.size()) +
                     " values for " + std::to_string(nodes) + " nodes (give 1 or one per node)");
  }
  std::vector<double> v;
  for (const auto& w : words) v.push_back(number(file, e, w, r));
  if (v.size() == 1) v.assign(static_cast<std::size_t>(nodes), v.front());
  return v;
}

constexpr Range kFraction{0.0, 1.0, true};  // P in (0, 1]
constexpr Range kShare{0.0, 1.0, false};    // A in [0, 1]
constexpr Range kBandwidth{0.0, kUnlimited, true};
constexpr Range kUsed{0.0, kUnlimited, false};

// A link cannot already carry more than its maximum: the free bandwidth would be negative.
void check_links(const ini::File& file, const Cluster& c, const ini::Entry* consumed,
                 const ini::Entry* node_consumed) {
  if (consumed && c.link_consumed > c.link_max) {
    throw UsageError(file.where(consumed->line) + ": link_consumed: '" + consumed->value +
                     "' is above the cluster's link_max " + csv::number(c.link_max));
  }
  for (std::size_t k = 0; node_consumed && k < c.nodes.size(); ++k) {
    if (c.nodes[k].link_consumed > c.nodes[k].link_max) {
      throw UsageError(file.where(node_consumed->line) + ": node_link_consumed: node " +
                       std::to_string(k) + "'s " + csv::number(c.nodes[k].link_consumed) +
                       " is above its node_link_max " + csv::number(c.nodes[k].link_max));
    }
  }
}

Cluster read_cluster(const ini::File& file, const ini::Section& s) {
  Cluster c;
  c.name = s.name.substr(std::string("cluster.").size());
  const ini::Entry* nodes = nullptr;
  for (const auto& e : s.entries) {
    if (e.key == "nodes") nodes = &e;
  }
  if (nodes == nullptr) {
    throw UsageError(file.where(s.line) + ": [" + s.name + "] has no 'nodes'");
  }
  const double n = number(file, *nodes, ini::single_value(nodes->value), {0.0, 1e6, true});
  if (n != std::floor(n)) {
    throw UsageError(file.where(nodes->line) + ": nodes: '" + nodes->value +
                     "' is not a whole number");
  }
  c.nodes.resize(static_cast<std::size_t>(n));
  const int count = static_cast<int>(n);
  std::set<std::string> seen;
  const ini::Entry* consumed = nullptr;       // link_consumed
  const ini::Entry* node_consumed = nullptr;  // node_link_consumed
  for (const auto& e : s.entries) {
    if (!seen.insert(e.key).second) {
      throw UsageError(file.where(e.line) + ": " + e.key + ": given twice in [" + s.name + "]");
    }
    auto set_nodes = [&](Range r, double Node::*field) {
      const auto v = per_node(file, e, count, r);
      for (int k = 0; k < count; ++k) c.nodes[static_cast<std::size_t>(k)].*field = v[k];
    };
    if (e.key == "nodes") continue;
    if (e.key == "power") {
      set_nodes(kFraction, &Node::power);
    } else if (e.key == "availability") {
      set_nodes(kShare, &Node::availability);
    } else if (e.key == "node_link_max") {
      set_nodes(kBandwidth, &Node::link_max);
    } else if (e.key == "node_link_consumed") {
      set_nodes(kUsed, &Node::link_consumed);
      node_consumed = &e;
    } else if (e.key == "link_max") {
      c.link_max = number(file, e, ini::single_value(e.value), kBandwidth);
    } else if (e.key == "link_consumed") {
      c.link_consumed = number(file, e, ini::single_value(e.value), kUsed);
      consumed = &e;
    } else {
      throw UsageError(file.where(e.line) + ": '" + e.key +
                       "' is not a cluster key (nodes, "
                       "power, availability, link_max, link_consumed, node_link_max, "
                       "node_link_consumed)");
    }
  }
  check_links(file, c, consumed, node_consumed);
  return c;
}

}  // namespace

Platform read_platform(const std::string& path, const std::string& prefix) {
  const ini::File file = ini::read_ini(path, prefix);
  if (!file.entries.empty() && file.entries.front().section.empty()) {
    throw UsageError(file.where(file.entries.front().line) + ": '" + file.entries.front().key +
                     "' is outside a [cluster.NAME] section");
  }
  Platform p;
  std::set<std::string> names;
  for (const auto& s : file.sections) {
    if (s.name.rfind("cluster.", 0) != 0 || s.name.size() == 8) {
      throw UsageError(file.where(s.line) + ": [" + s.name + "] is not [cluster.NAME]");
    }
    if (!names.insert(s.name).second) {
      throw UsageError(file.where(s.line) + ": [" + s.name + "] given twice");
    }
    p.clusters.push_back(read_cluster(file, s));
  }
  if (p.clusters.empty()) throw UsageError(prefix + path + ": no [cluster.NAME] section");
  return p;
}

}  // namespace mcb::matching
