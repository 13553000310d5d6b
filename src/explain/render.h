#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "explain/explain.h"

namespace hpa::explain {

// The `-o json` document (schema in the README, "explain output").
nlohmann::json explanationToJson(const Explanation& e);

// The `-o text` explanation: the decision first, then why, metric by metric.
std::string explanationToText(const Explanation& e);

}  // namespace hpa::explain
