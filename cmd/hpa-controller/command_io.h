#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "explain/snapshot.h"
#include "kube/client_config.h"

namespace hpa::cmd {

// The inputs of one command (`explain -f`, `replay -f`, `--compare`, `--trace`): files, or
// standard input for "-", which can be read once per command (it is empty the second time).
class InputFiles {
 public:
  // The argument's whole text, named as messages call it ("<stdin>" for "-").
  Result<explain::SnapshotSource> read(const std::string& argument);
  Result<std::vector<explain::SnapshotSource>> readAll(const std::vector<std::string>& arguments);

 private:
  bool stdinRead_ = false;
};

// -o, --output: text or json.
void addOutputFlag(CLI::App& command, std::string& output);
// -o's value when given; otherwise text on a terminal and json for programs.
std::string outputFormat(const std::string& requested);

// --kubeconfig, --context and --master, which say what cluster a live command reads; `scope`
// opens their help ("" or "without -f: ").
void addConnectionFlags(CLI::App& command, kube::ConnectionFlags& flags, const std::string& scope);

}  // namespace hpa::cmd
