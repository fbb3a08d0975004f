#pragma once
/// @file
/// @brief What a run knows about the simulated platform it runs on when the suite is built for
/// SimGrid's SMPI (cmake -DMCB_SMPI=ON, docs/smpi.md): the platform's name and SimGrid's
/// version. Built for a real MPI, the run is not simulated and both are empty.

#include <string>

namespace mcb::harness {

/// @brief True in the SMPI flavour: ranks are simulated actors of one process on one host.
constexpr bool simulated() {
#ifdef MCB_SMPI
  return true;
#else
  return false;
#endif
}

/// @brief The simulated platform's name, the id of its root zone ("das2", "emu-100Mbps-1ms"),
/// or "" when not simulated.
std::string simulated_platform();

/// @brief SimGrid's version ("3.32.0") from the library the run uses, or "" when not simulated.
std::string simgrid_version();

/// @brief The simulated host this rank runs on (its name in the platform), or "" when not
/// simulated.
std::string simulated_host();

}  // namespace mcb::harness
