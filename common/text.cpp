#include "common/text.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace mcb {

std::string trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return std::string(text);
}

bool read_plain_whole(std::string_view text, double& value) {
  const bool minus = !text.empty() && text.front() == '-';
  const std::string_view digits = minus ? text.substr(1) : text;
  if (digits.empty() || digits.size() > 15) return false;
  long long x = 0;  // at most 15 digits: no overflow
  for (const char c : digits) {
    const auto digit = static_cast<unsigned>(static_cast<unsigned char>(c) - '0');
    if (digit > 9) return false;
    x = x * 10 + digit;
  }
  if (minus && x == 0) return false;  // "-0": the double reader keeps its sign
  value = static_cast<double>(minus ? -x : x);
  return true;
}

std::optional<long> whole_number(const std::string& text) {
  std::size_t used = 0;
  long number = 0;
  try {
    number = std::stol(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != text.size()) return std::nullopt;
  return number;
}

std::string text_problem(std::string_view text) {
  const auto at = [](size_t i) { return " at column " + std::to_string(i + 1); };
  size_t i = 0;
  while (i < text.size()) {
    // Eight bytes at a time while none is NUL or past ASCII: a byte of 1-127 minus one borrows
    // nothing and keeps its top bit clear, so the top bits of w | (w - 0x01..) are all clear
    // exactly then. Every line of every input passes through here.
    constexpr std::uint64_t kOnes = 0x0101010101010101u, kTops = 0x8080808080808080u;
    while (i + 8 <= text.size()) {
      std::uint64_t w = 0;
      std::memcpy(&w, text.data() + i, 8);
      if (((w | (w - kOnes)) & kTops) != 0) break;
      i += 8;
    }
    if (i == text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c != 0 && c < 0x80) {  // ASCII, most of every input: nothing to decode
      ++i;
      continue;
    }
    if (c == 0) return "a NUL byte" + at(i);
    // Length of the UTF-8 sequence led by c, and the smallest code point it may encode.
    const size_t n = c < 0x80           ? 1
                     : (c >> 5) == 0x6  ? 2
                     : (c >> 4) == 0xE  ? 3
                     : (c >> 3) == 0x1E ? 4
                                        : 0;
    bool ok = n != 0 && i + n <= text.size();
    unsigned cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
    for (size_t k = 1; ok && k < n; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      ok = (d >> 6) == 0x2;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= least[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok) {
      static const char* hex = "0123456789ABCDEF";
      return std::string("a byte 0x") + hex[c >> 4] + hex[c & 0xF] + " that is not UTF-8" + at(i);
    }
    // One rule for every input: a byte-order mark is refused, at the start of a file or
    // anywhere else, instead of becoming part of the first key, label, number or name.
    if (cp == 0xFEFF) {
      return "a byte-order mark (U+FEFF)" + at(i) + "; save the file as UTF-8 without it";
    }
    i += n;
  }
  return "";
}

}  // namespace mcb
