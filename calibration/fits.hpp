#pragma once
/// @file
/// @brief Models for what was not measured. Compute time a + b/P per application, problem and
/// system (the phase model of 003 section 3.1), one-way message time T0 + N/B per link class
/// and system (the lower bound of 004 section 5.1, fitted to `mcb-links` records), and their
/// combination into a service time for (total size, components). Least squares through Eigen.

#include "calibration/grouping.hpp"
#include "calibration/records.hpp"
#include "calibration/runtime_table.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcb::calib {

/// @brief A fitted line y = intercept + slope * x and how well it fits.
struct LineFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;    //!< 1 - SS_res / SS_tot over the points (1 when SS_tot = 0 = SS_res)
  double rmse = 0;  //!< root mean square residual, in units of y
  double max_relative_gap = 0;  //!< max over points of |y - fit| / y (points with y > 0)
  std::size_t points = 0;
};

/// @brief Weighted least squares of y = intercept + slope * x; @p weights (empty: all 1)
/// multiply each residual. @throws std::invalid_argument with fewer than two distinct x.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& weights = {});

/// @brief Configuration keys that change with the job's size and split; a compute fit pools runs
/// that differ only in these (and the keys grouping ignores anyway).
const std::vector<std::string>& size_keys();

/// @brief compute(P) = a + b / P, fitted to result.compute_time.avg against config.total_size.
struct ComputeFit {
  std::string app, problem, system;
  nlohmann::json core;  //!< shared configuration without size keys, system and wan
  double a = 0;         //!< seconds, the part that does not shrink with P
  double b = 0;         //!< processor-seconds, the part divided among P processes
  LineFit fit;
  std::int64_t p_min = 0, p_max = 0;  //!< measured range of P
  std::size_t sizes = 0;              //!< distinct P
  std::size_t runs = 0;
};

/// @brief T(N) = t0 + N / bandwidth for one link class on one system, fitted to the `avg` of
/// every point of every link-calibration run, each residual weighted by 1 / time so that small
/// and large messages count alike (relative least squares).
struct LinkFit {
  std::string system;
  std::string link_class;  //!< same_node, same_cluster or cross_cluster
  nlohmann::json config;   //!< shared configuration of the link runs (without sizes and counts)
  double t0 = 0;           //!< seconds
  double bandwidth = 0;    //!< bytes per second (0 when the fitted slope is not positive)
  LineFit fit;
  double bytes_min = 0, bytes_max = 0;  //!< measured range of message sizes
  std::size_t runs = 0;
  bool usable = false;  //!< slope > 0; an unusable fit is reported but never used
};

/// @brief The traffic an application run sent, as each rank received it: per rank, messages and
/// bytes from its own cluster (index 0) and from other clusters (index 1), summed over channels
/// and averaged over the runs of one (app, problem, total_size, components) configuration on
/// any system (traffic depends on the decomposition, not on the links).
struct TrafficProfile {
  std::string app, problem;
  std::int64_t total_size = 0, components = 0;
  nlohmann::json core;  //!< shared configuration without size keys, system and wan
  std::vector<std::array<double, 2>> messages, bytes;
  std::size_t runs = 0;
};

/// @brief A fit that could not be made, and why.
struct Skipped {
  std::string what;
  std::string reason;
};

/// @brief Everything fitted from one set of records.
struct Models {
  std::vector<ComputeFit> compute;
  std::vector<LinkFit> links;
  std::vector<TrafficProfile> traffic;
  std::vector<Skipped> skipped;
};

/// @brief Fits the models. @p app_runs are valid application runs, @p link_runs valid
/// `app: "links"` runs. @param hint filter option suggested when pooled runs differ.
/// @throws mcb::UsageError when runs pooled into one fit differ in configuration.
Models fit_models(const std::vector<const Record*>& app_runs,
                  const std::vector<const Record*>& link_runs, const std::string& hint);

/// @brief A configuration to predict: the key columns of a runtime row.
struct Target {
  std::string app, problem;
  std::int64_t total_size = 0, components = 0;
  std::string system;
};

/// @brief Parses "APP,PROBLEM,SIZE,COMPONENTS,SYSTEM". @throws mcb::UsageError naming @p option.
Target parse_target(const std::string& option, const std::string& text);

/// @brief A predicted service time: compute(P) + the busiest rank's communication, where a rank's
/// communication is sum over classes of messages * t0 + bytes / bandwidth of the link class the
/// traffic crosses (intra: same_cluster, else same_node; inter: cross_cluster).
struct Prediction {
  Target target;
  double compute = 0, comm = 0, service = 0;
  std::optional<Summary> measured;       //!< the runtime row of the same key, when there is one
  bool extrapolated = false;             //!< P or a message size outside the measured ranges
  std::string intra_class, inter_class;  //!< link classes used ("" when no such traffic)
};

/// @brief Predicts @p target. @returns the prediction, or the reason it cannot be made
/// (missing model, or outside the measured range when @p extrapolate is false).
std::optional<Prediction> predict(const Target& target, const Models& models,
                                  const std::vector<RuntimeRow>& measured, bool extrapolate,
                                  std::string& refusal);

/// @brief Every prediction the models support: each compute fit with each traffic profile of the
/// same application and problem. Targets that cannot be predicted go to @p skipped with the
/// reason (outside the range unless @p extrapolate).
std::vector<Prediction> predict_all(const Models& models, const std::vector<RuntimeRow>& measured,
                                    bool extrapolate, std::vector<Skipped>& skipped);

/// @name CSV texts of the fits
/// @{
/// compute_fits.csv: app,problem,system,a,b,r2,rmse,max_relative_gap,points,sizes,p_min,p_max
std::string compute_fits_csv(const std::vector<ComputeFit>& fits);
/// link_fits.csv: system,class,t0,bandwidth,r2,rmse,max_relative_gap,points,runs,bytes_min,
/// bytes_max,usable
std::string link_fits_csv(const std::vector<LinkFit>& fits);
/// service_times.csv: app,problem,total_size,components,system,compute,comm,service,measured_n,
/// measured_avg,relative_error,extrapolated
std::string service_times_csv(const std::vector<Prediction>& predictions);
/// @}

/// @brief The fits and their goodness as JSON (for calibration.json): each fit with its
/// configuration and range; per (app, problem, system) the mean and max |relative error| of
/// the predictions that have a measured row; the skipped fits with reasons.
nlohmann::json models_json(const Models& models, const std::vector<Prediction>& predictions);

}  // namespace mcb::calib
