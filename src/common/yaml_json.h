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
// name the line and column. JSON input is valid YAML and comes out unchanged. The parser is
// libyaml's: yaml-cpp 0.7's loops forever on malformed input (fuzz findings).
Result<std::vector<nlohmann::json>> yamlDocumentsToJson(std::string_view text);

// One JSON value as a YAML document (block style, keys in the JSON's order) that
// yamlDocumentsToJson reads back as the same value: strings that would resolve to another type
// as plain scalars ("1", "true", "null", "") are quoted. No leading `---`, ends with a newline.
std::string jsonToYaml(const nlohmann::json& value);

}  // namespace hpa
