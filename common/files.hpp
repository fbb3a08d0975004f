#pragma once
/// @file
/// @brief Output that survives a kill at any moment: records appended a whole line at a time,
/// whole files written beside their destination and renamed into place.

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

/// @brief Writes @p content to "<path>.tmp.<pid>", syncs it and renames it to @p path, so
/// readers see the old file or the new one, never a half-written one.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace mcb
