#include "jobscripts/status_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace mcb::campaign {
namespace {

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

// Elapsed as Slurm prints it: [D-]HH:MM:SS, seconds rounded.
std::string elapsed_text(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  long s = std::lround(*seconds);
  const long days = s / 86400;
  s %= 86400;
  char buf[48];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", days, s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  }
  return buf;
}

nlohmann::json or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

void print_status_table(std::ostream& out, const StatusReport& report) {
  const std::array<std::string, 6> header = {"RUN",      "STATE",   "JOBID",
                                             "NODELIST", "ELAPSED", "VERDICT"};
  std::vector<std::array<std::string, 6>> rows;
  for (const StatusRow& r : report.runs) {
    rows.push_back({r.id, r.state, or_dash(r.job_id), or_dash(r.nodes), elapsed_text(r.elapsed),
                    or_dash(r.verdict)});
  }
  std::array<std::size_t, 6> width{};
  for (std::size_t c = 0; c < 6; ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::array<std::string, 6>& cells) {
    std::string text;
    for (std::size_t c = 0; c < 6; ++c) {
      text += cells[c];
      if (c + 1 < 6) text += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    out << text << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
}

nlohmann::json status_json(const StatusReport& report) {
  nlohmann::json runs = nlohmann::json::array();
  for (const StatusRow& r : report.runs) {
    runs.push_back({{"id", r.id},
                    {"state", r.state},
                    {"batch_job_id", or_null(r.job_id)},
                    {"nodes", or_null(r.nodes)},
                    {"elapsed_s", r.elapsed ? nlohmann::json(*r.elapsed) : nlohmann::json()},
                    {"verdict", or_null(r.verdict)}});
  }
  return {{"campaign", report.campaign},
          {"executor", report.executor},
          {"queue_source", report.queue_source},
          {"runs", runs}};
}

}  // namespace mcb::campaign
