#include "nodeload/generator.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mcb::nodeload {
namespace {

using Clock = std::chrono::steady_clock;
// A CPU thread is busy for its share of every period: short enough that the run's ranks meet
// the load as a steady competitor, long enough that the scheduler's tick does not decide it.
constexpr auto kCpuPeriod = std::chrono::milliseconds(10);
// The streaming copy works on buffers well past any last-level cache, a chunk at a time.
constexpr std::size_t kMemoryBuffer = std::size_t{64} << 20;
constexpr std::size_t kMemoryChunk = std::size_t{1} << 20;
constexpr std::size_t kDatagram = 8192;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

bool should_stop(const std::atomic<bool>& stop, Clock::time_point start, double duration) {
  return stop.load(std::memory_order_relaxed) || (duration > 0 && seconds_since(start) >= duration);
}

// Paces a byte stream: sleeps while more than rate * elapsed bytes have gone.
void pace(double done_bytes, double rate, Clock::time_point start) {
  const double ahead = done_bytes / rate - seconds_since(start);
  if (ahead > 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::min(ahead, 0.05)));
}

void cpu_worker(double share, const std::atomic<bool>& stop, Clock::time_point start,
                double duration, double& cpu_seconds) {
  const auto busy = std::chrono::duration_cast<Clock::duration>(kCpuPeriod * share);
  volatile double sink = 1;
  auto period_start = Clock::now();
  while (!should_stop(stop, start, duration)) {
    while (Clock::now() - period_start < busy) {
      for (int i = 0; i < 1000; ++i) sink = sink * 1.0000001 + 1e-9;
    }
    period_start += kCpuPeriod;
    std::this_thread::sleep_until(period_start);
  }
  cpu_seconds = thread_cpu_seconds();
}

// The two buffers of the streaming copy, touched before the load's clock starts.
struct CopyBuffers {
  std::vector<char> from = std::vector<char>(kMemoryBuffer, 1);
  std::vector<char> to = std::vector<char>(kMemoryBuffer, 0);
};

void memory_worker(double rate, CopyBuffers& buffers, const std::atomic<bool>& stop,
                   Clock::time_point start, double duration, double& bytes) {
  std::vector<char>& from = buffers.from;
  std::vector<char>& to = buffers.to;
  std::size_t offset = 0;
  const Clock::time_point began = Clock::now();
  while (!should_stop(stop, start, duration)) {
    std::memcpy(to.data() + offset, from.data() + offset, kMemoryChunk);
    offset = (offset + kMemoryChunk) % kMemoryBuffer;
    bytes += 2.0 * kMemoryChunk;  // read once, written once
    pace(bytes, rate, began);
  }
}

struct Socket {
  int fd = -1;
  Socket() : fd(socket(AF_INET, SOCK_DGRAM, 0)) {
    if (fd < 0) throw std::runtime_error(std::string("UDP socket: ") + std::strerror(errno));
  }
  ~Socket() { close(fd); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
};

sockaddr_in resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    throw std::runtime_error("network load: peer '" + host + "' cannot be resolved");
  }
  sockaddr_in address{};
  std::memcpy(&address, found->ai_addr, sizeof address);
  freeaddrinfo(found);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

void receiver(const Socket& in, const std::atomic<bool>& stop, Clock::time_point start,
              double duration, double& bytes) {
  std::vector<char> buffer(kDatagram);
  while (!should_stop(stop, start, duration)) {
    const ssize_t got = recv(in.fd, buffer.data(), buffer.size(), 0);
    if (got > 0) bytes += static_cast<double>(got);
  }
}

void sender(const sockaddr_in& to, double rate, const std::atomic<bool>& stop,
            Clock::time_point start, double duration, double& bytes) {
  Socket out;
  const std::vector<char> payload(kDatagram, 'L');
  const Clock::time_point began = Clock::now();
  while (!should_stop(stop, start, duration)) {
    const ssize_t sent = sendto(out.fd, payload.data(), payload.size(), 0,
                                reinterpret_cast<const sockaddr*>(&to), sizeof to);
    if (sent > 0) bytes += static_cast<double>(sent);
    pace(bytes, rate, began);
  }
}

// The receiving socket, bound before any thread starts so that a taken port is refused at once.
std::unique_ptr<Socket> bind_receiver(int port) {
  auto in = std::make_unique<Socket>();
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (bind(in->fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw std::runtime_error("network load: UDP port " + std::to_string(port) +
                             " cannot be bound: " + std::strerror(errno));
  }
  timeval wait{0, 100000};  // the receiver checks for the end every 0.1 s
  setsockopt(in->fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  return in;
}

}  // namespace

NodeLoadAchieved generate(const NodeLoadSpec& spec, const std::string& peer,
                          const std::atomic<bool>& stop, double duration,
                          const std::function<void()>& started) {
  NodeLoadAchieved a;
  std::unique_ptr<Socket> in;
  sockaddr_in to{};
  if (spec.network_rate > 0) {
    in = bind_receiver(spec.port);
    to = resolve(peer, spec.port);
    a.peer = peer;
  }
  std::unique_ptr<CopyBuffers> buffers;
  if (spec.memory_rate > 0) buffers = std::make_unique<CopyBuffers>();
  const Clock::time_point start = Clock::now();
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  std::vector<double> cpu(spec.cpu_share > 0 ? static_cast<std::size_t>(cores) : 0, 0.0);
  std::vector<std::thread> threads;
  for (double& seconds : cpu) {
    threads.emplace_back(cpu_worker, spec.cpu_share, std::cref(stop), start, duration,
                         std::ref(seconds));
  }
  if (spec.memory_rate > 0) {
    threads.emplace_back(memory_worker, spec.memory_rate, std::ref(*buffers), std::cref(stop),
                         start, duration, std::ref(a.memory_bytes));
  }
  if (in) {
    threads.emplace_back(receiver, std::cref(*in), std::cref(stop), start, duration,
                         std::ref(a.received_bytes));
    threads.emplace_back(sender, std::cref(to), spec.network_rate, std::cref(stop), start,
                         duration, std::ref(a.sent_bytes));
  }
  started();
  // Without a load of any kind the generator only waits for its end.
  while (!should_stop(stop, start, duration)) std::this_thread::sleep_for(kCpuPeriod);
  for (std::thread& t : threads) t.join();
  a.seconds = seconds_since(start);
  a.cpu_threads = static_cast<int>(cpu.size());
  for (double s : cpu) a.cpu_seconds += s;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  a.host = host;
  return a;
}

}  // namespace mcb::nodeload
