#pragma once
/// @file
/// @brief A program's output files committed as one set: a reader of the output folder sees the
/// previous set whole or the new one whole, never a mix of the two, and a kill or a full disk at
/// any moment leaves the previous set as it was (docs/DESIGN.md, "Outputs").
///
/// The new files are written into a fresh sibling folder, ".<folder>.new.<pid>". At commit() the
/// entries of the output folder that are not the program's own (a user's notes, another
/// program's files, figures drawn from the last set) are hard-linked into it, and the two folders
/// are exchanged in one atomic rename (renameat2 RENAME_EXCHANGE); the sibling, now holding the
/// previous set, is then removed. Stale siblings of killed runs, and stale "<file>.tmp.<pid>"
/// temporaries, are removed by the next set committed into the same folder.

#include <fstream>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace mcb {

class OutputSet {
 public:
  /// @param folder the output folder (created at commit() if missing; a symbolic link is
  ///        followed, so the folder it names is the one replaced)
  /// @param owned every file name the program may write into it, also those it does not write
  ///        this time: an owned file of the previous set that this set lacks is left out, so an
  ///        old jobs.csv never stands beside a new summary.json.
  /// @throws std::runtime_error when the sibling folder cannot be created.
  OutputSet(const std::string& folder, std::set<std::string> owned);
  /// Without commit(): removes the new files and leaves the folder as it was.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  /// @brief A new file of the set, @p name one of the owned names, written through the returned
  /// stream (buffered, 64 KiB). The stream lives as long as the set.
  std::ostream& open(const std::string& name);
  /// @brief A new file of the set with content @p content.
  void write(const std::string& name, const std::string& content);
  /// @brief The path the file @p name has once committed.
  std::string path(const std::string& name) const;

  /// @brief Syncs the new files and puts the set in place.
  /// @throws std::runtime_error "cannot write '<file>': <reason>" when a write failed (a full
  ///         disk): the folder keeps its previous set.
  void commit();

 private:
  struct File;
  void link_other_entries();
  void exchange();
  std::string old_sibling(long pid) const;
  /// Removes the new sets of killed runs and puts back a previous set that an interrupted
  /// two-rename commit (exchange()) left aside.
  void clean_up_killed_runs();

  std::string folder_, stage_;
  std::set<std::string> owned_;
  std::vector<std::unique_ptr<File>> files_;
  bool committed_ = false;
};

/// @brief A point of an output step where a test may simulate a kill: when the environment
/// variable MCB_CRASH_AT is N, the N-th point reached ends the process at once (exit code 137, as
/// from SIGKILL) without unwinding. Does nothing otherwise.
void crash_point();

}  // namespace mcb
