#include "harness/simulation.hpp"

#ifdef MCB_SMPI
#include <simgrid/host.h>
#include <simgrid/version.h>
#include <simgrid/zone.h>
#endif

namespace mcb::harness {

#ifdef MCB_SMPI

std::string simulated_platform() {
  const char* name = sg_zone_get_name(sg_zone_get_root());
  return name != nullptr ? name : "";
}

std::string simgrid_version() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  sg_version_get(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string simulated_host() {
  const char* name = sg_host_get_name(sg_host_self());
  return name != nullptr ? name : "";
}

#else

std::string simulated_platform() { return {}; }
std::string simgrid_version() { return {}; }
std::string simulated_host() { return {}; }

#endif

}  // namespace mcb::harness
