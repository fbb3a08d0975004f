#include "common/text.hpp"

#include <algorithm>
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

std::size_t plain_prefix(std::string_view text) {
  // Eight bytes at a time while none is NUL or past ASCII: a byte of 1-127 minus one borrows
  // nothing and keeps its top bit clear, so the top bits of w | (w - 0x01..) are all clear
  // exactly then. Every line of every input passes through here.
  constexpr std::uint64_t kOnes = 0x0101010101010101u, kTops = 0x8080808080808080u;
  const auto flags = [&](std::size_t at) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + at, 8);
    return w | (w - kOnes);
  };
  std::size_t i = 0;
  // A whole file passes through here: 32 bytes a step, then 8.
  while (i + 32 <= text.size() &&
         ((flags(i) | flags(i + 8) | flags(i + 16) | flags(i + 24)) & kTops) == 0) {
    i += 32;
  }
  while (i + 8 <= text.size() && (flags(i) & kTops) == 0) i += 8;
  while (i < text.size() && text[i] != 0 && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  return i;
}

LineReader::LineReader(std::istream& in, std::size_t block)
    : in_(in), buf_(std::max<std::size_t>(block, 1) + kSlack, '\0') {}

bool LineReader::fill() {
  if (at_end_) return false;
  // The line begun moves to the front; the block doubles only when that line fills it.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    plain_until_ -= begin_;
    begin_ = 0;
  }
  std::size_t room = buf_.size() - kSlack;
  if (end_ == room) {
    room *= 2;
    buf_.resize(room + kSlack);
  }
  in_.read(buf_.data() + end_, static_cast<std::streamsize>(room - end_));
  const auto got = static_cast<std::size_t>(in_.gcount());
  at_end_ = got < room - end_;  // read() stops short only at the end or on an error
  const bool all_plain = plain_until_ == end_;
  end_ += got;
  buf_[end_] = '\n';  // so that every line is followed by '\n', the last one too
  if (all_plain) {
    plain_until_ += plain_prefix(std::string_view(buf_.data() + plain_until_, end_ - plain_until_));
  }
  return got > 0;
}

bool LineReader::next(std::string_view& line) {
  std::size_t stop = 0;
  for (;;) {
    const char* from = buf_.data() + begin_ + scanned_;
    const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - begin_ - scanned_));
    if (nl != nullptr) {
      stop = static_cast<std::size_t>(nl - buf_.data());
      break;
    }
    scanned_ = end_ - begin_;
    if (!fill()) {
      if (begin_ == end_) return false;
      stop = end_;  // the last line, without '\n'
      break;
    }
  }
  line = std::string_view(buf_.data() + begin_, stop - begin_);
  plain_ = stop <= plain_until_;
  begin_ = stop < end_ ? stop + 1 : end_;
  scanned_ = 0;
  if (!plain_) {  // the byte that was not plain is in this line: look for the next one
    plain_until_ = begin_ + plain_prefix(std::string_view(buf_.data() + begin_, end_ - begin_));
  }
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
    i += plain_prefix(text.substr(i));
    if (i == text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
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
