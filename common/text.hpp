#pragma once
/// @file
/// @brief Small text helpers shared by the readers of the suite's line-oriented inputs
/// (traces, specs, tables, INI files, job lists).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace mcb {

/// @brief @p text without spaces, tabs and carriage returns (files saved with CRLF endings) at
/// either end.
std::string trim(std::string_view text);

/// @brief Why @p text is not plain text: "a NUL byte at column N", "a byte 0xFF that is not
/// UTF-8 at column N" or "a byte-order mark (U+FEFF) at column N; ..."; empty when it is valid
/// UTF-8 without NUL bytes or byte-order marks. Readers call it on every line so that names read
/// from a file can later be written to JSON records and CSV tables, and so that every input
/// keeps one rule for a byte-order mark (docs/input.md).
std::string text_problem(std::string_view text);

/// @brief @p text as a whole decimal number in long's range, all of it read (std::stol's
/// syntax: "12", "+12", "-3"); nothing when it is not one ("", "12x", "1.5", or out of range).
std::optional<long> whole_number(const std::string& text);

/// @brief Reads @p text when it is up to 15 digits after an optional '-' (not "-0"), as nearly
/// every number of a trace or job list is, into @p value: the value std::from_chars gives it
/// (exact below 2^53), several times faster. False for any other text, which the caller reads
/// with std::from_chars. Inline: readers call it for every field of every line.
inline bool read_plain_whole(std::string_view text, double& value) {
  const char* p = text.data();
  std::size_t n = text.size();
  const bool minus = n != 0 && *p == '-';
  p += minus ? 1 : 0;
  n -= minus ? 1 : 0;
  if (n - 1 >= 15) return false;  // no digits (n - 1 wraps), or more than 15
  const auto digit_at = [](const char* at) {
    return static_cast<unsigned>(static_cast<unsigned char>(*at)) - unsigned{'0'};
  };
  long long x = 0;   // at most 15 digits: no overflow
  if (n % 2 != 0) {  // an odd count: the first digit alone, then two a step
    x = digit_at(p++);
    if (x > 9) return false;
  }
  for (const char* const end = p + n / 2 * 2; p != end; p += 2) {
    const long long high = digit_at(p), low = digit_at(p + 1);
    if (high > 9 || low > 9) return false;
    x = x * 100 + high * 10 + low;
  }
  if (minus) {
    if (x == 0) return false;  // "-0": the double reader keeps its sign
    x = -x;
  }
  value = static_cast<double>(x);
  return true;
}

/// @brief How many digits start @p word, eight bytes of text (the first one lowest): 0 to 8.
inline unsigned leading_digits(std::uint64_t word) {
  static_assert(std::endian::native == std::endian::little, "byte k is bits 8k to 8k + 7");
  // Each byte less '0': a digit becomes 0-9, and the first other byte gets its top bit, either
  // here or once 0x76 is added (a borrow or a carry reaches only the bytes after it).
  const std::uint64_t digits = word - 0x3030303030303030u;
  const std::uint64_t others = (digits | (digits + 0x7676767676767676u)) & 0x8080808080808080u;
  return static_cast<unsigned>(std::countr_zero(others)) / 8;  // 8 when there is none
}

/// @brief The number the first @p n (1 to 8) bytes of @p word spell, all of them digits
/// (leading_digits() >= n): the value read_plain_whole() gives them, with three multiplications
/// instead of one a digit.
inline std::uint64_t leading_number(std::uint64_t word, unsigned n) {
  // Each byte less '0', as leading_digits() takes it (so that a caller of both computes it once):
  // the n digits borrow nothing.
  const std::uint64_t digits = word - 0x3030303030303030u;
  if (n == 1) return digits & 0xFF;
  // The digits' values in the top bytes (zeros before them, the bytes after them shifted out),
  // then combined in pairs, fours and eights.
  std::uint64_t v = digits << (64 - 8 * n);
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FFu;
  v = (v * 100 + (v >> 16)) & 0x0000FFFF0000FFFFu;
  return (v * 10000 + (v >> 32)) & 0xFFFFFFFFu;
}

/// @brief read_plain_whole() for @p n bytes at @p at that are 1 to 8 digits, as most numbers of a
/// trace or job list are, from the eight bytes there at once; false for any other text, which the
/// caller reads with read_plain_whole(). Eight bytes must be readable at @p at: a field of a
/// LineReader line has them (its '\n' and slack follow it).
inline bool read_short_digits(const char* at, std::size_t n, double& value) {
  if (n - 1 >= 8) return false;  // empty (n - 1 wraps), or longer than a word
  std::uint64_t word = 0;
  std::memcpy(&word, at, 8);
  if (leading_digits(word) < n) return false;
  value = static_cast<double>(leading_number(word, static_cast<unsigned>(n)));
  return true;
}

/// @brief Where the first byte of @p text that is NUL or past ASCII is, or its size when there
/// is none: text before it has nothing for text_problem() to find.
std::size_t plain_prefix(std::string_view text);

/// @brief Reads a stream's lines as std::getline does (each without its '\n'; a last line
/// without one is still a line), from blocks: a line is a view into the block, not a copy, and
/// its end is found with memchr. It holds one block, or the longest line when that is longer,
/// however large the input. It reads ahead: the stream is its own from the first line on.
class LineReader {
 public:
  static constexpr std::size_t kBlock = std::size_t{64} << 10;
  /// Bytes of the buffer past its room: a line's end may be read a word at a time.
  static constexpr std::size_t kSlack = 8;

  explicit LineReader(std::istream& in, std::size_t block = kBlock);
  /// @brief The next line, valid until the next call; false at the end of the stream. In
  /// memory the line is followed by '\n' (the last one too), then at least kSlack - 1 bytes
  /// more, so that a reader may scan it up to a '\n' or eight bytes at a time.
  bool next(std::string_view& line);
  /// @brief Whether the line last read is plain ASCII without NUL bytes, so that text_problem()
  /// need not look at it (checked a block at a time, not a line at a time).
  bool plain() const { return plain_; }

 private:
  /// Reads more after the bytes held, first moving the line begun to the front; false at the end.
  bool fill();

  std::istream& in_;
  std::string buf_;              //!< the block, then kSlack bytes
  std::size_t begin_ = 0;        //!< the next line's first byte in buf_
  std::size_t end_ = 0;          //!< the end of the bytes read into buf_
  std::size_t scanned_ = 0;      //!< bytes of the next line known to hold no '\n'
  std::size_t plain_until_ = 0;  //!< [begin_, plain_until_) is plain; a byte that is not, or end_
  bool plain_ = true;
  bool at_end_ = false;
};

}  // namespace mcb
