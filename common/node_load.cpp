#include "common/node_load.hpp"

#include "common/csv.hpp"
#include "common/units.hpp"

#include <charconv>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mcb {
namespace {

double parse_share(std::string_view value) {
  std::string_view digits = value;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), percent);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
      !std::isfinite(percent)) {
    throw std::invalid_argument("cpu: '" + std::string(value) + "' is not a percentage");
  }
  // 100% leaves the run no core at all: the load of a non-dedicated node, not a dead one.
  if (percent < 0 || percent >= 100) {
    throw std::invalid_argument("cpu: '" + std::string(value) + "' is not in [0%, 100%)");
  }
  return percent / 100;
}

double parse_load_rate(std::string_view kind, std::string_view value) {
  if (value == "0") return 0;
  try {
    return parse_rate(value);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(kind) + ": " + e.what());
  }
}

int parse_port(std::string_view value) {
  int port = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
  if (ec != std::errc() || end != value.data() + value.size() || port < 1024 || port > 65535) {
    throw std::invalid_argument("port: '" + std::string(value) + "' is not in 1024..65535");
  }
  return port;
}

}  // namespace

NodeLoadSpec parse_node_load(std::string_view text) {
  NodeLoadSpec spec;
  if (text == "none") return spec;
  if (text.empty()) throw std::invalid_argument("empty (give \"none\" for no load)");
  bool seen[4] = {};
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("'" + std::string(part) + "' is not kind=value");
    }
    const std::string_view kind = part.substr(0, eq);
    const std::string_view value = part.substr(eq + 1);
    int which = -1;
    if (kind == "cpu") {
      which = 0;
      spec.cpu_share = parse_share(value);
    } else if (kind == "memory") {
      which = 1;
      spec.memory_rate = parse_load_rate(kind, value);
    } else if (kind == "network") {
      which = 2;
      spec.network_rate = parse_load_rate(kind, value);
    } else if (kind == "port") {
      which = 3;
      spec.port = parse_port(value);
    } else {
      throw std::invalid_argument("'" + std::string(kind) +
                                  "' is not a kind of load (cpu, memory, network, port)");
    }
    if (seen[which]) throw std::invalid_argument("'" + std::string(kind) + "' given twice");
    seen[which] = true;
  }
  return spec;
}

std::string format_node_load(const NodeLoadSpec& spec) {
  if (!spec.any()) return "none";
  std::ostringstream out;
  const char* sep = "";
  if (spec.cpu_share > 0) {
    out << "cpu=" << csv::exact(spec.cpu_share * 100) << '%';
    sep = ",";
  }
  if (spec.memory_rate > 0) {
    out << sep << "memory=" << format_rate(spec.memory_rate);
    sep = ",";
  }
  if (spec.network_rate > 0) out << sep << "network=" << format_rate(spec.network_rate);
  if (spec.network_rate > 0 && spec.port != NodeLoadSpec{}.port) out << ",port=" << spec.port;
  return out.str();
}

nlohmann::json node_load_json(const NodeLoadSpec& spec) {
  return {{"text", format_node_load(spec)},
          {"cpu_share", spec.cpu_share},
          {"memory_bytes_per_second", spec.memory_rate},
          {"network_bytes_per_second", spec.network_rate},
          {"port", spec.port}};
}

double NodeLoadAchieved::cpu_share() const {
  return seconds > 0 && cpu_threads > 0 ? cpu_seconds / (seconds * cpu_threads) : 0;
}

nlohmann::json node_load_summary(const NodeLoadSpec& spec, const NodeLoadAchieved& a) {
  const double s = a.seconds > 0 ? a.seconds : 1;
  return {{"schema", "mcb-nodeload/1"},
          {"host", a.host},
          {"load", node_load_json(spec)},
          {"seconds", a.seconds},
          {"cpu", {{"threads", a.cpu_threads}, {"seconds", a.cpu_seconds}, {"share", a.cpu_share()}}},
          {"memory", {{"bytes", a.memory_bytes}, {"bytes_per_second", a.memory_bytes / s}}},
          {"network",
           {{"peer", a.peer},
            {"sent_bytes", a.sent_bytes},
            {"sent_bytes_per_second", a.sent_bytes / s},
            {"received_bytes", a.received_bytes}}}};
}

NodeLoadAchieved read_node_load_summary(const nlohmann::json& j) {
  try {
    if (j.at("schema") != "mcb-nodeload/1") {
      throw std::invalid_argument("schema: not mcb-nodeload/1");
    }
    NodeLoadAchieved a;
    a.host = j.at("host").get<std::string>();
    a.seconds = j.at("seconds").get<double>();
    a.cpu_threads = j.at("cpu").at("threads").get<int>();
    a.cpu_seconds = j.at("cpu").at("seconds").get<double>();
    a.memory_bytes = j.at("memory").at("bytes").get<double>();
    a.peer = j.at("network").at("peer").get<std::string>();
    a.sent_bytes = j.at("network").at("sent_bytes").get<double>();
    a.received_bytes = j.at("network").at("received_bytes").get<double>();
    return a;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("not a node-load summary: ") + e.what());
  }
}

}  // namespace mcb
