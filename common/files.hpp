#pragma once
/// @file
/// @brief Output that survives a kill at any moment: records appended a whole line at a time,
/// whole files written beside their destination and renamed into place.

#include <fstream>
#include <memory>
#include <ostream>
#include <string>

namespace mcb {

/// @brief Checks, without creating anything, that @p path can be written: an existing file must
/// be writable, a new one needs a writable parent directory.
/// @throws UsageError "--<option>: cannot write '<path>': <reason>".
void check_writable_file(const std::string& option, const std::string& path);

/// @brief Checks, without creating anything, that folder @p path exists or can be created: the
/// nearest existing part of the path must be a writable folder.
/// @throws UsageError "--<option>: cannot create folder '<path>': <reason>".
void check_creatable_folder(const std::string& option, const std::string& path);

/// @brief Appends @p line plus a newline to @p path under an exclusive lock, in one write, and
/// syncs it. A torn last line left by an earlier crash is cut off first, so the file always
/// holds whole lines only. Safe for several writers (processes) at once.
/// @throws std::runtime_error when the file cannot be opened or written.
void append_line(const std::string& path, const std::string& line);

/// @brief A whole file written through a stream into "<path>.tmp.<pid>" beside its destination
/// (the same folder, so the rename stays on one file system) and renamed into place by commit():
/// readers see the old file or the whole new one, never a half-written one. Destroyed without
/// commit() (an exception, a failed run), it removes the temporary and leaves @p path as it was.
/// finish() and commit() are apart so that several files can be written and synced first and
/// renamed one after the other at the end.
class AtomicFile {
 public:
  /// @throws std::runtime_error when the temporary cannot be created.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// @brief The stream to write the content to (buffered, 1 MiB).
  std::ostream& stream() { return out_; }
  /// @brief The destination.
  const std::string& path() const { return path_; }
  /// @brief Flushes, closes and syncs the temporary; the destination is not touched yet.
  /// @throws std::runtime_error when a write failed.
  void finish();
  /// @brief finish(), then renames the temporary to the destination.
  /// @throws std::runtime_error when a write or the rename failed (the temporary is removed).
  void commit();

 private:
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::string path_, tmp_;
  std::unique_ptr<char[]> buffer_;
  std::ofstream out_;
  bool finished_ = false, committed_ = false;
};

/// @brief Writes @p content to @p path through an AtomicFile: readers see the old file or the
/// new one, never a half-written one.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace mcb
