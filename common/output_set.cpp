#include "common/output_set.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace mcb {
namespace fs = std::filesystem;

namespace {

std::string errno_text() { return std::strerror(errno); }

// ".<folder name>.<kind>." : the prefix of the siblings of @p folder.
std::string sibling_prefix(const fs::path& folder, const char* kind) {
  std::string prefix(".");
  prefix += folder.filename().string();
  prefix += '.';
  prefix += kind;
  prefix += '.';
  return prefix;
}

bool process_alive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// The pid at the end of "<prefix><pid>", or 0 when @p name is not of that form.
long pid_after(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return 0;
  const std::string digits = name.substr(prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return 0;
  return std::stol(digits);
}

// A temporary "<file>.tmp.<pid>" (common/files.hpp's AtomicFile) of a process that is gone.
bool stale_temporary(const std::string& name) {
  const auto at = name.rfind(".tmp.");
  if (at == std::string::npos || at == 0) return false;
  const long pid = pid_after(name, name.substr(0, at + 5));
  return pid != 0 && !process_alive(pid);
}

void sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// @p entry again at @p target: a file hard-linked, a folder made anew with its entries linked
// the same way, a symbolic link copied as a link. The new set shares the other entries without
// copying them.
void link_entry(const fs::directory_entry& entry, const fs::path& target) {
  const fs::file_status status = entry.symlink_status();
  if (fs::is_symlink(status)) {
    fs::copy_symlink(entry.path(), target);
  } else if (fs::is_directory(status)) {
    fs::create_directory(target);
    for (const fs::directory_entry& inner : fs::directory_iterator(entry.path())) {
      link_entry(inner, target / inner.path().filename());
    }
  } else {
    fs::create_hard_link(entry.path(), target);
  }
}

}  // namespace

void crash_point() {
  static const long limit = [] {
    const char* text = std::getenv("MCB_CRASH_AT");
    return text == nullptr ? 0L : std::atol(text);
  }();
  static long reached = 0;
  if (limit > 0 && ++reached == limit) ::_exit(137);
}

struct OutputSet::File {
  std::string name, path;
  std::unique_ptr<char[]> buffer;
  std::ofstream out;
};

OutputSet::OutputSet(const std::string& folder, std::set<std::string> owned)
    : owned_(std::move(owned)) {
  std::error_code ec;
  fs::path target = fs::weakly_canonical(fs::absolute(folder), ec);
  if (ec) target = fs::absolute(folder).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  folder_ = target.string();
  const fs::path parent = target.parent_path();
  fs::create_directories(parent);
  clean_up_killed_runs();
  stage_ = (parent / (sibling_prefix(target, "new") + std::to_string(::getpid()))).string();
  fs::remove_all(stage_, ec);
  if (!fs::create_directory(stage_, ec) || ec) {
    throw std::runtime_error("cannot create '" + stage_ + "': " + ec.message());
  }
}

OutputSet::~OutputSet() {
  files_.clear();
  std::error_code ec;
  fs::remove_all(stage_, ec);
}

std::ostream& OutputSet::open(const std::string& name) {
  if (owned_.count(name) == 0) throw std::logic_error("output '" + name + "' is not in the set");
  constexpr std::size_t kBuffer = std::size_t{1} << 16;
  auto file = std::make_unique<File>();
  file->name = name;
  file->path = (fs::path(stage_) / name).string();
  // 64 KiB, not zeroed: a buffer stays in the cache and its pages are faulted in once. Clearing
  // 1 MiB per file was a fifth of the CPU time of a short mcb-sim run, and copying a 1 MB jobs.csv
  // into a fresh 1 MiB buffer (a page fault every 4 KiB) a quarter of what was left.
  file->buffer = std::make_unique_for_overwrite<char[]>(kBuffer);
  file->out.rdbuf()->pubsetbuf(file->buffer.get(), static_cast<std::streamsize>(kBuffer));
  file->out.open(file->path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file->out) throw std::runtime_error("cannot open '" + file->path + "': " + errno_text());
  files_.push_back(std::move(file));
  return files_.back()->out;
}

void OutputSet::write(const std::string& name, const std::string& content) {
  open(name).write(content.data(), static_cast<std::streamsize>(content.size()));
}

std::string OutputSet::path(const std::string& name) const {
  return (fs::path(folder_) / name).string();
}

void OutputSet::commit() {
  for (const auto& file : files_) {
    crash_point();
    file->out.flush();
    file->out.close();
    // The stream does not say why; errno still holds the failed write's reason.
    if (!file->out) {
      throw std::runtime_error("cannot write '" + path(file->name) + "': " + errno_text());
    }
    sync_path(file->path, O_RDONLY);
  }
  std::error_code ec;
  if (fs::exists(folder_, ec)) {
    link_other_entries();
    sync_path(stage_, O_RDONLY | O_DIRECTORY);
    crash_point();
    exchange();
  } else {
    sync_path(stage_, O_RDONLY | O_DIRECTORY);
    crash_point();
    if (std::rename(stage_.c_str(), folder_.c_str()) != 0) {
      throw std::runtime_error("cannot rename '" + stage_ + "' to '" + folder_ +
                               "': " + errno_text());
    }
  }
  sync_path(fs::path(folder_).parent_path().string(), O_RDONLY | O_DIRECTORY);
  committed_ = true;
  crash_point();
  fs::remove_all(stage_, ec);  // the previous set, or nothing
}

void OutputSet::link_other_entries() {
  if (!fs::is_directory(folder_)) {
    throw std::runtime_error("cannot write into '" + folder_ + "': it is not a folder");
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(folder_)) {
    const std::string name = entry.path().filename().string();
    if (owned_.count(name) != 0 || stale_temporary(name)) continue;
    crash_point();
    link_entry(entry, fs::path(stage_) / name);
  }
}

void OutputSet::exchange() {
  if (::renameat2(AT_FDCWD, stage_.c_str(), AT_FDCWD, folder_.c_str(), RENAME_EXCHANGE) == 0) {
    return;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
    throw std::runtime_error("cannot put '" + stage_ + "' in place of '" + folder_ +
                             "': " + errno_text());
  }
  // A file system without the exchange (NFS): two renames. A kill between them leaves no folder
  // (never a mix); the next set puts the previous one back first (clean_up_killed_runs()).
  const std::string old = old_sibling(::getpid());
  if (std::rename(folder_.c_str(), old.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + folder_ + "' to '" + old + "': " + errno_text());
  }
  crash_point();
  if (std::rename(stage_.c_str(), folder_.c_str()) != 0) {
    const std::string why = errno_text();
    std::rename(old.c_str(), folder_.c_str());
    throw std::runtime_error("cannot rename '" + stage_ + "' to '" + folder_ + "': " + why);
  }
  stage_ = old;
}

std::string OutputSet::old_sibling(long pid) const {
  const fs::path target(folder_);
  return (target.parent_path() / (sibling_prefix(target, "old") + std::to_string(pid))).string();
}

void OutputSet::clean_up_killed_runs() {
  // One scan of the parent folder for both kinds of sibling, not one each: a short run pays
  // for every scan (a folder opened, read and closed).
  const fs::path target(folder_);
  const std::string new_prefix = sibling_prefix(target, "new");
  const std::string old_prefix = sibling_prefix(target, "old");
  std::vector<fs::path> half_written, moved_aside;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (const long pid = pid_after(name, new_prefix); pid != 0 && !process_alive(pid)) {
      half_written.push_back(entry.path());
    }
    if (const long pid = pid_after(name, old_prefix); pid != 0 && !process_alive(pid)) {
      moved_aside.push_back(entry.path());
    }
  }
  for (const fs::path& path : half_written) fs::remove_all(path, ec);
  for (const fs::path& path : moved_aside) {
    if (fs::exists(target, ec)) {
      fs::remove_all(path, ec);
    } else {
      fs::rename(path, target, ec);
    }
  }
}

}  // namespace mcb
