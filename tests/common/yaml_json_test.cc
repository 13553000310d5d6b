#include "common/yaml_json.h"

#include <gtest/gtest.h>

namespace hpa {
namespace {

using nlohmann::json;

TEST(YamlJson, ResolvesPlainScalarsAndKeepsQuotedStrings) {
  auto docs = yamlDocumentsToJson(R"(
a: 1
b: "1"
c: 1.5
d: 100m
e: true
f: 'false'
g: ~
h: 2e3
i: [x, 2]
j: -7
k: 12345678901234567890
)");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  ASSERT_EQ(docs->size(), 1u);
  const json& d = (*docs)[0];
  EXPECT_EQ(d["a"], 1);
  EXPECT_EQ(d["b"], "1");
  EXPECT_EQ(d["c"], 1.5);
  EXPECT_EQ(d["d"], "100m");
  EXPECT_EQ(d["e"], true);
  EXPECT_EQ(d["f"], "false");
  EXPECT_TRUE(d["g"].is_null());
  EXPECT_EQ(d["h"], 2000.0);
  EXPECT_EQ(d["i"], json::parse(R"(["x", 2])"));
  EXPECT_EQ(d["j"], -7);
  EXPECT_TRUE(d["k"].is_number_float());
}

TEST(YamlJson, SplitsDocumentsAndSkipsEmptyOnes) {
  auto docs = yamlDocumentsToJson("---\nkind: A\n---\n---\nkind: B\n...\n");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1]["kind"], "B");
}

TEST(YamlJson, JsonInputIsUnchanged) {
  json original = json::parse(R"({"a": {"b": [1, "2", null, true]}, "c": "x: y"})");
  auto docs = yamlDocumentsToJson(original.dump());
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0], original);
}

TEST(YamlJson, EmittedYamlReadsBackAsTheSameValue) {
  json original = json::parse(R"({"kind": "Pod", "metadata": {"name": "web-1", "labels": {"app": "web", "v": "1"},
    "annotations": {"a": "true", "b": "null", "c": "", "d": "line one\nline two", "e": "x: y", "f": "- z",
                    "g": "0x1F", "h": "1.5e3", "i": "~", "j": "#not a comment", "k": "{\"json\": [1]}"}},
    "spec": {"replicas": 3, "ratio": 0.25, "big": 12345678901234, "ready": true, "gone": null,
             "list": [], "map": {}, "items": [{"a": 1}, "two", 3.0, false]}})");
  std::string yaml = jsonToYaml(original);
  EXPECT_NE(yaml.find("\nspec:\n"), std::string::npos) << "block style expected:\n" << yaml;
  auto docs = yamlDocumentsToJson(yaml);
  ASSERT_TRUE(docs.ok()) << docs.error().message << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0], original) << yaml;
}

TEST(YamlJson, ErrorsNameTheLine) {
  auto docs = yamlDocumentsToJson("a: 1\nb: [1, 2\nc: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message.find("line "), std::string::npos) << docs.error().message;
  EXPECT_FALSE(yamlDocumentsToJson("a: b: c\n").ok());
  EXPECT_FALSE(yamlDocumentsToJson("{\"a\": 1").ok());
}

}  // namespace
}  // namespace hpa
