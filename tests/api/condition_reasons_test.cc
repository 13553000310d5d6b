// Condition and Event reasons are words other code matches: they live as constants in
// api/conditions.h, with upstream's exact text, and nowhere else as a string. This test reads the
// reasons from that header and fails on any file of src/ that writes one as a literal.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "api/conditions.h"

namespace hpa::api {
namespace {

const std::filesystem::path kSourceRoot = std::filesystem::path(HPA_SOURCE_DIR) / "src";
const std::filesystem::path kReasonsHeader = kSourceRoot / "api" / "conditions.h";

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The values of the constants after the header's reasons marker.
std::vector<std::string> reasonsIn(const std::string& header) {
  const auto marker = header.find("--- reasons");
  std::vector<std::string> out;
  if (marker == std::string::npos) return out;
  const std::regex constant(R"re(inline constexpr const char\* k\w+ = "(\w+)";)re");
  const std::string tail = header.substr(marker);
  for (std::sregex_iterator it(tail.begin(), tail.end(), constant), end; it != end; ++it)
    out.push_back((*it)[1]);
  return out;
}

// `code` with its comments blanked (newlines kept, so line numbers hold), strings and raw strings
// left as they are.
std::string withoutComments(const std::string& code) {
  std::string out = code;
  std::size_t i = 0;
  auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  while (i < code.size()) {
    const bool identifierBefore =
        i > 0 && (std::isalnum(static_cast<unsigned char>(code[i - 1])) || code[i - 1] == '_');
    if (code.compare(i, 2, "//") == 0) {
      const auto end = code.find('\n', i);
      blank(i, end);
      i = end == std::string::npos ? code.size() : end;
    } else if (code.compare(i, 2, "/*") == 0) {
      const auto end = code.find("*/", i + 2);
      blank(i, end == std::string::npos ? code.size() : end + 2);
      i = end == std::string::npos ? code.size() : end + 2;
    } else if (code.compare(i, 2, "R\"") == 0 && !identifierBefore) {
      const auto open = code.find('(', i);
      const std::string close = ")" + code.substr(i + 2, open - i - 2) + "\"";
      const auto end = code.find(close, open);
      i = end == std::string::npos ? code.size() : end + close.size();
    } else if (code[i] == '"' || code[i] == '\'') {
      const char quote = code[i++];
      while (i < code.size() && code[i] != quote) i += code[i] == '\\' ? 2 : 1;
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// "file:line" of each line of `code` that writes `value` as a string literal.
std::vector<std::string> literalUses(const std::string& code, const std::string& value,
                                     const std::string& file) {
  std::vector<std::string> out;
  const std::string literal = "\"" + value + "\"";
  std::istringstream lines(withoutComments(code));
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find(literal) != std::string::npos) out.push_back(file + ":" + std::to_string(number));
  }
  return out;
}

TEST(ConditionReasons, TheHeaderListsUpstreamsReasonsAndOurs) {
  const auto reasons = reasonsIn(readFile(kReasonsHeader));
  auto listed = [&](const char* reason) {
    return std::find(reasons.begin(), reasons.end(), reason) != reasons.end();
  };
  EXPECT_TRUE(listed(kScaleDownStabilized));
  EXPECT_TRUE(listed(kFailedGetResourceMetric));
  EXPECT_TRUE(listed(kTooManyReplicas));
  EXPECT_TRUE(listed(kScheduledMinReplicas));
  EXPECT_FALSE(listed(kConditionTrue))
      << "statuses are not reasons: \"True\" is a pod condition's word too";
  EXPECT_GE(reasons.size(), 30u);
}

TEST(ConditionReasons, TheScanFindsLiteralsAndSkipsComments) {
  const std::string code =
      "// \"TooManyReplicas\" in a comment\n"
      "condition(kScalingLimited, kConditionTrue, \"TooManyReplicas\", msg);\n"
      "/* \"TooManyReplicas\" */ auto s = R\"(\"TooManyReplicas\" raw)\";\n"
      "if (type == \"ERROR\") x = \"TooManyReplicasX\";\n";
  EXPECT_EQ(literalUses(code, "TooManyReplicas", "f.cc"),
            (std::vector<std::string>{"f.cc:2", "f.cc:3"}));
}

TEST(ConditionReasons, NoReasonIsWrittenAsALiteralOutsideItsHeader) {
  const auto reasons = reasonsIn(readFile(kReasonsHeader));
  ASSERT_FALSE(reasons.empty()) << kReasonsHeader << " lost its reasons marker";
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSourceRoot)) {
    const auto& path = entry.path();
    if (!entry.is_regular_file() || path == kReasonsHeader) continue;
    if (path.extension() != ".cc" && path.extension() != ".h") continue;
    const std::string code = readFile(path);
    const std::string file = std::filesystem::relative(path, kSourceRoot.parent_path()).string();
    for (const auto& reason : reasons) {
      for (auto& use : literalUses(code, reason, file))
        found.push_back(use + " \"" + reason + "\"");
    }
  }
  EXPECT_TRUE(found.empty()) << "use the constants of src/api/conditions.h:\n"
                             << ::testing::PrintToString(found);
}

}  // namespace
}  // namespace hpa::api
