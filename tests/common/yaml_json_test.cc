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
  json original = json::parse(
      R"({"kind": "Pod", "metadata": {"name": "web-1", "labels": {"app": "web", "v": "1"},
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

// Directed inputs against known YAML hazards, confirmed on snapshot_fuzz (and the release build
// of hpa-controller explain): a plain scalar of 60,000 digits overflowed the stack inside
// std::regex (a segfault), and `&a [*a]`, an alias naming its own ancestor, recursed without
// end. Both are clear errors or values now.
TEST(YamlJson, LongPlainScalarsResolveWithoutRecursion) {
  const std::string digits(60000, '1');
  auto docs = yamlDocumentsToJson("a: " + digits + "\nb: " + digits + "." + digits +
                                  "\nc: " + digits + "x\n");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  EXPECT_TRUE((*docs)[0]["a"].is_number_float());  // beyond int64: a float, as before
  EXPECT_TRUE((*docs)[0]["b"].is_number_float());
  EXPECT_EQ((*docs)[0]["c"], digits + "x");
}

TEST(YamlJson, PlainScalarResolutionIsTheCoreSchema) {
  auto docs = yamlDocumentsToJson(
      "[~, null, Null, NULL, true, True, TRUE, false, FALSE, 0x1F, 0o17, +5, -0, .5, 5., 1e3, "
      "-1.5E-2, "
      "'1', 1e, ., +, 0x, 0o8, 1.2.3, .inf, yes, 1_000]");
  ASSERT_TRUE(docs.ok()) << docs.error().message;
  EXPECT_EQ(
      (*docs)[0],
      json::parse(R"([null, null, null, null, true, true, true, false, false, 31, 15, 5, 0, 0.5,
      5.0, 1000.0, -0.015, "1", "1e", ".", "+", "0x", "0o8", "1.2.3", ".inf", "yes", "1_000"])"));
}

TEST(YamlJson, RecursiveAliasesAreAnError) {
  for (const char* text : {"a: &a [*a]\n", "&a [*a]\n", "&a {k: *a}\n"}) {
    auto docs = yamlDocumentsToJson(text);
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_NE(docs.error().message.find("line 1"), std::string::npos) << docs.error().message;
  }
}

TEST(YamlJson, AliasExpansionIsBoundedBySize) {
  // Nine levels of ten aliases each: 10^9 values from 332 bytes.
  std::string bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ",*" : "*") + char(c - 1);
    bomb += "]\n";
  }
  auto docs = yamlDocumentsToJson(bomb);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.error().message.find("excessive aliasing"), std::string::npos)
      << docs.error().message;
  // Ordinary reuse stays fine: a merge-like alias of a small mapping, used a few times.
  auto reuse = yamlDocumentsToJson("defaults: &d {cpu: 100m, memory: 64Mi}\na: *d\nb: *d\nc: *d\n");
  ASSERT_TRUE(reuse.ok()) << reuse.error().message;
  EXPECT_EQ((*reuse)[0]["c"]["memory"], "64Mi");
}

}  // namespace
}  // namespace hpa

namespace hpa {
namespace {

// Reads `yaml` and returns its documents as one JSON array's text, or the error message.
std::string read(const std::string& yaml) {
  auto r = yamlDocumentsToJson(yaml);
  return r.ok() ? nlohmann::json(*r).dump() : "error: " + r.error().message;
}

// Fuzz findings (kubeconfig, snapshot and config file targets) on which yaml-cpp 0.7's parser
// looped forever, allocating gigabytes; a hand-written pre-scan refused them until libyaml replaced
// that parser. Each stays here with what YAML 1.2 makes of it. Most are not YAML (a ',' where a
// token begins outside a flow collection, text after a quoted scalar or a flow collection on its
// line, a '%' line that is no directive) and libyaml refuses them with its own message.
TEST(YamlJson, InputsThatLoopedYamlCppAreRefusedOrRead) {
  for (const char* notYaml :
       {",", ", user: u", ",a", "- a\n, b", "---\n,", "# c\n,", "- [x]\n, y", "[a], b",
        "{\"a\": 1}, 2", "- type: Resource\n ,   resource:", "a: \"x\", b", "k: ,x",
        "&!!bi''clqste,", "&# x\nmulti line\n# comment\n, y",
        "a: 1\nclusters: [{name: c}]\n, user: u}}]\n", "\"a\"b] \n,", "\"a\" b\n,", "'a' b",
        "- \"a\" b\n  , c", "\"`0v: &[\"\\\\X\\\\12] \n,", "[a] b\n,", "[-]-x \n\n,o",
        "!P/ce\": x\", y", "!t\"a\", b", "a: 1\n%\n,", "%YAML 1.2\n,\n", "a\n---\n,", "a\n...\n, b",
        "&: =\n\xf7\n,",
        // A second node after the document's root needs a `---` between them;
        // yaml-cpp read two documents here.
        "{a: 1} # c\nb: [x]\n"}) {
    auto r = yamlDocumentsToJson(notYaml);
    ASSERT_FALSE(r.ok()) << notYaml;
    EXPECT_EQ(r.error().message.rfind("line ", 0), 0u) << r.error().message;
  }
  // Control characters are not YAML text (c-printable).
  constexpr char kControl[] = "&!\x0ekPercent-\0\0.\r\0rst\0t-\0u,";
  EXPECT_EQ(read(std::string(kControl, sizeof kControl - 1)),
            "error: line 1, column 3: control characters are not allowed (0x0e)");
  // YAML 1.2 lets an anchor name hold any non-space character but ',[]{}'; libyaml reads anchors
  // as YAML 1.1 did (letters, digits, '-', '_') and refuses these, which 1.2 would read as a
  // plain scalar ("a ,", "qste,").
  for (const char* anchor : {"&>0p\ta\n,", "&!!bicl\rqste,"}) {
    EXPECT_NE(read(anchor).find("while scanning an anchor"), std::string::npos)
        << anchor << ": " << read(anchor);
  }
  // Valid YAML that the pre-scan refused: a plain scalar's continuation lines may begin with ','
  // or be a '%' line (only a document's first lines are directives), at the top level after an
  // anchor or tag too; and a lone CR breaks a line as LF does.
  struct Case {
    const char* yaml;
    const char* json;
  };
  for (const auto& c : {Case{"a\n%\n\n, b", R"(["a %\n, b"])"}, Case{"&a a\n,", R"(["a ,"])"},
                        Case{"!t\ta\n,", R"(["a ,"])"}, Case{"&a a\nx\n,", R"(["a x ,"])"},
                        Case{"!t a\nx\ny\n,", R"(["a x y ,"])"}, Case{"&a\rq,", R"(["q,"])"},
                        Case{"a: 1\rb: 2", R"([{"a":1,"b":2}])"},
                        Case{"a: \"x\ry\"", R"([{"a":"x y"}])"}, Case{"a: 1\r", R"([{"a":1}])"},
                        Case{"a: 1\r\nb: [x,\r\n y]\r\n", R"([{"a":1,"b":["x","y"]}])"}}) {
    EXPECT_EQ(read(c.yaml), c.json) << c.yaml;
  }
  for (const char* valid :
       {"\"a\": b", "k: \"v\" # c", "- \"a\"\n- \"b\": c", "\"a\" : b", "[\"a\" , \"b\"]",
        "k: 'it''s' # c\nl: \"x\"\n", "[a] # c", "- [a, b]\n- c", "!!str a, b", "a: !!int 1",
        "a: !t x,y", "%YAML 1.2\n---\na: [x, y]", "!<tag:yaml.org,2002:str> a", "&a a\n  b, c",
        "a\n, b", "a\n---\nb, c", "a\n ---\n, b", "a: &x 1\nb: foo\n  , bar",
        "&a a\n---\nx\n, b"}) {
    EXPECT_TRUE(yamlDocumentsToJson(valid).ok()) << valid << ": " << read(valid);
  }
}

// The last finding before libyaml (config file target: a libFuzzer timeout inside yaml-cpp's
// YAML::LoadAll, allocating in YAML::detail::memory::create_node); also a corpus seed,
// tests/fuzz/corpus/config_file/yaml-cpp-loop-question-mark-key. It must come back at once. libyaml
// refuses its anchor name (`&>"`...: see above; YAML 1.2 would read one multi-line string).
TEST(YamlJson, QuestionMarkKeyFindingReturns) {
  const std::string finding = "&>\"`0v: PodMetri\"\\\\\\\\\\\\\n\n\n--configontai\n\n\n? n";
  ASSERT_EQ(finding.size(), 45u);
  auto r = yamlDocumentsToJson(finding);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 1, column 2"), std::string::npos) << r.error().message;
}

TEST(YamlJson, TaggedScalarsStayStrings) {
  // Only an untagged plain scalar resolves; `!` (the non-specific tag) and `!!str` keep the text.
  EXPECT_EQ(read("[!!str 1, ! 2, !!int 3, !!bool true, !t null, 4, '5', ~]"),
            R"([["1","2","3","true","null",4,"5",null]])");
}

TEST(YamlJson, AnchorsMayBeRedefined) {
  EXPECT_EQ(read("- &a x\n- *a\n- &a y\n- *a\n"), R"([["x","x","y","y"]])");
  EXPECT_NE(read("a: *nope\n").find("line 1, column 4: alias *nope names no anchor"),
            std::string::npos);
  // Anchors belong to their document.
  EXPECT_NE(read("a: &x 1\n---\nb: *x\n").find("line 3, column 4"), std::string::npos)
      << read("a: &x 1\n---\nb: *x\n");
}

TEST(YamlJson, NullKeysAreRefusedAndNullDocumentsSkipped) {
  for (const char* nullKey : {"~: 1", "null: 1", "? \n: x"}) {
    EXPECT_NE(read(nullKey).find("mapping keys must be scalars"), std::string::npos)
        << nullKey << ": " << read(nullKey);
  }
  EXPECT_EQ(read("[1, 2]: x"), "error: line 1, column 1: mapping keys must be scalars");
  EXPECT_EQ(read("\"null\": 1\n1: a"), R"([{"1":"a","null":1}])");
  EXPECT_EQ(read("--- ~\n--- null\n---\n--- ''\n--- !!null x\n"), R"(["","x"])");
}

TEST(YamlJson, DeepNestingIsRefusedWhileParsing) {
  // libyaml has no nesting bound of its own; composing stops at the conversion's.
  EXPECT_TRUE(yamlDocumentsToJson(std::string(1000, '[') + std::string(1000, ']')).ok());
  for (size_t depth : {1002, 60000}) {
    auto r = yamlDocumentsToJson(std::string(depth, '[') + std::string(depth, ']'));
    ASSERT_FALSE(r.ok()) << depth;
    EXPECT_NE(r.error().message.find("nested deeper than 1000 levels"), std::string::npos)
        << r.error().message;
  }
  std::string blocks;
  for (int i = 0; i < 1200; ++i) blocks += std::string(i, ' ') + "- \n";
  EXPECT_NE(read(blocks).find("nested deeper than 1000 levels"), std::string::npos);
}

TEST(YamlJson, ReaderErrorsNameTheLineAndNulBytesAreText) {
  EXPECT_EQ(read("a: 1\nb: \xff\n"), "error: line 2, column 4: invalid leading UTF-8 octet (0xff)");
  // The input's length counts, not a NUL terminator: a NUL byte is no YAML character.
  EXPECT_EQ(read(std::string("a: 1\0b: 2", 9)),
            "error: line 1, column 5: control characters are not allowed (0x00)");
  EXPECT_EQ(read(std::string("a: \"x\\0y\"")), R"([{"a":"x\u0000y"}])");
  EXPECT_EQ(read(""), "[]");
}

TEST(YamlJson, CommasThatYamlAllowsStillParse) {
  struct Case {
    const char* yaml;
    const char* json;
  };
  for (const auto& c :
       {Case{"[a\n, b]", R"([["a","b"]])"}, Case{"{a: 1\n, b: 2}", R"([{"a":1,"b":2}])"},
        Case{"a: \"x\n, y\"", R"([{"a":"x , y"}])"}, Case{"a: |\n  , b\n", R"([{"a":", b\n"}])"},
        Case{"a: x,y", R"([{"a":"x,y"}])"}, Case{"a: foo\n  , bar", R"([{"a":"foo , bar"}])"},
        Case{"- [don't, x]", R"([[["don't","x"]]])"}, Case{"a: &x 1\nb: *x", R"([{"a":1,"b":1}])"},
        Case{"a:\n- x, y", R"([{"a":["x, y"]}])"},
        Case{"a: ['#', \"[\"]\n# ,\nb: 1", R"([{"a":["#","["],"b":1}])"}}) {
    auto r = yamlDocumentsToJson(c.yaml);
    ASSERT_TRUE(r.ok()) << c.yaml << ": " << r.error().message;
    EXPECT_EQ(nlohmann::json(*r).dump(), c.json) << c.yaml;
  }
}

}  // namespace
}  // namespace hpa
