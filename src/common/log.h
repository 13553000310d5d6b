#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

// spdlog stays out of this header: it is included by most of the tree, and spdlog's headers cost
// several seconds of compilation per file that includes them.
namespace spdlog {
class logger;
}

namespace hpa {

// Structured logger: a message followed by key=value pairs, one logger per component, with
// klog-style verbosity (`-v`): v(0) lines always print, v(2) is the per-decision detail level,
// v(4) debug, v(6)+ request traces. Loggers are values handed to whoever logs; nothing global.
class Logger {
 public:
  // A logger writing to stderr in klog's layout ("I1122 13:44:00.123456 component] msg k=v").
  static Logger stderrLogger(std::string component, int verbosity);
  // A logger that drops everything (tests, `explain`).
  static Logger discard();

  Logger(std::string component, int verbosity, std::shared_ptr<spdlog::logger> sink);

  Logger child(std::string component) const {
    return Logger(std::move(component), verbosity_, sink_);
  }
  int verbosity() const { return verbosity_; }
  bool enabled(int level) const { return sink_ && level <= verbosity_; }

  template <typename... KV>
  void info(std::string_view msg, const KV&... kv) const {
    write(Severity::Info, msg, kv...);
  }
  template <typename... KV>
  void warn(std::string_view msg, const KV&... kv) const {
    write(Severity::Warning, msg, kv...);
  }
  template <typename... KV>
  void error(std::string_view msg, const KV&... kv) const {
    write(Severity::Error, msg, kv...);
  }
  // Logs at info level when the configured verbosity is at least `level`.
  template <typename... KV>
  void v(int level, std::string_view msg, const KV&... kv) const {
    if (enabled(level)) write(Severity::Info, msg, kv...);
  }

 private:
  enum class Severity { Info, Warning, Error };

  template <typename... KV>
  void write(Severity severity, std::string_view msg, const KV&... kv) const {
    static_assert(sizeof...(KV) % 2 == 0, "log fields come in key, value pairs");
    if (!sink_) return;
    std::string line = fmt::format("{}] {}", component_, msg);
    appendFields(line, kv...);
    emit(severity, line);
  }
  void emit(Severity severity, const std::string& line) const;
  static void appendFields(std::string&) {}
  template <typename V, typename... Rest>
  static void appendFields(std::string& line, std::string_view key, const V& value,
                           const Rest&... rest) {
    line += ' ';
    line += key;
    line += '=';
    appendValue(line, fmt::format("{}", value));
    appendFields(line, rest...);
  }
  static void appendValue(std::string& line, const std::string& value);

  std::string component_;
  int verbosity_;
  std::shared_ptr<spdlog::logger> sink_;
};

}  // namespace hpa
