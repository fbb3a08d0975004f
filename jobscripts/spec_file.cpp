#include "jobscripts/spec_file.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace mcb::campaign {
namespace {

// Drops a '#' comment: one at the start of the line or after a blank, outside double quotes, so
// values such as "a#b" stay whole.
std::string strip_comment(const std::string& line) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && quoted && i + 1 < line.size()) {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '#' && !quoted && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool has_control_character(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return true;
  }
  return false;
}

}  // namespace

SpecFile read_spec_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(path + ": is a directory, not a campaign spec");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read the campaign spec");
  SpecFile file;
  file.path = path;
  std::string section;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    const std::string where = file.where(line);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (has_control_character(text)) throw UsageError(where + ": control character in the line");
    if (const std::string problem = text_problem(text); !problem.empty())
      throw UsageError(where + ": " + problem);
    const std::string content = trim(strip_comment(text));
    if (content.empty()) continue;
    if (content.front() == '[') {
      if (content.back() != ']') throw UsageError(where + ": '" + content + "' is not a [section]");
      section = trim(content.substr(1, content.size() - 2));
      if (!valid_name(section)) throw UsageError(where + ": '" + content + "' is not a [section]");
      continue;
    }
    const auto equals = content.find('=');
    if (equals == std::string::npos) {
      throw UsageError(where + ": '" + content + "' is not 'key = value' or '[section]'");
    }
    SpecEntry entry{section, trim(content.substr(0, equals)), trim(content.substr(equals + 1)),
                    line};
    if (!valid_name(entry.key)) throw UsageError(where + ": '" + entry.key + "' is not a key name");
    file.entries.push_back(std::move(entry));
  }
  return file;
}

std::vector<std::string> split_words(const std::string& raw) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] == ' ' || raw[i] == '\t') {
      ++i;
      continue;
    }
    std::string word;
    bool quoted_word = false;
    while (i < raw.size() && raw[i] != ' ' && raw[i] != '\t') {
      if (raw[i] == '"') {
        quoted_word = true;
        ++i;
        bool closed = false;
        while (i < raw.size()) {
          if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\\')) {
            word += raw[i + 1];
            i += 2;
          } else if (raw[i] == '"') {
            closed = true;
            ++i;
            break;
          } else {
            word += raw[i++];
          }
        }
        if (!closed) throw std::invalid_argument("unterminated double quote in '" + raw + "'");
      } else {
        word += raw[i++];
      }
    }
    if (!word.empty() || quoted_word) words.push_back(word);
  }
  return words;
}

std::string single_value(const std::string& raw) {
  if (raw.size() >= 2 && raw.front() == '"') {
    const auto words = split_words(raw);
    if (words.size() == 1 && raw.back() == '"') return words.front();
  }
  return raw;
}

}  // namespace mcb::campaign
