// `hpa-controller handback`: what kube-controller-manager will ignore of each HPA's
// hpa-controller.io/ annotations once its HPA loop decides again, read from a live cluster (GETs
// only) or from a snapshot; with --cleanup-commands, the commands that remove them afterwards.
#include "handback_command.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command_io.h"
#include "common/clock.h"
#include "explain/snapshot.h"
#include "explain_flags.h"
#include "handback/cluster.h"
#include "handback/handback.h"
#include "handback/render.h"
#include "kube/client_config.h"
#include "kube/read_only_client.h"

namespace hpa::cmd {
namespace {

// Listed: 0, whatever the HPAs carry.
constexpr int kExitListed = 0;

struct HandbackFlags {
  std::vector<std::string> files;
  std::string namespace_;
  bool allNamespaces = false;
  kube::ConnectionFlags connection;
  std::string output;
  bool cleanupCommands = false;
};

int fail(const std::string& message, int code = kExitUnusableInput) {
  std::cerr << "hpa-controller handback: " << message << "\n";
  return code;
}

// The HPAs of the snapshot files, of the namespace of -n when given.
Result<std::vector<api::HorizontalPodAutoscaler>> snapshotHpas(const HandbackFlags& flags) {
  InputFiles inputs;
  auto sources = inputs.readAll(flags.files);
  if (!sources.ok()) return sources.error();
  auto snapshot = explain::loadSnapshot(*sources);
  if (!snapshot.ok()) return snapshot.error();
  std::vector<api::HorizontalPodAutoscaler> hpas;
  for (auto& [hpa, origin] : snapshot->hpas) {
    if (flags.namespace_.empty() || hpa.metadata.namespace_ == flags.namespace_)
      hpas.push_back(std::move(hpa));
  }
  return hpas;
}

// Every request goes through a client that refuses anything but GET.
Result<std::vector<api::HorizontalPodAutoscaler>> clusterHpas(const HandbackFlags& flags) {
  auto config = kube::resolveRestConfig(flags.connection);
  if (!config.ok()) return config.error();
  RealClock clock;
  auto cluster = kube::ReadOnlyClient::connect(*config, clock);
  if (!cluster.ok()) return cluster.error();
  return handback::listClusterHpas((*cluster)->client(), flags.namespace_);
}

int runHandback(const HandbackFlags& flags) {
  if (flags.allNamespaces && !flags.namespace_.empty())
    return fail("give -n NAMESPACE or -A, not both");
  if (flags.cleanupCommands && !flags.output.empty())
    return fail("--cleanup-commands prints commands; it takes no -o");
  const auto& c = flags.connection;
  const bool connectionGiven = !c.kubeconfig.empty() || !c.context.empty() || !c.master.empty();
  if (!flags.files.empty() && connectionGiven) {
    return fail("-f reads a snapshot; --kubeconfig, --context and --master are for a live cluster");
  }
  auto hpas = flags.files.empty() ? clusterHpas(flags) : snapshotHpas(flags);
  if (!hpas.ok())
    return fail(hpas.error().message,
                flags.files.empty() ? kExitClusterUnreadable : kExitUnusableInput);

  const handback::HandbackReport report = handback::handbackReport(*hpas);
  if (flags.cleanupCommands) {
    std::cout << handback::cleanupCommands(report);
  } else if (outputFormat(flags.output) == "json") {
    std::cout << handback::handbackToJson(report).dump(2) << "\n";
  } else {
    std::cout << handback::handbackTable(report);
  }
  return kExitListed;
}

}  // namespace

void addHandbackCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<HandbackFlags>();
  auto* cmd = app.add_subcommand("handback",
                                 "Before kube-controller-manager's HPA loop decides again: for "
                                 "every HPA with hpa-controller.io/ annotations, the "
                                 "controls whose effect stops (a paused HPA is scaled again) and "
                                 "the bookkeeping that changes no decision. Reads "
                                 "a live cluster (GETs only) or snapshot files; writes nothing.");
  cmd->add_option("-n,--namespace", flags->namespace_,
                  "only the HPAs of this namespace (default: every namespace)");
  cmd->add_flag("-A,--all-namespaces", flags->allNamespaces,
                "the HPAs of every namespace (the default)");
  addConnectionFlags(*cmd, flags->connection, "");
  cmd->add_option("-f,--filename", flags->files,
                  "read the HPAs from a snapshot file instead of a cluster (YAML or JSON, as "
                  "`explain -f` reads; '-' "
                  "for stdin); repeatable");
  addOutputFlag(*cmd, flags->output);
  cmd->add_flag("--cleanup-commands", flags->cleanupCommands,
                "print instead, for each HPA, the kubectl annotate command that removes all its "
                "hpa-controller.io/ "
                "annotations, to run once kube-controller-manager decides them (this command "
                "writes nothing)");
  cmd->callback([flags, &run]() { run = [flags]() { return runHandback(*flags); }; });
}

}  // namespace hpa::cmd
