// Reading a stream a block at a time: lines and CSV records come out the same whatever the block
// size, wherever a block boundary falls (inside a line, inside a quoted field, between '\r' and
// '\n', inside a multi-byte character), and refusals name the same line and column.
#include "common/csv.hpp"
#include "common/errors.hpp"
#include "common/text.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace mcb {
namespace {

// The lines std::getline gives.
std::vector<std::string> getline_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> block_lines(const std::string& text, std::size_t block,
                                     std::vector<bool>* plain = nullptr) {
  std::istringstream in(text);
  LineReader reader(in, block);
  std::vector<std::string> lines;
  for (std::string_view line; reader.next(line);) {
    EXPECT_EQ(line.data()[line.size()], '\n') << "every line is followed by '\\n'";
    lines.emplace_back(line);
    if (plain) plain->push_back(reader.plain());
  }
  return lines;
}

TEST(LineReader, GivesTheLinesOfGetlineForEveryBlockSize) {
  const std::string long_line(200, 'x');
  const std::vector<std::string> texts = {"",
                                          "\n",
                                          "\n\n",
                                          "a",
                                          "a\n",
                                          "a\n\nb",
                                          "one\r\ntwo\r\n",
                                          "first\n" + long_line + "\nlast",
                                          long_line,
                                          "ab\ncd\nef\ngh\n"};
  for (const std::string& text : texts) {
    for (std::size_t block : {1, 2, 3, 5, 8, 13, 64, 1 << 16}) {
      EXPECT_EQ(block_lines(text, block), getline_lines(text)) << "block " << block;
    }
  }
}

TEST(LineReader, MarksTheLinesWithBytesPastAscii) {
  std::string nul_text = "plain\ncaf\xC3\xA9\nplain again\n";
  nul_text += '\0';
  nul_text += "nul\nend";
  for (std::size_t block : {1, 4, 7, 64}) {
    std::vector<bool> plain;
    const auto lines = block_lines(nul_text, block, &plain);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(plain, (std::vector<bool>{true, false, true, false, true})) << "block " << block;
  }
}

TEST(PlainPrefix, FindsTheFirstByteThatIsNotPlainAscii) {
  EXPECT_EQ(plain_prefix(""), 0u);
  EXPECT_EQ(plain_prefix(std::string(100, 'a')), 100u);
  for (std::size_t at = 0; at < 70; ++at) {
    std::string text(70, 'a');
    text[at] = '\x80';
    EXPECT_EQ(plain_prefix(text), at);
    text[at] = '\0';
    EXPECT_EQ(plain_prefix(text), at);
  }
}

// Comments, blank lines, CRLF endings, blanks around fields, doubled quotes, and quoted fields
// holding commas and spanning lines.
const std::string kTable =
    "# a comment\r\n"
    "name , size,note\r\n"
    "\r\n"
    "  a,1,plain\r\n"
    "\"b, c\",2,\"she said \"\"hi\"\"\"\r\n"
    "d,3,\"two\r\nlines, and a comma\"\r\n"
    "   # indented comment\n"
    "e , ,\n"
    "f,4,last without a line end";

struct Read {
  std::vector<std::size_t> lines;
  std::vector<std::vector<std::string>> records;
};

// Every record of @p text read in blocks of @p block bytes, as fields (csv::Record) or as views
// (csv::RecordView).
template <class Fields>
Read read_all(const std::string& text, std::size_t block) {
  std::istringstream in(text);
  csv::Reader reader(in, "t.csv", block);
  Read read;
  Fields record;
  while (reader.next(record)) {
    read.lines.push_back(record.line);
    read.records.emplace_back(record.fields.begin(), record.fields.end());
  }
  return read;
}

Read read_records(const std::string& text, std::size_t block) {
  return read_all<csv::Record>(text, block);
}

Read read_views(const std::string& text, std::size_t block) {
  return read_all<csv::RecordView>(text, block);
}

TEST(CsvReader, RecordsAreTheSameForEveryBlockSizeAndForViews) {
  const Read expected = read_records(kTable, 1 << 16);
  EXPECT_EQ(expected.lines, (std::vector<std::size_t>{2, 4, 5, 6, 9, 10}));
  ASSERT_EQ(expected.records.size(), 6u);
  EXPECT_EQ(expected.records[0], (std::vector<std::string>{"name", "size", "note"}));
  EXPECT_EQ(expected.records[1], (std::vector<std::string>{"a", "1", "plain"}));
  EXPECT_EQ(expected.records[2], (std::vector<std::string>{"b, c", "2", "she said \"hi\""}));
  EXPECT_EQ(expected.records[3], (std::vector<std::string>{"d", "3", "two\nlines, and a comma"}));
  EXPECT_EQ(expected.records[4], (std::vector<std::string>{"e", "", ""}));
  EXPECT_EQ(expected.records[5], (std::vector<std::string>{"f", "4", "last without a line end"}));
  for (std::size_t block = 1; block <= 48; ++block) {
    const Read records = read_records(kTable, block), views = read_views(kTable, block);
    EXPECT_EQ(records.lines, expected.lines) << "block " << block;
    EXPECT_EQ(records.records, expected.records) << "block " << block;
    EXPECT_EQ(views.lines, expected.lines) << "block " << block;
    EXPECT_EQ(views.records, expected.records) << "block " << block;
  }
}

TEST(CsvReader, FieldsOfEveryWidthAroundTheWordBoundaries) {
  // Lines of 1 to 40 characters with commas at every place: views agree with split().
  for (std::size_t width = 1; width <= 40; ++width) {
    for (std::size_t comma = 0; comma < width; ++comma) {
      std::string line(width, '7');
      line[comma] = ',';
      if (comma + 2 < width) line[comma + 2] = ' ';
      const Read read = read_views(line + "\n" + line, 8);
      ASSERT_EQ(read.records.size(), 2u);
      EXPECT_EQ(read.records[0], csv::split(line)) << line;
      EXPECT_EQ(read.records[1], csv::split(line)) << line;
    }
  }
}

std::string refusal(const std::string& text, std::size_t block, bool views) {
  try {
    if (views) {
      read_views(text, block);
    } else {
      read_records(text, block);
    }
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvReader, RefusalsNameTheSameLineForEveryBlockSize) {
  std::string nul = "a,b\n1,2\n3,4";
  nul += '\0';
  nul += "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a,b\n1,\"open\n2,3\n", "t.csv:2: unterminated quoted field"},
      {"a,b\n1,2\n3,x\"y\n",
       "t.csv:3: a quote inside unquoted field 2 (quote the whole field and "
       "double the quote)"},
      {"a,b\n\"x\" y,2\n", "t.csv:2: text after the closing quote of field 1"},
      {nul, "t.csv:3: a NUL byte at column 4"},
      {"a,b\n1,2\n3,\xFF\n", "t.csv:3: a byte 0xFF that is not UTF-8 at column 3"},
      {"a,b\n\"x\ny\xC3\",2\n", "t.csv:3: a byte 0xC3 that is not UTF-8 at column 2"},
  };
  for (const auto& [text, message] : cases) {
    for (std::size_t block = 1; block <= 24; ++block) {
      EXPECT_EQ(refusal(text, block, false), message) << "block " << block;
      EXPECT_EQ(refusal(text, block, true), message) << "block " << block;
    }
  }
}

TEST(CsvReader, ReadsAFileOfManyBlocks) {
  std::string text = "id,note\n";
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(i) + (i % 100 == 0 ? ",\"quoted\nover two lines\"\n" : ",plain\n");
  }
  std::istringstream in(text);
  csv::Reader reader(in, "big.csv");
  csv::RecordView record;
  ASSERT_TRUE(reader.next(record));
  std::size_t line = 1;
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(reader.next(record));
    ASSERT_EQ(record.line, ++line);
    ASSERT_EQ(record.fields[0], std::to_string(i));
    ASSERT_EQ(record.in_line, i % 100 != 0) << "views into the line unless quoted";
    if (i % 100 == 0) ++line;
  }
  EXPECT_FALSE(reader.next(record));
  EXPECT_EQ(reader.line(), line);
}

// Numbers read eight bytes at a time are those read_plain_whole() reads, for every length, with
// any byte at any place and anything after them.
TEST(ReadShortDigits, AgreesWithReadPlainWhole) {
  const std::string digits = "0123456789", others = std::string("-+ ,.e/:x\0\x80\xff", 12);
  for (std::size_t size = 0; size <= 10; ++size) {
    for (std::size_t at = 0; at <= size; ++at) {
      for (const char other : others + digits.substr(0, 3)) {
        for (const char after : {',', '\n', '7', '\xff'}) {
          std::string text;
          for (std::size_t i = 0; i < size; ++i) text += digits[(7 * i + size) % 10];
          if (at < size) text[at] = other;
          const std::string buffer = text + std::string(8, after);
          double plain = -5, short_read = -5;
          const bool read = read_short_digits(buffer.data(), size, short_read);
          const bool all_digits = text.find_first_not_of(digits) == std::string::npos;
          EXPECT_EQ(read, size >= 1 && size <= 8 && all_digits) << text;
          if (read) {
            ASSERT_TRUE(read_plain_whole(text, plain)) << text;
            EXPECT_EQ(short_read, plain) << text;
          }
        }
      }
    }
  }
  const std::string words = "98765432,1,00000007,12345678\n";
  for (const auto& [at, size, value] : {std::tuple{0, 8, 98765432.0}, {9, 1, 1.0}, {11, 8, 7.0}}) {
    double x = 0;
    EXPECT_TRUE(read_short_digits(words.data() + at, size, x));
    EXPECT_EQ(x, value);
  }
}

}  // namespace
}  // namespace mcb
