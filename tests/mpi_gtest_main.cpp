// Shared main for MPI tests: every rank runs every test; only rank 0 prints GoogleTest's report
// so output stays readable at any rank count, but a failure on any rank fails the process.
// Built twice: plain, and with MCB_TEST_THREAD_MULTIPLE for tests of the wide-area relay, whose
// progress thread needs MPI_THREAD_MULTIPLE (a run without it fails rather than skips).
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
#ifdef MCB_TEST_THREAD_MULTIPLE
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const bool usable = provided == MPI_THREAD_MULTIPLE;
#else
  MPI_Init(&argc, &argv);
  const bool usable = true;
#endif
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local = usable ? RUN_ALL_TESTS() : 1;
  int global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return global;
}
