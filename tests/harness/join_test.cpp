// The components of a co-allocated run joined into one MPI job (harness/join.hpp), for real: an
// ompi-server and one mpirun per component on this host. A joined run gives the same answer as
// the same run in one mpirun with the same cluster map; a component whose peer never comes ends
// with a failed record within its timeout; the records name the components.
#include "tests/support/command.hpp"
#include "tests/support/records.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace mcb::testing {
namespace {

using nlohmann::json;

// Both mpiruns share two cores with each other and with the rest of the suite.
const std::string kPoisson = " --procs 2x2 --grid 16 --halo exact --counters '' --quiet --seed 3";
const std::string kEnsflow =
    " --members 12 --days 4 --grid 15 --observations 30 --initial-length 300 --counters ''"
    " --deformation-radius 0 --localisation 250 --analysis-every 2 --spinup-days 5 --quiet";

// An ompi-server of the test's own, ended by its pid when the test ends.
class OmpiServer {
 public:
  explicit OmpiServer(const std::string& uri_file) : uri_(uri_file) {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execlp("ompi-server", "ompi-server", "--no-daemonize", "--report-uri", uri_file.c_str(),
               static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // It writes its URI once it listens.
    for (int i = 0; i < 200 && slurp(uri_file).find('\n') == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~OmpiServer() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  OmpiServer(const OmpiServer&) = delete;
  OmpiServer& operator=(const OmpiServer&) = delete;
  bool up() const { return pid_ > 0 && slurp(uri_).find('\n') != std::string::npos; }
  const std::string& uri_file() const { return uri_; }

 private:
  std::string uri_;
  pid_t pid_ = -1;
};

struct Component {
  int ranks = 2;
  std::string extra_env;  // e.g. "MCB_CLUSTER=vu"
};

// The command of component @p k of a join named @p name over @p components.
std::string component_command(const OmpiServer& server, const std::string& name, int k,
                              const std::vector<Component>& components, const std::string& timeout,
                              const std::string& program_and_args) {
  int total = 0;
  for (const Component& c : components) total += c.ranks;
  const Component& me = components[static_cast<std::size_t>(k)];
  return "env MCB_JOIN=" + name + " MCB_JOIN_COMPONENT=" + std::to_string(k) +
         " MCB_JOIN_COMPONENTS=" + std::to_string(components.size()) +
         " MCB_JOIN_RANKS=" + std::to_string(total) + " MCB_JOIN_TIMEOUT=" + timeout + " " +
         me.extra_env + " " + mpirun(me.ranks) +
         "--bind-to none --ompi-server file:" + server.uri_file() + " " + program_and_args;
}

// Runs every component at once; their results in component order.
std::vector<CommandResult> run_joined(const OmpiServer& server, const std::string& name,
                                      const std::vector<Component>& components,
                                      const std::string& program_and_args,
                                      const std::string& timeout = "60s") {
  std::vector<std::future<CommandResult>> running;
  for (std::size_t k = 0; k < components.size(); ++k) {
    const std::string command =
        component_command(server, name, static_cast<int>(k), components, timeout, program_and_args);
    running.push_back(std::async(std::launch::async, [command] { return run_command(command); }));
  }
  std::vector<CommandResult> results;
  for (auto& r : running) results.push_back(r.get());
  return results;
}

class Join : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.emplace(dir_ / "uri");
    ASSERT_TRUE(server_->up()) << "ompi-server did not report its URI";
  }
  void TearDown() override { server_.reset(); }
  TempDir dir_;
  std::optional<OmpiServer> server_;
};

// The one-mpirun run and the joined run's record, each the only record of its file. Both runs
// end VALID (exit 0), or with @p any_verdict either verdict, as long as the two agree.
std::pair<json, json> single_and_joined(const std::vector<CommandResult>& joined,
                                        const CommandResult& single, const std::string& joined_out,
                                        const std::string& single_out, bool any_verdict = false) {
  EXPECT_TRUE(single.exit_code == 0 || (any_verdict && single.exit_code == 1))
      << single.out << single.err;
  // The verdict's exit code comes from the component that holds rank 0; the others end 0.
  bool reported = false;
  for (const CommandResult& r : joined) {
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == single.exit_code) << r.out << r.err;
    reported = reported || r.exit_code == single.exit_code;
  }
  EXPECT_TRUE(reported) << "no component ended with the one-mpirun run's exit code";
  const auto a = read_records(single_out);
  const auto b = read_records(joined_out);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(b.size(), 1u);  // written once, by the joined communicator's rank 0
  if (a.empty() || b.empty()) return {};
  return {a[0], b[0]};
}

TEST_F(Join, TwoComponentPoissonSolvesAsOneMpirunWithTheSameClusterMap) {
  const std::string out = dir_ / "joined.jsonl";
  const std::string single_out = dir_ / "single.jsonl";
  const auto joined =
      run_joined(*server_, "poisson-a", {{2, "MCB_CLUSTER=vu"}, {2, "MCB_CLUSTER=leiden"}},
                 quote(bin("mcb-poisson")) + kPoisson +
                     " --cluster-map env:MCB_CLUSTER --run-id p-1 --output " + quote(out));
  const auto single = run_command(mpirun(4) + quote(bin("mcb-poisson")) + kPoisson +
                                  " --clusters 2 --output " + quote(single_out));
  const auto [one, two] = single_and_joined(joined, single, out, single_out);
  ASSERT_FALSE(two.is_null());
  EXPECT_EQ(two["status"], "valid");
  EXPECT_EQ(two["run_id"], "p-1");
  EXPECT_EQ(two["result"]["iterations"], one["result"]["iterations"]);
  EXPECT_EQ(two["result"]["global_error"], one["result"]["global_error"]);
  EXPECT_EQ(two["verdict"]["residual"], one["verdict"]["residual"]);
  EXPECT_EQ(two["verdict"]["error"], one["verdict"]["error"]);
  // Column-major across the clusters, as a heterogeneous job numbers its ranks.
  EXPECT_EQ(two["config"]["cluster_map"], one["config"]["cluster_map"]);
  EXPECT_EQ(two["config"]["cluster_map"], json({0, 0, 1, 1}));
  EXPECT_EQ(two["config"]["cluster_names"], json({"vu", "leiden"}));
  EXPECT_EQ(two["env"]["ranks"], 4);
  EXPECT_FALSE(one["env"].contains("join"));
  const json& join = two["env"]["join"];
  EXPECT_EQ(join["name"], "poisson-a");
  ASSERT_EQ(join["components"].size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const json& c = join["components"][static_cast<std::size_t>(k)];
    EXPECT_EQ(c["component"], k);
    EXPECT_EQ(c["ranks"], 2);
    EXPECT_EQ(c["first_rank"], 2 * k);
    EXPECT_TRUE(c.contains("batch_job_id"));
    EXPECT_GE(c["seconds"].get<double>(), 0.0);
  }
  EXPECT_GE(join["seconds"].get<double>(), 0.0);
}

// Components that cannot reach each other send through the gateway relay: each component's
// rank 0 forwards its cluster's wide-area messages. On the joined communicator (which carries no
// MPI attributes) the relay must still find the implementation's tag bound, or the tree
// collectives' tags are refused on the gateways and the run hangs.
TEST_F(Join, TwoComponentPoissonThroughTheGatewayRelaySolvesAsOneMpirun) {
  const std::string out = dir_ / "joined.jsonl";
  const std::string single_out = dir_ / "single.jsonl";
  const auto joined =
      run_joined(*server_, "poisson-relay", {{2, ""}, {2, ""}},
                 quote(bin("mcb-poisson")) + kPoisson + " --relay --output " + quote(out));
  const auto single = run_command(mpirun(4) + quote(bin("mcb-poisson")) + kPoisson +
                                  " --clusters 2 --relay --output " + quote(single_out));
  const auto [one, two] = single_and_joined(joined, single, out, single_out);
  ASSERT_FALSE(two.is_null());
  EXPECT_EQ(two["status"], "valid");
  EXPECT_EQ(two["config"]["relay"]["gateways"], json({0, 2}));
  EXPECT_EQ(two["config"]["relay"], one["config"]["relay"]);
  EXPECT_EQ(two["result"]["iterations"], one["result"]["iterations"]);
  EXPECT_EQ(two["result"]["global_error"], one["result"]["global_error"]);
  EXPECT_EQ(two["verdict"]["residual"], one["verdict"]["residual"]);
}

TEST_F(Join, ThreeUnequalComponentsMergeInComponentOrder) {
  const std::string out = dir_ / "joined.jsonl";
  const std::string single_out = dir_ / "single.jsonl";
  const std::string map = dir_ / "map";
  { std::ofstream(map) << "a a\nb\nc\n"; }
  // Cluster b holds one rank of column 1 only: a map no strip split gives, from the components.
  const auto joined = run_joined(*server_, "poisson-b", {{2, ""}, {1, ""}, {1, ""}},
                                 quote(bin("mcb-poisson")) + kPoisson + " --output " + quote(out));
  const auto single =
      run_command(mpirun(4) + quote(bin("mcb-poisson")) + kPoisson + " --cluster-map " +
                  quote(map) + " --output " + quote(single_out));
  const auto [one, two] = single_and_joined(joined, single, out, single_out);
  ASSERT_FALSE(two.is_null());
  EXPECT_EQ(two["config"]["cluster_map"], json({0, 0, 1, 2}));
  EXPECT_EQ(two["config"]["cluster_map"], one["config"]["cluster_map"]);
  EXPECT_EQ(two["result"]["iterations"], one["result"]["iterations"]);
  EXPECT_EQ(two["result"]["global_error"], one["result"]["global_error"]);
  ASSERT_EQ(two["env"]["join"]["components"].size(), 3u);
  EXPECT_EQ(two["env"]["join"]["components"][2]["first_rank"], 3);
}

TEST_F(Join, TwoComponentEnsflowAssimilatesAsOneMpirun) {
  const std::string out = dir_ / "joined.jsonl";
  const std::string single_out = dir_ / "single.jsonl";
  const auto joined = run_joined(*server_, "ensflow-a", {{2, ""}, {2, ""}},
                                 quote(bin("mcb-ensflow")) + kEnsflow + " --output " + quote(out));
  const auto single = run_command(mpirun(4) + quote(bin("mcb-ensflow")) + kEnsflow +
                                  " --clusters 2 --output " + quote(single_out));
  // At this size a correct filter's verdict depends on the draws (apps/ensflow/README.md,
  // "Verdict"): the joined run must reach the one-mpirun run's verdict, whichever it is.
  const auto [one, two] = single_and_joined(joined, single, out, single_out, true);
  ASSERT_FALSE(two.is_null());
  EXPECT_EQ(two["status"], one["status"]);
  EXPECT_EQ(two.value("reason", std::string()), one.value("reason", std::string()));
  EXPECT_EQ(two["verdict"]["checks"], one["verdict"]["checks"]);
  EXPECT_EQ(two["config"]["cluster_map"], one["config"]["cluster_map"]);
  EXPECT_EQ(two["result"]["diagnostics"], one["result"]["diagnostics"]);
  EXPECT_EQ(two["result"]["innovations"], one["result"]["innovations"]);
  EXPECT_EQ(two["env"]["join"]["components"].size(), 2u);
}

TEST_F(Join, LinksMeasureBetweenTwoComponents) {
  const std::string out = dir_ / "joined.jsonl";
  const auto joined = run_joined(*server_, "links-a", {{1, ""}, {1, ""}},
                                 quote(bin("mcb-links")) +
                                     " --sizes 8,1024 --repetitions 3 --quiet --counters ''"
                                     " --output " +
                                     quote(out));
  // Its verdict judges the fit of a few noisy sizes on a busy host, not the join: a measured
  // run (valid or invalid) over one rank per component is what this checks.
  for (const CommandResult& r : joined) EXPECT_LE(r.exit_code, 1) << r.out << r.err;
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_NE(records[0]["status"], "failed") << records[0].value("reason", "");
  EXPECT_EQ(records[0]["config"]["cluster_map"], json({0, 1}));
  EXPECT_EQ(records[0]["env"]["join"]["components"].size(), 2u);
}

TEST_F(Join, AComponentWhosePeerNeverComesFailsWithinItsTimeout) {
  const std::string out = dir_ / "runs.jsonl";
  const std::vector<Component> two = {{2, ""}, {2, ""}};
  const std::string poisson = quote(bin("mcb-poisson")) + kPoisson + " --output " + quote(out);
  // Component 0 alone, then component 1 alone: neither hangs, both record why they failed.
  for (int k = 0; k < 2; ++k) {
    const auto r =
        run_command(component_command(*server_, "lonely-" + std::to_string(k), k, two, "2s",
                                      poisson + " --run-id lonely-" + std::to_string(k)));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  }
  const auto records = read_records(out);
  ASSERT_EQ(records.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const json& rec = records[static_cast<std::size_t>(k)];
    EXPECT_EQ(rec["status"], "failed");
    EXPECT_EQ(rec["run_id"], "lonely-" + std::to_string(k));
    EXPECT_EQ(rec["config"]["components"], 2);
    EXPECT_EQ(rec["config"]["total_size"], 4);
    const std::string reason = rec["reason"];
    EXPECT_NE(reason.find("join 'lonely-" + std::to_string(k) + "'"), std::string::npos) << reason;
    EXPECT_NE(reason.find(k == 0 ? "component 1 of 2 did not arrive within 2s"
                                 : "component 1 of 2 was not accepted within 2s"),
              std::string::npos)
        << reason;
    const json& mine = rec["env"]["join"]["components"];
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0]["component"], k);
    EXPECT_GE(mine[0]["seconds"].get<double>(), 2.0);
  }
}

TEST_F(Join, ABadJoinVariableIsOneLineAndExitCodeTwo) {
  const std::string out = dir_ / "runs.jsonl";
  const auto r = run_command(
      "env MCB_JOIN=x MCB_JOIN_COMPONENT=2 MCB_JOIN_COMPONENTS=2 "
      "MCB_JOIN_RANKS=4 " +
      mpirun(1) + quote(bin("mcb-poisson")) + kPoisson + " --output " + quote(out));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("MCB_JOIN_COMPONENT: '2'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace mcb::testing
