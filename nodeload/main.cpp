/// @file
/// @brief mcb-nodeload: background load on a node (CPU share, memory traffic, network rate to a
/// peer) for the length of a run; see nodeload/README.md.
#include "common/cli.hpp"
#include "common/files.hpp"
#include "common/node_load.hpp"
#include "common/option_types.hpp"
#include "nodeload/generator.hpp"

#include <sys/prctl.h>

#include <atomic>
#include <csignal>
#include <iostream>

namespace {

namespace po = mcb::cli::po;

std::atomic<bool> stop_requested{false};
extern "C" void request_stop(int) { stop_requested.store(true); }

struct Options {
  mcb::NodeLoadSpec load;
  std::string peer = "localhost";
  std::optional<mcb::cli::Duration> duration;
  std::string summary;
  std::string ready;
  bool stop_with_parent = false;
};

int run(int argc, char** argv) {
  Options o;
  po::options_description d("Options");
  // clang-format off
  d.add_options()
      ("load", po::value<std::string>()->required()->value_name("SPEC")
                   ->notifier([&o](const std::string& text) {
                     try {
                       o.load = mcb::parse_node_load(text);
                     } catch (const std::invalid_argument& e) {
                       throw mcb::cli::ValueError("load", "--load: '" + text + "': " + e.what());
                     }
                   }),
       "what to load the node with: cpu=P% (share of every core), memory=RATE (streaming "
       "copy), network=RATE (UDP to --peer), port=N (default 47990); or none")
      ("peer", po::value(&o.peer)->default_value(o.peer)->value_name("HOST"),
       "host whose generator receives this node's network load")
      ("duration", po::value<mcb::cli::Duration>()->value_name("TIME")
                       ->notifier([&o](const mcb::cli::Duration& t) { o.duration = t; }),
       "end after this long (default: at SIGTERM or SIGINT)")
      ("summary", po::value(&o.summary)->value_name("FILE"),
       "write what was achieved here as JSON (default: standard output)")
      ("ready", po::value(&o.ready)->value_name("FILE"),
       "create this (empty) file once every load is running")
      ("stop-with-parent", po::bool_switch(&o.stop_with_parent),
       "end when the process that started this one ends (how the measurement programs use it)");
  // clang-format on
  const auto parsed = mcb::cli::parse(argc, argv, d, "mcb-nodeload --load SPEC [options]");
  if (parsed.help_printed) return 0;
  if (!o.summary.empty()) mcb::check_writable_file("summary", o.summary);
  if (!o.ready.empty()) mcb::check_writable_file("ready", o.ready);

  if (o.stop_with_parent) prctl(PR_SET_PDEATHSIG, SIGTERM);
  struct sigaction on_stop {};
  on_stop.sa_handler = request_stop;
  sigaction(SIGTERM, &on_stop, nullptr);
  sigaction(SIGINT, &on_stop, nullptr);

  const mcb::NodeLoadAchieved achieved = mcb::nodeload::generate(
      o.load, o.peer, stop_requested, o.duration ? o.duration->seconds : 0, [&o] {
        if (!o.ready.empty()) mcb::write_file_atomically(o.ready, "");
      });
  const std::string summary = mcb::node_load_summary(o.load, achieved).dump() + "\n";
  if (o.summary.empty()) {
    std::cout << summary;
  } else {
    mcb::write_file_atomically(o.summary, summary);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mcb::cli::run("mcb-nodeload", [&] { return run(argc, argv); });
}
