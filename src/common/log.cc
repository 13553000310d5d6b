#include "common/log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/quote.h"

namespace hpa {

Logger::Logger(std::string component, int verbosity, std::shared_ptr<spdlog::logger> sink)
    : component_(std::move(component)), verbosity_(verbosity), sink_(std::move(sink)) {}

Logger Logger::stderrLogger(std::string component, int verbosity) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("hpa", sink);
  // klog's header: severity letter, mmdd, time with microseconds.
  logger->set_pattern("%L%m%d %H:%M:%S.%f %v", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  return Logger(std::move(component), verbosity, std::move(logger));
}

Logger Logger::discard() { return Logger("", -1, nullptr); }

void Logger::emit(Severity severity, const std::string& line) const {
  switch (severity) {
    case Severity::Info:
      sink_->log(spdlog::level::info, line);
      return;
    case Severity::Warning:
      sink_->log(spdlog::level::warn, line);
      return;
    case Severity::Error:
      sink_->log(spdlog::level::err, line);
      return;
  }
}

void Logger::appendValue(std::string& line, const std::string& value) {
  bool plain = !value.empty() && value.find_first_of(" \"=\n\t") == std::string::npos;
  if (plain) {
    line += value;
    return;
  }
  appendDoubleQuoted(line, value);
}

}  // namespace hpa
