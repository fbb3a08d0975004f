#include "simulator/model_pricing.hpp"

#include "common/errors.hpp"
#include "common/job_models.hpp"
#include "simulator/tables.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mcb::sim {

namespace mt = matching;

const mt::Job* JobModels::find(int app, int tasks) const {
  if (app < 0 || static_cast<std::size_t>(app) >= by_app.size()) return nullptr;
  const auto& sizes = by_app[static_cast<std::size_t>(app)];
  const auto it = sizes.find(tasks);
  return it == sizes.end() ? nullptr : &it->second;
}

double JobModels::largest_pnbw() const {
  double most = 0;
  for (const auto& sizes : by_app) {
    for (const auto& [tasks, job] : sizes) most = std::max(most, job.pnbw);
  }
  return most;
}

JobModels load_job_models(const std::string& file, const std::vector<std::string>& apps,
                          const PriceBook& book) {
  const JobModelTable table = JobModelTable::read(file);
  JobModels models;
  models.file = table.file;
  for (const std::string& app : apps) {
    const auto chosen = book.chosen().find(app);
    if (chosen == book.chosen().end()) {
      throw UsageError("--job-model: " + table.file + ": app '" + app + "' is not priced by " +
                       "--tables");
    }
    const std::string& problem = chosen->second.first;
    std::map<int, mt::Job>& sizes = models.by_app.emplace_back();
    for (const int total : book.sizes(app)) {
      const JobModelRow* row = table.find(app, problem, total);
      if (row == nullptr) {
        throw UsageError("--job-model: " + table.file + ": no model of " + app + " " + problem +
                         " on " + std::to_string(total) + " processors, which --tables prices");
      }
      const double share = row->comm_share();
      sizes.emplace(total, mt::Job{total, row->pnbw, 1.0 - share, share});
    }
  }
  return models;
}

ModelPricing::ModelPricing(std::shared_ptr<const mt::Platform> platform, double pnbw,
                           double comm_share, bool unsaturated,
                           std::shared_ptr<const JobModels> models)
    : platform_(std::move(platform)),
      job_{1, pnbw, 1.0 - comm_share, comm_share},
      models_(std::move(models)),
      unsaturated_(unsaturated) {
  if (!platform_) throw std::invalid_argument("model pricing needs --platform");
  // The nodes' order below takes eligibility for the most demanding job.
  if (models_) job_.pnbw = models_->largest_pnbw();
  const std::size_t clusters = platform_->clusters.size();
  order_.resize(clusters);
  busy_.resize(clusters);
  for (std::size_t c = 0; c < clusters; ++c) {
    const auto& nodes = platform_->clusters[c].nodes;
    busy_[c].assign(nodes.size(), 0);
    for (std::size_t k = 0; k < nodes.size(); ++k) order_[c].push_back(static_cast<int>(k));
    // Eligible nodes first, so that the nodes priced are those a matcher could have chosen.
    const auto key = [&](int k) {
      const mt::Node& n = nodes[static_cast<std::size_t>(k)];
      return std::make_pair(mt::node_eligible(n, job_), mt::effective_power(n));
    };
    std::stable_sort(order_[c].begin(), order_[c].end(),
                     [&](int x, int y) { return key(x) > key(y); });
  }
  load_.assign(clusters, 0.0);
}

ModelPricing::View ModelPricing::view(std::span<const int> avail) const {
  View v;
  v.nodes.resize(busy_.size());
  for (std::size_t c = 0; c < busy_.size(); ++c) {
    const mt::Cluster& src = platform_->clusters[c];
    const auto want = static_cast<std::size_t>(std::max(0, avail[c]));
    for (const char busy : {0, 1}) {
      for (int k : order_[c]) {
        if (v.nodes[c].size() < want && busy_[c][static_cast<std::size_t>(k)] == busy) {
          v.nodes[c].push_back(k);
        }
      }
    }
    mt::Cluster cl{src.name, {}, src.link_max, src.link_consumed + load_[c]};
    for (int k : v.nodes[c]) cl.nodes.push_back(src.nodes[static_cast<std::size_t>(k)]);
    v.platform.clusters.push_back(std::move(cl));
  }
  return v;
}

const mt::Job& ModelPricing::job(int app, int tasks) const {
  if (!models_) return job_;
  const mt::Job* found = models_->find(app, tasks);
  if (found == nullptr) {
    throw std::logic_error("model pricing: --job-model has no model of application " +
                           std::to_string(app) + " on " + std::to_string(tasks) + " processors");
  }
  return *found;
}

double ModelPricing::start(std::uint32_t job, int app, std::span<const int> alloc) {
  int tasks = 0;
  for (const int n : alloc) tasks += n;
  const mt::Job& model = this->job(app, tasks);
  const View v = view(alloc);
  mt::Assignment a;
  a.nodes.resize(alloc.size());
  Held held;
  for (std::size_t c = 0; c < alloc.size(); ++c) {
    for (int k = 0; k < alloc[c]; ++k) {
      const int node = v.nodes[c].at(static_cast<std::size_t>(k));
      if (busy_[c][static_cast<std::size_t>(node)]) {
        throw std::logic_error("model pricing: cluster " + std::to_string(c) +
                               " has fewer idle nodes than job " + std::to_string(job) + " takes");
      }
      a.nodes[c].push_back(k);
      held.nodes.emplace_back(static_cast<int>(c), node);
    }
  }
  mt::Job job_model = model;
  job_model.tasks = a.total();
  const mt::Prediction p = mt::predict(v.platform, job_model, a);
  for (const auto& [c, node] : held.nodes) {
    busy_[static_cast<std::size_t>(c)][static_cast<std::size_t>(node)] = 1;
  }
  held.demand.assign(alloc.size(), 0.0);
  for (std::size_t c = 0; c < alloc.size(); ++c) {
    if (alloc[c] == 0 || alloc[c] == job_model.tasks) continue;  // does not cross link c
    held.demand[c] = mt::link_demand(alloc[c], job_model.tasks, model.pnbw);
    load_[c] += held.demand[c];
  }
  held_[job] = std::move(held);
  ++version_;
  return p.time / (model.processing + model.communication);
}

void ModelPricing::depart(std::uint32_t job) {
  const auto it = held_.find(job);
  if (it == held_.end()) return;
  for (const auto& [c, node] : it->second.nodes) {
    busy_[static_cast<std::size_t>(c)][static_cast<std::size_t>(node)] = 0;
  }
  for (std::size_t c = 0; c < load_.size(); ++c) load_[c] -= it->second.demand[c];
  held_.erase(it);
  ++version_;
}

double ModelPricing::bound() const {
  if (!models_) return bound_of(job_);
  double most = 0;
  for (const auto& sizes : models_->by_app) {
    for (const auto& [tasks, model] : sizes) most = std::max(most, bound_of(model));
  }
  return most;
}

double ModelPricing::bound(int app, int tasks) const { return bound_of(job(app, tasks)); }

double ModelPricing::bound_of(const mt::Job& job) const {
  double sp = 1.0;
  double sc = 1.0;
  for (const mt::Cluster& c : platform_->clusters) {
    for (const mt::Node& n : c.nodes) {
      if (mt::effective_power(n) > 0) sp = std::max(sp, mt::node_processing_slowdown(n));
    }
    if (!unsaturated_) {
      const double most = static_cast<double>(c.nodes.size()) * job.pnbw;
      sc = std::max(sc, mt::link_slowdown(c.link_max, c.link_consumed, most));
    }
  }
  return (job.processing * sp + job.communication * sc) / (job.processing + job.communication);
}

}  // namespace mcb::sim
