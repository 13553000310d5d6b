// The --config file as hpa-controller reads it: cmd::applyConfigFile finds --config in argv, reads
// the YAML (daemon::readConfigFile), assigns every known setting as its flag would, and the daemon
// then validates the options. The input is the file's content.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/options.h"
#include "fuzz_check.h"
#include "run_flags.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("hpa-config-fuzz-" + std::to_string(::getpid()) + ".yaml"))
                                      .string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::string arg0 = "hpa-controller", flag = "--config", file = path;
  char* argv[] = {arg0.data(), flag.data(), file.data(), nullptr};
  hpa::daemon::DaemonOptions options;
  auto applied = hpa::cmd::applyConfigFile(3, argv, options);
  if (!applied.ok()) {
    FUZZ_CHECK(!applied.error().message.empty(), "an error without a message");
    return 0;
  }
  auto valid = hpa::daemon::validate(options);
  if (!valid.ok())
    FUZZ_CHECK(!valid.error().message.empty(), "an invalid option without a message");
  return 0;
}
