#include "kube/exec_credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/json_value.h"
#include "common/quote.h"

extern char** environ;

namespace hpa::kube {
namespace {

constexpr auto kPluginTimeout = std::chrono::seconds(60);

struct ProcessOutput {
  int exitCode = 0;
  std::string out;
  std::string err;
};

// Runs argv with extra environment entries; stdin is /dev/null (never interactive).
Result<ProcessOutput> runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv) {
  int outPipe[2];
  int errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0) return Error::format("pipe: {}", std::strerror(errno));
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    close(outPipe[0]);
    close(outPipe[1]);
    return Error::format("pipe: {}", std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);

  std::vector<std::string> envStrings;
  for (char** e = environ; e && *e; ++e) envStrings.emplace_back(*e);
  for (const auto& e : extraEnv) envStrings.push_back(e);
  std::vector<char*> envp;
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (rc != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    return Error::format("cannot run {}: {}", argv[0], std::strerror(rc));
  }
  ProcessOutput result;
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  const auto deadline = std::chrono::steady_clock::now() + kPluginTimeout;
  int open = 2;
  bool timedOut = false;
  char buf[4096];
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    int n = poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  if (timedOut) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) return Error::format("{} did not finish within {}s", argv[0], kPluginTimeout.count());
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace

Result<ExecCredential> parseExecCredential(const std::string& output, const std::string& expectedApiVersion) {
  nlohmann::json j = parseUntrustedJson(output);
  if (j.is_discarded() || !j.is_object()) return Error::of("output is not a JSON ExecCredential");
  const std::string kind = stringValue(j, "kind");
  if (kind != "ExecCredential") return Error::format("kind is {}, want ExecCredential", quote(kind));
  const std::string apiVersion = stringValue(j, "apiVersion");
  if (apiVersion != expectedApiVersion) {
    return Error::format("apiVersion is {}, want {}", quote(apiVersion), quote(expectedApiVersion));
  }
  if (!j.contains("status") || !j["status"].is_object()) return Error::of("status is missing");
  const auto& status = j["status"];
  if (status.contains("clientCertificateData") || status.contains("clientKeyData")) {
    if (!status.contains("token")) {
      return Error::of("returns a client certificate, which hpa-controller does not support from exec plugins (tokens only)");
    }
  }
  if (!status.contains("token") || !status["token"].is_string() || status["token"].get<std::string>().empty()) {
    return Error::of("status.token is missing");
  }
  ExecCredential c;
  c.token = status["token"].get<std::string>();
  if (status.contains("expirationTimestamp") && !status["expirationTimestamp"].is_null()) {
    if (!status["expirationTimestamp"].is_string()) return Error::of("status.expirationTimestamp must be a string");
    auto t = parseRFC3339(status["expirationTimestamp"].get<std::string>());
    if (!t.ok()) return Error::format("status.expirationTimestamp: {}", t.error().message);
    c.expiration = *t;
  }
  return c;
}

ExecCredentialProvider::ExecCredentialProvider(ExecConfig config, std::string server, Clock& clock)
    : config_(std::move(config)), server_(std::move(server)), clock_(clock) {}

Result<std::string> ExecCredentialProvider::token() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && (!cached_->expiration || clock_.now() < *cached_->expiration)) return cached_->token;
  auto fresh = run();
  if (!fresh.ok()) return fresh.error();
  cached_ = *fresh;
  return cached_->token;
}

void ExecCredentialProvider::invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  cached_.reset();
}

Result<ExecCredential> ExecCredentialProvider::run() const {
  nlohmann::json info{{"apiVersion", config_.apiVersion}, {"kind", "ExecCredential"}, {"spec", {{"interactive", false}}}};
  if (config_.provideClusterInfo) info["spec"]["cluster"] = {{"server", server_}};
  std::vector<std::string> env{"KUBERNETES_EXEC_INFO=" + info.dump()};
  for (const auto& [k, v] : config_.env) env.push_back(k + "=" + v);
  std::vector<std::string> argv{config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  auto out = runProcess(argv, env);
  auto fail = [&](const std::string& why) {
    std::string hint = config_.installHint.empty() ? "" : "\n" + config_.installHint;
    return Error::format("exec credential plugin {}: {}{}", config_.command, why, hint);
  };
  if (!out.ok()) return fail(out.error().message);
  if (out->exitCode != 0) {
    std::string err = out->err.substr(0, 500);
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return fail(fmt::format("exit status {}{}", out->exitCode, err.empty() ? "" : ": " + err));
  }
  auto parsed = parseExecCredential(out->out, config_.apiVersion);
  if (!parsed.ok()) return fail(parsed.error().message);
  return parsed;
}

}  // namespace hpa::kube
