#include "common/ini.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace mcb::ini {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool has_control_character(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return true;
  }
  return false;
}

}  // namespace

std::string strip_comment(std::string_view line) {
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && quoted && i + 1 < line.size()) {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == '#' && !quoted && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return std::string(line.substr(0, i));
    }
  }
  return std::string(line);
}

std::vector<Line> content_lines(std::istream& in, const std::string& where_prefix) {
  std::vector<Line> lines;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    // Names read here end up in JSON records and CSV tables: plain UTF-8 only (a NUL byte is
    // named as such, before the general control-character rule).
    if (const std::string problem = text_problem(text); !problem.empty()) {
      throw UsageError(where_prefix + ":" + std::to_string(number) + ": " + problem);
    }
    if (has_control_character(text)) {
      throw UsageError(where_prefix + ":" + std::to_string(number) +
                       ": control character in the line");
    }
    std::string content = trim(strip_comment(text));
    if (!content.empty()) lines.push_back({number, std::move(content)});
  }
  return lines;
}

// A stream on a directory reads as an empty file: refuse it by name instead.
static std::ifstream open_file(const std::string& path, const std::string& prefix) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError(prefix + "'" + path + "' is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(prefix + "cannot read '" + path + "'");
  return in;
}

std::vector<Line> read_lines(const std::string& path, const std::string& prefix) {
  std::ifstream in = open_file(path, prefix);
  return content_lines(in, prefix + path);
}

std::string File::where(int line) const { return prefix + path + ":" + std::to_string(line); }

File parse_ini(std::istream& in, const std::string& path, const std::string& prefix) {
  File file;
  file.path = path;
  file.prefix = prefix;
  std::string section;
  for (const Line& l : content_lines(in, prefix + path)) {
    const std::string where = file.where(l.number);
    const std::string& content = l.text;
    if (content.front() == '[') {
      if (content.back() != ']') throw UsageError(where + ": '" + content + "' is not a [section]");
      section = trim(content.substr(1, content.size() - 2));
      if (!valid_name(section)) throw UsageError(where + ": '" + content + "' is not a [section]");
      file.sections.push_back({section, l.number, {}});
      continue;
    }
    const auto equals = content.find('=');
    if (equals == std::string::npos) {
      throw UsageError(where + ": '" + content + "' is not 'key = value' or '[section]'");
    }
    Entry entry{section, trim(content.substr(0, equals)), trim(content.substr(equals + 1)),
                l.number};
    if (!valid_name(entry.key)) throw UsageError(where + ": '" + entry.key + "' is not a key name");
    if (!file.sections.empty()) file.sections.back().entries.push_back(entry);
    file.entries.push_back(std::move(entry));
  }
  return file;
}

File read_ini(const std::string& path, const std::string& prefix) {
  std::ifstream in = open_file(path, prefix);
  return parse_ini(in, path, prefix);
}

std::vector<std::string> split_words(const std::string& value) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < value.size()) {
    if (value[i] == ' ' || value[i] == '\t') {
      ++i;
      continue;
    }
    std::string word;
    bool quoted_word = false;
    while (i < value.size() && value[i] != ' ' && value[i] != '\t') {
      if (value[i] != '"') {
        word += value[i++];
        continue;
      }
      quoted_word = true;
      ++i;
      bool closed = false;
      while (i < value.size()) {
        if (value[i] == '\\' && i + 1 < value.size() &&
            (value[i + 1] == '"' || value[i + 1] == '\\')) {
          word += value[i + 1];
          i += 2;
        } else if (value[i] == '"') {
          closed = true;
          ++i;
          break;
        } else {
          word += value[i++];
        }
      }
      if (!closed) throw std::invalid_argument("unterminated double quote in '" + value + "'");
    }
    if (!word.empty() || quoted_word) words.push_back(word);
  }
  return words;
}

std::string single_value(const std::string& value) {
  if (value.size() >= 2 && value.front() == '"') {
    const auto words = split_words(value);
    if (words.size() == 1 && value.back() == '"') return words.front();
  }
  return value;
}

void refuse_repeats(const File& file) {
  std::map<std::string, int> sections;
  std::map<std::pair<std::string, std::string>, int> keys;
  for (const Section& section : file.sections) {
    const auto [it, fresh] = sections.emplace(section.name, section.line);
    if (!fresh) {
      throw UsageError(file.where(section.line) + ": [" + section.name +
                       "] given twice (first on line " + std::to_string(it->second) + ")");
    }
  }
  for (const Entry& e : file.entries) {
    const auto [it, fresh] = keys.emplace(std::make_pair(e.section, e.key), e.line);
    if (!fresh) {
      throw UsageError(file.where(e.line) + ": " + e.key + ": set twice (first on line " +
                       std::to_string(it->second) + ")");
    }
  }
}

}  // namespace mcb::ini
