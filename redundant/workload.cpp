#include "redundant/workload.hpp"

#include "common/errors.hpp"
#include "redundant/coalloc.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>

namespace mcb::redundant {

double SyntheticWorkload::mean_work(const WorkloadParams& work) {
  const double sizes = std::accumulate(work.sizes.begin(), work.sizes.end(), 0.0);
  return sizes / static_cast<double>(work.sizes.size()) * work.runtime_mean;
}

SyntheticWorkload::SyntheticWorkload(const GridConfig& config) : config_(config) {
  const size_t n = config.sites.size();
  const double work = mean_work(config.work);
  const double total = std::accumulate(config.sites.begin(), config.sites.end(), 0.0);
  for (size_t s = 0; s <= n; ++s) {
    arrivals_.emplace_back(derive_seed(config.seed, 2 * s));
    shapes_.emplace_back(derive_seed(config.seed, 2 * s + 1));
    // Jobs that do not fit a small site are drawn again, so its rate is set from the sizes
    // that fit it; the global load is of one average site unless it is of the whole grid.
    const double capacity =
        s < n ? config.sites[s]
              : config.global_load *
                    (config.global_load_of_grid ? total : total / static_cast<double>(n));
    // A co-allocated job takes twice its drawn size (two parts of it).
    const double global_work = config.sync == Sync::none ? work : 2 * work;
    rates_.push_back(s < n ? config.local_load * capacity / work : capacity / global_work);
    next_.push_back(rates_.back() > 0 ? arrivals_.back().exponential(rates_.back()) : sim::kNever);
  }
  if (config.global_jobs == 0) next_[n] = sim::kNever;
}

void SyntheticWorkload::draw(Rng& rng, int largest, ListedJob& job) const {
  const auto& sizes = config_.work.sizes;
  do {
    job.size = sizes[rng.below(sizes.size())];
  } while (job.size > largest);
  job.runtime = rng.exponential(1.0 / config_.work.runtime_mean);
  job.requested = job.runtime * (1.0 + rng.uniform() * (config_.work.estimate_max - 1.0));
}

bool SyntheticWorkload::next(ListedJob& job, std::int64_t& index) {
  const size_t n = config_.sites.size();
  const auto first = std::min_element(next_.begin(), next_.end());
  const auto s = static_cast<size_t>(first - next_.begin());
  const Time t = *first;
  if (t == sim::kNever || t > horizon_) return false;
  job.submit = t;
  if (s == n) {
    job.kind = kGlobalJob;
    job.site = -1;
    draw(shapes_[s], *std::max_element(config_.sites.begin(), config_.sites.end()), job);
    if (config_.sync != Sync::none) job.size *= 2;  // the upper bound over both parts
    if (++globals_ == config_.global_jobs) {
      horizon_ = t;
      next_[s] = sim::kNever;
    }
  } else {
    job.kind = kLocalJob;
    job.site = static_cast<int>(s);
    draw(shapes_[s], config_.sites[s], job);
  }
  if (next_[s] != sim::kNever) next_[s] = t + arrivals_[s].exponential(rates_[s]);
  index = count_++;
  return true;
}

ListedWorkload::ListedWorkload(const GridConfig& config, std::vector<ListedJob> jobs)
    : jobs_(std::move(jobs)) {
  std::vector<int> sites = config.sites;
  std::sort(sites.begin(), sites.end(), std::greater<>());
  const bool coalloc = config.sync != Sync::none;
  // A co-allocated job's part must fit two sites.
  const int largest = coalloc && sites.size() > 1 ? 2 * sites[1] : sites.front();
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const ListedJob& j = jobs_[i];
    const std::string where = "job " + std::to_string(i) + ": ";
    if (i > 0 && j.submit < jobs_[i - 1].submit) {
      throw UsageError(where + "submit " + std::to_string(j.submit) + " before the previous job");
    }
    const bool local = j.kind == kLocalJob;
    const int fits = local && j.site >= 0 && static_cast<size_t>(j.site) < config.sites.size()
                         ? config.sites[static_cast<size_t>(j.site)]
                         : largest;
    const bool split = !local && coalloc;
    if (j.size < (split ? 2 : 1) || j.size > fits || j.runtime <= 0 || j.requested < j.runtime ||
        (split && (j.min_size < 0 || j.min_size > j.size)) || (split && sites.size() < 2)) {
      throw UsageError(where + "size " + std::to_string(j.size) + " or times do not fit");
    }
    globals_ += local ? 0 : 1;
  }
}

bool ListedWorkload::next(ListedJob& job, std::int64_t& index) {
  if (at_ == jobs_.size()) return false;
  index = static_cast<std::int64_t>(at_);
  job = jobs_[at_++];
  return true;
}

CopySource::CopySource(GridState& state, WorkloadGenerator& generator)
    : state_(state), generator_(generator) {
  state_.groups().reserve(generator.global_jobs());
}

int CopySource::open_group(std::int64_t index) {
  const auto& config = state_.config();
  const bool coalloc = config.sync != Sync::none;
  const int need = coalloc ? current_.size / 2 : current_.size;
  const auto& sites = config.sites;
  const auto fit =
      std::count_if(sites.begin(), sites.end(), [&](int size) { return size >= need; });
  const int copies = static_cast<int>(std::min<std::int64_t>(config.duplicates + (coalloc ? 2 : 1),
                                                             static_cast<std::int64_t>(fit)));
  Group g;
  g.submit = current_.submit;
  g.copies = copies;
  g.index = index;
  g.measured = state_.groups().size() >= config.warmup_jobs;
  if (coalloc) {
    g.upper = current_.size;
    g.lower = current_.min_size > 0 ? current_.min_size
                                    : lower_bound(current_.size, config.coalloc_lower);
    g.runtime = current_.runtime;
    g.requested = current_.requested;
  }
  if (g.measured && state_.measure_from == sim::kNever) state_.measure_from = g.submit;
  group_ = static_cast<std::int64_t>(state_.groups().size());
  state_.groups().push_back(g);
  return copies;
}

bool CopySource::next(sim::Job& job) {
  if (!stash_.empty()) {
    job = std::move(stash_.back());
    stash_.pop_back();
    return true;
  }
  std::int64_t index = 0;
  if (copies_left_ == 0) {
    if (!generator_.next(current_, index)) return false;
    copy_ = 0;
    if (current_.kind == kGlobalJob) {
      copies_left_ = open_group(index);
    } else {
      group_ = index;
    }
  }
  job = sim::Job{};
  job.submit = current_.submit;
  job.app = current_.kind;
  job.req.type = sim::RequestType::kUnordered;
  job.req.sizes = {current_.size};
  job.req.total = current_.size;
  job.home = current_.site;
  job.price.runtime = current_.runtime;
  job.price.requested = current_.requested;
  job.id = group_;
  job.line = copy_;
  if (current_.kind == kGlobalJob) {
    --copies_left_;
    ++copy_;
  }
  return true;
}

bool CopySource::earlier(sim::Job& pending, bool have_pending) {
  auto& due = state_.resubmits;
  if (due.empty()) return false;
  if (have_pending) stash_.push_back(std::move(pending));
  const GridState::Resubmit r = due.front();
  due.pop_front();
  // The part's size and runtime are its group's, set when it is admitted.
  pending = sim::Job{};
  pending.submit = r.at;
  pending.app = kGlobalJob;
  pending.req.type = sim::RequestType::kUnordered;
  pending.id = r.group;
  pending.home = r.site;
  pending.line = -1;
  return true;
}

}  // namespace mcb::redundant
