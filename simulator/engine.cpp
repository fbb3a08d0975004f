#include "simulator/engine.hpp"

#include "simulator/discipline.hpp"
#include "simulator/moldable.hpp"
#include "simulator/policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace mcb::sim {

JobId JobStore::add_new() {
  if (size_ == chunks_.size() << kShift) chunks_.push_back(std::make_unique<Job[]>(kMask + 1));
  return static_cast<JobId>(size_++);
}

void JobQueue::push_back(JobStore& store, JobId id) {
  Job& j = store[id];
  j.prev = tail_;
  j.next = kNoJob;
  if (tail_ != kNoJob) {
    store[tail_].next = id;
  } else {
    head_ = id;
  }
  tail_ = id;
  ++size_;
}

void JobQueue::push_front(JobStore& store, JobId id) {
  Job& j = store[id];
  j.prev = kNoJob;
  j.next = head_;
  if (head_ != kNoJob) {
    store[head_].prev = id;
  } else {
    tail_ = id;
  }
  head_ = id;
  ++size_;
}

void JobQueue::remove(JobStore& store, JobId id) {
  Job& j = store[id];
  if (j.prev != kNoJob) {
    store[j.prev].next = j.next;
  } else {
    head_ = j.next;
  }
  if (j.next != kNoJob) {
    store[j.next].prev = j.prev;
  } else {
    tail_ = j.prev;
  }
  j.prev = j.next = kNoJob;
  --size_;
}

Sim::Sim(MachineSpec machine, std::unique_ptr<Policy> policy,
         std::unique_ptr<QueueDiscipline> discipline, std::unique_ptr<PlacementRule> placement,
         ServiceModel service, RunLimits limits)
    : machine_(std::move(machine)),
      policy_(std::move(policy)),
      discipline_(std::move(discipline)),
      placement_(std::move(placement)),
      service_(std::move(service)),
      limits_(limits),
      routing_(limits.routing_seed),
      queues_(static_cast<size_t>(policy_->queue_count())) {
  placement_->set_speeds(machine_.spec().speeds);
}

Sim::~Sim() = default;

double Sim::requested_duration(const Job& job, std::span<const int> alloc) const {
  int k = 0;
  for (int p : alloc) k += p > 0;
  return service_.requested_base(job, k) * service_.stretch(job, alloc) / machine_.slowest(alloc);
}

bool Sim::try_start(int q) {
  if (queue(q).empty() || !policy_->may_start(q, *this)) return false;
  int buf[kMaxClusters];
  std::span<int> alloc(buf, static_cast<size_t>(machine_.clusters()));
  JobId id = kNoJob;
  if (!discipline_->select(*this, q, id, alloc)) return false;
  start(id, alloc);
  return true;
}

void Sim::start(JobId id, std::span<const int> alloc, bool open_end) {
  Job& j = store_[id];
  queue(j.queue).remove(store_, id);
  --waiting_;
  machine_.allocate(alloc);
  j.alloc.assign(alloc.begin(), alloc.end());
  int k = 0;  // clusters used
  j.held = 0;
  for (int p : alloc) {
    k += p > 0;
    j.held += p;
  }
  // The pace of the slowest cluster used, slower still for a moldable job given fewer
  // processors than it asked for.
  const double pace = machine_.slowest(alloc) / service_.stretch(j, alloc);
  // Priced by seed 002's model (--platform), the single-cluster time is stretched by its factor.
  const double model = placement_->on_start(id, j.req, alloc);
  j.start = now_;
  j.service = model > 0 ? service_.net_base(j) * model : service_.base(j, k) / pace;
  j.net_service = service_.net_base(j) / pace;
  j.expected_end = now_ + (model > 0 ? service_.requested_base(j, 1) * model
                                     : service_.requested_base(j, k) / pace);
  if (j.left >= 0) {  // a suspended job resumes with what it had left
    j.service = j.left;
    j.expected_end = now_ + j.left_requested;
    j.left = j.left_requested = -1;
  }
  j.end = open_end ? kNever : now_ + j.service;
  if (open_end) j.service = kNever;
  j.components_run =
      j.req.type == RequestType::kFlexible ? k : static_cast<int>(j.req.sizes.size());
  j.running_index = static_cast<std::uint32_t>(running_.size());
  running_.push_back(id);
  j.departure = 0;
  if (!open_end) push_departure(id);
  ++version_;
  discipline_->on_start(*this, id);
  observer_->on_start(j, *this);
}

void Sim::close_end(JobId id, double remaining) {
  Job& j = store_[id];
  if (j.start == kNever || j.end != kNever || !(remaining >= 0) || remaining == kNever) {
    throw std::logic_error("close_end: the job is not running with an open end");
  }
  j.end = now_ + remaining;
  j.service = j.end - j.start;
  push_departure(id);
  ++version_;
}

void Sim::push_departure(JobId id) {
  Job& j = store_[id];
  j.departure = ++starts_;
  departures_.push({j.end, j.departure, id});
}

void Sim::preempt(JobId id) {
  Job& j = store_[id];
  if (j.start == kNever || j.end == kNever || j.departure == 0 || !(j.end > now_)) {
    throw std::logic_error("preempt: the job is not running with a set end");
  }
  machine_.release(j.alloc);
  placement_->on_depart(id);
  const std::uint32_t at = j.running_index;
  running_[at] = running_.back();
  store_[running_[at]].running_index = at;
  running_.pop_back();
  j.departure = 0;  // its departure event is stale from now on
  j.left = j.end - now_;
  j.left_requested = std::max(j.expected_end - now_, j.left);
  j.plan = j.left_requested;
  j.suspended = now_;
  ++j.preemptions;
  queue(j.queue).push_front(store_, id);
  ++waiting_;
  ++version_;
  discipline_->on_preempt(*this, id);
}

void Sim::admit(JobId id) {
  Job& j = store_[id];
  j.seq = arrivals_++;
  j.measured = j.seq >= limits_.warmup_jobs;
  j.prev = j.next = kNoJob;
  j.res_start = j.res_end = j.first_reservation = kNever;
  j.start = j.expected_end = j.end = kNever;
  j.departure = 0;
  j.preemptions = 0;
  j.suspended = kNever;
  j.left = j.left_requested = -1;
  if (limits_.home_in_turn && j.home < 0) {
    const bool single = j.req.type != RequestType::kFlexible && j.req.sizes.size() == 1;
    const int need = single ? j.req.sizes.front() : 1;
    const int clusters = machine_.clusters();
    for (int k = 0; k < clusters && j.home < 0; ++k) {
      const int c = (next_home_ + k) % clusters;
      if (machine_.spec().sizes[static_cast<size_t>(c)] >= need) j.home = c;
    }
    if (j.home >= 0) next_home_ = (j.home + 1) % clusters;
  }
  policy_->admit(j, machine_.spec(), routing_);
  if (j.req.type == RequestType::kMoldable) {
    j.req.power = required_power(j.req, j.home, machine_.spec().speeds);
  }
  // Priced by seed 002's model (--platform): plan with the largest price the job can get.
  j.req.app = j.app;
  const double bound = placement_->price_bound(j.req);
  j.plan = bound > 0 ? service_.requested_base(j, 1) * bound : service_.plan(j, machine_);
  queue(j.queue).push_back(store_, id);
  ++waiting_;
  ++version_;
  observer_->on_arrival(j, *this);
  discipline_->on_arrival(*this, id);
  policy_->on_arrival(j.queue, discipline_->backfilling());
}

void Sim::depart(JobId id) {
  Job& j = store_[id];
  machine_.release(j.alloc);
  placement_->on_depart(id);
  const std::uint32_t at = j.running_index;
  running_[at] = running_.back();
  store_[running_[at]].running_index = at;
  running_.pop_back();
  ++version_;
  observer_->on_departure(j, *this);
  discipline_->on_departure(*this, id);
  policy_->on_departure();
  store_.remove(id);
}

RunEnd Sim::run(JobSource& source, Observer& observer) {
  observer_ = &observer;
  RunEnd end;
  JobId pending = store_.add();
  bool more = source.next(store_[pending]);
  if (!more) observer.on_arrivals_end(*this);
  while (true) {
    if (source.earlier(store_[pending], more)) more = true;
    const Time t_arrival = more ? store_[pending].submit : kNever;
    while (!departures_.empty() &&
           store_[departures_.top().id].departure != departures_.top().order) {
      departures_.pop();  // the job was suspended: its departure was cancelled
    }
    const Time t_departure = departures_.empty() ? kNever : departures_.top().time;
    const Time t_wakeup = discipline_->next_wakeup(*this);
    const Time t = std::min({t_arrival, t_departure, t_wakeup});
    if (t == kNever) break;
    if (t < now_) throw std::logic_error("event before the current time");
    now_ = t;
    const bool departs = t == t_departure;
    while (!departures_.empty() && departures_.top().time == now_) {
      const Departure d = departures_.top();
      departures_.pop();
      if (store_[d.id].departure == d.order) depart(d.id);  // else it was suspended
    }
    while (more && store_[pending].submit == now_) {
      admit(pending);
      pending = store_.add();
      more = source.next(store_[pending]);
      if (!more) observer.on_arrivals_end(*this);
    }
    if (t == t_wakeup) policy_->on_timer();
    if (limits_.arrival_pass || departs || t == t_wakeup || running_.empty()) {
      discipline_->begin_pass(*this);
      policy_->schedule(*this);
    }
    if (waiting_ + running_.size() > limits_.max_in_system) {
      end.stopped_early = true;
      if (more) observer.on_arrivals_end(*this);
      break;
    }
  }
  end.time = now_;
  end.arrivals = arrivals_;
  end.max_in_system = store_.capacity() - 1;  // one slot holds the next arrival
  return end;
}

}  // namespace mcb::sim
