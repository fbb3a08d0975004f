#pragma once
/// @file
/// @brief The suite's one JSON Lines reader, with one policy for a torn tail.
///
/// Records are appended a whole line at a time (mcb::append_line), so a last line without its
/// newline is a write cut short by a crash: it is torn. Every reader ignores a torn last line
/// and says so in one line (torn_notice); the next append cuts it off. Any other line that is not
/// JSON is an error naming "<file>:<line>". Blank lines are skipped.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mcb::jsonl {

/// @brief One line read: its 1-based number, its text (without the newline) and its JSON.
struct Line {
  std::size_t number = 0;
  std::string text;
  nlohmann::json doc;
};

/// @brief The torn last line: where it starts and how many bytes it holds.
struct TornTail {
  std::size_t line = 0;
  std::uintmax_t bytes = 0;
};

/// @brief What a read found.
struct Contents {
  std::string file;
  std::vector<Line> lines;          //!< whole, non-blank lines in file order
  std::optional<TornTail> torn;     //!< the torn last line, when there is one
  std::uintmax_t end_of_whole = 0;  //!< byte offset just past the last whole line
  std::size_t last_line = 0;        //!< number of the last whole line (blank ones included)
};

/// @brief Where reading starts, for readers that follow a growing file.
struct From {
  std::uintmax_t offset = 0;  //!< a byte offset at the start of a line
  std::size_t line = 0;       //!< the number of the line before @ref offset
};

/// @brief Reads @p path from @p from. A missing file reads as empty when @p missing_ok.
/// @throws mcb::UsageError "<path>: cannot read the file" or "<path>:<line>: malformed JSON:
///         <detail>" for a whole line that is not JSON.
Contents read(const std::string& path, From from = {}, bool missing_ok = false);

/// @brief The one-line notice for a torn tail: "<file>:<line>: torn last line ignored (<n>
/// bytes without a newline; the next append cuts it off)".
std::string torn_notice(const Contents& contents);

/// @brief Writes torn_notice to @p out (prefixed by @p program and ": ") when there is a torn
/// tail.
void report_torn(std::ostream& out, const std::string& program, const Contents& contents);

}  // namespace mcb::jsonl
