#include "calibration/warnings.hpp"

#include <initializer_list>
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

// One check of a fit: whether it failed, and what that means.
struct FitCheck {
  bool failed;
  std::string text;
};

FitCheck low_r2(double r2, const std::string& model, const std::string& data) {
  return {r2 < kWarnBelowR2, "r² " + number(r2) + " is below " + number(kWarnBelowR2) + "; " +
                                 model + " does not describe these " + data};
}

// Each failed check of the fit @p what warns twice: under its own table and under
// service_times.csv, whose predictions come from it.
void add_fit_checks(std::vector<Warning>& out, const std::string& table, const std::string& what,
                    std::initializer_list<FitCheck> checks) {
  for (const FitCheck& c : checks) {
    if (!c.failed) continue;
    out.push_back({table, what, what + ": " + c.text});
    out.push_back({"service_times.csv", what, what + ": " + c.text});
  }
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
  for (const ComputeFit& f : models.compute) {
    add_fit_checks(
        out, "compute_fits.csv", "compute fit " + f.app + "," + f.problem + "," + f.system,
        {low_r2(f.fit.r2, "a + b/P", "runs"),
         {f.b < 0, "b = " + number(f.b) +
                       " s is negative: compute time grows with processes, which "
                       "no division of work does (shared cores?)"},
         {f.a < 0, "a = " + number(f.a) + " s is negative: no part of a run takes negative time"}});
  }
  for (const LinkFit& f : models.links) {
    add_fit_checks(out, "link_fits.csv", "link fit " + f.system + "," + f.link_class,
                   {low_r2(f.fit.r2, "t0 + N/B", "points"),
                    {f.t0 < 0, "t0 = " + number(f.t0) +
                                   " s is negative: no message arrives before it is sent"}});
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
