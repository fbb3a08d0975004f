#pragma once
/// @file
/// @brief The state of the emulated wide-area links of one host: for each direction of each
/// cluster pair, the time the link falls free, in memory every rank of the host shares.
///
/// A message of N bytes sent at time t over an emulated link starts when the link is free,
/// s = max(t, free), holds the link for N / B, and arrives at s + N / B + latency; the link is
/// free again at s + N / B (messages are pipelined behind each other, first sent first served).
/// So a lone message takes latency + N / B, and transfers that cross one link at the same time
/// share its bandwidth. The arrival time travels with the message; the receiver waits until it.

#include "harness/wan_links.hpp"

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace mcb::harness {

/// @brief What reserve() decided for one message: the emulator's own account of when its bytes
/// were let through (times on LinkClock::now()'s scale, nanoseconds).
struct LinkBooking {
  int from = 0;              //!< the sending cluster
  int to = 0;                //!< the receiving cluster
  std::size_t bytes = 0;     //!< the message's size
  std::int64_t sent = 0;     //!< when it was booked
  std::int64_t start = 0;    //!< its first byte on the link: max(sent, the link's free time)
  std::int64_t done = 0;     //!< its last byte: start + bytes / bandwidth; the link is free
  std::int64_t arrival = 0;  //!< done + latency: the receiver holds it no earlier
};

class LinkClock {
 public:
  /// @brief Collective over @p comm, whose ranks must all run on this host. The link state
  /// lives in a POSIX shared-memory segment mapped by every rank and unlinked at once, so
  /// tearing down is local (no collective in a destructor) and nothing outlives the run.
  LinkClock(MPI_Comm comm, LinkTable links);
  ~LinkClock();
  LinkClock(const LinkClock&) = delete;
  LinkClock& operator=(const LinkClock&) = delete;

  /// @brief Nanoseconds on the host's monotonic clock, the same in every process of the host.
  static std::int64_t now();

  /// @brief Returns once now() >= @p t: sleeps, and watches the clock for the last tens of
  /// microseconds so that the return is on time.
  static void wait_until(std::int64_t t);

  /// @brief Asks for prompt wake-ups for the calling thread: timer slack of 1 ns and short
  /// scheduler time slices. The constructor does it for the thread that builds the clock.
  static void make_wakeups_prompt();

  /// @brief Sleeps about @p ns (a poll interval), giving the processor away meanwhile.
  static void sleep_for(std::int64_t ns);

  /// @brief Books the link from cluster @p from to cluster @p to for a message of @p bytes
  /// sent now; returns the time (now() scale) its last byte arrives. Lock-free, safe from any
  /// thread of any rank of the host.
  std::int64_t reserve(int from, int to, std::size_t bytes);

  const LinkTable& links() const { return links_; }

  /// @brief From now on, keeps every booking this process makes (tests check the emulation by
  /// them, not by wall-clock time, which a busy host stretches). Off by default, so a long run
  /// does not grow a list.
  void keep_bookings() { keeping_.store(true); }
  /// @brief The bookings this process made since keep_bookings() or the last call, in the order
  /// made; the list is emptied.
  std::vector<LinkBooking> take_bookings();

 private:
  LinkTable links_;
  void* segment_ = nullptr;
  std::size_t segment_bytes_ = 0;
  std::atomic<bool> keeping_{false};
  std::mutex bookings_mutex_;  // reserve() is called from the relay's thread too
  std::vector<LinkBooking> bookings_;
};

}  // namespace mcb::harness
