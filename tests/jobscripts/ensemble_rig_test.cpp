// mcb-ensemble against the real rig (two Slurm instances, a Grid Engine cell;
// tests/jobscripts/rig_support.hpp), with a small Ensflow run (12 members, 15x15 basin): a pilot
// ended by Grid Engine's h_rt is resubmitted and the run carries on from the newest restart
// file; a second, faster queue becoming active (a blocker the test cancels decides when)
// stops the running segment at its next analysis and remaps the rest, with the runner killed
// with kill -9 meanwhile and resumed; a bad spec exits 2 with one line. Every check reads the
// runner's event log: the model days of the segments that were done must be 1..horizon, each
// once.
#include "common/jsonl.hpp"
#include "jobscripts/queue.hpp"
#include "tests/jobscripts/rig_support.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <future>
#include <set>

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

// program_test's small experiment; analyses every second day.
constexpr const char* kOptions =
    "[options]\nmembers = 12\ngrid = 15\nobservations = 30\ninitial-length = 300\n"
    "counters = \"\"\ndeformation-radius = 0\nlocalisation = 250\nanalysis-every = 2\n"
    "spinup-days = 5\nquiet = true\nno-free-run = true\n";

struct Queue {
  std::string name, system;
  int processors;
  std::string limit;
  double b;  // predicted seconds per model day: b / processors
};

fs::path write_spec(const std::string& name, const std::vector<Queue>& queues, int horizon,
                    int every, const fs::path& systems, const std::string& ensemble = "") {
  fs::path dir = state().dir / ("ensemble-" + name);
  fs::create_directories(dir);
  std::ofstream out(dir / "spec.ini");
  out << "[ensemble]\nsystems = " << systems.string()
      << "\nbinary = " << mcb::testing::bin("mcb-ensflow") << "\nhorizon = " << horizon
      << "\ncheckpoint-every = " << every << "\npoll = 100ms\nstatus-every = 500ms\n"
      << ensemble << "[link]\nbandwidth = 100Mbit/s\nlatency = 5ms\n";
  for (const Queue& q : queues) {
    out << "[queue." << q.name << "]\nsystem = " << q.system << "\nprocessors = " << q.processors
        << "\ntime-limit = " << q.limit << "\na = 0\nb = " << q.b << "\n";
  }
  out << kOptions;
  return dir;
}

fs::path rig_systems() { return state().dir / "rig.env"; }

std::string command(const fs::path& dir) {
  return quote(mcb::testing::bin("mcb-ensemble")) + " --spec " +
         quote((dir / "spec.ini").string()) + " --state " + quote((dir / "state").string());
}

std::future<CommandResult> in_background(const fs::path& dir) {
  return std::async(std::launch::async, [dir] {
    return run_command(
        "sh -c " + quote("echo $$ >" + quote((dir / "pid").string()) + "; exec " + command(dir)));
  });
}

std::vector<json> events(const fs::path& dir, const std::string& kind = "") {
  std::vector<json> found;
  const fs::path log = dir / "state/events.jsonl";
  if (!fs::exists(log)) return found;
  for (const auto& line : mcb::jsonl::read(log.string(), {}, true).lines) {
    if (kind.empty() || line.doc.at("event") == kind) found.push_back(line.doc);
  }
  return found;
}

std::vector<json> done_segments(const fs::path& dir) {
  std::vector<json> done;
  for (const json& e : events(dir, "segment-end")) {
    if (e.at("outcome") == "done") done.push_back(e);
  }
  return done;
}

// The segments that were done cover days 1..horizon, in order, each day once, and each carries
// its record's verdict.
void expect_each_day_once(const fs::path& dir, int horizon) {
  int day = 0;
  for (const json& e : done_segments(dir)) {
    EXPECT_EQ(e.at("from").get<int>(), day) << e.dump();
    EXPECT_TRUE(e.contains("status")) << "a done segment without its record: " << e.dump();
    day = e.at("day").get<int>();  // a segment stopped for a remap ends before its `to`
  }
  EXPECT_EQ(day, horizon);
  ASSERT_EQ(events(dir, "finished").size(), 1u);
  EXPECT_EQ(events(dir, "finished")[0].at("day"), horizon);
}

const QueueConfig& system_named(const std::string& name) {
  for (const QueueConfig& c : state().systems) {
    if (c.name == name) return c;
  }
  throw std::logic_error(name);
}

TEST(EnsembleSpec, ABadSpecExitsTwoWithOneLine) {
  const fs::path dir =
      fs::temp_directory_path() / ("mcb-ensemble-spec-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "rig.env") << "[slurm-a]\nkind = slurm\n";
  std::ofstream(dir / "spec.ini") << "[ensemble]\nsystems = rig.env\nbinary = "
                                  << mcb::testing::bin("mcb-ensflow")
                                  << "\nhorizon = 10\ncheckpoint-every = 2\n"
                                  << "[queue.a]\nsystem = slurm-a\nprocessors = two\n"
                                  << "time-limit = 1min\na = 0\nb = 1\n";
  const CommandResult r = run_command(command(dir));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("spec.ini:8: processors: 'two' is not a whole number"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "state")) << "nothing written";
  // An option mcb-ensflow refuses, in its own words.
  std::ofstream(dir / "spec.ini", std::ios::app) << "[options]\nmembers = 7\n";
  const CommandResult bad = run_command("sed -i 's/= two/= 2/' " +
                                        quote((dir / "spec.ini").string()) + " && " + command(dir));
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_EQ(bad.err_lines().size(), 1u) << bad.err;
  EXPECT_NE(bad.err.find("[options] at 2 processes: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--members"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

// mcb-ensflow as the spec's binary, except that the first segment resuming from a restart file
// loses its record after it wrote that file, and then waits for its pilot's limit: what a pilot
// killed between the two leaves (@p marker is made when it happens).
fs::path record_losing_binary(const fs::path& dir, const fs::path& marker) {
  fs::path script = dir / "ensflow-losing-a-record.sh";
  std::ofstream(script)
      << "#!/bin/sh\n"
      << quote(mcb::testing::bin("mcb-ensflow")) << " \"$@\"; code=$?\n"
      << "case \" $* \" in *\" --restart \"*) ;; *) exit $code ;; esac\n"
      << "[ \"${OMPI_COMM_WORLD_RANK:-0}\" = 0 ] || exit $code\n"
      << "mkdir " << quote(marker.string()) << " 2>/dev/null || exit $code\n"
      << "for a in \"$@\"; do [ \"$prev\" = --output ] && rm -f \"$a\"; prev=$a; done\n"
      << "i=0; while [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done; exit 1\n";
  fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
  return script;
}

TEST_F(RigTest, AJobEndedAtItsTimeLimitIsResubmittedAndTheRunResumes) {
  // Grid Engine's h_rt of 12 s ends pilots while the runner, told a model day takes 5 ms, keeps
  // giving them segments (each a few seconds of mpirun). One of them is killed after its restart
  // file and before its record: it has no verdict, so it is not done and runs again.
  const fs::path dir =
      write_spec("limit", {{"ge", "gridengine", 2, "12s", 0.01}}, 16, 2, rig_systems());
  const fs::path marker = dir / "record-lost";
  const fs::path binary = record_losing_binary(dir, marker);
  ASSERT_EQ(run_command("sed -i 's|^binary = .*|binary = " + binary.string() + "|' " +
                        quote((dir / "spec.ini").string()))
                .exit_code,
            0);
  const CommandResult r = run_command(command(dir));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(fs::exists(marker)) << "no segment lost its record";
  bool lost_one_killed = false;  // the segment without a record: killed with its pilot
  for (const json& e : events(dir, "segment-end")) {
    lost_one_killed = lost_one_killed || (e.at("outcome") == "killed" && e.at("from") > 0);
  }
  EXPECT_TRUE(lost_one_killed);
  std::vector<std::string> pilots;
  for (const json& e : events(dir, "submit")) pilots.push_back(e.at("tag"));
  ASSERT_GE(pilots.size(), 2u) << "a second pilot after the first reached its limit";
  const auto gone = events(dir, "gone");
  ASSERT_FALSE(gone.empty());
  EXPECT_EQ(gone[0].at("tag"), pilots[0]);
  // The second pilot ran segments: the run went on after the limit.
  bool second_ran = false;
  for (const json& e : events(dir, "segment")) second_ran = second_ran || e.at("tag") == pilots[1];
  EXPECT_TRUE(second_ran);
  expect_each_day_once(dir, 16);
}

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Both queues active: after the first segment (its record gives the run's shape) the members
// spread over slurm-a's 2 and slurm-b's 4 processes, one MPI job joined across the two Slurm
// instances, predicted 2/6 s a day against 2/4 on slurm-b alone. The runner is killed with
// kill -9 while a joined segment runs and resumes it (its ompi-server adopted); then slurm-a's
// pilot is cancelled while the next joined segment runs, which kills the segment: it runs again
// from the last restart file. The run's last restart file and record equal one uninterrupted
// mpirun's, bit for bit.
TEST_F(RigTest, TwoActiveQueuesRunSegmentsJoinedAcrossThemAsOneMpiJob) {
  const fs::path dir = write_spec(
      "split", {{"small", "slurm-a", 2, "10min", 2.0}, {"large", "slurm-b", 4, "10min", 2.0}}, 8, 2,
      rig_systems());
  auto run = in_background(dir);
  const auto joined = [&] {
    std::vector<json> found;
    for (const json& e : events(dir, "segment")) {
      if (e.at("parts").size() == 2) found.push_back(e);
    }
    return found;
  };
  ASSERT_TRUE(wait_for([&] { return !joined().empty(); }, 120)) << "no joined segment";
  const pid_t pid = std::stoi(mcb::testing::slurp(dir / "pid"));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(run.get().exit_code, 128 + SIGKILL) << "killed";
  auto again = in_background(dir);
  const int resumed_at = joined().back().at("n").get<int>();
  ASSERT_TRUE(wait_for([&] { return joined().back().at("n").get<int>() > resumed_at; }, 120))
      << "no joined segment after the resume";
  const json cancelled = joined().back();
  std::string job;
  for (const json& e : events(dir, "submitted")) {
    if (e.at("tag") == "small-1") job = e.at("job").get<std::string>();
  }
  make_queue(system_named("slurm-a"))->cancel(job);
  const CommandResult r = again.get();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(events(dir, "resumed").size(), 1u);
  EXPECT_EQ(events(dir, "server").size(), 1u) << "the resumed runner adopted the ompi-server";
  bool killed = false;
  for (const json& e : events(dir, "segment-end")) {
    if (e.at("n") != cancelled.at("n")) continue;
    EXPECT_EQ(e.at("outcome"), "killed") << e.dump();
    EXPECT_NE(e.value("why", "").find("pilot small-1 ended"), std::string::npos) << e.dump();
    killed = true;
  }
  EXPECT_TRUE(killed) << "the segment whose slurm-a part was cancelled";
  EXPECT_EQ(events(dir, "server-stopped").size(), 1u);
  expect_each_day_once(dir, 8);

  // Part 0 is the queue whose site holds the restart file (at first, the first segment's).
  const json first_site = done_segments(dir).front().at("queue");
  const json both = first_site == "small" ? json({"small", "large"}) : json({"large", "small"});
  const json first = joined().front();
  EXPECT_EQ(first.at("queues"), both);
  EXPECT_EQ(first.at("processors"), 6);
  bool joined_done = false;
  json site;  // where the restart file lies: the last done segment's part 0
  for (const json& e : done_segments(dir)) {
    if (e.contains("queues")) {
      std::set<std::string> queues;
      for (const json& q : e.at("queues")) queues.insert(q.get<std::string>());
      EXPECT_EQ(queues, (std::set<std::string>{"small", "large"})) << e.dump();
      EXPECT_EQ(e.at("queues")[0], site) << "the site holding the restart file leads";
      // Part 0's exit code is the run's (1: INVALID, as this small experiment is by day 2).
      EXPECT_EQ(e.at("exit_codes")[0], e.at("status") == "valid" ? 0 : 1) << e.dump();
      joined_done = true;
    }
    site = e.at("queue");
  }
  ASSERT_TRUE(joined_done);
  bool remapped = false;
  for (const json& e : events(dir, "remap")) remapped = remapped || e.at("to_queues") == both;
  EXPECT_TRUE(remapped) << "the mapping changed from one queue to the set";

  const auto record_of = [&](const json& end) {
    const auto lines = mcb::jsonl::read(
        (dir / "state/records" / ("segment-" + end.at("n").dump() + ".jsonl")).string(), {}, true);
    return lines.lines.empty() ? json() : lines.lines.back().doc;
  };
  // A joined segment's record: one job of 6 ranks over two clusters, through the join.
  for (const json& e : done_segments(dir)) {
    if (!e.contains("queues")) continue;
    const json joined_record = record_of(e);
    ASSERT_FALSE(joined_record.is_null());
    EXPECT_EQ(joined_record.at("config").at("total_size"), 6);
    EXPECT_EQ(joined_record.at("config").at("clusters"), 2);
    EXPECT_TRUE(joined_record.at("env").contains("join")) << joined_record.at("env").dump();
    break;
  }
  const json last_end = done_segments(dir).back();
  const json rec = record_of(last_end);
  ASSERT_FALSE(rec.is_null());
  // The same run in one mpirun of 2 processes, uninterrupted.
  const fs::path ref = dir / "reference";
  fs::create_directories(ref);
  const CommandResult whole =
      run_command(mcb::testing::mpirun(2) + quote(mcb::testing::bin("mcb-ensflow")) + " --config " +
                  quote((dir / "state/ensflow.ini").string()) + " --days 8 --checkpoint " +
                  quote((ref / "day-8.rst").string()) + " --checkpoint-every 8 --output " +
                  quote((ref / "whole.jsonl").string()));
  const auto want = mcb::jsonl::read((ref / "whole.jsonl").string(), {}, true);
  ASSERT_FALSE(want.lines.empty()) << whole.out << whole.err;
  const json& reference = want.lines.back().doc;
  EXPECT_EQ(rec.at("result").at("diagnostics"), reference.at("result").at("diagnostics"));
  EXPECT_EQ(rec.at("result").at("innovations"), reference.at("result").at("innovations"));
  EXPECT_EQ(rec.at("status"), reference.at("status"));
  const fs::path final_file =
      dir / "state/sites" / last_end.at("queue").get<std::string>() / "day-8.rst";
  EXPECT_TRUE(bytes_of(final_file) == bytes_of(ref / "day-8.rst"))
      << "the final restart files differ";
}

// The event log and the segments' logs, for a failure's message.
std::string logs_of(const fs::path& dir) {
  std::string text = mcb::testing::slurp(dir / "state/events.jsonl");
  for (const auto& entry : fs::directory_iterator(dir / "state/logs")) {
    text += "--- " + entry.path().filename().string() + "\n" + mcb::testing::slurp(entry.path());
  }
  return text;
}

// slurm-b is held by a blocker: the run starts on slurm-a alone, in one segment of 12 days. The
// blocker is cancelled once that segment runs; slurm-b's pilot starts, and its 4 processors are
// predicted twice as fast for the segment's remaining days (the spec's 10 s a day on slurm-a
// against 5: the runner cannot see a segment's progress, so a slow prediction keeps its estimate
// early under any load). The runner writes the segment's stop file, the segment checkpoints at its
// first analysis (day 2), and the rest runs on slurm-b. The launcher holds segment 1's mpirun
// until its stop file appears (at most 60 s), so the stop lands before the last analysis however
// slowly the blocker's release reaches the runner. The runner is killed with kill -9 just after
// journaling the remap (its stop file written or not) and resumed: no pilot submitted again, each
// day done once, the last restart file byte for byte an uninterrupted run's.
TEST_F(RigTest, ASecondQueueActiveMidSegmentRemapsAtTheNextAnalysisAndSurvivesKill9) {
  const std::string block = blocker(system_named("slurm-b"));
  const fs::path hold = state().dir / "hold-segment-1.sh";
  std::ofstream(hold) << "#!/bin/sh\nfor a in \"$@\"; do case $a in */segment-1.stop) stop=$a;; "
                         "esac; done\ni=0\nwhile [ -n \"$stop\" ] && [ ! -e \"$stop\" ] && "
                         "[ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done\nexec \"$@\"\n";
  const fs::path dir = write_spec(
      "remap", {{"small", "slurm-a", 2, "10min", 20.0}, {"large", "slurm-b", 4, "10min", 20.0}}, 12,
      12, rig_systems(),
      "split = never\nlauncher = sh " + hold.string() +
          " mpirun --mca ras ^slurm --bind-to none\n");
  auto run = in_background(dir);
  ASSERT_TRUE(wait_for([&] { return !events(dir, "segment").empty(); }, 120));
  EXPECT_TRUE(events(dir, "remap").empty());
  make_queue(system_named("slurm-b"))->cancel(block);
  ASSERT_TRUE(wait_for([&] { return !events(dir, "remap").empty(); }, 120)) << "no remap";
  const pid_t pid = std::stoi(mcb::testing::slurp(dir / "pid"));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(run.get().exit_code, 128 + SIGKILL) << "killed";
  const CommandResult r = run_command(command(dir));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << logs_of(dir);
  EXPECT_EQ(events(dir, "begin").size(), 1u);
  EXPECT_EQ(events(dir, "resumed").size(), 1u);
  EXPECT_EQ(events(dir, "submit").size(), 2u) << "the pilots were adopted, not submitted again";

  const auto remaps = events(dir, "remap");
  ASSERT_EQ(remaps.size(), 1u);
  EXPECT_EQ(remaps[0].at("n"), 1);
  EXPECT_EQ(remaps[0].at("mid_segment"), true);
  EXPECT_EQ(remaps[0].at("from"), "small");
  EXPECT_EQ(remaps[0].at("to"), "large");
  EXPECT_NE(remaps[0].at("why").get<std::string>().find("active set changed mid-segment"),
            std::string::npos);
  EXPECT_LT(remaps[0].at("move_predicted").get<double>(),
            remaps[0].at("stay_predicted").get<double>());
  bool both_active = false;
  for (const json& e : events(dir, "active-set")) {
    both_active = both_active || e.at("queues") == json({"small", "large"});
  }
  EXPECT_TRUE(both_active);
  // Segment 1 stopped at its first analysis, its file under that day's name; the rest on large.
  const auto done = done_segments(dir);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].at("queue"), "small");
  EXPECT_EQ(done[0].at("to"), 12);
  EXPECT_EQ(done[0].at("day"), 2);
  EXPECT_EQ(done[0].at("stopped_at"), 2);
  EXPECT_TRUE(fs::exists(dir / "state/sites/small/day-2.rst"));
  EXPECT_FALSE(fs::exists(dir / "state/sites/small/day-12.rst"));
  EXPECT_EQ(done[1].at("queue"), "large");
  EXPECT_EQ(done[1].at("from"), 2);
  const auto transfers = events(dir, "transfer");
  ASSERT_EQ(transfers.size(), 1u);
  EXPECT_EQ(transfers[0].at("day"), 2);
  EXPECT_EQ(transfers[0].at("bytes").get<double>(),
            static_cast<double>(fs::file_size(dir / "state/sites/small/day-2.rst")));
  int day = 0;
  for (const json& e : done) {
    EXPECT_EQ(e.at("from").get<int>(), day) << e.dump();
    day = e.at("day").get<int>();
  }
  EXPECT_EQ(day, 12);
  ASSERT_EQ(events(dir, "finished").size(), 1u);
  EXPECT_EQ(events(dir, "finished")[0].at("day"), 12);

  const fs::path ref = dir / "reference";
  fs::create_directories(ref);
  const CommandResult whole =
      run_command(mcb::testing::mpirun(2) + quote(mcb::testing::bin("mcb-ensflow")) + " --config " +
                  quote((dir / "state/ensflow.ini").string()) + " --days 12 --checkpoint " +
                  quote((ref / "day-12.rst").string()) + " --checkpoint-every 12 --output " +
                  quote((ref / "whole.jsonl").string()));
  ASSERT_TRUE(fs::exists(ref / "day-12.rst")) << whole.out << whole.err;
  EXPECT_TRUE(bytes_of(dir / "state/sites/large/day-12.rst") == bytes_of(ref / "day-12.rst"))
      << "the final restart files differ";
}

}  // namespace

int main(int argc, char** argv) { return mcb::testing::rig::main(argc, argv); }
