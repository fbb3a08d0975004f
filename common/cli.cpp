#include "common/cli.hpp"

#include "common/errors.hpp"
#include "common/ini.hpp"
#include "common/units.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

// An option's cap on seconds is the one every parsed duration has.
static_assert(mcb::cli::kMaxSeconds == mcb::kLongestDuration);

namespace mcb::cli {
namespace {

std::vector<std::string>& last_arguments() {
  static std::vector<std::string> arguments;
  return arguments;
}

// The message of an option error. Boost's what() replaces each %placeholder% again and again until
// none is left, so a value or option as typed that holds one ("%value%") makes it loop for ever;
// such errors are worded here in a single pass instead.
class OptionErrorText : public po::error_with_option_name {
 public:
  static std::string of(const po::error_with_option_name& error) {
    const auto& substitutions = error.*(&OptionErrorText::m_substitutions);
    bool literal_percent = false;
    for (const auto& entry : substitutions)
      literal_percent |= entry.second.find('%') != std::string::npos;
    if (!literal_percent) return error.what();
    const std::string& text = error.*(&OptionErrorText::m_error_template);
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t open = text.find('%', at);
      const std::size_t close = open == std::string::npos ? open : text.find('%', open + 1);
      if (close == std::string::npos) {
        out += text.substr(at);
        break;
      }
      const std::string name = text.substr(open + 1, close - open - 1);
      const auto found = substitutions.find(name);
      out += text.substr(at, open - at);
      out += name == "canonical_option"     ? error.get_option_name()
             : found != substitutions.end() ? found->second
                                            : text.substr(open, close - open + 1);
      at = close + 1;
    }
    return out;
  }
};

std::string without_dashes(const std::string& name) {
  return name.rfind("--", 0) == 0 ? name.substr(2) : name;
}

// A value naming a file or folder (value name exactly FILE or DIR) is made absolute for
// given_arguments; "FILE|none" and "FILE|env:VAR" also take words that are not paths.
bool names_a_path(const po::option_description& d) {
  std::string name = d.semantic()->name();
  name = name.substr(0, name.find(' '));  // without " (=default)"
  return name == "FILE" || name == "DIR";
}

// Appends one given option to given_arguments in command-line form.
void add_given(const po::options_description& all, const po::variables_map& vm,
               const std::string& name, const std::vector<std::string>& values) {
  if (name == "help" || name == "config") return;
  const po::option_description* d = all.find_nothrow(name, false);
  if (d == nullptr) return;
  auto& out = last_arguments();
  if (d->semantic()->max_tokens() == 0) {
    const auto& v = vm[name];
    if (v.empty() || v.value().type() != typeid(bool) || v.as<bool>()) out.push_back("--" + name);
    return;
  }
  for (const std::string& value : values) {
    out.push_back("--" + name);
    const bool relative = !value.empty() && value.front() != '/';
    out.push_back(relative && names_a_path(*d)
                      ? (std::filesystem::current_path() / value).lexically_normal().string()
                      : value);
  }
}

// The entries of a --config file, stored one by one so a bad value names its line.
void store_config(const std::string& path, const po::options_description& options,
                  po::variables_map& vm, std::vector<std::pair<std::string, std::string>>& given) {
  const ini::File file = ini::read_ini(path, "--config: ");
  std::map<std::string, int> first_line;
  for (const ini::Entry& e : file.entries) {
    const std::string name = e.section.empty() ? e.key : e.section + "." + e.key;
    const std::string where = file.where(e.line);
    if (options.find_nothrow(name, false) == nullptr) {
      throw ValueError(name, where + ": unknown option '" + name + "'");
    }
    const auto [it, inserted] = first_line.emplace(name, e.line);
    if (!inserted) {
      throw UsageError(where + ": " + name + ": set twice (first on line " +
                       std::to_string(it->second) + ")");
    }
    std::string value;
    try {
      value = ini::single_value(e.value);
    } catch (const std::invalid_argument& error) {
      throw ValueError(name, where + ": " + name + ": " + error.what());
    }
    po::parsed_options one(&options);
    po::option option(name, {value});
    option.original_tokens = {name, value};
    one.options.push_back(option);
    try {
      po::store(one, vm);
    } catch (const po::error_with_option_name& error) {
      throw ValueError(name, where + ": " + OptionErrorText::of(error));
    } catch (const po::error& error) {
      throw ValueError(name, where + ": " + error.what());
    }
    given.emplace_back(name, value);
  }
}

}  // namespace

Parsed parse(int argc, const char* const* argv, const po::options_description& options,
             const std::string& usage) {
  po::options_description common("General");
  // One option per line, as --help prints them.
  // clang-format off
  common.add_options()
      ("help,h", "print this help and exit")
      ("config", po::value<std::string>()->value_name("FILE"),
       "read options from an INI file (key = value, same names as the long options; "
       "docs/input.md); the command line wins");
  // clang-format on
  po::options_description all;
  all.add(common).add(options);

  Parsed parsed;
  std::vector<std::pair<std::string, std::string>> from_config;
  po::parsed_options command_line(&all);
  try {
    command_line = po::command_line_parser(argc, argv).options(all).run();
    // A word that is no option's value arrives without a name; Boost would call every option a
    // match for it. Name the word instead.
    for (const po::option& o : command_line.options) {
      if (o.position_key >= 0 || o.string_key.empty()) {
        const std::string word = o.original_tokens.empty() ? "" : o.original_tokens.front();
        throw ValueError("", "'" + word + "' is not an option (options start with --)");
      }
    }
    po::store(command_line, parsed.vm);
    if (parsed.vm.count("help")) {
      std::cout << "Usage: " << usage << "\n\n" << all << "\n";
      parsed.help_printed = true;
      return parsed;
    }
    if (parsed.vm.count("config")) {
      store_config(parsed.vm["config"].as<std::string>(), options, parsed.vm, from_config);
    }
    po::notify(parsed.vm);
  } catch (const po::error_with_option_name& e) {
    throw ValueError(without_dashes(e.get_option_name()), OptionErrorText::of(e));
  } catch (const po::error& e) {
    throw ValueError("", e.what());
  }
  last_arguments().clear();
  for (const po::option& o : command_line.options) add_given(all, parsed.vm, o.string_key, o.value);
  for (const auto& [name, value] : from_config) {
    bool on_command_line = false;
    for (const po::option& o : command_line.options) on_command_line |= o.string_key == name;
    if (!on_command_line) add_given(all, parsed.vm, name, {value});
  }
  return parsed;
}

const std::vector<std::string>& given_arguments() { return last_arguments(); }

bool switch_requested(int argc, const char* const* argv, const std::string& name) {
  std::string config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--" + name) return true;
    if (arg == "--config" && i + 1 < argc) config = argv[i + 1];
    if (arg.rfind("--config=", 0) == 0) config = arg.substr(9);
  }
  if (config.empty()) return false;
  try {
    for (const ini::Entry& e : ini::read_ini(config).entries) {
      if (!e.section.empty() || e.key != name) continue;
      const std::string v = ini::single_value(e.value);
      return v.empty() || v == "true" || v == "on" || v == "yes" || v == "1";
    }
  } catch (const std::exception&) {
    // The parse that follows reports the file's problem with its line.
  }
  return false;
}

int run(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << std::endl;
    return kUsageExitCode;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << std::endl;
    return 1;
  }
}

void require_positive(const std::string& option, long long value) {
  if (value <= 0) {
    throw ValueError(option, "--" + option + ": '" + std::to_string(value) + "' must be positive");
  }
}

void require_positive_real(const std::string& option, double value) {
  if (!(value > 0)) {
    std::ostringstream os;
    os << "--" << option << ": '" << value << "' must be positive";
    throw ValueError(option, os.str());
  }
}

void require_positive_finite(const std::string& option, double value) {
  if (!(value > 0) || !std::isfinite(value)) {
    std::ostringstream os;
    os << "--" << option << ": '" << value << "' must be a finite number > 0";
    throw ValueError(option, os.str());
  }
}

// NaN and inf are refused too: no option of the suite means them.
void require_non_negative(const std::string& option, double value) {
  if (!(value >= 0) || !std::isfinite(value)) {
    std::ostringstream os;
    os << "--" << option << ": '" << value << "' must be a finite number >= 0";
    throw ValueError(option, os.str());
  }
}

void require_at_most(const std::string& option, double value, double cap) {
  if (value <= cap) return;
  std::ostringstream os;
  os.precision(15);
  os << "--" << option << ": '" << value << "' is above the cap of " << cap;
  throw ValueError(option, os.str());
}

void require_choice(const std::string& option, const std::string& value,
                    const std::vector<std::string>& choices) {
  std::string list;
  for (const std::string& c : choices) {
    if (c == value) return;
    list += (list.empty() ? "" : ", ") + c;
  }
  throw ValueError(option, "--" + option + ": '" + value + "' is not one of " + list);
}

}  // namespace mcb::cli
