#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "explain/snapshot.h"

namespace hpa::handback {

// The HPAs of tests/handback/cases/annotated-hpas.yaml, as `handback -f` reads them.
inline std::vector<api::HorizontalPodAutoscaler> annotatedHpas() {
  const std::string path = std::string(HPA_HANDBACK_CASES) + "/annotated-hpas.yaml";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto snapshot = explain::loadSnapshot({{path, text.str()}});
  EXPECT_TRUE(snapshot.ok()) << snapshot.error().message;
  std::vector<api::HorizontalPodAutoscaler> hpas;
  if (snapshot.ok()) {
    for (const auto& [hpa, origin] : snapshot->hpas) hpas.push_back(hpa);
  }
  return hpas;
}

}  // namespace hpa::handback
