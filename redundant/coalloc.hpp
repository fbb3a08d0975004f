#pragma once
/// @file
/// @brief Co-allocation of a global job over two sites (seed 004 sections 2 and 2.1): the job
/// needs two equal parts holding processors at two sites at once; each part is a request
/// queued (ranked and duplicated) like a whole job. What an allocated part does while its
/// partner is not allocated is the synchronization method: stop-and-wait, hibernation or
/// resubmission. README "Co-allocation" argues the model.

#include "redundant/grid.hpp"

namespace mcb::redundant {

/// @brief What an allocated copy does, and what else the allocation triggers.
struct PartDecision {
  PartRole role = PartRole::run;
  sim::JobId partner = sim::kNoJob;  //!< run: the holding part to start with it
  int resubmit_site = -1;            //!< a request to submit now at this site (-1: none)
};

/// @brief Decides for a copy of group @p g allocated at @p site now: redundant once the job
/// runs, run when another part holds, else hold (and, under hibernation, wake the hibernated
/// part). The caller records the holder after it starts.
PartDecision decide_part(Group& g, int site, Sync sync);

/// @brief Whether the part of @p g that holds processors is released at the end of the
/// instant it was allocated in (its partner was not allocated with it): under hibernation and
/// resubmission, once per job; the part allocated after it holds until its partner is.
bool releases_holder(const Group& g, Sync sync);

/// @brief The part size for a job whose two best-ranked sites have @p idle_a and @p idle_b
/// idle processors: as many as both have now, within half of each bound.
int part_size(const Group& g, int idle_a, int idle_b);

/// @brief The jobs a woken part preempts at @p site to get @p need processors more than are
/// idle there: local jobs running there (never a part of a co-allocated job, running or
/// holding, nor a redundant copy), the most recently started first (among those started at
/// the same instant, the later arrival first), until they free @p need. Empty if the local
/// jobs cannot free that many. README "Co-allocation" argues the rule.
std::vector<sim::JobId> preemption_victims(const sim::Sim& sim, int site, int need);

/// Lower bound (processors over both parts) of a job with upper bound @p upper.
int lower_bound(int upper, double fraction);

}  // namespace mcb::redundant
