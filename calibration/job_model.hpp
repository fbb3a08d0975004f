#pragma once
/// @file
/// @brief Seed 002's job model (MetaLoRaS, section 2) fitted to application runs: eq. 1,
/// T = T^p x SP + T^c x SC, per job (application, problem, total size). T^p and T^c are measured
/// on one cluster without a load; SP = 1 / (P x A) with P = 1 (one kind of node) and A = 1 - the
/// CPU share the run's load generators reached, as measured (eqs. 2-3); SC = max(1, BW^j / BW^max)
/// over the links the run crossed, BW^j from eq. 4 with the job's PNBW, BW^max the emulated link's
/// bandwidth (eqs. 4-7). PNBW is the one parameter fitted: the value that makes eq. 1 meet the
/// co-allocated runs best in relative least squares. calibration/README.md, "Seed 002's job model",
/// argues the choice.

#include "calibration/fits.hpp"
#include "calibration/records.hpp"
#include "common/job_models.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace mcb::calib {

/// @brief A co-allocated run as the fit of PNBW sees it.
struct PnbwPoint {
  double processing = 0;  //!< T^p x SP of the run, seconds
  double crossing = 0;    //!< max over links of eq. 4's n_i (n_T - n_i) / (n_T - 1) / BW^max
  double measured = 0;    //!< the run's wall time, seconds (> 0)
};

/// @brief SC of eqs. 5-7 for a run whose links give @p crossing (see PnbwPoint) at @p pnbw.
double communication_slowdown(double crossing, double pnbw);

/// @brief The PNBW >= 0 that minimises the sum over @p points of ((T^p SP + T^c SC) / measured
/// - 1)^2, exactly: the sum is quadratic in PNBW between the points where a link starts to
/// saturate, so each piece's minimum is taken and the least kept (ties to the smaller PNBW;
/// 0 when no point ever saturates a link, or when T^c is 0).
double fit_pnbw(double tc, const std::vector<PnbwPoint>& points);

/// @brief One measured run and the model's prediction of it.
struct ModelRun {
  std::string run_id, source;  //!< the record's id and file:line
  std::string app, problem;
  std::int64_t total_size = 0;
  int clusters = 1;
  std::string link_class;      //!< "intra" (one cluster), else "<latency>/<bandwidth>" of the link
  double latency = 0;          //!< seconds (0 for intra)
  double bandwidth = 0;        //!< MB/s (0 for intra)
  double cpu_share_asked = 0;  //!< the CPU share --node-load asked for
  double cpu_share = 0;        //!< the share its generators reached (mean over hosts): A = 1 - it
  double sp = 1, sc = 1;
  double predicted = 0, measured = 0;
  double relative_error() const { return (predicted - measured) / measured; }
};

/// @brief The median and largest |relative error| of the runs over one link class.
struct LinkClassError {
  std::string link_class;
  double latency = 0, bandwidth = 0;
  std::size_t runs = 0;
  double median_abs_relative_error = 0, max_abs_relative_error = 0;
};

/// @brief Everything fitted: one model per job, every run predicted, the errors per class.
struct JobModelFit {
  JobModelTable models;
  std::vector<ModelRun> runs;  //!< every run of a modelled job, by job then reading order
  std::vector<LinkClassError> classes;
  std::vector<Skipped> skipped;  //!< jobs and runs the model could not take, and why
};

/// @brief Fits the model to the valid application runs @p runs. Runs of one job must agree in
/// their configuration but for the split, the load, the links and the seed; @p hint is the
/// filter option suggested when they do not.
/// @throws mcb::UsageError naming the record when its split, load or links cannot be read, or
/// when the runs of one job differ.
JobModelFit fit_job_models(const std::vector<const Record*>& runs, const std::string& hint);

/// job_model_runs.csv: run_id,source,app,problem,total_size,clusters,link_class,
/// cpu_share_asked,cpu_share,sp,sc,predicted,measured,relative_error
std::string job_model_runs_csv(const JobModelFit& fit);
/// job_model_links.csv: link_class,latency,bandwidth,runs,median_abs_relative_error,
/// max_abs_relative_error
std::string job_model_links_csv(const JobModelFit& fit);
/// The fit as JSON for job_model.json: the models, the classes, the skipped jobs and runs.
nlohmann::json job_model_json(const JobModelFit& fit);

}  // namespace mcb::calib
