#include "daemon/server_rules.h"

#include "kube/discovery.h"

namespace hpa::daemon {

Result<replicacalc::DecisionRules> decisionRulesBesideServer(
    const controller::DecisionSettings& settings, kube::RestClient& client, const Logger& logger) {
  std::optional<controller::ServerRelease> server;
  auto version = kube::serverVersion(client);
  if (version.ok() && version->minorRelease()) {
    server = controller::ServerRelease{*version->minorRelease(), version->gitVersion};
  } else if (!settings.rulesMinor) {
    const std::string why = version.ok() ? "it names no 1.x release (" + version->gitVersion + ")"
                                         : version.error().message;
    return Error::format(
        "--decision-rules=auto needs the API server's release: {}; give --decision-rules", why);
  } else {
    logger.warn(
        "cannot read the API server's release; deciding by the rules --decision-rules names", "err",
        version.ok() ? version->gitVersion : version.error().message);
  }
  auto chosen = controller::chooseDecisionRules(settings, server);
  if (!chosen.ok()) return chosen.error();
  logger.info(chosen->choice);
  for (const auto& ignored : chosen->ignoredGates) logger.info(ignored);
  for (const auto& warning : chosen->warnings) logger.warn(warning);
  return chosen->rules;
}

}  // namespace hpa::daemon
