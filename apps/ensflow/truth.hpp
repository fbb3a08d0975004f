#pragma once
/// @file
/// @brief The truth run of the twin experiment. The background is the state after a spin-up
/// from rest under the wind; the truth starts from the background plus one random departure
/// (members start from the background plus their own departures, drawn from the same
/// distribution, so the truth is statistically one more member). Every process computes the
/// truth itself: it is deterministic, costs one member's run, and needs no communication.

#include "apps/ensflow/model.hpp"
#include "apps/ensflow/observations.hpp"
#include "apps/ensflow/settings.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <vector>

namespace mcb::ensflow {

struct Truth {
  std::vector<double> background;          //!< q after the spin-up
  std::map<int, std::vector<double>> psi;  //!< truth streamfunction on day 0, analysis days, day D
  std::vector<Eigen::VectorXd> observations;  //!< synthetic SSH observations, per analysis
};

/// @brief RMS SSH (m) and correlation length (km) of the noise the spin-up starts from.
inline constexpr double kSpinupNoiseM = 1e-3;
inline constexpr double kSpinupNoiseKm = 150;

/// @brief The state after @p days under the wind, from rest plus a small random departure
/// drawn from @p seed (kSpinupNoiseM). Wind and basin are mirror-symmetric about mid-basin, so
/// a spin-up from exact rest keeps that symmetry for ever (gyres and eddies in mirror pairs);
/// the noise lets the eddies break it as they would in an ocean. Seed 0: from exact rest (the
/// background of earlier versions).
std::vector<double> spin_up(QgModel& model, int days, std::int64_t seed);

/// @brief Spins up the background (or takes settings.background) and runs the truth for the
/// whole experiment.
Truth make_truth(const ExperimentSettings& settings, QgModel& model,
                 PerturbationField& perturbations, const ObservationNetwork& network);

}  // namespace mcb::ensflow
