#include "common/jsonl.hpp"

#include "common/errors.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace mcb::jsonl {
namespace {

// nlohmann's parse messages start with "[json.exception.parse_error.101] "; the rest is the
// useful part ("parse error at line 1, column 7: syntax error ...").
std::string parse_detail(const std::string& what) {
  const auto close = what.find("] ");
  return close == std::string::npos ? what : what.substr(close + 2);
}

bool blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

Contents read(const std::string& path, From from, bool missing_ok) {
  Contents contents;
  contents.file = path;
  contents.end_of_whole = from.offset;
  contents.last_line = from.line;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (missing_ok && !std::filesystem::exists(path, ec)) return contents;
    throw UsageError(path + ": cannot read the file");
  }
  in.seekg(static_cast<std::streamoff>(from.offset));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0;
  std::size_t number = from.line;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    ++number;
    if (end == std::string::npos) {
      contents.torn = TornTail{number, text.size() - start};
      break;
    }
    std::string line = text.substr(start, end - start);
    start = end + 1;
    contents.end_of_whole = from.offset + start;
    contents.last_line = number;
    if (blank(line)) continue;
    // The rule of every text input (common/text.hpp); JSON's parser would skip a leading BOM.
    if (const std::string problem = text_problem(line); !problem.empty()) {
      throw UsageError(path + ":" + std::to_string(number) + ": " + problem);
    }
    Line parsed{number, std::move(line), nullptr};
    try {
      parsed.doc = nlohmann::json::parse(parsed.text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers such as 1e999
      throw UsageError(path + ":" + std::to_string(number) +
                       ": malformed JSON: " + parse_detail(e.what()));
    }
    contents.lines.push_back(std::move(parsed));
  }
  return contents;
}

std::string torn_notice(const Contents& contents) {
  if (!contents.torn) return "";
  return contents.file + ":" + std::to_string(contents.torn->line) + ": torn last line ignored (" +
         std::to_string(contents.torn->bytes) +
         " bytes without a newline; the next append cuts it off)";
}

void report_torn(std::ostream& out, const std::string& program, const Contents& contents) {
  if (!contents.torn) return;
  out << program << ": " << torn_notice(contents) << "\n";
  out.flush();
}

}  // namespace mcb::jsonl
