#include "harness/join.hpp"

#include "common/environment.hpp"
#include "common/errors.hpp"
#include "common/units.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace mcb::harness {
namespace {

using nlohmann::json;

constexpr int kMaxNameLength = 100;
// Rank 0 of each side asks the name service this often while it waits for its peer: quickly
// in the first second (a peer that is already there answers within it), then slowly. Each
// lookup passes through mpirun and ompi-server: at 20 ms a component waiting for its partner
// kept 0.45 of a core busy on this host, and the co-allocation study keeps several waiting on
// 2 cores, which slowed the last component's start more than the slower poll delays it.
constexpr auto kPollFirst = std::chrono::milliseconds(10);
constexpr double kPollFirstSeconds = 1;
constexpr auto kPollLater = std::chrono::milliseconds(100);
// The other ranks look this often whether rank 0 has found its peer.
constexpr auto kQuietInterval = std::chrono::milliseconds(5);

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

int whole_number(const char* name, const std::string& text, int lowest) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < lowest ||
      value > 1'000'000'000) {
    throw UsageError(std::string(name) + ": '" + text +
                     "' is not a whole number >= " + std::to_string(lowest));
  }
  return value;
}

// Names in the ompi-server's name service: one per join, so concurrent joins never meet.
std::string ready_name(const JoinSpec& s, int component) {
  return "mcb-join." + s.name + ".ready." + std::to_string(component);
}
std::string port_name(const JoinSpec& s, int component) {
  return "mcb-join." + s.name + ".port." + std::to_string(component);
}

// Asks the name service for @p service until it answers or @p deadline (MPI_Wtime) passes.
// The names go in as mutable copies: SMPI's mpi.h keeps MPI-2's non-const signatures.
bool look_up(std::string service, double deadline, char* port) {
  const double began = MPI_Wtime();
  while (true) {
    if (MPI_Lookup_name(service.data(), MPI_INFO_NULL, port) == MPI_SUCCESS) return true;
    const double now = MPI_Wtime();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(now - began < kPollFirstSeconds ? kPollFirst : kPollLater);
  }
}

// MPI_Bcast of rank 0's outcome, but waiting asleep: a component whose ranks start with its
// allocation may wait minutes for its peers, and a blocking broadcast spins on a core meanwhile.
void quiet_bcast(int* value, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(value, 1, MPI_INT, 0, comm, &request);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    std::this_thread::sleep_for(kQuietInterval);
  }
}

bool publish(std::string service, std::string port) {
  return MPI_Publish_name(service.data(), MPI_INFO_NULL, port.data()) == MPI_SUCCESS;
}

void unpublish(std::string service, std::string port) {
  MPI_Unpublish_name(service.data(), MPI_INFO_NULL, port.data());
}

const char* const kServerHint =
    " (every component's mpirun needs --ompi-server file:URI of the same running ompi-server)";

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::optional<JoinSpec> join_spec_from_environment() {
  JoinSpec s;
  s.name = variable("MCB_JOIN");
  if (s.name.empty()) return std::nullopt;
  const bool plain = std::all_of(s.name.begin(), s.name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!plain || s.name.size() > kMaxNameLength) {
    throw UsageError("MCB_JOIN: '" + s.name + "' is not a name of at most " +
                     std::to_string(kMaxNameLength) + " letters, digits, '.', '_' or '-'");
  }
  s.components = whole_number("MCB_JOIN_COMPONENTS", variable("MCB_JOIN_COMPONENTS"), 2);
  s.component = whole_number("MCB_JOIN_COMPONENT", variable("MCB_JOIN_COMPONENT"), 0);
  if (s.component >= s.components) {
    throw UsageError("MCB_JOIN_COMPONENT: '" + std::to_string(s.component) +
                     "' is not below MCB_JOIN_COMPONENTS (" + std::to_string(s.components) + ")");
  }
  s.ranks = whole_number("MCB_JOIN_RANKS", variable("MCB_JOIN_RANKS"), s.components);
  if (const std::string t = variable("MCB_JOIN_TIMEOUT"); !t.empty()) {
    try {
      s.timeout = parse_duration(t);
    } catch (const std::invalid_argument& e) {
      throw UsageError("MCB_JOIN_TIMEOUT: '" + t + "': " + e.what());
    }
    if (s.timeout <= 0) throw UsageError("MCB_JOIN_TIMEOUT: '" + t + "' is not positive");
    s.timeout_text = t;
  }
  return s;
}

JoinedWorld::JoinedWorld(MPI_Comm world, std::optional<JoinSpec> spec) : spec_(std::move(spec)) {
  comm_ = world;
  if (!spec_) return;
  // Name-service calls report failure to MPI_COMM_WORLD's handler: return codes while joining.
  MPI_Errhandler previous = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  join(world);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous);
  MPI_Errhandler_free(&previous);
}

JoinedWorld::~JoinedWorld() {
  // Newest first. Only the intercommunicators are disconnected: MPI_Comm_disconnect of a merged
  // communicator spanning two mpiruns waits forever in Open MPI 4.1's PMIx fence, while
  // disconnecting the intercommunicator it came from (after freeing it) ends the connection.
  for (auto it = owned_.rbegin(); it != owned_.rend(); ++it) {
    int inter = 0;
    MPI_Comm_test_inter(*it, &inter);
    if (inter) {
      MPI_Comm_disconnect(&*it);
    } else {
      MPI_Comm_free(&*it);
    }
  }
}

void JoinedWorld::join(MPI_Comm world) {
  const double started_utc = unix_now();
  const double started = MPI_Wtime();
  const double deadline = started + spec_->timeout;
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(world, &own);
  owned_.push_back(own);
  comm_ = own;
  if (spec_->component > 0) connect_as_component(world, deadline);
  for (int next = spec_->component + 1; next < spec_->components && failure_.empty(); ++next) {
    accept_from(next, deadline);
  }
  if (!failure_.empty()) {
    int size = 0;
    MPI_Comm_size(world, &size);
    comm_ = world;
    record_ = {{"name", spec_->name},
               {"components",
                json::array({{{"component", spec_->component},
                              {"ranks", size},
                              {"batch_job_id",
                               batch_job_id().empty() ? json(nullptr) : json(batch_job_id())},
                              {"started_unix", started_utc},
                              {"seconds", MPI_Wtime() - started}}})}};
    return;
  }
  record_components(started_utc, started);
}

void JoinedWorld::accept_from(int component, double deadline) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  char port[MPI_MAX_PORT_NAME] = {};
  int found = 1;
  if (rank == 0) {
    char ready[MPI_MAX_PORT_NAME] = {};
    // Accept only a peer that has announced itself: MPI_Comm_accept cannot time out.
    found = look_up(ready_name(*spec_, component), deadline, ready) ? 1 : 0;
    if (found) {
      MPI_Open_port(MPI_INFO_NULL, port);
      found = publish(port_name(*spec_, component), port) ? 1 : 2;
    }
  }
  quiet_bcast(&found, comm_);
  if (found != 1) {
    failure_ = "join '" + spec_->name + "': " +
               (found == 0 ? "component " + std::to_string(component) + " of " +
                                 std::to_string(spec_->components) + " did not arrive within " +
                                 spec_->timeout_text
                           : std::string("publishing the port failed")) +
               kServerHint;
    if (rank == 0 && found == 2) MPI_Close_port(port);
    return;
  }
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Comm_accept(port, MPI_INFO_NULL, 0, comm_, &inter);
  if (rank == 0) {
    unpublish(port_name(*spec_, component), port);
    MPI_Close_port(port);
  }
  MPI_Comm merged = MPI_COMM_NULL;
  MPI_Intercomm_merge(inter, 0, &merged);  // the group so far keeps the low ranks
  owned_.push_back(inter);
  owned_.push_back(merged);
  comm_ = merged;
}

void JoinedWorld::connect_as_component(MPI_Comm world, double deadline) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const std::string ready = ready_name(*spec_, spec_->component);
  char port[MPI_MAX_PORT_NAME] = {};
  int found = 1;
  if (rank == 0) {
    found = publish(ready, "ready") ? 1 : 2;
    if (found == 1) found = look_up(port_name(*spec_, spec_->component), deadline, port) ? 1 : 0;
  }
  quiet_bcast(&found, comm_);
  if (found != 1) {
    failure_ = "join '" + spec_->name + "': " +
               (found == 0 ? "component " + std::to_string(spec_->component) + " of " +
                                 std::to_string(spec_->components) + " was not accepted within " +
                                 spec_->timeout_text + " (an earlier component did not arrive)"
                           : std::string("announcing this component failed")) +
               kServerHint;
    if (rank == 0 && found == 0) unpublish(ready, "ready");
    return;
  }
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Comm_connect(port, MPI_INFO_NULL, 0, comm_, &inter);
  if (rank == 0) unpublish(ready, "ready");
  MPI_Comm merged = MPI_COMM_NULL;
  MPI_Intercomm_merge(inter, 1, &merged);  // the newcomer takes the high ranks
  owned_.push_back(inter);
  owned_.push_back(merged);
  comm_ = merged;
}

void JoinedWorld::record_components(double started_utc, double started) {
  int size = 0;
  MPI_Comm_size(comm_, &size);
  // Per rank: its component, when it began to join and when it was joined (UTC seconds).
  const double mine[3] = {static_cast<double>(spec_->component), started_utc,
                          started_utc + (MPI_Wtime() - started)};
  std::vector<double> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, comm_);
  // And the batch job each component ran in, for the coordinator's timeline.
  constexpr int kIdWidth = 64;
  std::vector<char> id(kIdWidth, '\0');
  batch_job_id().copy(id.data(), kIdWidth - 1);
  std::vector<char> ids(kIdWidth * static_cast<std::size_t>(size));
  MPI_Allgather(id.data(), kIdWidth, MPI_CHAR, ids.data(), kIdWidth, MPI_CHAR, comm_);
  std::vector<int> component_of(static_cast<std::size_t>(size));
  json components = json::array();
  double last_start = 0;
  double last_joined = 0;
  for (int r = 0; r < size; ++r) {
    const double* row = &all[3 * static_cast<std::size_t>(r)];
    const int k = static_cast<int>(row[0]);
    component_of[static_cast<std::size_t>(r)] = k;
    if (components.size() <= static_cast<std::size_t>(k)) {
      const std::string job(ids.data() + kIdWidth * static_cast<std::size_t>(r));
      components.push_back({{"component", k},
                            {"batch_job_id", job.empty() ? json(nullptr) : json(job)},
                            {"ranks", 0},
                            {"first_rank", r},
                            {"started_unix", row[1]},
                            {"joined_unix", row[2]}});
    }
    json& c = components.back();
    c["ranks"] = c["ranks"].get<int>() + 1;
    c["started_unix"] = std::min(c["started_unix"].get<double>(), row[1]);
    c["joined_unix"] = std::max(c["joined_unix"].get<double>(), row[2]);
    last_start = std::max(last_start, row[1]);
    last_joined = std::max(last_joined, row[2]);
  }
  for (json& c : components) {
    c["seconds"] = c["joined_unix"].get<double>() - c["started_unix"].get<double>();
  }
  map_.emplace(std::move(component_of));
  // The join's own cost: from the last component's start to the last rank joined.
  record_ = {{"name", spec_->name},
             {"timeout", spec_->timeout},
             {"components", components},
             {"seconds", last_joined - last_start}};
  // Joined, but not as the launcher planned: every component fails the same way, and the
  // joined communicator's rank 0 records it once.
  if (size != spec_->ranks) {
    failure_ = "join '" + spec_->name + "': MCB_JOIN_RANKS is " + std::to_string(spec_->ranks) +
               ", but the " + std::to_string(spec_->components) + " components brought " +
               std::to_string(size) + " ranks";
  }
}

ClusterMap joined_cluster_map(MPI_Comm comm, const RunOptions& o, const JoinedWorld& joined) {
  const ClusterMap& components = joined.components_map();
  const std::string join = "join '" + joined.spec().name + "'";
  if (o.cluster_map.empty()) {
    if (o.clusters_given && o.clusters != components.clusters()) {
      throw UsageError("--clusters: '" + std::to_string(o.clusters) + "' disagrees with the " +
                       std::to_string(components.clusters()) + " components of " + join);
    }
    return components;
  }
  ClusterMap map = resolve_cluster_map(
      comm, o, [](int) -> ClusterMap { throw std::logic_error("a --cluster-map was given"); });
  for (int r = 0; r < map.ranks(); ++r) {
    if (map.cluster_of(r) != components.cluster_of(r)) {
      throw UsageError("--cluster-map: '" + o.cluster_map + "' puts rank " + std::to_string(r) +
                       " in cluster '" + map.names()[static_cast<std::size_t>(map.cluster_of(r))] +
                       "', but " + join + " has it in component " +
                       std::to_string(components.cluster_of(r)));
    }
  }
  return map;
}

}  // namespace mcb::harness
