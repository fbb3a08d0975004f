// Is the default flow chaotic? Spins the model up as the experiment does (from rest plus the
// seeded noise) for SPINUP days, then runs twins
// from that state, the second with an SSH departure of 1 micrometre RMS (a smooth random field),
// and prints every day the RMS SSH difference of the twins, the energy and the upper layer's
// eddy kinetic energy so far (mean over the twin days of |u - time-mean u|^2 / 2), as CSV:
//   ensflow_chaos SPINUP DAYS [options of mcb-ensflow's model: --grid, --lower-depth, ...]
// A steady or periodic flow keeps the difference small; a chaotic one grows it exponentially
// (doubling time = ln 2 / growth rate) until it saturates at the flow's own variability.
#include "apps/ensflow/bench/flow_tool.hpp"
#include "apps/ensflow/observations.hpp"
#include "apps/ensflow/random.hpp"
#include "apps/ensflow/truth.hpp"
#include "common/cli.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace mcb::ensflow;

namespace {

double rms_ssh_difference(QgModel& model, const std::vector<double>& a,
                          const std::vector<double>& b) {
  std::vector<double> pa(model.size()), pb(model.size());
  model.invert(a.data(), pa.data());
  model.invert(b.data(), pb.data());
  double sum = 0;
  for (std::size_t c = 0; c < model.layer_size(); ++c) sum += (pa[c] - pb[c]) * (pa[c] - pb[c]);
  return std::fabs(model.parameters().ssh_per_streamfunction()) *
         std::sqrt(sum / static_cast<double>(model.layer_size()));
}

int run(int argc, char** argv) {
  const FlowToolArguments args = parse_flow_tool(argc, argv, {"SPINUP", "DAYS"}, {});
  const int spinup = args.counts[0], days = args.counts[1];
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const ModelParameters& p = args.settings.model;
  QgModel model(p);
  const int g = p.grid;
  const double dx = p.spacing();
  std::vector<double> a = spin_up(model, spinup, args.settings.spinup_seed);

  std::vector<double> b(model.size());
  PerturbationField field(p, 1e-6, 150);
  KeyedStream stream(args.settings.seed, StreamPurpose::member_perturbation, 0);
  field.draw(stream, model, b.data());
  for (std::size_t c = 0; c < b.size(); ++c) b[c] += a[c];

  // Upper-layer velocity sums for the eddy kinetic energy.
  const std::size_t points = model.layer_size();
  std::vector<double> su(points, 0.0), sv(points, 0.0), psi(model.size());
  double sum_square = 0;
  std::printf("day,rms_ssh_difference_m,energy,eddy_kinetic_energy\n");
  for (int day = 1; day <= days; ++day) {
    model.advance_day(a.data());
    model.advance_day(b.data());
    model.invert(a.data(), psi.data());
    auto at = [&](int i, int j) {
      return i < 0 || j < 0 || i >= g || j >= g ? 0.0 : psi[j * g + i];
    };
    for (int j = 0; j < g; ++j)
      for (int i = 0; i < g; ++i) {
        const double u = -(at(i, j + 1) - at(i, j - 1)) / (2 * dx);
        const double v = (at(i + 1, j) - at(i - 1, j)) / (2 * dx);
        su[j * g + i] += u;
        sv[j * g + i] += v;
        sum_square += u * u + v * v;
      }
    double mean_square = 0;
    for (std::size_t c = 0; c < points; ++c) mean_square += su[c] * su[c] + sv[c] * sv[c];
    const double eke =
        0.5 * (sum_square / day - mean_square / (double(day) * day)) / double(points);
    std::printf("%d,%.6g,%.6g,%.6g\n", day, rms_ssh_difference(model, a, b), model.energy(a.data()),
                eke);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mcb::cli::run("ensflow_chaos", [&] { return run(argc, argv); });
}
