#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"hpa-controller: a Horizontal Pod Autoscaler controller for Kubernetes"};
  app.set_version_flag("--version", HPA_VERSION);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
