#include "common/version.h"

namespace hpa {

std::string versionLine() {
  std::string line = "hpa-controller " + std::string(releaseVersion());
  if (!sourceRevision().empty()) line += " (" + std::string(sourceRevision()) + ")";
  return line;
}

}  // namespace hpa
