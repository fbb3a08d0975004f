#pragma once
/// @file
/// @brief The multi-component application (CCSM-like) in seed 003's execution model
/// (sections 2 and 3.1-3.2): component phase models compute = a + b / P, coupling traffic to the
/// coupler over the inter-cluster link, and the scheduler that picks a processor allocation and
/// a component mapping by predicted time, with the cost of moving restart files.

#include <string>
#include <vector>

namespace mcb::batchgrid {

/// @brief One component. Times are per simulated day.
struct Component {
  std::string name;
  double a = 0, b = 0;            //!< compute seconds per simulated day = a + b / P
  double couplings_per_day = 0;   //!< coupling periods per simulated day
  double bytes_per_coupling = 0;  //!< received and again sent in each coupling period
  double restart_bytes = 0;       //!< the component's restart dump
};

/// @brief The application and the costs of moving it.
struct AppModel {
  std::vector<Component> components;  //!< the first hosts the coupler
  double wan_latency = 0.001;         //!< seconds per message between sites
  double local_bandwidth = 1e9;       //!< bit/s within one site
  double restart_overhead = 60;       //!< seconds to dump and restart at each rescheduling
  double plan_days = 30;              //!< simulated days a schedule is chosen for
};

/// @brief The application the study uses (four components of CCSM's shape; see the README for
/// where the numbers come from).
AppModel ccsm_model();

/// @brief Processors and site of every component.
struct Schedule {
  std::vector<int> procs;
  std::vector<int> site;
  double day_seconds = 0;   //!< predicted wall-clock seconds per simulated day
  double move_seconds = 0;  //!< predicted restart-file transfer from the previous schedule
  bool valid() const { return !procs.empty(); }
};

/// @brief Wall-clock seconds per simulated day: the slowest component paces the coupled run.
/// @param bandwidth inter-site bandwidth, bit/s
double day_seconds(const AppModel& m, const std::vector<int>& procs, const std::vector<int>& site,
                   double bandwidth);

/// @brief Seconds to move the restart files of the components whose site changes.
double move_seconds(const AppModel& m, const Schedule& from, const std::vector<int>& site,
                    double bandwidth);

/// @brief Best power-of-two allocation of at most @p total processors on one site (the
/// single-system best schedule); invalid if @p total is below the number of components.
Schedule best_single(const AppModel& m, int total);

/// @brief Best allocation near @p base (each size a power of two from base / 8 to base x 2)
/// and mapping onto the active sites, whose capacities are @p capacity (0: inactive), chosen
/// by plan_days x day time + restart-file moves from @p previous. If nothing near the base
/// fits, sizes down to 1 are allowed. Invalid only if no site is active or even that fails.
Schedule best_schedule(const AppModel& m, const std::vector<int>& base,
                       const std::vector<int>& capacity, const Schedule& previous,
                       double bandwidth);

}  // namespace mcb::batchgrid
