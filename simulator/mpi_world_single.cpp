#include "simulator/mpi_world.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace mcb::sim {

// mcb-sim itself: a world of one. Started by an MPI launcher, it becomes mcb-sim-mpi (the same
// program linked with MPI, in the same folder) with the same arguments and environment, so
// `mpirun -np K mcb-sim ...` shares a study among the ranks as before.
MpiWorld::MpiWorld(int& argc, char**& argv) {
  (void)argc;
  if (!launched_by_mpi()) return;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's folder: " + ec.message());
  const std::string helper = (self.parent_path() / "mcb-sim-mpi").string();
  execv(helper.c_str(), argv);
  throw std::runtime_error("started by an MPI launcher, but cannot run " + helper + ": " +
                           std::strerror(errno));
}

MpiWorld::~MpiWorld() = default;

int MpiWorld::broadcast(int value) const { return value; }

std::vector<std::string> MpiWorld::gather(const std::string& text) const { return {text}; }

}  // namespace mcb::sim
