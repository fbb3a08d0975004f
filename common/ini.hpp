#pragma once
/// @file
/// @brief The one input dialect of the suite: INI files ("[section]", "key = value") and the
/// line-based files (cluster maps, platform files) share its line and comment rules, read here
/// once. --config files, campaign specs and job-mix files are read by read_ini; the rules are
/// written down in docs/input.md.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace mcb::ini {

/// @brief @p line without its comment. The one comment rule: '#' starts a comment at the start
/// of a line or after a blank (space or tab), outside double quotes; so "a#b" and "x # y" in
/// quotes stay whole. ';' is an ordinary character.
std::string strip_comment(std::string_view line);

/// @brief One line that holds something after the comment rule.
struct Line {
  int number = 0;    //!< 1-based line number in the file
  std::string text;  //!< comment removed, blanks and a trailing CR trimmed; never empty
};

/// @brief The lines of @p in that hold something. A line with a control character other than tab
/// is refused. @p where_prefix starts every message ("--platform: f.txt").
/// @throws mcb::UsageError "<where_prefix>:<line>: control character in the line".
std::vector<Line> content_lines(std::istream& in, const std::string& where_prefix);

/// @brief content_lines of the file @p path; messages start "<prefix><path>:<line>: ".
/// @throws mcb::UsageError "<prefix>cannot read '<path>'" for a file that cannot be opened.
std::vector<Line> read_lines(const std::string& path, const std::string& prefix);

/// @brief One "key = value" line.
struct Entry {
  std::string section;  //!< "" for keys before the first [section]
  std::string key;
  std::string value;  //!< as written: comment and outer blanks removed, quotes kept
  int line = 0;
};

/// @brief One "[name]" line and the entries under it.
struct Section {
  std::string name;
  int line = 0;
  std::vector<Entry> entries;
};

/// @brief An INI file, entries in file order.
struct File {
  std::string path;
  std::string prefix;  //!< starts every message, e.g. "--config: "
  std::vector<Entry> entries;
  std::vector<Section> sections;  //!< the [sections] in file order (not the top "")

  /// @brief "<prefix><path>:<line>" for messages.
  std::string where(int line) const;
};

/// @brief Reads the INI file @p path. Section names and keys hold letters, digits, '-', '_'
/// and '.'.
/// @throws mcb::UsageError "<prefix><path>:<line>: ..." for a line that is neither
/// "key = value" nor "[section]", or a bad name; "<prefix>cannot read '<path>'".
File read_ini(const std::string& path, const std::string& prefix = "");

/// @brief read_ini from a stream (the text of @p path).
File parse_ini(std::istream& in, const std::string& path, const std::string& prefix = "");

/// @brief For formats where every section and every key of a section is given once (job mixes):
/// @throws mcb::UsageError "<where>: [name] given twice (first on line N)" or
/// "<where>: key: set twice (first on line N)".
void refuse_repeats(const File& file);

/// @brief Splits a value into words at blanks; "double quoted" words keep blanks and may hold
/// escaped quotes and backslashes; "" is an empty word.
/// @throws std::invalid_argument for an unterminated quote.
std::vector<std::string> split_words(const std::string& value);

/// @brief A single value: the text as written, or the inside of one "double quoted" word
/// (so 'system = "das2, vu"' gives das2, vu and 'counters = ""' gives nothing).
/// @throws std::invalid_argument for an unterminated quote.
std::string single_value(const std::string& value);

}  // namespace mcb::ini
