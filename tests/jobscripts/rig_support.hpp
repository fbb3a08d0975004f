#pragma once
// The rig of separate batch systems (jobscripts/testing/rig.sh, installed as mcb-rig), started
// once per test program as a GoogleTest environment and stopped at its end; where it cannot
// start here (not root, packages missing), every test skips with the reason and main() returns
// 77, which CTest reports as skipped. Under CTest the rig test programs share one rig
// (MCB_RIG_DIR, started and stopped by tests/jobscripts/rig_fixture.sh): each program then
// cancels every job in it before its tests and after them.
#include "jobscripts/queue.hpp"
#include "tests/support/command.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace mcb::testing::rig {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct State {
  std::string skip_reason;  // why this machine cannot run the rig
  std::string start_error;  // why it did not start although it should have
  fs::path dir;
  bool shared = false;  // MCB_RIG_DIR's rig: cleared, not started or stopped, by this program
  std::vector<campaign::QueueConfig> systems;
};

inline State& state() {
  static State s;
  return s;
}

template <class Ready>
bool wait_for(Ready ready, double seconds) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ready();
}

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Processes of the rig: its folder on their command line (munged) or in their environment
// (SLURM_CONF of the daemons and jobs, SGE_ROOT of the Grid Engine daemons and jobs).
inline std::vector<pid_t> rig_processes(const fs::path& dir) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string leaf = entry.path().filename().string();
    if (leaf.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(leaf));
    if (pid == ::getpid()) continue;
    const std::string seen = slurp(entry.path() / "cmdline") + slurp(entry.path() / "environ");
    if (seen.find(dir.string() + "/") != std::string::npos) pids.push_back(pid);
  }
  return pids;
}

// "pid: command line" of each process given, one a line: what a failed check names as left.
inline std::string describe_processes(const std::vector<pid_t>& pids) {
  std::string text;
  for (const pid_t pid : pids) {
    std::string words = slurp(fs::path("/proc") / std::to_string(pid) / "cmdline");
    std::replace(words.begin(), words.end(), '\0', ' ');
    text += std::to_string(pid) + ": " + words + "\n";
  }
  return text;
}

class Rig : public ::testing::Environment {
 public:
  void SetUp() override {
    State& s = state();
    if (const char* shared = std::getenv("MCB_RIG_DIR"); shared && *shared) {
      s.dir = shared;
      s.shared = true;
      if (fs::exists(s.dir / "skip")) {
        s.skip_reason = slurp(s.dir / "skip");
        return;
      }
      const CommandResult r =
          run_command(quote(bin("mcb-rig")) + " clear " + quote(s.dir.string()));
      if (r.exit_code != 0) {
        s.start_error = "the shared rig in " + s.dir.string() + " (MCB_RIG_DIR): " + r.out + r.err;
        return;
      }
      s.systems = campaign::read_queue_configs((s.dir / "rig.env").string());
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "mcb-rig-XXXXXX").string();
    s.dir = ::mkdtemp(pattern.data());
    const auto start = Clock::now();
    // With this process as owner, the rig stops even if the test is killed half-way.
    const CommandResult r = run_command(quote(bin("mcb-rig")) + " start " + quote(s.dir.string()) +
                                        " " + std::to_string(::getpid()));
    if (r.exit_code == 3) {
      s.skip_reason = r.err_lines().empty() ? "rig: cannot start" : r.err_lines().back();
    } else if (r.exit_code != 0) {
      s.start_error = r.out + r.err;
    } else {
      std::cout << "rig started in " << seconds_since(start) << " s" << std::endl;
      s.systems = campaign::read_queue_configs((s.dir / "rig.env").string());
    }
  }

  void TearDown() override {
    State& s = state();
    if (s.shared) {
      // The next program finds the rig as this one did: no job of these tests left.
      if (!s.systems.empty()) {
        const CommandResult r =
            run_command(quote(bin("mcb-rig")) + " clear " + quote(s.dir.string()));
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      }
      return;
    }
    if (!s.systems.empty()) {
      const auto start = Clock::now();
      const CommandResult r = run_command(quote(bin("mcb-rig")) + " stop " + quote(s.dir.string()));
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      std::cout << "rig stopped in " << seconds_since(start) << " s" << std::endl;
      const std::vector<pid_t> left = rig_processes(s.dir);
      EXPECT_TRUE(left.empty()) << "the rig left processes behind:\n" << describe_processes(left);
      EXPECT_FALSE(fs::exists(s.dir / "rig.env")) << "stop leaves no description of the rig";
    }
    std::error_code ec;
    fs::remove_all(s.dir, ec);
  }
};

class RigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!state().skip_reason.empty()) GTEST_SKIP() << state().skip_reason;
    ASSERT_FALSE(state().systems.empty()) << "the rig did not start:\n" << state().start_error;
  }
};

// main() of a rig test program: 77 when every test was skipped.
// A job that fills a system until the test cancels it.
inline std::string blocker(const campaign::QueueConfig& config, int processors = 4) {
  const fs::path work = state().dir / ("blocker-" + config.name + "-" + std::to_string(processors));
  fs::create_directories(work);
  std::ofstream(work / "block.sh") << "#!/bin/sh\nsleep 600\n";
  ::chmod((work / "block.sh").c_str(), 0755);
  campaign::JobRequest r;
  r.script = (work / "block.sh").string();
  r.name = "blocker";
  r.processors = processors;
  r.time_limit_s = 900;
  r.workdir = work.string();
  const auto queue = campaign::make_queue(config);
  std::string id = queue->submit(r);
  EXPECT_TRUE(wait_for([&] { return queue->status(id).phase == campaign::JobPhase::running; }, 60));
  return id;
}

inline int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new Rig);  // NOLINT: gtest owns it
  const int result = RUN_ALL_TESTS();
  const auto* unit = ::testing::UnitTest::GetInstance();
  if (result == 0 && unit->test_to_run_count() > 0 &&
      unit->skipped_test_count() == unit->test_to_run_count()) {
    std::cout << "skipped: " << state().skip_reason << std::endl;
    return 77;
  }
  return result;
}

}  // namespace mcb::testing::rig
