#include "harness/mpi_program.hpp"

#include "common/errors.hpp"
#include "harness/wide_area.hpp"

#include <iostream>
#include <vector>

namespace mcb::harness {
namespace {

// Returns the message of the lowest rank with a non-empty @p mine, or "" when none has one.
std::string lowest_message(MPI_Comm comm, const std::string& mine) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int candidate = mine.empty() ? size : rank;
  int first = size;
  MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return {};
  int length = rank == first ? static_cast<int>(mine.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::vector<char> text(static_cast<size_t>(length));
  if (rank == first) text.assign(mine.begin(), mine.end());
  MPI_Bcast(text.data(), length, MPI_CHAR, first, comm);
  return std::string(text.begin(), text.end());
}

}  // namespace

void collective_check(MPI_Comm comm, const std::function<void()>& check) {
  std::string message;
  try {
    check();
  } catch (const UsageError& e) {
    message = e.what();
    if (message.empty()) message = "invalid input";
  }
  const std::string agreed = lowest_message(comm, message);
  if (!agreed.empty()) throw UsageError(agreed);
}

std::string collective_try(MPI_Comm comm, const std::function<void()>& work) {
  std::string message;
  try {
    work();
  } catch (const std::exception& e) {
    message = e.what();
    if (message.empty()) message = "unknown error";
  }
  return lowest_message(comm, message);
}

int mpi_main(const std::string& program, int argc, char** argv, const cli::CheckFunction& check,
             const std::function<int(MPI_Comm)>& body) {
  if (cli::asks_for_check(argc, argv)) return cli::run_check(program, argc, argv, check);
  // Only the gateway relay's progress thread needs MPI_THREAD_MULTIPLE; every other run keeps
  // the cheaper single-threaded library.
  if (argv_asks_for_relay(argc, argv)) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  try {
    code = body(MPI_COMM_WORLD);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << program << ": " << e.what() << std::endl;
    code = kUsageExitCode;
  } catch (const std::exception& e) {
    std::cerr << program << ": error on rank " << rank << ": " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}

}  // namespace mcb::harness
