#include "calibration/warnings.hpp"

#include <map>
#include <sstream>
#include <tuple>

namespace mcb::calib {
namespace {

std::string number(double value) {
  std::ostringstream os;
  os.precision(3);
  os << value;
  return os.str();
}

}  // namespace

std::vector<Warning> oversubscription_warnings(const std::vector<const Record*>& runs,
                                               const std::string& table) {
  struct Seen {
    std::size_t runs = 0, oversubscribed = 0;
    double worst = 0;
  };
  using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::string>;
  std::map<Key, Seen> seen;
  for (const Record* run : runs) {
    const Key key{string_field(*run, "app"), string_field(*run, "config.problem"),
                  integer_field(*run, "config.total_size"),
                  integer_field(*run, "config.components"), string_field(*run, "config.system")};
    Seen& s = seen[key];
    ++s.runs;
    const nlohmann::json* share = lookup(run->doc, "env.ranks_per_core");
    if (share && share->is_number() && share->get<double>() > 1.0) {
      ++s.oversubscribed;
      s.worst = std::max(s.worst, share->get<double>());
    }
  }
  std::vector<Warning> out;
  for (const auto& [key, s] : seen) {
    if (s.oversubscribed == 0) continue;
    const auto& [app, problem, size, components, system] = key;
    const std::string what = app + "," + problem + "," + std::to_string(size) + "," +
                             std::to_string(components) + "," + system;
    out.push_back({table, what,
                   what + ": " + std::to_string(s.oversubscribed) + " of " +
                       std::to_string(s.runs) + " runs oversubscribed (up to " + number(s.worst) +
                       " ranks per core); their times include waiting for a core"});
  }
  return out;
}

std::vector<Warning> fit_warnings(const Models& models) {
  std::vector<Warning> out;
  auto add = [&out](const std::string& table, const std::string& what, const std::string& text) {
    out.push_back({table, what, what + ": " + text});
    out.push_back({"service_times.csv", what, what + ": " + text});
  };
  for (const ComputeFit& f : models.compute) {
    const std::string what = "compute fit " + f.app + "," + f.problem + "," + f.system;
    if (f.fit.r2 < kWarnBelowR2) {
      add("compute_fits.csv", what,
          "r² " + number(f.fit.r2) + " is below " + number(kWarnBelowR2) +
              "; a + b/P does not describe these runs");
    }
    if (f.b < 0) {
      add("compute_fits.csv", what,
          "b = " + number(f.b) +
              " s is negative: compute time grows with processes, which "
              "no division of work does (shared cores?)");
    }
    if (f.a < 0) {
      add("compute_fits.csv", what,
          "a = " + number(f.a) + " s is negative: no part of a run takes negative time");
    }
  }
  for (const LinkFit& f : models.links) {
    const std::string what = "link fit " + f.system + "," + f.link_class;
    if (f.fit.r2 < kWarnBelowR2) {
      add("link_fits.csv", what,
          "r² " + number(f.fit.r2) + " is below " + number(kWarnBelowR2) +
              "; t0 + N/B does not describe these points");
    }
    if (f.t0 < 0) {
      add("link_fits.csv", what,
          "t0 = " + number(f.t0) + " s is negative: no message arrives before it is sent");
    }
  }
  return out;
}

nlohmann::json warnings_json(const std::vector<Warning>& warnings) {
  nlohmann::json out = nlohmann::json::array();
  for (const Warning& w : warnings) {
    out.push_back({{"table", w.table}, {"what", w.what}, {"text", w.text}});
  }
  return out;
}

}  // namespace mcb::calib
