#include "command_io.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace hpa::cmd {

Result<explain::SnapshotSource> InputFiles::read(const std::string& argument) {
  std::ostringstream buf;
  if (argument == "-") {
    if (stdinRead_) return Error::of("standard input (-) can be given only once");
    stdinRead_ = true;
    buf << std::cin.rdbuf();
    return explain::SnapshotSource{"<stdin>", buf.str()};
  }
  std::ifstream in(argument, std::ios::binary);
  if (!in) return Error::format("{}: cannot read file", argument);
  buf << in.rdbuf();
  if (in.bad()) return Error::format("{}: read error", argument);
  return explain::SnapshotSource{argument, buf.str()};
}

Result<std::vector<explain::SnapshotSource>> InputFiles::readAll(
    const std::vector<std::string>& arguments) {
  std::vector<explain::SnapshotSource> sources;
  for (const auto& argument : arguments) {
    auto source = read(argument);
    if (!source.ok()) return source.error();
    sources.push_back(std::move(*source));
  }
  return sources;
}

void addOutputFlag(CLI::App& command, std::string& output) {
  command
      .add_option("-o,--output", output,
                  "text or json (default: text on a terminal, json otherwise)")
      ->check(CLI::IsMember({"json", "text"}));
}

std::string outputFormat(const std::string& requested) {
  if (!requested.empty()) return requested;
  return isatty(STDOUT_FILENO) ? "text" : "json";
}

void addConnectionFlags(CLI::App& command, kube::ConnectionFlags& flags, const std::string& scope) {
  command.add_option(
      "--kubeconfig", flags.kubeconfig,
      scope + "path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  command.add_option("--context", flags.context, scope + "the kubeconfig context to use");
  command.add_option(
      "--master", flags.master,
      scope + "the address of the Kubernetes API server (overrides any value in kubeconfig)");
}

}  // namespace hpa::cmd
