// EASY and conservative backfilling: hand-worked starts, and the guarantees on random
// workloads -- EASY never starts a head later than its reservation, conservative never starts
// any job later than the reservation it got on arrival.
#include "scenario.hpp"

#include "common/rng.hpp"
#include "simulator/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace mcb::sim {
namespace {

using test::Scenario;
using test::simulate;
using test::Spec;

// Cluster 0 full until 10, cluster 1 has 2 idle; head job 3 needs 3+3, job 4 needs 2.
const std::vector<Spec> kBlockedHead = {{1, 0, {4}, 10}, {2, 0, {2}, 10}, {3, 1, {3, 3}, 5}};

TEST(Easy, StartsAShortJobThatEndsBeforeTheHeadsReservation) {
  const Scenario s{.queue = "easy"};
  auto jobs = kBlockedHead;
  jobs.push_back({4, 1, {2}, 1});
  const auto run = simulate(s, jobs);
  EXPECT_EQ(run.jobs.at(4).start, 1) << "FCFS would hold it until 15";
  EXPECT_EQ(run.jobs.at(3).start, 10);
  EXPECT_EQ(run.jobs.at(3).reserved, 10);
}

TEST(Easy, DoesNotStartAJobThatWouldDelayTheHead) {
  const Scenario s{.queue = "easy"};
  auto jobs = kBlockedHead;
  jobs.push_back({4, 1, {2}, 20});  // would hold 2 of cluster 1 past 10: the head needs 3 there
  const auto run = simulate(s, jobs);
  EXPECT_EQ(run.jobs.at(3).start, 10);
  EXPECT_EQ(run.jobs.at(4).start, 15) << "the head leaves 1+1 idle; job 4 waits for it to end";
}

TEST(Easy, UsesProcessorsTheHeadLeavesFree) {
  const Scenario s{.queue = "easy"};
  auto jobs = kBlockedHead;
  jobs.push_back({4, 1, {1}, 20});  // long, but the head leaves 1 idle in each cluster
  const auto run = simulate(s, jobs);
  EXPECT_EQ(run.jobs.at(4).start, 1);
  EXPECT_EQ(run.jobs.at(3).start, 10);
}

TEST(Conservative, ProtectsEveryJobEasyOnlyTheHead) {
  // One cluster of 4. Job 2 (3 processors) is the head, reserved at 10; job 3 needs all 4 and
  // is next. Job 4 (1 processor, 100 s) fits now beside the head's reservation, so EASY starts
  // it and job 3 waits until 102; conservative gave job 3 a reservation at 20 and keeps it.
  const std::vector<Spec> jobs = {
      {1, 0, {3}, 10}, {2, 1, {3}, 10}, {3, 1, {4}, 10}, {4, 2, {1}, 100}};
  const auto easy = simulate({.clusters = "1x4", .queue = "easy"}, jobs);
  EXPECT_EQ(easy.jobs.at(4).start, 2);
  EXPECT_EQ(easy.jobs.at(3).start, 102);
  const auto cons = simulate({.clusters = "1x4", .queue = "cons"}, jobs);
  EXPECT_EQ(cons.jobs.at(3).reserved, 20);
  EXPECT_EQ(cons.jobs.at(3).start, 20);
  EXPECT_EQ(cons.jobs.at(4).start, 30);
}

TEST(Conservative, CompressesThePlanWhenAJobEndsEarly) {
  // Job 1 asks for 100 s but runs 10: job 2, planned at 100, starts at 10.
  const Scenario s{.clusters = "1x4", .queue = "cons"};
  const auto run =
      simulate(s, {{1, 0, {4}, 10, -1, RequestType::kUnordered, {}, 100}, {2, 1, {4}, 5}});
  EXPECT_EQ(run.jobs.at(2).reserved, 100);
  EXPECT_EQ(run.jobs.at(2).start, 10);
}

TEST(Conservative, CompressesInArrivalOrderByDefaultOrInReservationOrder) {
  // One cluster of 4. Job 0 (2 processors) runs 0-20; job 1 (2) asks for 100 s but ends at 5.
  // Job 2 (4, arrives at 1) is planned at 100; job 3 (2, arrives at 2) at 20 on job 0's
  // processors. At 5 the plan is compressed.
  // Arrival order: job 2 first, around job 3's reservation 20-70: at 70; then job 3 at 5.
  // Reservation order: job 3 first, at 5 (until 55); then job 2 at 55.
  const std::vector<Spec> jobs = {{0, 0, {2}, 20},
                                  {1, 0, {2}, 5, -1, RequestType::kUnordered, {}, 100},
                                  {2, 1, {4}, 10},
                                  {3, 2, {2}, 50}};
  const auto arrival = simulate({.clusters = "1x4", .queue = "cons"}, jobs);
  EXPECT_EQ(arrival.jobs.at(2).reserved, 100);
  EXPECT_EQ(arrival.jobs.at(3).reserved, 20);
  EXPECT_EQ(arrival.jobs.at(3).start, 5);
  EXPECT_EQ(arrival.jobs.at(2).start, 70);
  const auto reservation = simulate(
      {.clusters = "1x4", .queue = "cons", .compression = Compression::kReservation}, jobs);
  EXPECT_EQ(reservation.jobs.at(3).start, 5);
  EXPECT_EQ(reservation.jobs.at(2).start, 55);
}

TEST(Conservative, CompressesAtAnEarlyEndBeforePlacingAnArrivalOfTheSameInstant) {
  // One cluster of 4. Job 1 (4 processors) asks for 100 s but ends at 10. Job 2 (4, 10 s,
  // arrives at 1) is planned at 100. Job 3 (2, 50 s) arrives at 10, as job 1 ends.
  // Compressing at the departure first moves job 2 to 10 (until 20); job 3 is then placed at
  // 20. Had job 3 arrived a moment before the end, it would have been planned at 110 and
  // compressed after job 2 to 20: the same schedule. Placing the arrival before compressing
  // gave job 3 the freed processors at 10 and pushed job 2 to 60.
  const std::vector<Spec> jobs = {
      {1, 0, {4}, 10, -1, RequestType::kUnordered, {}, 100}, {2, 1, {4}, 10}, {3, 10, {2}, 50}};
  for (const Compression order : {Compression::kArrival, Compression::kReservation}) {
    const auto run = simulate({.clusters = "1x4", .queue = "cons", .compression = order}, jobs);
    EXPECT_EQ(run.jobs.at(2).reserved, 100);
    EXPECT_EQ(run.jobs.at(2).start, 10);
    EXPECT_EQ(run.jobs.at(3).reserved, 20);
    EXPECT_EQ(run.jobs.at(3).start, 20);
  }
}

TEST(Conservative, CompressesOnlyAtEarlyEndsByDefaultOrAtEveryEnd) {
  // The arrival-order example above: at 5 job 2 goes to 70 (around job 3's reservation 20-70),
  // then job 3 moves to 5 (until 55), which leaves processors 55-70 that job 2 could use.
  // Job 0 ends at 20, exactly at its requested time.
  // early-end (default): nothing is compressed at 20; job 2 starts at 70.
  // every-end: the plan is compressed at 20; job 2's earliest fit is 55 (job 3 holds 2
  // processors until then), so it starts at 55.
  const std::vector<Spec> jobs = {{0, 0, {2}, 20},
                                  {1, 0, {2}, 5, -1, RequestType::kUnordered, {}, 100},
                                  {2, 1, {4}, 10},
                                  {3, 2, {2}, 50}};
  const auto early = simulate({.clusters = "1x4", .queue = "cons"}, jobs);
  EXPECT_EQ(early.jobs.at(3).start, 5);
  EXPECT_EQ(early.jobs.at(2).start, 70);
  const auto every =
      simulate({.clusters = "1x4", .queue = "cons", .compress_at = CompressAt::kEveryEnd}, jobs);
  EXPECT_EQ(every.jobs.at(3).start, 5);
  EXPECT_EQ(every.jobs.at(2).reserved, 100);
  EXPECT_EQ(every.jobs.at(2).start, 55);
}

TEST(Conservative, NamesItsCompressionOrders) {
  EXPECT_EQ(parse_compression("arrival"), Compression::kArrival);
  EXPECT_EQ(parse_compression("reservation"), Compression::kReservation);
  EXPECT_THROW(parse_compression("sjf"), std::invalid_argument);
  EXPECT_EQ(compress_at_name(CompressAt::kEarlyEnd), "early-end");
  EXPECT_EQ(compress_at_name(CompressAt::kEveryEnd), "every-end");
}

// A random workload on 4 clusters of 8: unordered requests of 1-4 equal components (one with
// @p single), runtimes exponential, requested times 1-4 x the runtime.
std::vector<Spec> random_jobs(std::uint64_t seed, int n, double load_rate, bool single = false) {
  Rng rng(seed);
  std::vector<Spec> jobs;
  double t = 0;
  for (int i = 1; i <= n; ++i) {
    t += rng.exponential(load_rate);
    const int k = single ? 1 : 1 + static_cast<int>(rng.below(4));
    const int part = 1 + static_cast<int>(rng.below(8));
    const double run = 1 + rng.exponential(1.0 / 100);
    const double requested = run * (1 + 3 * rng.uniform());
    jobs.push_back({i,
                    t,
                    std::vector<int>(static_cast<size_t>(k), part),
                    run,
                    static_cast<int>(rng.below(4)),
                    RequestType::kUnordered,
                    {},
                    requested});
  }
  return jobs;
}

// How many jobs started before a job that arrived earlier than them (backfilled).
int overtakes(const test::Capture& run) {
  int n = 0;
  double latest_start_of_earlier = -1;
  for (const auto& [id, o] : run.jobs) {  // ids are in arrival order
    if (o.start < latest_start_of_earlier) ++n;
    latest_start_of_earlier = std::max(latest_start_of_earlier, o.start);
  }
  return n;
}

class Guarantee : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(Guarantee, EasyNeverDelaysTheHeadsReservation) {
  for (const char* policy : {"gs", "ic"}) {
    const Scenario s{.clusters = "4x8", .policy = policy, .queue = "easy"};
    const bool ic = std::string(policy) == "ic";
    const auto jobs = random_jobs(GetParam(), 1500, ic ? 1.0 / 16 : 1.0 / 40, ic);
    const auto run = simulate(s, jobs);
    ASSERT_EQ(run.jobs.size(), jobs.size());
    int reserved = 0;
    for (const auto& [id, o] : run.jobs) {
      if (o.reserved == kNever) continue;
      ++reserved;
      EXPECT_LE(o.start, o.reserved + 1e-9) << policy << " job " << id;
    }
    EXPECT_GT(reserved, 50) << policy << ": the workload must block heads for the test to bite";
    EXPECT_GT(overtakes(run), 50) << policy << ": and must backfill";
  }
}

TEST_P(Guarantee, ConservativeNeverDelaysAnyReservation) {
  const Scenario s{.clusters = "4x8", .queue = "cons"};
  const auto jobs = random_jobs(GetParam() + 100, 1500, 1.0 / 40);
  const auto run = simulate(s, jobs);
  ASSERT_EQ(run.jobs.size(), jobs.size());
  int earlier = 0;
  for (const auto& [id, o] : run.jobs) {
    ASSERT_NE(o.reserved, kNever) << "every job gets a reservation on arrival";
    EXPECT_LE(o.start, o.reserved + 1e-9) << "job " << id;
    earlier += o.start < o.reserved;
  }
  EXPECT_GT(earlier, 50) << "requested times are long, so compression must move jobs earlier";
  EXPECT_GT(overtakes(run), 50);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Guarantee, ::testing::Values(1, 2, 3));

TEST(Conservative, EveryEndNeverDelaysAReservationEither) {
  // The guarantee below, under the peer's convention: compressing more often moves jobs
  // earlier, never later.
  // Every other job ends exactly at its requested time, so the conventions differ.
  auto jobs = random_jobs(42, 1500, 1.0 / 40);
  for (size_t i = 0; i < jobs.size(); i += 2) jobs[i].requested = jobs[i].runtime;
  const auto early = simulate({.clusters = "4x8", .queue = "cons"}, jobs);
  const auto every =
      simulate({.clusters = "4x8", .queue = "cons", .compress_at = CompressAt::kEveryEnd}, jobs);
  ASSERT_EQ(every.jobs.size(), jobs.size());
  int differ = 0;
  for (const auto& [id, o] : every.jobs) {
    EXPECT_LE(o.start, o.reserved + 1e-9) << "job " << id;
    differ += o.start != early.jobs.at(id).start;
  }
  EXPECT_GT(differ, 0) << "the workload must leave gaps that only every-end fills";
}

TEST(Backfilling, OneClusterShortcutsGiveTheSchedulesOfTheGeneralPlan) {
  // On one cluster an unordered one-component request takes the shortcuts (one scan of the
  // plan for its start; no re-insertion in a compression when the plan gained nothing before
  // its end), a fixed request on cluster 0 fits exactly where it does but takes the general
  // path: every start and every first reservation must be the same.
  auto unordered = random_jobs(11, 800, 1.0 / 60, true);  // about 90% load
  auto fixed = unordered;
  for (size_t i = 0; i < unordered.size(); ++i) {
    unordered[i].home = fixed[i].home = -1;
    unordered[i].sizes[0] = fixed[i].sizes[0] = 1 + static_cast<int>(i * 7919 % 32);
    fixed[i].type = RequestType::kFixed;
    fixed[i].clusters = {0};
  }
  for (const auto order : {Compression::kArrival, Compression::kReservation}) {
    for (const auto at : {CompressAt::kEarlyEnd, CompressAt::kEveryEnd}) {
      const Scenario s{.clusters = "32", .queue = "cons", .compression = order, .compress_at = at};
      const auto fast = simulate(s, unordered);
      const auto general = simulate(s, fixed);
      ASSERT_EQ(fast.jobs.size(), unordered.size());
      ASSERT_EQ(general.jobs.size(), unordered.size());
      int moved = 0;
      for (const auto& [id, o] : general.jobs) {
        ASSERT_EQ(fast.jobs.at(id).start, o.start) << "job " << id;
        ASSERT_EQ(fast.jobs.at(id).reserved, o.reserved) << "job " << id;
        moved += o.start < o.reserved;
      }
      EXPECT_GT(moved, 100) << "compressions must move jobs for the test to bite";
    }
  }
  // EASY's reservation for a blocked head takes the same one scan.
  const Scenario easy{.clusters = "32", .queue = "easy"};
  const auto fast = simulate(easy, unordered);
  const auto general = simulate(easy, fixed);
  int reserved = 0;
  for (const auto& [id, o] : general.jobs) {
    ASSERT_EQ(fast.jobs.at(id).start, o.start) << "job " << id;
    ASSERT_EQ(fast.jobs.at(id).reserved, o.reserved) << "job " << id;
    reserved += o.reserved != kNever;
  }
  EXPECT_GT(reserved, 100) << "heads must be blocked for the test to bite";
  // A queue that mixes the two: a fixed job behind an unordered head is tried on the general
  // plan, built only then.
  auto mixed = unordered;
  for (size_t i = 0; i < mixed.size(); i += 3) mixed[i] = fixed[i];
  const auto both = simulate(easy, mixed);
  for (const auto& [id, o] : general.jobs) {
    ASSERT_EQ(both.jobs.at(id).start, o.start) << "job " << id;
    ASSERT_EQ(both.jobs.at(id).reserved, o.reserved) << "job " << id;
  }
}

TEST(Backfilling, NeverOverlapsProcessors) {
  // Every instant, the jobs running on a cluster use at most its processors. On six clusters a
  // job's allocation is past the room Counts keeps inline, and the slots are reused.
  for (const char* clusters : {"4x8", "6x8"}) {
    const size_t n = clusters[0] == '4' ? 4 : 6;
    for (const char* q : {"fcfs", "easy", "cons"}) {
      const Scenario s{.clusters = clusters, .queue = q};
      const auto run = simulate(s, random_jobs(7, 800, 1.0 / 35));
      std::vector<std::pair<double, std::vector<int>>> events;
      for (const auto& [id, o] : run.jobs) {
        ASSERT_EQ(o.alloc.size(), n);
        events.push_back({o.start, o.alloc});
        std::vector<int> minus = o.alloc;
        for (int& x : minus) x = -x;
        events.push_back({o.end, minus});
      }
      ASSERT_EQ(run.jobs.size(), 800u) << q << " on " << clusters;
      std::stable_sort(events.begin(), events.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<int> used(n, 0);
      for (size_t i = 0; i < events.size(); ++i) {
        for (size_t c = 0; c < n; ++c) used[c] += events[i].second[c];
        if (i + 1 < events.size() && events[i + 1].first == events[i].first) continue;
        for (size_t c = 0; c < n; ++c) {
          ASSERT_LE(used[c], 8) << q << " on " << clusters << " at t=" << events[i].first;
        }
      }
    }
  }
}

// EASY's plan is built with one sort of the running jobs' ends: from now on it holds the same
// free counts and the same breakpoints as releasing each job's processors one by one, with ends
// before, at and after now, ties, and ends that are not known.
TEST(Profile, OneSortGivesTheSamePlanAsReleasesOneByOne) {
  Rng rng(7);
  for (int round = 0; round < 200; ++round) {
    const int clusters = 1 + static_cast<int>(rng.below(3));
    const Time now = 100;
    std::vector<int> idle(static_cast<size_t>(clusters));
    for (int& n : idle) n = static_cast<int>(rng.below(5));
    const size_t jobs = rng.below(12);
    std::vector<std::vector<int>> procs(jobs, std::vector<int>(static_cast<size_t>(clusters)));
    std::vector<Profile::Return> returns;
    Profile one_by_one;
    one_by_one.reset(now, idle);
    for (size_t j = 0; j < jobs; ++j) {
      for (int& n : procs[j]) n = static_cast<int>(rng.below(3));
      procs[j][rng.below(static_cast<std::uint64_t>(clusters))] += 1;  // a job holds some
      const std::uint64_t kind = rng.below(8);
      const Time end = kind == 0   ? kNever
                       : kind == 1 ? now
                                   : 90 + 5 * static_cast<Time>(rng.below(8));
      returns.push_back({end, procs[j].data()});
      one_by_one.release(end, kNever, procs[j]);
    }
    Profile sorted;
    sorted.reset_with_returns(now, idle, returns);
    std::vector<int> a(static_cast<size_t>(clusters)), b(a);
    for (Time t = now; t <= 140; t += 2.5) {
      one_by_one.min_free(t, t, a);
      sorted.min_free(t, t, b);
      ASSERT_EQ(a, b) << "round " << round << ", t " << t;
      one_by_one.min_free(t, t + 12, a);
      sorted.min_free(t, t + 12, b);
      ASSERT_EQ(a, b) << "round " << round << ", [" << t << ", " << t + 12 << ")";
      const auto fits = [](std::span<int> w) { return w[0] >= 4; };
      ASSERT_EQ(one_by_one.earliest(t, 7, kNever, fits), sorted.earliest(t, 7, kNever, fits))
          << "round " << round << ", from " << t;
    }
  }
}

// A reservation's earliest start before its own, searched without taking it out of the plan,
// is the one found after giving it back (random one-cluster plans, reservations that start at,
// before and after others' breakpoints; kNever where only its own start fits).
TEST(Profile, EarliestBeforeOwnIsTheStartFoundAfterGivingTheReservationBack) {
  Rng rng(11);
  int earlier = 0, stays = 0;
  for (int round = 0; round < 400; ++round) {
    const Time now = 100;
    Profile plan;
    plan.reset(now, std::vector<int>{static_cast<int>(4 + rng.below(8))});
    for (std::uint64_t k = rng.below(10); k > 0; --k) {
      const Time t0 = now + 5 * static_cast<Time>(rng.below(10));
      const std::vector<int> procs{1 + static_cast<int>(rng.below(3))};
      plan.reserve(t0, t0 + 5 * static_cast<Time>(1 + rng.below(6)), procs);
    }
    const int need = 1 + static_cast<int>(rng.below(4));
    const Time length = 5 * static_cast<Time>(1 + rng.below(5)) - (rng.below(2) ? 2.5 : 0);
    const Time own = now + 2.5 * static_cast<Time>(rng.below(20));
    plan.reserve(own, own + length, std::vector<int>{need});
    for (Time from = now; from <= own; from += 2.5) {
      const Time found = plan.earliest_one_before_own(from, length, own, need);
      Profile given_back = plan;
      given_back.release(own, own + length, std::vector<int>{need});
      const Time t = given_back.earliest_one(from, length, own, need);
      ASSERT_EQ(found, t < own ? t : kNever) << "round " << round << ", from " << from;
      (found == kNever ? stays : earlier) += 1;
    }
  }
  EXPECT_GT(earlier, 100);
  EXPECT_GT(stays, 100);
}

// EASY's one-cluster plan as numbers gives the reservation and the window minima of the plan it
// stands for (random running jobs' ends before, at and after now, ties, ends not known; heads
// that fit now, later or never; windows that end before, at and after the reservation starts).
TEST(Profile, OneReservationIsThePlanWithTheHeadsReservation) {
  Rng rng(13);
  int later = 0, crossed = 0;
  for (int round = 0; round < 400; ++round) {
    const Time now = 100;
    const int idle = static_cast<int>(rng.below(4));
    std::vector<std::vector<int>> procs(rng.below(10));
    std::vector<Profile::Return> returns;
    for (auto& p : procs) {
      p = {1 + static_cast<int>(rng.below(3))};
      const std::uint64_t kind = rng.below(8);
      returns.push_back({kind == 0   ? kNever
                         : kind == 1 ? now
                                     : 95 + 5 * static_cast<Time>(rng.below(6)),
                         p.data()});
    }
    std::sort(returns.begin(), returns.end(), [](auto& a, auto& b) { return a.t < b.t; });
    const int need = static_cast<int>(rng.below(12));
    const Time length = 5 * static_cast<Time>(rng.below(4));
    Profile plan;
    plan.reset_with_returns(now, std::vector<int>{idle}, returns);
    const Time start = plan.earliest_one(now, length, kNever, need);
    if (start != kNever) plan.reserve(start, start + length, std::vector<int>{need});
    const OneReservation one = OneReservation::plan(now, idle, returns, need, length);
    ASSERT_EQ(one.start, start) << "round " << round;
    later += start != kNever && start > now;
    std::vector<int> least(1);
    for (Time p = 0; p <= 40; p += 2.5) {
      plan.min_free(now, now + p, least);
      ASSERT_EQ(one.min_free(now, p), least[0]) << "round " << round << ", length " << p;
      crossed += start > now && start < now + p && length > 0;
    }
  }
  EXPECT_GT(later, 50) << "heads must wait for returns for the test to bite";
  EXPECT_GT(crossed, 100) << "and windows must reach their reservations";
}

}  // namespace
}  // namespace mcb::sim
