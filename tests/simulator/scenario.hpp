#pragma once
// Hand-built scenarios: a list of jobs with runtimes, run through the real engine, policy,
// queue discipline and placement rule, with every job's start, end and clusters recorded.

#include "simulator/discipline.hpp"
#include "simulator/engine.hpp"
#include "simulator/policy.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mcb::sim::test {

struct Spec {
  std::int64_t id = 0;
  double submit = 0;
  std::vector<int> sizes;  // components (flexible: the total)
  double runtime = 1;
  int home = -1;
  RequestType type = RequestType::kUnordered;
  std::vector<int> clusters = {};  // fixed requests
  double requested = -1;           // -1: the runtime
  int min_size = 0;                // moldable requests: smallest size accepted
};

struct Outcome {
  double submit = 0, start = 0, end = 0, reserved = kNever, service = 0, net = 0;
  std::vector<int> alloc;
  int queue = 0;
  int held = 0;
};

class VectorSource final : public JobSource {
 public:
  explicit VectorSource(std::vector<Spec> jobs) : jobs_(std::move(jobs)) {}
  bool next(Job& job) override {
    if (i_ == jobs_.size()) return false;
    const Spec& s = jobs_[i_++];
    job.id = s.id;
    job.submit = s.submit;
    job.app = 0;
    job.home = s.home;
    job.line = 0;
    job.price = Pricing{nullptr, s.runtime, s.requested};
    job.req = Request{};
    job.req.type = s.type;
    job.req.sizes.assign(s.sizes.begin(), s.sizes.end());
    job.req.clusters = s.clusters;
    job.req.total = 0;
    for (int x : s.sizes) job.req.total += x;
    job.req.min_size = s.min_size;
    return true;
  }

 private:
  std::vector<Spec> jobs_;
  size_t i_ = 0;
};

class Capture final : public Observer {
 public:
  void on_start(const Job& job, const Sim&) override { order.push_back(job.id); }
  void on_departure(const Job& job, const Sim&) override {
    jobs[job.id] = Outcome{job.submit,
                           job.start,
                           job.end,
                           job.first_reservation,
                           job.service,
                           job.net_service,
                           {job.alloc.begin(), job.alloc.end()},
                           job.queue,
                           job.held};
  }
  std::map<std::int64_t, Outcome> jobs;
  std::vector<std::int64_t> order;  // start order
};

struct Scenario {
  std::string clusters = "2x4";
  std::string policy = "gs";
  std::string queue = "fcfs";
  std::string placement = "wf";
  std::vector<double> speeds = {};
  double coalloc = 1.0;
  std::vector<double> coalloc_by_count = {};  //!< overrides coalloc when given (index: clusters)
  std::vector<double> site_rates = {};        //!< relative arrival rates by home cluster
  double estimate = 1.0;
  Compression compression = Compression::kArrival;
  CompressAt compress_at = CompressAt::kEarlyEnd;
  bool arrival_pass = true;
  bool home_in_turn = false;
  GlobalVisit global_visit = GlobalVisit::kNextRound;
  SiteSelection site = SiteSelection::kIdle;
  SpeedupModel speedup = {};
};

inline Capture simulate(const Scenario& s, std::vector<Spec> jobs) {
  MachineSpec m = parse_clusters(s.clusters);
  if (!s.speeds.empty()) m.speeds = s.speeds;
  m.home_rates = s.site_rates;
  RunLimits limits;
  limits.arrival_pass = s.arrival_pass;
  limits.home_in_turn = s.home_in_turn;
  PlacementSettings settings;
  settings.site_selection = s.site;
  ServiceModel service = s.coalloc_by_count.empty() ? ServiceModel(s.coalloc, s.estimate)
                                                    : ServiceModel(s.coalloc_by_count, s.estimate);
  service.set_speedup(s.speedup);
  Sim sim(m, make_policy(s.policy, m.clusters(), s.global_visit),
          make_discipline(s.queue, s.compression, s.compress_at),
          make_placement(s.placement, settings), service, limits);
  VectorSource source(std::move(jobs));
  Capture capture;
  sim.run(source, capture);
  return capture;
}

}  // namespace mcb::sim::test
