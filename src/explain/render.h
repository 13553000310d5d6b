#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "explain/explain.h"

namespace hpa::explain {

// The `-o json` document (schema in docs/explain.md, "JSON output").
nlohmann::json explanationToJson(const Explanation& e);

// The `-o text` explanation: the decision first, then why, metric by metric.
std::string explanationToText(const Explanation& e);

// `explain --all` / `-A`: one row per HPA (its namespace too when `withNamespace`): current ->
// next replicas, the metric that decided or failed, and why it scales or not
// (report::summarize, the same words as the daemon's log line).
std::string explanationsTable(const std::vector<Explanation>& explanations, bool withNamespace);

}  // namespace hpa::explain
