#include "common/files.hpp"

#include "common/errors.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace mcb {
namespace {

std::string errno_text() { return std::strerror(errno); }

// Owns a file descriptor; closes it on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void write_all(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write '" + path + "': " + errno_text());
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// Cuts the file back to just after its last newline, dropping a torn line from a crash.
void drop_torn_tail(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) return;
  off_t end = st.st_size;
  char c = 0;
  if (::pread(fd, &c, 1, end - 1) == 1 && c == '\n') return;
  char buf[4096];
  off_t pos = end;
  while (pos > 0) {
    const off_t chunk =
        pos >= static_cast<off_t>(sizeof buf) ? static_cast<off_t>(sizeof buf) : pos;
    pos -= chunk;
    const ssize_t n = ::pread(fd, buf, static_cast<size_t>(chunk), pos);
    if (n != chunk) break;
    for (off_t i = chunk - 1; i >= 0; --i) {
      if (buf[i] == '\n') {
        if (::ftruncate(fd, pos + i + 1) != 0) {
          throw std::runtime_error("cannot repair '" + path + "': " + errno_text());
        }
        return;
      }
    }
  }
  if (::ftruncate(fd, 0) != 0) {
    throw std::runtime_error("cannot repair '" + path + "': " + errno_text());
  }
}

}  // namespace

void check_writable_file(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string what = "--" + option + ": cannot write '" + path + "'";
  if (path.empty()) throw UsageError("--" + option + ": empty path");
  std::error_code ec;
  const fs::path p(path);
  const bool entry = fs::exists(fs::symlink_status(p, ec));
  if (fs::exists(p, ec)) {
    if (fs::is_directory(p, ec)) throw UsageError(what + ": it is a directory");
    if (::access(path.c_str(), W_OK) != 0) throw UsageError(what + ": " + errno_text());
    return;
  }
  // A symbolic link that leads nowhere (to itself, or to nothing) cannot be opened for writing:
  // refuse it now rather than after the run.
  if (entry) throw UsageError(what + ": " + (ec ? ec.message() : "a symbolic link to nothing"));
  fs::path parent = p.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec)) {
    throw UsageError(what + ": directory '" + parent.string() + "' does not exist");
  }
  if (::access(parent.c_str(), W_OK) != 0) throw UsageError(what + ": " + errno_text());
}

void check_creatable_folder(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string what = "--" + option + ": cannot create folder '" + path + "'";
  if (path.empty()) throw UsageError("--" + option + ": empty path");
  std::error_code ec;
  // The nearest part of the path that exists must be a writable folder.
  fs::path p = fs::absolute(path, ec);
  while (!fs::exists(fs::symlink_status(p, ec)) && p.has_relative_path()) p = p.parent_path();
  if (!fs::is_directory(p, ec)) {
    throw UsageError(what + ": '" + p.string() + "' is not a folder");
  }
  if (::access(p.c_str(), W_OK | X_OK) != 0) {
    throw UsageError(what + ": '" + p.string() + "': " + errno_text());
  }
}

void append_line(const std::string& path, const std::string& line) {
  // Whether this call creates the file: a first line that cannot be written leaves no empty file.
  int raw = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const bool created = raw >= 0;
  if (!created && errno == EEXIST) raw = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  Fd fd(raw);
  if (fd.get() < 0) throw std::runtime_error("cannot open '" + path + "': " + errno_text());
  if (::flock(fd.get(), LOCK_EX) != 0) {
    throw std::runtime_error("cannot lock '" + path + "': " + errno_text());
  }
  // pread needs a readable descriptor; reopen read-write only for the repair check.
  {
    Fd rw(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (rw.get() >= 0) drop_torn_tail(rw.get(), path);
  }
  std::string buffer = line;
  buffer.push_back('\n');
  struct stat before {};
  ::fstat(fd.get(), &before);
  try {
    write_all(fd.get(), buffer.data(), buffer.size(), path);
  } catch (const std::runtime_error&) {
    // A full disk: the file keeps its whole lines only (a new one is removed).
    if (::ftruncate(fd.get(), before.st_size) == 0 && created && before.st_size == 0) {
      ::unlink(path.c_str());
    }
    throw;
  }
  ::fsync(fd.get());
  ::flock(fd.get(), LOCK_UN);
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)),
      tmp_(path_ + ".tmp." + std::to_string(::getpid())),
      buffer_(std::make_unique<char[]>(kBuffer)) {
  out_.rdbuf()->pubsetbuf(buffer_.get(), static_cast<std::streamsize>(kBuffer));
  out_.open(tmp_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw std::runtime_error("cannot open '" + tmp_ + "': " + errno_text());
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  ::unlink(tmp_.c_str());
}

void AtomicFile::finish() {
  if (finished_) return;
  out_.flush();
  out_.close();
  if (!out_) throw std::runtime_error("cannot write '" + tmp_ + "'");
  // The stream hides its descriptor: sync through a second one (fsync syncs the file).
  Fd fd(::open(tmp_.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() >= 0) ::fsync(fd.get());
  finished_ = true;
}

void AtomicFile::commit() {
  finish();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + tmp_ + "' to '" + path_ + "': " + errno_text());
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFile file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

}  // namespace mcb
