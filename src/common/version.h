#pragma once

#include <string>
#include <string_view>

namespace hpa {

// The release, from the repository's VERSION file ("0.2.0").
std::string_view releaseVersion();
// `git describe --tags --always --dirty` of the checkout the build was configured in
// ("v0.2.0-3-gf6ca829-dirty"); empty when it was built without git or outside a checkout (the
// image build leaves .git out).
std::string_view sourceRevision();
// What `--version` prints: "hpa-controller 0.2.0", then " (v0.2.0-3-gf6ca829)" when the
// revision is known.
std::string versionLine();

}  // namespace hpa
