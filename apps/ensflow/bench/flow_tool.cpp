#include "apps/ensflow/bench/flow_tool.hpp"

#include "apps/ensflow/options.hpp"
#include "common/errors.hpp"
#include "common/text.hpp"

#include <cmath>
#include <limits>
#include <optional>

namespace mcb::ensflow {

namespace {

int count_argument(const std::string& name, const char* text) {
  const std::string value = text;
  const std::optional<long> n = whole_number(value);
  if (!n || *n < 0 || *n > std::numeric_limits<int>::max())
    throw UsageError(name + ": '" + value + "' is not a whole number of days >= 0");
  return static_cast<int>(*n);
}

}  // namespace

FlowToolArguments parse_flow_tool(int argc, const char* const* argv,
                                  const std::vector<std::string>& names,
                                  const std::vector<std::string>& files) {
  const std::size_t needed = names.size() + files.size();
  if (static_cast<std::size_t>(argc) < needed + 1) {
    std::string usage;
    for (const auto& n : names) usage += " " + n;
    for (const auto& f : files) usage += " " + f;
    throw UsageError("usage: " + std::string(argv[0]) + usage + " [mcb-ensflow model options]");
  }
  FlowToolArguments a;
  for (std::size_t k = 0; k < names.size(); ++k)
    a.counts.push_back(count_argument(names[k], argv[k + 1]));
  for (std::size_t k = names.size(); k < needed; ++k) {
    const std::string file = argv[k + 1];
    if (file.empty() || file[0] == '-')
      throw UsageError(files[k - names.size()] + ": '" + file + "' is not a file name");
    a.rest.push_back(file);
  }
  std::vector<const char*> options{argv[0], "--no-free-run"};
  for (int k = static_cast<int>(needed) + 1; k < argc; ++k) options.push_back(argv[k]);
  EnsflowConfig config;
  parse_options(static_cast<int>(options.size()), options.data(), 1, true, config);
  a.settings = config.settings;
  a.localisation_auto = config.options.localisation.automatic();
  return a;
}

std::vector<double> upper_speed(const double* psi, int g, double dx) {
  auto at = [&](int i, int j) {
    return i < 0 || j < 0 || i >= g || j >= g ? 0.0 : psi[static_cast<std::size_t>(j) * g + i];
  };
  std::vector<double> s(static_cast<std::size_t>(g) * g);
  for (int j = 0; j < g; ++j) {
    for (int i = 0; i < g; ++i) {
      const double u = -(at(i, j + 1) - at(i, j - 1)) / (2 * dx);
      const double v = (at(i + 1, j) - at(i - 1, j)) / (2 * dx);
      s[static_cast<std::size_t>(j) * g + i] = std::hypot(u, v);
    }
  }
  return s;
}

}  // namespace mcb::ensflow
