#include "apps/ensflow/truth.hpp"

#include "apps/ensflow/random.hpp"

#include <stdexcept>

namespace mcb::ensflow {

std::vector<double> spin_up(QgModel& model, int days, std::int64_t seed) {
  std::vector<double> q(model.size(), 0.0);
  if (seed != 0) {
    PerturbationField noise(model.parameters(), kSpinupNoiseM, kSpinupNoiseKm);
    KeyedStream stream(seed, StreamPurpose::spinup_noise);
    noise.draw(stream, model, q.data());
  }
  for (int day = 0; day < days; ++day) model.advance_day(q.data());
  return q;
}

Truth make_truth(const ExperimentSettings& s, QgModel& model, PerturbationField& perturbations,
                 const ObservationNetwork& network) {
  const std::size_t n = model.size();
  Truth truth;
  truth.background = s.background ? *s.background : spin_up(model, s.spinup_days, s.spinup_seed);
  if (truth.background.size() != n) throw std::invalid_argument("background of the wrong size");

  std::vector<double> q(n);
  KeyedStream stream(s.truth_seed, StreamPurpose::truth_perturbation);
  perturbations.draw(stream, model, q.data());
  for (std::size_t c = 0; c < n; ++c) q[c] += truth.background[c];

  auto keep = [&](int day) {
    std::vector<double> psi(n);
    model.invert(q.data(), psi.data());
    truth.psi[day] = std::move(psi);
  };
  keep(0);
  for (int day = 1; day <= s.days; ++day) {
    model.advance_day(q.data());
    if (s.is_analysis_day(day) || day == s.days) keep(day);
    if (s.is_analysis_day(day)) {
      truth.observations.push_back(
          network.synthetic(truth.psi[day].data(), s.truth_seed, s.analysis_index(day)));
    }
  }
  return truth;
}

}  // namespace mcb::ensflow
