#include "jobscripts/shell.hpp"

#include "jobscripts/templates.hpp"  // generated from jobscripts/templates/ at configure time

#include <stdexcept>
#include <string_view>

namespace mcb::campaign {

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string display_word(const std::string& word) {
  if (word.empty()) return "''";
  for (const char c : word) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("_./:=,+@%-").find(c) != std::string_view::npos;
    if (!plain) return shell_quote(word);
  }
  return word;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) {
    line += line.empty() ? "" : " ";
    line += shell_quote(w);
  }
  return line;
}

std::string fill_template(const std::string& text,
                          const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const auto open = text.find('@', pos);
    if (open == std::string::npos) break;
    const auto close = text.find('@', open + 1);
    if (close == std::string::npos) break;
    const std::string name = text.substr(open + 1, close - open - 1);
    const bool placeholder =
        !name.empty() && name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string::npos;
    if (!placeholder) {
      out += text.substr(pos, open + 1 - pos);
      pos = open + 1;
      continue;
    }
    const auto it = values.find(name);
    if (it == values.end())
      throw std::logic_error("template placeholder @" + name + "@ has no value");
    out += text.substr(pos, open - pos) + it->second;
    pos = close + 1;
  }
  return out + text.substr(pos);
}

std::string plain_name(const std::string& text, std::size_t max_length) {
  std::string out;
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
    if (out.size() >= max_length) break;
  }
  return out.empty() ? "campaign" : out;
}

const std::string& slurm_template() {
  static const std::string text(templates::kSlurm);
  return text;
}

const std::string& pbs_template() {
  static const std::string text(templates::kPbs);
  return text;
}

const std::string& run_section_template() {
  static const std::string text(templates::kRunSection);
  return text;
}

const std::string& coalloc_pilot_template() {
  static const std::string text(templates::kCoallocPilot);
  return text;
}

const std::string& ensemble_pilot_template() {
  static const std::string text(templates::kEnsemblePilot);
  return text;
}

}  // namespace mcb::campaign
