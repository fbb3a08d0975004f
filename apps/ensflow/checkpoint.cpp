#include "apps/ensflow/checkpoint.hpp"

#include "common/cli.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace mcb::ensflow {

bool CheckpointPlan::due(const ExperimentSettings& s, int day) const {
  if (file.empty()) return false;
  if (day == last_day(s) && stop_day > 0) return true;
  return every_days > 0 ? day % every_days == 0 : s.is_analysis_day(day);
}

int CheckpointPlan::last_day(const ExperimentSettings& s) const {
  return stop_day > 0 ? std::min(stop_day, s.days) : s.days;
}

double CheckpointBook::write_time() const {
  double total = 0;
  for (const Write& w : writes) total += w.seconds;
  return total;
}

nlohmann::json CheckpointBook::to_json(const std::string& checkpoint_file) const {
  using nlohmann::json;
  json days = json::array(), sizes = json::array(), times = json::array();
  for (const Write& w : writes) {
    days.push_back(w.day);
    sizes.push_back(w.bytes);
    times.push_back(w.seconds);
  }
  json out = {{"checkpoint_file", checkpoint_file.empty() ? json(nullptr) : json(checkpoint_file)},
              {"writes", writes.size()},
              {"write_days", days},
              {"write_bytes", sizes},
              {"write_times", times},
              {"write_time", write_time()},
              {"stopped_at_day", stopped_at > 0 ? json(stopped_at) : json(nullptr)},
              {"stopped_by", stopped_at > 0 ? json(stopped_by) : json(nullptr)}};
  if (restart_file.empty()) {
    out["restart_file"] = nullptr;
  } else {
    out["restart_file"] = restart_file;
    out["restart_day"] = restart_day;
    out["restart_bytes"] = restart_bytes;
    out["read_time"] = read_time;
    out["distribute_time"] = distribute_time;
  }
  return out;
}

RestartSource read_restart(const std::string& path, const std::string& config,
                           const ExperimentSettings& settings) {
  // steady_clock: --check reads the file too, without MPI.
  const auto start = std::chrono::steady_clock::now();
  try {
    RestartSource source;
    source.file = path;
    source.bytes = read_restart_bytes(path);
    source.day = decode_restart(source.bytes, config, settings).day;
    source.read_time =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return source;
  } catch (const RestartFileError& e) {
    throw cli::ValueError("restart", "--restart: '" + path + "': " + e.what());
  }
}

RestartState receive_restart(MPI_Comm comm, const RestartSource& source, const std::string& config,
                             const ExperimentSettings& settings) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  unsigned long long size = source.bytes.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  std::string bytes = rank == 0 ? source.bytes : std::string(size, '\0');
  // In pieces: an int counts the bytes of one broadcast.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < size; at += kPiece) {
    const auto count = static_cast<int>(std::min<std::size_t>(kPiece, size - at));
    MPI_Bcast(bytes.data() + at, count, MPI_BYTE, 0, comm);
  }
  return decode_restart(bytes, config, settings);
}

std::size_t write_checkpoint(MPI_Comm comm, const std::string& path, RestartState& head,
                             const Eigen::MatrixXd& local_states) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const auto count = static_cast<std::size_t>(local_states.size());
  if (rank == 0) head.states.resize(count * static_cast<std::size_t>(size));
  // Column-major n x M/P: each rank's members one after the other, ranks in member order.
  MPI_Gather(local_states.data(), static_cast<int>(count), MPI_DOUBLE,
             rank == 0 ? head.states.data() : nullptr, static_cast<int>(count), MPI_DOUBLE, 0,
             comm);
  std::string failure;
  std::size_t written = 0;
  if (rank == 0) {
    try {
      const std::string bytes = encode_restart(head);
      write_restart_bytes(path, bytes);
      written = bytes.size();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    head.states.clear();
  }
  // Every rank learns whether rank 0 wrote, so that all stop together.
  int length = static_cast<int>(failure.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  if (length > 0) {
    failure.resize(static_cast<std::size_t>(length));
    MPI_Bcast(failure.data(), length, MPI_CHAR, 0, comm);
    throw std::runtime_error("--checkpoint: cannot write '" + path + "': " + failure);
  }
  return written;
}

}  // namespace mcb::ensflow
