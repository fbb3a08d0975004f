#pragma once
/// @file
/// @brief Writing values into shell scripts so that they stay values: every word from a spec is
/// single-quoted, and templates are filled by name.

#include <map>
#include <string>
#include <vector>

namespace mcb::campaign {

/// @brief @p word in single quotes for bash ('it'\''s'); never expands or runs anything.
std::string shell_quote(const std::string& word);

/// @brief @p word as is when it holds only plain characters, else quoted (for display).
std::string display_word(const std::string& word);

/// @brief The words single-quoted and joined by blanks.
std::string shell_words(const std::vector<std::string>& words);

/// @brief Replaces every @NAME@ in @p text with @p values.at(NAME).
/// @throws std::logic_error for a placeholder without a value.
std::string fill_template(const std::string& text,
                          const std::map<std::string, std::string>& values);

/// @brief @p text with every character outside [A-Za-z0-9._-] replaced by '_' (job names,
/// comments).
std::string plain_name(const std::string& text, std::size_t max_length = 40);

/// @brief The jobscript templates (jobscripts/templates/*), built into the program: one per
/// batch system, each ending in the run section they share.
const std::string& slurm_template();
const std::string& pbs_template();
const std::string& run_section_template();
/// @brief The pilot of a co-allocated run's component (jobscripts/templates/coalloc-pilot.sh).
const std::string& coalloc_pilot_template();
/// @brief The pilot of one queue of a multi-queue ensemble run
/// (jobscripts/templates/ensemble-pilot.sh).
const std::string& ensemble_pilot_template();

}  // namespace mcb::campaign
