// The default flow from rest: energy and the largest speeds near the west wall, near the east
// wall and in between every 10 days (stdout, CSV), and the final streamfunction and speed on
// the grid (file, CSV), for the spin-up measurement and the flow figure of apps/ensflow/README.md.
//   ensflow_spinup DAYS OUT.csv [options of mcb-ensflow's model: --grid, --walls, ...]
#include "apps/ensflow/model.hpp"
#include "apps/ensflow/options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mcb::ensflow;

namespace {

// u = -dpsi/dy, v = dpsi/dx by centred differences (walls: psi = 0).
std::vector<double> speed(const std::vector<double>& psi, int g, double dx) {
  auto at = [&](int i, int j) { return i < 0 || j < 0 || i >= g || j >= g ? 0.0 : psi[j * g + i]; };
  std::vector<double> s(static_cast<std::size_t>(g) * g);
  for (int j = 0; j < g; ++j)
    for (int i = 0; i < g; ++i) {
      const double u = -(at(i, j + 1) - at(i, j - 1)) / (2 * dx);
      const double v = (at(i + 1, j) - at(i - 1, j)) / (2 * dx);
      s[j * g + i] = std::sqrt(u * u + v * v);
    }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: ensflow_spinup DAYS OUT.csv [model options]\n");
    return 2;
  }
  const int days = std::atoi(argv[1]);
  std::vector<const char*> args{"ensflow_spinup", "--no-free-run"};
  for (int k = 3; k < argc; ++k) args.push_back(argv[k]);
  EnsflowConfig config;
  parse_options(static_cast<int>(args.size()), args.data(), 1, true, config);
  const ModelParameters p = config.settings.model;
  QgModel model(p);
  const int g = p.grid;
  std::vector<double> q(model.size(), 0.0), psi(model.size());
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("day,energy,west_max_speed,east_max_speed,interior_max_speed\n");
  for (int day = 1; day <= days; ++day) {
    model.advance_day(q.data());
    if (day % 10 != 0 && day != days) continue;
    model.invert(q.data(), psi.data());
    const std::vector<double> s = speed(psi, g, p.spacing());  // the upper layer's
    double west = 0, east = 0, inner = 0;  // strips of a tenth of the basin at each wall
    for (int j = 0; j < g; ++j)
      for (int i = 0; i < g; ++i) {
        double& bin = i < g / 10 ? west : i >= g - g / 10 ? east : inner;
        bin = std::max(bin, s[j * g + i]);
      }
    std::printf("%d,%.6g,%.4f,%.4f,%.4f\n", day, model.energy(q.data()), west, east, inner);
  }
  const std::vector<double> s = speed(psi, g, p.spacing());
  FILE* out = std::fopen(argv[2], "w");
  if (out == nullptr) {
    std::fprintf(stderr, "ensflow_spinup: cannot write '%s'\n", argv[2]);
    return 2;
  }
  std::fprintf(out, "i,j,x_km,y_km,ssh_m,speed_m_s\n");
  for (int j = 0; j < g; ++j)
    for (int i = 0; i < g; ++i)
      std::fprintf(out, "%d,%d,%.3f,%.3f,%.6g,%.6g\n", i, j, (i + 1) * p.spacing() / 1e3,
                   (j + 1) * p.spacing() / 1e3, p.ssh_per_streamfunction() * psi[j * g + i],
                   s[j * g + i]);
  std::fclose(out);
  return 0;
}
