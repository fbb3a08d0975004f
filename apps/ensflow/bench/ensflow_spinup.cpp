// The default flow from rest (plus the seeded noise of the experiment's spin-up): energy and
// the largest upper-layer speeds near the west wall, near the east wall and in between every 10
// days (stdout, CSV); then MEAN_DAYS more days, whose daily time mean of the upper layer says
// whether the flow carries a western boundary current (stderr, one line), and the final and
// time-mean SSH and speed on the grid (file, CSV) for the flow figure of apps/ensflow/README.md.
//   ensflow_spinup DAYS MEAN_DAYS OUT.csv [options of mcb-ensflow: --grid, --spinup-seed, ...]
#include "apps/ensflow/bench/flow_tool.hpp"
#include "apps/ensflow/truth.hpp"
#include "common/cli.hpp"
#include "common/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace mcb::ensflow;

namespace {

struct Strips {
  double west = 0, east = 0, inner = 0;  // largest speed within a tenth of each wall, elsewhere
};

Strips strip_maxima(const std::vector<double>& speed, int g) {
  Strips s;
  for (int j = 0; j < g; ++j) {
    for (int i = 0; i < g; ++i) {
      double& bin = i < g / 10 ? s.west : i >= g - g / 10 ? s.east : s.inner;
      bin = std::max(bin, speed[static_cast<std::size_t>(j) * g + i]);
    }
  }
  return s;
}

// x / L of the largest |psi| in rows [first, end): where a gyre's centre lies.
double gyre_centre(const std::vector<double>& psi, int g, int first, int end) {
  int best = 0;
  double extreme = -1;
  for (int j = first; j < end; ++j) {
    for (int i = 0; i < g; ++i) {
      const double v = std::fabs(psi[static_cast<std::size_t>(j) * g + i]);
      if (v > extreme) {
        extreme = v;
        best = i;
      }
    }
  }
  return (best + 1.0) / (g + 1.0);
}

void write_grid(const std::string& path, const ModelParameters& p, const std::vector<double>& psi,
                const std::vector<double>& mean_psi) {
  const int g = p.grid;
  const std::vector<double> s = upper_speed(psi.data(), g, p.spacing());
  const std::vector<double> ms = upper_speed(mean_psi.data(), g, p.spacing());
  FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) throw mcb::UsageError("OUT.csv: cannot write '" + path + "'");
  std::fprintf(out, "i,j,x_km,y_km,ssh_m,speed_m_s,mean_ssh_m,mean_speed_m_s\n");
  const double ssh = p.ssh_per_streamfunction();
  for (int j = 0; j < g; ++j) {
    for (int i = 0; i < g; ++i) {
      const std::size_t c = static_cast<std::size_t>(j) * g + i;
      std::fprintf(out, "%d,%d,%.3f,%.3f,%.6g,%.6g,%.6g,%.6g\n", i, j, (i + 1) * p.spacing() / 1e3,
                   (j + 1) * p.spacing() / 1e3, ssh * psi[c], s[c], ssh * mean_psi[c], ms[c]);
    }
  }
  std::fclose(out);
}

int run(int argc, char** argv) {
  const FlowToolArguments a = parse_flow_tool(argc, argv, {"DAYS", "MEAN_DAYS"}, {"OUT.csv"});
  const int days = a.counts[0], mean_days = a.counts[1];
  const ModelParameters& p = a.settings.model;
  QgModel model(p);
  const int g = p.grid;
  const std::size_t n = model.layer_size();
  std::vector<double> q = spin_up(model, 0, a.settings.spinup_seed), psi(model.size());
  std::vector<double> mean_psi(n, 0.0);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("day,energy,west_max_speed,east_max_speed,interior_max_speed\n");
  for (int day = 1; day <= days + mean_days; ++day) {
    model.advance_day(q.data());
    if (day > days) {
      model.invert(q.data(), psi.data());
      for (std::size_t c = 0; c < n; ++c) mean_psi[c] += psi[c] / mean_days;
    }
    if (day % 10 != 0 && day != days + mean_days) continue;
    model.invert(q.data(), psi.data());
    const Strips s = strip_maxima(upper_speed(psi.data(), g, p.spacing()), g);
    std::printf("%d,%.6g,%.4f,%.4f,%.4f\n", day, model.energy(q.data()), s.west, s.east, s.inner);
  }
  model.invert(q.data(), psi.data());
  if (mean_days == 0)
    std::copy(psi.begin(), psi.begin() + static_cast<std::ptrdiff_t>(n), mean_psi.begin());
  const Strips m = strip_maxima(upper_speed(mean_psi.data(), g, p.spacing()), g);
  const std::string span = mean_days == 0 ? "day " + std::to_string(days)
                                          : "the time mean over days " + std::to_string(days + 1) +
                                                "-" + std::to_string(days + mean_days);
  std::fprintf(stderr,
               "%s, upper layer: largest speed %.3f m/s within a tenth "
               "of the west wall, %.3f m/s of the east wall, %.3f m/s elsewhere; gyre centres "
               "at x/L = %.2f (south), %.2f (north)\n",
               span.c_str(), m.west, m.east, m.inner, gyre_centre(mean_psi, g, 0, g / 2),
               gyre_centre(mean_psi, g, g - g / 2, g));
  write_grid(a.rest[0], p, psi, mean_psi);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mcb::cli::run("ensflow_spinup", [&] { return run(argc, argv); });
}
