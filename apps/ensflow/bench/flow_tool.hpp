#pragma once
/// @file
/// @brief The set-up the flow measurement tools (ensflow_spinup, ensflow_chaos) share: their
/// day counts, mcb-ensflow's model options for the rest of the command line, and the upper
/// layer's speed.

#include "apps/ensflow/model.hpp"
#include "apps/ensflow/settings.hpp"

#include <string>
#include <vector>

namespace mcb::ensflow {

/// @brief What a tool's command line asks for.
struct FlowToolArguments {
  std::vector<int> counts;        //!< the leading non-negative integers (days), in order
  std::vector<std::string> rest;  //!< positionals after the counts (files)
  ExperimentSettings settings;    //!< mcb-ensflow's defaults and the options given
  bool localisation_auto = true;  //!< --localisation auto (resolved for the default filter)
};

/// @brief Parses "TOOL N1 .. Nk [F1 .. Fl] [mcb-ensflow options]" with @p names naming the k
/// counts and @p files naming the l file arguments, as in the usage line.
/// @throws mcb::UsageError naming the argument and the bad value (cli::run makes it exit 2).
FlowToolArguments parse_flow_tool(int argc, const char* const* argv,
                                  const std::vector<std::string>& names,
                                  const std::vector<std::string>& files);

/// @brief Speed |(u, v)| of the upper layer, u = -dpsi/dy, v = dpsi/dx by centred differences
/// (psi = 0 on the walls), per grid point.
std::vector<double> upper_speed(const double* psi, int grid, double dx);

}  // namespace mcb::ensflow
