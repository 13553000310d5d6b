#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace hpa {

// YAML to JSON as Kubernetes tooling reads manifests: plain scalars resolve to null, booleans,
// integers and floats by the YAML 1.2 core schema; quoted scalars stay strings. Every document
// of a `---`-separated stream becomes one JSON value (empty documents are skipped). Parse errors
// name the line and column. JSON input is valid YAML and comes out unchanged.
Result<std::vector<nlohmann::json>> yamlDocumentsToJson(std::string_view text);

}  // namespace hpa
