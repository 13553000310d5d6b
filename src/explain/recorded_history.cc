#include "explain/recorded_history.h"

#include <nlohmann/json.hpp>

#include "api/prometheus_matrix.h"

namespace hpa::explain {

Result<std::vector<forecast::Sample>> readRecordedHistory(const std::string& text) {
  const auto root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Error::of("not JSON (a range query's answer is)");
  auto matrix = api::readPrometheusMatrix(root);
  if (!matrix.ok()) return matrix.error();
  std::vector<forecast::Sample> samples = controls::samplesOf(*matrix);
  if (samples.empty()) return Error::of("the range query's answer holds no sample");
  return samples;
}

Result<controls::History> RecordedHistory::history(const controls::HistoryRequest& request,
                                                   Time now) {
  auto served = std::make_shared<std::vector<forecast::Sample>>();
  for (const forecast::Sample& s : *samples_) {
    if (s.at > now - request.range && s.at <= now) served->push_back(s);
  }
  if (served->empty()) {
    return Error::format("the recorded history has no sample in the {} before {}",
                         formatGoDuration(request.range), formatRFC3339(now));
  }
  return controls::History{std::move(served), 1};
}

}  // namespace hpa::explain
