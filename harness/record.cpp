#include "harness/record.hpp"

#include "common/environment.hpp"
#include "common/files.hpp"
#include "common/statistics.hpp"
#include "harness/simulation.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace mcb::harness {

namespace {

// The cores this process may run on (its affinity mask), as a set of core numbers.
cpu_set_t own_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) {
    const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::max(1L, online) && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  }
  return set;
}

// The machine's share of the run: per host, the cores its ranks may use (the union of their
// affinity masks) against the ranks placed there. More ranks than cores means the ranks take
// turns, and every time measured includes the waiting (docs/records.md).
void add_machine_share(MPI_Comm comm, const std::vector<char>& hosts, std::size_t host_width,
                       nlohmann::json& env) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const cpu_set_t mine = own_cores();
  std::vector<cpu_set_t> all(static_cast<size_t>(size));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, comm);
  std::map<std::string, std::pair<cpu_set_t, int>> per_host;
  for (int r = 0; r < size; ++r) {
    const std::string host(hosts.data() + static_cast<size_t>(r) * host_width);
    auto [it, fresh] = per_host.try_emplace(host);
    if (fresh) CPU_ZERO(&it->second.first);
    CPU_OR(&it->second.first, &it->second.first, &all[static_cast<size_t>(r)]);
    ++it->second.second;
  }
  int cores = 0;
  double ranks_per_core = 0;
  for (const auto& [host, share] : per_host) {
    const int c = std::max(1, CPU_COUNT(&share.first));
    cores += c;
    ranks_per_core = std::max(ranks_per_core, static_cast<double>(share.second) / c);
  }
  env["cores_available"] = cores;
  env["ranks_per_core"] = ranks_per_core;
  // What else ran: the one-minute load average of rank 0's host as the run began.
  double load[1] = {0};
  env["load_average"] = ::getloadavg(load, 1) == 1 ? nlohmann::json(load[0]) : nullptr;
}

}  // namespace

nlohmann::json mpi_environment(MPI_Comm comm, int argc, const char* const* argv) {
  nlohmann::json env = environment_block(argc, argv);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string mpi(library, static_cast<size_t>(length));
  if (const auto cut = mpi.find_first_of("\r\n,"); cut != std::string::npos) mpi.resize(cut);
  env["mpi"] = mpi;
  int size = 0;
  MPI_Comm_size(comm, &size);
  env["ranks"] = size;
  char host[256] = {};
  if (simulated()) {
    // Ranks of a simulation share this machine; their hosts are the platform's.
    simulated_host().copy(host, sizeof host - 1);
    env["simgrid"] = simgrid_version();
  } else {
    ::gethostname(host, sizeof host - 1);
  }
  std::vector<char> hosts(sizeof host * static_cast<size_t>(size));
  MPI_Allgather(host, sizeof host, MPI_CHAR, hosts.data(), sizeof host, MPI_CHAR, comm);
  nlohmann::json list = nlohmann::json::array();
  for (int r = 0; r < size; ++r) list.push_back(std::string(hosts.data() + r * sizeof host));
  env["hosts"] = list;
  add_machine_share(comm, hosts, sizeof host, env);
  return env;
}

nlohmann::json record_header(const std::string& app, const RunOptions& options,
                             const std::string& run_id) {
  return {{"schema", kRunRecordSchema},
          {"run_id", run_id},
          {"campaign",
           options.campaign.empty() ? nlohmann::json(nullptr) : nlohmann::json(options.campaign)},
          {"repetition", options.repetition},
          {"app", app}};
}

void add_counters(nlohmann::json& record, MPI_Comm comm, const Counters& counters) {
  // Availability is the same on every rank of a homogeneous run, but not necessarily on a
  // heterogeneous one: agree on it first so the reductions below match up.
  int mine = counters.available() ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    record["counters"] = nullptr;
    record["counters_reason"] =
        counters.available() ? "hardware counters unavailable on some ranks" : counters.reason();
    return;
  }
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [event, value] : counters.values().items()) {
    long long local = value.get<long long>();
    long long total = 0;
    MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, comm);
    totals[event] = total;
  }
  record["counters"] = totals;
}

int report_verdict(bool valid, const std::string& figure, const std::string& meaning,
                   const std::string& reason) {
  std::printf("%s  figure of merit %s (%s)%s%s\n", valid ? "VALID" : "INVALID", figure.c_str(),
              meaning.c_str(), valid ? "" : ": ", reason.c_str());
  std::fflush(stdout);
  return valid ? 0 : 1;
}

nlohmann::json gather_objects(MPI_Comm comm, const nlohmann::json& local) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string text = local.dump();
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<size_t>(r)] = total;
      total += lengths[static_cast<size_t>(r)];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, comm);
  if (rank != 0) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (int r = 0; r < size; ++r) {
    out.push_back(nlohmann::json::parse(
        all.begin() + offsets[static_cast<size_t>(r)],
        all.begin() + offsets[static_cast<size_t>(r)] + lengths[static_cast<size_t>(r)]));
  }
  return out;
}

nlohmann::json spread(MPI_Comm comm, double value) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  double lo = 0;
  double hi = 0;
  double sum = 0;
  MPI_Allreduce(&value, &lo, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&value, &hi, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  return Spread::of(lo, sum, hi, size).to_json();
}

void write_record(const std::string& path, const nlohmann::json& record) {
  if (path == "none") return;
  append_line(path, RunRecord::from_json(record).line());  // the contract checks what it writes
}

int record_failure(MPI_Comm comm, const std::string& program, const std::string& path,
                   nlohmann::json record, const std::string& reason) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    record["status"] = "failed";
    record["reason"] = reason;
    write_record(path, record);
    std::printf("%s: FAILED: %s\n", program.c_str(), reason.c_str());
    std::fflush(stdout);
  }
  return 1;
}

}  // namespace mcb::harness
