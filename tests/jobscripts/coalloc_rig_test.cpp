// The co-allocating executor against the real rig (two Slurm instances, a Grid Engine cell;
// tests/jobscripts/rig_support.hpp): a Poisson run over slurm-a and slurm-b, and an Ensflow run
// over slurm-a and Grid Engine, joined into one MPI job give the answers of the same runs in one
// mpirun; stop-and-wait holds the first allocation
// while a blocker keeps the second system full, and records the held time; a duplicate is
// cancelled when its twin starts; a coordinator killed with kill -9 resumes and the run is
// recorded once; `mcb-campaign cancel` after such a kill cancels every pilot in every system. The
// order of events is fixed by blockers the test submits and cancels, never by how fast the machine
// is; the coordinator's journal is read as its event log.
#include "common/jsonl.hpp"
#include "jobscripts/queue.hpp"
#include "tests/jobscripts/rig_support.hpp"
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <map>

namespace {

using namespace mcb::campaign;
using mcb::testing::CommandResult;
using mcb::testing::quote;
using mcb::testing::run_command;
using mcb::testing::rig::blocker;
using mcb::testing::rig::RigTest;
using mcb::testing::rig::state;
using mcb::testing::rig::wait_for;
using nlohmann::json;
namespace fs = std::filesystem;

// A systems file of the rig's two Slurm instances alone: a duplicate has one place to go.
fs::path two_slurm_systems(const fs::path& dir) {
  std::ofstream out(dir / "two-slurm.env");
  for (const QueueConfig& c : state().systems) {
    if (c.kind != "slurm") continue;
    out << "[" << c.name << "]\nkind = slurm\n";
    for (const auto& [name, value] : c.env) out << "env = \"" << name << "=" << value << "\"\n";
  }
  return dir / "two-slurm.env";
}

// A campaign of one Poisson run of 4 ranks (or @p procs) over 2 clusters, each its own system;
// duplicates go to the other Slurm, or with @p all_systems also to Grid Engine.
fs::path write_spec(const std::string& name, const std::string& coalloc_extra,
                    const std::string& clusters = "slurm-a slurm-b", bool all_systems = false,
                    const std::string& procs = "2x2") {
  fs::path dir = state().dir / ("campaign-" + name);
  fs::create_directories(dir);
  const fs::path systems = all_systems ? state().dir / "rig.env" : two_slurm_systems(dir);
  std::ofstream(dir / "spec.ini")
      << "name = " << name
      << "\napp = poisson\nexecutor = coalloc\nbinary = " << mcb::testing::bin("mcb-poisson")
      << "\nfolder = " << (dir / "folder").string() << "\ntimeout = 3min\n"
      << "env = OMPI_MCA_btl=self,tcp\nenv = OMPI_MCA_btl_tcp_if_include=lo\n"
      << "env = OMPI_MCA_mpi_yield_when_idle=1\nenv = OMPI_ALLOW_RUN_AS_ROOT=1\n"
      << "env = OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\nenv = OMPI_MCA_rmaps_base_oversubscribe=1\n"
      << "[coalloc]\nsystems = " << systems.string() << "\nclusters = " << clusters
      << "\ntimeout = 4min\npoll = 100ms\n"
      << coalloc_extra << "[options]\ngrid = 32\nprocs = " << procs << "\nclusters = 2\n";
  return dir;
}

CommandResult campaign_run(const fs::path& dir) {
  return run_command(quote(mcb::testing::bin("mcb-campaign")) + " run " +
                     quote((dir / "spec.ini").string()));
}

// The coordinator in the background; its pid in DIR/pid.
std::future<CommandResult> campaign_in_background(const fs::path& dir) {
  return std::async(std::launch::async, [dir] {
    // Its own sh, so that $$ is the pid that becomes mcb-campaign.
    return run_command("sh -c " + quote("echo $$ >" + quote((dir / "pid").string()) + "; exec " +
                                        quote(mcb::testing::bin("mcb-campaign")) + " run " +
                                        quote((dir / "spec.ini").string())));
  });
}

std::vector<json> journal(const fs::path& dir) {
  std::vector<json> events;
  const auto contents = mcb::jsonl::read((dir / "folder/coalloc/journal.jsonl").string(), {}, true);
  for (const auto& line : contents.lines) events.push_back(line.doc);
  return events;
}

std::vector<json> events_of(const fs::path& dir, const std::string& kind) {
  std::vector<json> found;
  for (const json& e : journal(dir)) {
    if (e.at("event") == kind) found.push_back(e);
  }
  return found;
}

// The system a copy was submitted to, by its tag.
std::map<std::string, std::string> systems_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const json& e : events_of(dir, "submitting")) out[e.at("tag")] = e.at("system");
  return out;
}

bool active_on(const fs::path& dir, const std::string& system) {
  const auto systems = systems_of(dir);
  for (const json& e : events_of(dir, "active")) {
    if (systems.at(e.at("tag")) == system) return true;
  }
  return false;
}

const QueueConfig& system_named(const std::string& name) {
  for (const QueueConfig& c : state().systems) {
    if (c.name == name) return c;
  }
  throw std::logic_error(name);
}

std::vector<json> records(const fs::path& dir) {
  return mcb::testing::read_records((dir / "folder/records.jsonl").string());
}

TEST_F(RigTest, TwoComponentPoissonOverTwoSlurmInstancesMatchesOneMpirun) {
  const fs::path dir = write_spec("match", "");
  const CommandResult r = campaign_run(dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 1u);
  const json& rec = recs[0];
  ASSERT_EQ(rec.at("status"), "valid") << rec.dump();
  EXPECT_EQ(rec.at("env").at("ranks"), 4);
  const json& join = rec.at("env").at("join");
  ASSERT_EQ(join.at("components").size(), 2u);
  // The timeline: both components bound on their own systems, each through its own claim
  // (launch = at-start, the default with stop-and-wait), joined after both started.
  const json& co = rec.at("env").at("coalloc");
  EXPECT_EQ(co.at("launch"), "at-start");
  ASSERT_EQ(co.at("components").size(), 2u);
  EXPECT_EQ(co.at("components")[0].at("system"), "slurm-a");
  EXPECT_EQ(co.at("components")[1].at("system"), "slurm-b");
  double last_start = 0;
  for (const json& c : co.at("components")) {
    EXPECT_LE(c.at("submitted").get<double>(), c.at("started").get<double>());
    EXPECT_LE(c.at("started").get<double>(), co.at("go").get<double>());
    last_start = std::max(last_start, c.at("started").get<double>());
  }
  for (const json& c : co.at("components")) EXPECT_LE(last_start, c.at("joined").get<double>());
  EXPECT_GE(co.at("overhead_seconds").get<double>(), 0);
  for (const json& e : events_of(dir, "active")) EXPECT_TRUE(e.at("bound").get<bool>());

  // The same run in one mpirun on this host.
  const fs::path one = dir / "one.jsonl";
  const CommandResult ref = mcb::testing::run_program(
      "mcb-poisson",
      {"--grid", "32", "--procs", "2x2", "--clusters", "1", "--output", one.string()},
      mcb::testing::mpirun(4));
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  const json single = mcb::testing::read_records(one.string()).at(0);
  EXPECT_EQ(rec.at("result").at("iterations"), single.at("result").at("iterations"));
  EXPECT_EQ(rec.at("result").at("global_error"), single.at("result").at("global_error"));
}

// Ensflow's options for a short run of 8 members on 4 ranks.
const char* const kEnsflowOptions =
    "members = 8\ndays = 4\nanalysis-every = 2\ngrid = 15\nspinup-days = 2\nranks = 4\n";

TEST_F(RigTest, TwoComponentEnsflowOverSlurmAndGridEngineMatchesOneMpirun) {
  // The other kind of batch system and the other application: components on slurm-a and on
  // the Grid Engine cell, the ensemble's analysis traffic crossing the join.
  const fs::path dir = state().dir / "campaign-ensflow";
  fs::create_directories(dir);
  std::ofstream(dir / "spec.ini")
      << "name = ensflow\napp = ensflow\nexecutor = coalloc\nbinary = "
      << mcb::testing::bin("mcb-ensflow") << "\nfolder = " << (dir / "folder").string()
      << "\ntimeout = 3min\n"
      << "env = OMPI_MCA_btl=self,tcp\nenv = OMPI_MCA_btl_tcp_if_include=lo\n"
      << "env = OMPI_MCA_mpi_yield_when_idle=1\nenv = OMPI_ALLOW_RUN_AS_ROOT=1\n"
      << "env = OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\nenv = OMPI_MCA_rmaps_base_oversubscribe=1\n"
      << "[coalloc]\nsystems = " << (state().dir / "rig.env").string()
      << "\nclusters = slurm-a gridengine\ntimeout = 4min\npoll = 100ms\n"
      << "[options]\n"
      << kEnsflowOptions << "clusters = 2\n";
  const CommandResult r = campaign_run(dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 1u);
  const json& rec = recs[0];
  ASSERT_EQ(rec.at("status"), "valid") << rec.dump();
  ASSERT_EQ(rec.at("env").at("join").at("components").size(), 2u);
  const json& co = rec.at("env").at("coalloc");
  ASSERT_EQ(co.at("components").size(), 2u);
  EXPECT_EQ(co.at("components")[0].at("system"), "slurm-a");
  EXPECT_EQ(co.at("components")[1].at("system"), "gridengine");
  EXPECT_FALSE(co.at("components")[1].at("batch_job_id").is_null());

  // The same run in one mpirun on this host: every diagnostic (forecast, analysis, free run)
  // bit for bit, since the members' draws are keyed by member, not by rank.
  const fs::path one = dir / "one.jsonl";
  const CommandResult ref = mcb::testing::run_program(
      "mcb-ensflow",
      {"--members", "8", "--days", "4", "--analysis-every", "2", "--grid", "15", "--spinup-days",
       "2", "--clusters", "1", "--output", one.string()},
      mcb::testing::mpirun(4));
  ASSERT_EQ(ref.exit_code, 0) << ref.out << ref.err;
  const json single = mcb::testing::read_records(one.string()).at(0);
  EXPECT_EQ(rec.at("result").at("diagnostics"), single.at("result").at("diagnostics"));
}

TEST_F(RigTest, StopAndWaitHoldsTheFirstAllocationUntilTheSecondStarts) {
  const std::string block = blocker(system_named("slurm-b"));
  const fs::path dir = write_spec("hold", "synchronization = stop-and-wait\n");
  auto run = campaign_in_background(dir);
  // slurm-a's component starts and is held; slurm-b's cannot start behind the blocker.
  ASSERT_TRUE(wait_for([&] { return active_on(dir, "slurm-a"); }, 120));
  EXPECT_FALSE(active_on(dir, "slurm-b"));
  EXPECT_TRUE(events_of(dir, "go").empty());
  make_queue(system_named("slurm-b"))->cancel(block);
  const CommandResult r = run.get();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  // In the event log: a's activity, then b's, then the go; nothing was cancelled.
  const std::vector<json> events = journal(dir);
  const auto systems = systems_of(dir);
  std::vector<std::string> order;
  for (const json& e : events) {
    if (e.at("event") == "active") order.push_back(systems.at(e.at("tag")));
    if (e.at("event") == "go") order.push_back("go");
  }
  EXPECT_EQ(order, (std::vector<std::string>{"slurm-a", "slurm-b", "go"}));
  EXPECT_TRUE(events_of(dir, "cancelled").empty());
  const json co = records(dir).at(0).at("env").at("coalloc");
  const json& a = co.at("components")[0];
  const json& b = co.at("components")[1];
  EXPECT_LT(a.at("started").get<double>(), b.at("started").get<double>());
  // Its ranks started with it and waited in the rendezvous until b's allocation started.
  EXPECT_GT(a.at("held_idle_seconds").get<double>(), 0);
  EXPECT_DOUBLE_EQ(a.at("held_idle_seconds").get<double>(),
                   b.at("started").get<double>() - a.at("started").get<double>());
  EXPECT_DOUBLE_EQ(b.at("held_idle_seconds").get<double>(), 0);
  EXPECT_GT(co.at("held_idle_processor_seconds").get<double>(),
            2 * a.at("held_idle_seconds").get<double>() - 1e-9);
}

TEST_F(RigTest, ADuplicateIsCancelledWhenItsTwinStarts) {
  // slurm-b is full: component 1's duplicate on slurm-a starts, and the copies on slurm-b (the
  // component's own, and component 0's duplicate) are cancelled as redundant.
  const std::string block = blocker(system_named("slurm-b"));
  const fs::path dir =
      write_spec("duplicate", "duplicates = 1\nranking = qlen\n", "slurm-a slurm-b");
  const CommandResult r = campaign_run(dir);
  make_queue(system_named("slurm-b"))->cancel(block);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto systems = systems_of(dir);
  EXPECT_EQ(systems.size(), 4u) << "two components, each on two systems";
  std::vector<std::string> cancelled_on;
  for (const json& e : events_of(dir, "cancelled")) {
    cancelled_on.push_back(systems.at(e.at("tag")));
    const std::string why = e.at("why");
    EXPECT_TRUE(why.rfind("twin started: ", 0) == 0 || why.rfind("redundant", 0) == 0) << why;
  }
  EXPECT_EQ(cancelled_on, (std::vector<std::string>{"slurm-b", "slurm-b"}));
  const json rec = records(dir).at(0);
  EXPECT_EQ(rec.at("status"), "valid");
  const json& co = rec.at("env").at("coalloc");
  EXPECT_EQ(co.at("components")[1].at("system"), "slurm-a") << "bound to the duplicate";
  EXPECT_EQ(co.at("components")[1].at("cluster"), "slurm-b") << "still cluster 1";
  EXPECT_EQ(co.at("copies").size(), 4u);
}

TEST_F(RigTest, AResubmittedComponentKeepsItsDuplicate) {
  // slurm-b is full and slurm-a has room for one component: component 0 starts there alone and
  // is given back and submitted again. A component given back is not satisfied, so its
  // duplicate on slurm-b stays queued; once slurm-b frees up, the run needs nothing of slurm-a,
  // which stays half full, possibly with component 1's duplicate held there.
  const std::string block_b = blocker(system_named("slurm-b"));
  const std::string block_a = blocker(system_named("slurm-a"), 2);
  const fs::path dir =
      write_spec("resubmit", "synchronization = resubmission\nduplicates = 1\nranking = qlen\n");
  auto run = campaign_in_background(dir);
  ASSERT_TRUE(wait_for([&] { return !events_of(dir, "resubmitting").empty(); }, 120));
  make_queue(system_named("slurm-b"))->cancel(block_b);
  const CommandResult r = run.get();
  make_queue(system_named("slurm-a"))->cancel(block_a);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  const auto systems = systems_of(dir);
  std::map<std::string, int> component_of;
  for (const json& e : events_of(dir, "submitting")) component_of[e.at("tag")] = e.at("component");
  const std::vector<json> resubmitted = events_of(dir, "resubmitting");
  ASSERT_EQ(resubmitted.size(), 1u) << "once per request";
  const std::string early = resubmitted[0].at("tag");
  EXPECT_EQ(systems.at(early), "slurm-a");
  EXPECT_EQ(component_of.at(early), 0);
  // Component 0's copy on slurm-b was not cancelled before the release.
  bool released = false;
  for (const json& e : journal(dir)) {
    if (e.at("event") == "resubmitting") released = true;
    if (e.at("event") != "cancelled" || e.at("tag") == early) continue;
    const std::string tag = e.at("tag");
    if (component_of.at(tag) == 0 && systems.at(tag) == "slurm-b") {
      EXPECT_TRUE(released) << tag;
    }
  }
  // After the release every copy runs its ranks when it starts (launch = at-start, the default
  // with resubmission), so the go starts nothing; before it, the early copy waited for a go.
  for (const json& e : events_of(dir, "active")) {
    if (!e.at("bound").get<bool>()) continue;  // a redundant copy found the claim taken
    EXPECT_EQ(e.at("launched").get<bool>(), e.at("tag") != early) << e.at("tag");
  }
  EXPECT_FALSE(fs::exists(dir / "folder/coalloc" / (early + ".go")));
  const json rec = records(dir).at(0);
  EXPECT_EQ(rec.at("status"), "valid");
  const json& co = rec.at("env").at("coalloc");
  EXPECT_EQ(co.at("synchronization"), "resubmission");
  EXPECT_EQ(co.at("launch"), "at-start");
}

TEST_F(RigTest, ACoordinatorKilledWithKill9Resumes) {
  const std::string block = blocker(system_named("slurm-b"));
  // At the go: the resumed coordinator writes the go of the component it held.
  const fs::path dir = write_spec("resume", "launch = at-go\n");
  auto run = campaign_in_background(dir);
  ASSERT_TRUE(wait_for([&] { return active_on(dir, "slurm-a"); }, 120));
  const pid_t pid = std::stoi(mcb::testing::slurp(dir / "pid"));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(run.get().exit_code, 128 + SIGKILL) << "killed";
  // While no coordinator runs, slurm-b's component starts.
  make_queue(system_named("slurm-b"))->cancel(block);
  const CommandResult r = campaign_run(dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 in flight"), std::string::npos) << r.out;
  EXPECT_EQ(events_of(dir, "request").size(), 1u) << "the run was not begun again";
  EXPECT_EQ(events_of(dir, "submitting").size(), 2u) << "no component was submitted twice";
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].at("status"), "valid") << recs[0].dump();
  const json& co = recs[0].at("env").at("coalloc");
  EXPECT_EQ(co.at("launch"), "at-go");
  const json& a = co.at("components")[0];
  EXPECT_GT(a.at("held_idle_seconds").get<double>(), 0);
  EXPECT_DOUBLE_EQ(a.at("held_idle_seconds").get<double>(),
                   co.at("go").get<double>() - a.at("started").get<double>());
}

TEST_F(RigTest, CancelGivesUpEveryPilotInEverySystemAndSubmitsNothing) {
  // slurm-b and Grid Engine are full, and each component needs all of slurm-a (4 ranks): one
  // component starts there and waits in the rendezvous, the other's three copies queue, one on
  // each system. Then the coordinator dies.
  const std::string block_b = blocker(system_named("slurm-b"));
  const std::string block_ge = blocker(system_named("gridengine"));
  const fs::path dir = write_spec("cancel", "duplicates = 2\n", "slurm-a slurm-b", true, "2x4");
  auto run = campaign_in_background(dir);
  ASSERT_TRUE(wait_for([&] { return events_of(dir, "cancelled").size() >= 2; }, 120))
      << "the twins of the component bound first are cancelled";
  ASSERT_EQ(::kill(std::stoi(mcb::testing::slurp(dir / "pid")), SIGKILL), 0);
  EXPECT_EQ(run.get().exit_code, 128 + SIGKILL);
  const auto before = journal(dir);
  const auto systems = systems_of(dir);
  ASSERT_EQ(systems.size(), 6u) << "two components, each on all three systems";

  const std::string cancel =
      quote(mcb::testing::bin("mcb-campaign")) + " cancel " + quote((dir / "spec.ini").string());
  const CommandResult r = run_command(cancel);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 pilot job(s)"), std::string::npos) << r.out;
  std::map<std::string, std::string> job_of;
  for (const json& e : events_of(dir, "submitted")) job_of[e.at("tag")] = e.at("job");
  std::vector<std::string> cancelled_on;
  const auto after = journal(dir);
  for (std::size_t i = before.size(); i < after.size(); ++i) {
    const json& e = after[i];
    if (e.at("event") != "cancelled") continue;
    EXPECT_EQ(e.at("why"), "abandoned: cancelled by mcb-campaign cancel");
    const std::string system = systems.at(e.at("tag"));
    cancelled_on.push_back(system);
    const auto queue = make_queue(system_named(system));
    const std::string job = job_of.at(e.at("tag"));
    EXPECT_TRUE(wait_for(
        [&] {
          const JobPhase p = queue->status(job).phase;
          return p == JobPhase::done || p == JobPhase::failed;
        },
        120))
        << system << " job " << job << " is still queued or running";
  }
  std::sort(cancelled_on.begin(), cancelled_on.end());
  EXPECT_EQ(cancelled_on,
            (std::vector<std::string>{"gridengine", "slurm-a", "slurm-a", "slurm-b"}));
  EXPECT_EQ(events_of(dir, "server-stopped").size(), 1u) << "the dead coordinator's ompi-server";
  EXPECT_TRUE(
      wait_for([&] { return mcb::testing::rig::rig_processes(dir / "folder").empty(); }, 120))
      << "a pilot, rank or server of the campaign is left:\n"
      << mcb::testing::rig::describe_processes(mcb::testing::rig::rig_processes(dir / "folder"));
  // Cancelling again finds nothing; a run afterwards records the run failed, submits nothing.
  const CommandResult again = run_command(cancel);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find(": 0 pilot job(s)"), std::string::npos) << again.out;
  make_queue(system_named("slurm-b"))->cancel(block_b);
  make_queue(system_named("gridengine"))->cancel(block_ge);
  const CommandResult resumed = campaign_run(dir);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.out << resumed.err;
  EXPECT_EQ(events_of(dir, "submitting").size(), 6u) << "nothing submitted again";
  const auto recs = records(dir);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].at("status"), "failed");
  EXPECT_NE(recs[0].dump().find("abandoned: cancelled by mcb-campaign cancel"), std::string::npos)
      << recs[0].dump();
}

}  // namespace

int main(int argc, char** argv) { return mcb::testing::rig::main(argc, argv); }
