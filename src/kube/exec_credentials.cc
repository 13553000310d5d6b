#include "kube/exec_credentials.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>
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

// A file descriptor that closes itself.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

struct Pipe {
  Fd read;
  Fd write;
  static Result<Pipe> make() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return Error::format("pipe: {}", std::strerror(errno));
    return Pipe{Fd(fds[0]), Fd(fds[1])};
  }
};

// posix_spawn's file actions, destroyed with the object.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// A null-terminated array of C strings over strings it owns (argv, envp).
class CStrings {
 public:
  explicit CStrings(std::vector<std::string> strings) : strings_(std::move(strings)) {
    for (auto& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char* const* get() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

std::vector<std::string> environmentWith(const std::vector<std::string>& extraEnv) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  env.insert(env.end(), extraEnv.begin(), extraEnv.end());
  return env;
}

// Reads both pipes until the child closes them or the deadline passes (true: it passed).
bool readUntilClosed(Fd& out, Fd& err, std::chrono::steady_clock::time_point deadline,
                     ProcessOutput& result) {
  Fd* ends[2] = {&out, &err};
  char buf[4096];
  while (out.open() || err.open()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    pollfd fds[2] = {{out.get(), POLLIN, 0}, {err.get(), POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;  // EINTR or no event yet
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ends[i]->reset();
      }
    }
  }
  return false;
}

int waitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs argv with extra environment entries; stdin is /dev/null (never interactive).
Result<ProcessOutput> runProcess(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& extraEnv) {
  auto outPipe = Pipe::make();
  if (!outPipe.ok()) return outPipe.error();
  auto errPipe = Pipe::make();
  if (!errPipe.ok()) return errPipe.error();
  pid_t pid = 0;
  {
    SpawnActions actions;
    posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(actions.get(), outPipe->write.get(), 1);
    posix_spawn_file_actions_adddup2(actions.get(), errPipe->write.get(), 2);
    CStrings args(argv);
    CStrings env(environmentWith(extraEnv));
    const int rc = posix_spawnp(&pid, args.get()[0], actions.get(), nullptr, args.get(), env.get());
    if (rc != 0) return Error::format("cannot run {}: {}", argv[0], std::strerror(rc));
  }
  // The child holds the write ends now: ours must close for its exit to end the reads.
  outPipe->write.reset();
  errPipe->write.reset();
  ProcessOutput result;
  const bool timedOut = readUntilClosed(outPipe->read, errPipe->read,
                                        std::chrono::steady_clock::now() + kPluginTimeout, result);
  outPipe->read.reset();
  errPipe->read.reset();
  if (timedOut) kill(pid, SIGKILL);
  result.exitCode = waitFor(pid);
  if (timedOut)
    return Error::format("{} did not finish within {}s", argv[0], kPluginTimeout.count());
  return result;
}

}  // namespace

Result<ExecCredential> parseExecCredential(const std::string& output,
                                           const std::string& expectedApiVersion) {
  nlohmann::json j = parseUntrustedJson(output);
  if (j.is_discarded() || !j.is_object()) return Error::of("output is not a JSON ExecCredential");
  const std::string kind = stringValue(j, "kind");
  if (kind != "ExecCredential")
    return Error::format("kind is {}, want ExecCredential", quote(kind));
  const std::string apiVersion = stringValue(j, "apiVersion");
  if (apiVersion != expectedApiVersion) {
    return Error::format("apiVersion is {}, want {}", quote(apiVersion), quote(expectedApiVersion));
  }
  if (!j.contains("status") || !j["status"].is_object()) return Error::of("status is missing");
  const auto& status = j["status"];
  if (status.contains("clientCertificateData") || status.contains("clientKeyData")) {
    if (!status.contains("token")) {
      return Error::of(
          "returns a client certificate, which hpa-controller does not support from exec plugins "
          "(tokens only)");
    }
  }
  if (!status.contains("token") || !status["token"].is_string() ||
      status["token"].get<std::string>().empty()) {
    return Error::of("status.token is missing");
  }
  ExecCredential c;
  c.token = status["token"].get<std::string>();
  if (status.contains("expirationTimestamp") && !status["expirationTimestamp"].is_null()) {
    if (!status["expirationTimestamp"].is_string())
      return Error::of("status.expirationTimestamp must be a string");
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
  if (cached_ && (!cached_->expiration || clock_.now() < *cached_->expiration))
    return cached_->token;
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
  nlohmann::json info{{"apiVersion", config_.apiVersion},
                      {"kind", "ExecCredential"},
                      {"spec", {{"interactive", false}}}};
  if (config_.provideClusterInfo) info["spec"]["cluster"] = {{"server", server_}};
  std::vector<std::string> env{"KUBERNETES_EXEC_INFO=" + info.dump()};
  for (const auto& [k, v] : config_.env) {
    std::string entry = k;
    entry += '=';
    entry += v;
    env.push_back(std::move(entry));
  }
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
