#include "harness/link_clock.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <utility>

namespace mcb::harness {
namespace {

// One cache line per link direction: ranks booking different links never share a line.
struct alignas(64) LinkSlot {
  std::int64_t free_at;
};

constexpr int kNameLength = 64;

// The time slice a waiting rank asks the scheduler for (the smallest Linux accepts), and how
// long before a deadline it stops sleeping and watches the clock instead.
constexpr std::uint64_t kShortSlice = 100'000;  // ns
constexpr std::int64_t kSpinWindow = 60'000;    // ns

// struct sched_attr of sched_setattr(2), declared here: glibc has no wrapper.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};

std::int64_t seconds_to_ns(double seconds) {
  return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

}  // namespace

LinkClock::LinkClock(MPI_Comm comm, LinkTable links) : links_(std::move(links)) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int clusters = links_.clusters();
  segment_bytes_ = sizeof(LinkSlot) * static_cast<size_t>(std::max(1, clusters * clusters));

  // Rank 0 creates the segment under a fresh name; the others open it by that name.
  static int instance = 0;
  char name[kNameLength] = {};
  int ok = 1;
  if (rank == 0) {
    std::snprintf(name, sizeof name, "/mcb-links-%d-%d", static_cast<int>(::getpid()), instance++);
    const int fd = ::shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    ok = fd >= 0 && ::ftruncate(fd, static_cast<off_t>(segment_bytes_)) == 0;
    if (ok) {
      segment_ = ::mmap(nullptr, segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ok = segment_ != MAP_FAILED;
    }
    if (fd >= 0) ::close(fd);
    if (ok) std::memset(segment_, 0, segment_bytes_);  // every link free since time 0
  }
  MPI_Bcast(name, kNameLength, MPI_CHAR, 0, comm);
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (ok && rank != 0) {
    const int fd = ::shm_open(name, O_RDWR, 0600);
    ok = fd >= 0;
    if (ok) {
      segment_ = ::mmap(nullptr, segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ok = segment_ != MAP_FAILED;
      ::close(fd);
    }
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  if (rank == 0 && name[0] != '\0') ::shm_unlink(name);  // mapped everywhere (or failed): unlink
  if (!all_ok) {
    if (segment_ != nullptr && segment_ != MAP_FAILED) ::munmap(segment_, segment_bytes_);
    segment_ = nullptr;
    throw std::runtime_error(std::string("cannot share the emulated link state through ") +
                             "/dev/shm: " + std::strerror(errno));
  }
  make_wakeups_prompt();
}

void LinkClock::make_wakeups_prompt() {
  // Sleeps end within a microsecond of their deadline, not the default 50 us.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  // On a busy host a woken rank otherwise waits for the running task's whole time slice
  // (milliseconds) before it may run: ask for short slices, so the scheduler lets it in at
  // once (Linux 6.12 and later, unprivileged; the same share of the processor; ignored by
  // older kernels). Nothing changes for runs without emulated links.
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = SCHED_OTHER;
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, 0);
  attr.sched_nice = errno == 0 ? nice : 0;
  attr.sched_runtime = kShortSlice;
  ::syscall(SYS_sched_setattr, 0, &attr, 0);
}

LinkClock::~LinkClock() {
  if (segment_ != nullptr) ::munmap(segment_, segment_bytes_);
}

std::int64_t LinkClock::now() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void LinkClock::wait_until(std::int64_t t) {
  // Sleep to just before the deadline, then watch the clock: a wake-up on this kind of host
  // comes some 50 us after the timer (measured on the 2-vCPU VM the suite is developed on), so
  // a sleep to the deadline itself would deliver every message that much late. The window is
  // kept below the short time slice asked for in make_wakeups_prompt(), so the watching does
  // not use the slice up and get the rank put behind other work just as its message is due.
  const std::int64_t wake = t - kSpinWindow;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(wake / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(wake % 1'000'000'000);
  while (now() < wake) ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
  while (now() < t) {
  }
}

void LinkClock::sleep_for(std::int64_t ns) {
  if (ns <= 0) return;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  ::clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
}

std::int64_t LinkClock::reserve(int from, int to, std::size_t bytes) {
  const LinkParameters& link = links_.between(from, to);
  const auto hold = seconds_to_ns(static_cast<double>(bytes) / link.bandwidth);
  auto* slots = static_cast<LinkSlot*>(segment_);
  std::atomic_ref<std::int64_t> free_at(slots[from * links_.clusters() + to].free_at);
  const std::int64_t sent = now();
  std::int64_t before = free_at.load(std::memory_order_relaxed);
  std::int64_t done = 0;
  do {
    done = std::max(sent, before) + hold;
  } while (!free_at.compare_exchange_weak(before, done, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
  const std::int64_t arrival = done + seconds_to_ns(link.latency);
  if (keeping_.load(std::memory_order_relaxed)) {
    const std::lock_guard<std::mutex> lock(bookings_mutex_);
    bookings_.push_back({from, to, bytes, sent, done - hold, done, arrival});
  }
  return arrival;
}

std::vector<LinkBooking> LinkClock::take_bookings() {
  const std::lock_guard<std::mutex> lock(bookings_mutex_);
  return std::exchange(bookings_, {});
}

}  // namespace mcb::harness
