#pragma once
/// @file
/// @brief The frame of every MPI program of the suite: init and finalize, and bad input that
/// ends every rank with exit code 2 and one line printed once.

#include "common/check.hpp"

#include <mpi.h>

#include <functional>
#include <string>

namespace mcb::harness {

/// @brief Runs @p body between MPI_Init and MPI_Finalize (MPI_Init_thread with
/// MPI_THREAD_MULTIPLE when the run asks for --relay). A mcb::UsageError that reaches here
/// must have been raised on every rank (see collective_check); rank 0 prints it and every rank
/// returns 2. Any other exception prints its message and aborts the job with code 1.
/// With --check in argv, runs cli::run_check with @p check instead, without MPI.
int mpi_main(const std::string& program, int argc, char** argv, const cli::CheckFunction& check,
             const std::function<int(MPI_Comm)>& body);

/// @brief Runs @p check on every rank; when it throws mcb::UsageError on any rank, the message
/// of the lowest such rank is rethrown on every rank, so all ranks stop together.
void collective_check(MPI_Comm comm, const std::function<void()>& check);

/// @brief Like collective_check for any exception: returns "" when @p work succeeded on every
/// rank, else the message of the lowest failing rank (on every rank). Lets a program record a
/// failed run instead of dying.
std::string collective_try(MPI_Comm comm, const std::function<void()>& work);

}  // namespace mcb::harness
