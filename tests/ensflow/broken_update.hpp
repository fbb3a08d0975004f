#pragma once
/// @file
/// @brief Four classic defects of an EnKF implementation, each wrapped around a correct update
/// step, for ensflow_verdict_test and ensflow_reference_test.

#include "apps/ensflow/update.hpp"

#include <Eigen/Dense>

#include <memory>
#include <string>

namespace mcb::ensflow::defects {

enum class Defect { no_perturbed_observations, mean_only, r_as_standard_deviation, half_gain };

inline const char* defect_name(Defect d) {
  switch (d) {
    case Defect::no_perturbed_observations:
      return "no perturbed observations";
    case Defect::mean_only:
      return "mean-only update";
    case Defect::r_as_standard_deviation:
      return "R read as a standard deviation";
    case Defect::half_gain:
      return "gain halved";
  }
  return "?";
}

/// A correct update step with one defect wrapped around it.
class BrokenUpdate final : public UpdateStep {
 public:
  BrokenUpdate(Defect defect, std::unique_ptr<UpdateStep> inner)
      : defect_(defect), inner_(std::move(inner)) {}

  Eigen::MatrixXd prepare(const Eigen::MatrixXd& observed, const Eigen::VectorXd& y,
                          const Eigen::MatrixXd& e) override {
    if (defect_ == Defect::no_perturbed_observations)
      return inner_->prepare(observed, y, Eigen::MatrixXd::Zero(e.rows(), e.cols()));
    return damage(observed, inner_->prepare(observed, y, e));
  }
  Eigen::MatrixXd apply(std::size_t first_row, const Eigen::MatrixXd& forecast) const override {
    return damage(forecast, inner_->apply(first_row, forecast));
  }

 private:
  Eigen::MatrixXd damage(const Eigen::MatrixXd& forecast, const Eigen::MatrixXd& analysed) const {
    if (defect_ == Defect::half_gain) return forecast + 0.5 * (analysed - forecast);
    if (defect_ == Defect::mean_only) {
      const Eigen::VectorXd shift = analysed.rowwise().mean() - forecast.rowwise().mean();
      return forecast.colwise() + shift;
    }
    return analysed;
  }
  Defect defect_;
  std::unique_ptr<UpdateStep> inner_;
};

/// The update factory of the program with @p defect substituted.
inline UpdateFactory broken(Defect defect) {
  return [defect](const AnalysisSettings& s, const AnalysisGeometry& g) {
    AnalysisSettings used = s;
    // The option's variance taken for a standard deviation: R = value^2.
    if (defect == Defect::r_as_standard_deviation)
      used.observation_variance = s.observation_variance * s.observation_variance;
    return std::make_unique<BrokenUpdate>(defect, make_update_step(used, g));
  };
}

}  // namespace mcb::ensflow::defects
