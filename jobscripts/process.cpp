#include "jobscripts/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace mcb::campaign {
namespace {

using Clock = std::chrono::steady_clock;

ExitStatus from_wait_status(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) {
    s.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    s.code = -1;
    s.signal = WTERMSIG(status);
  }
  return s;
}

std::vector<char*> c_argv(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (std::string& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// In the child after fork: report why exec failed through the pipe, then leave.
[[noreturn]] void child_fail(int report_fd, const char* what) {
  const int saved = errno;
  std::string message = std::string(what) + ": " + std::strerror(saved);
  [[maybe_unused]] ssize_t n = ::write(report_fd, message.data(), message.size());
  ::_exit(127);
}

// Reads what the child reported before exec (nothing when exec succeeded: the pipe closes).
std::string read_start_report(int fd) {
  std::string report;
  char buf[512];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      report.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(fd);
  return report;
}

bool environ_has(pid_t pid, const std::string& entry) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  if (!in) return false;
  std::string item;
  while (std::getline(in, item, '\0')) {
    if (item == entry) return true;
  }
  return false;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (signal != 0) {
    const char* name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
  }
  return "exit code " + std::to_string(code);
}

bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir.empty() ? std::string(".") : dir;
    candidate += '/';
    candidate += program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return true;
    }
  }
  return false;
}

namespace {

Captured capture_in(const std::vector<std::string>& argv_in, const std::string& cwd,
                    double timeout_seconds, const std::vector<std::string>* environment) {
  Captured result;
  int out_pipe[2];
  int err_pipe[2];
  int report_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(report_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> argv = argv_in;
  std::vector<char*> args = c_argv(argv);
  std::vector<std::string> env_entries = environment ? *environment : std::vector<std::string>{};
  std::vector<char*> envp = c_argv(env_entries);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) child_fail(report_pipe[1], cwd.c_str());
    if (environment) {
      ::execvpe(args[0], args.data(), envp.data());
    } else {
      ::execvp(args[0], args.data());
    }
    child_fail(report_pipe[1], args[0]);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(report_pipe[1]);
  result.start_error = read_start_report(report_pipe[0]);

  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.status = from_wait_status(status);
  return result;
}

}  // namespace

Captured capture(const std::vector<std::string>& argv, const std::string& cwd,
                 double timeout_seconds) {
  return capture_in(argv, cwd, timeout_seconds, nullptr);
}

Captured capture(const std::vector<std::string>& argv, const std::string& cwd,
                 double timeout_seconds, const std::vector<std::string>& environment) {
  return capture_in(argv, cwd, timeout_seconds, &environment);
}

TaggedRun::TaggedRun(const std::vector<std::string>& argv_in, const std::string& cwd,
                     const std::vector<std::pair<std::string, std::string>>& env,
                     const std::string& log, const std::string& token)
    : token_(token) {
  int report_pipe[2];
  if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> argv = argv_in;
  std::vector<char*> args = c_argv(argv);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    // Its own session: Ctrl-C on the executor's terminal reaches the executor only, which then
    // ends the run itself; and the run dies with the executor.
    ::setsid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd < 0) child_fail(report_pipe[1], log.c_str());
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    if (::chdir(cwd.c_str()) != 0) child_fail(report_pipe[1], cwd.c_str());
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    ::setenv(kTokenVariable, token_.c_str(), 1);
    ::execvp(args[0], args.data());
    child_fail(report_pipe[1], args[0]);
  }
  ::close(report_pipe[1]);
  const std::string report = read_start_report(report_pipe[0]);
  if (!report.empty()) {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    status_ = from_wait_status(status);
    throw std::runtime_error("cannot start " + report);
  }
}

TaggedRun::~TaggedRun() {
  if (!status_) {
    terminate(0);
  }
}

std::optional<ExitStatus> TaggedRun::poll() {
  if (status_) return status_;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) status_ = from_wait_status(status);
  return status_;
}

ExitStatus TaggedRun::terminate(double grace_seconds) {
  if (!poll()) {
    ::kill(pid_, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::duration<double>(grace_seconds);
    while (!poll() && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!status_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      status_ = from_wait_status(status);
    }
  }
  kill_leftovers();
  return *status_;
}

void TaggedRun::kill_leftovers() const { kill_tagged(token_, 10); }

std::vector<pid_t> tagged_processes(const std::string& token) {
  std::vector<pid_t> pids;
  const std::string entry = std::string(kTokenVariable) + "=" + token;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = proc.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    if (environ_has(pid, entry)) pids.push_back(pid);
  }
  return pids;
}

int kill_tagged(const std::string& token, double wait_seconds) {
  if (token.empty()) return 0;
  const auto deadline = Clock::now() + std::chrono::duration<double>(wait_seconds);
  while (true) {
    const std::vector<pid_t> pids = tagged_processes(token);
    if (pids.empty()) return 0;
    for (const pid_t pid : pids) ::kill(pid, SIGKILL);
    // Our own children must be reaped to disappear; others vanish when their parent reaps them.
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (Clock::now() >= deadline) return static_cast<int>(pids.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string random_token() {
  std::random_device device;
  std::ostringstream out;
  out << std::hex;
  for (int i = 0; i < 4; ++i) out << device();
  return out.str();
}

}  // namespace mcb::campaign
