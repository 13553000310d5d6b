#include "api/label_selector.h"

#include <gtest/gtest.h>

namespace hpa::api {
namespace {

Labels web{{"app", "web"}, {"tier", "frontend"}, {"version", "3"}};

TEST(Selector, ParsesEveryOperatorAndMatches) {
  struct Case {
    const char* text;
    bool matches;
  };
  for (auto [text, expected] : {Case{"app=web", true}, Case{"app==web", true}, Case{"app!=web", false},
                                Case{"app in (web,api)", true}, Case{"app notin (web)", false},
                                Case{"app", true}, Case{"!app", false}, Case{"!canary", true},
                                Case{"app=web,tier=backend", false}, Case{"missing!=x", true},
                                Case{"missing notin (a)", true}, Case{"version>2", true}, Case{"version<3", false},
                                Case{"  app = web ,  tier in ( frontend )", true}, Case{"", true}}) {
    auto s = Selector::parse(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.error().message;
    EXPECT_EQ(s->matches(web), expected) << text;
  }
}

TEST(Selector, PrintsCanonicallySortedByKey) {
  auto s = Selector::parse("tier in (b,a,a),app=web,!canary,zone");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->toString(), "app=web,!canary,tier in (a,b),zone");
  auto again = Selector::parse(s->toString());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *s);
}

TEST(Selector, ErrorsNameThePosition) {
  for (const char* bad : {"app=", "app in web", "app in ()", "app=web,", "=web", "app=(x", "!", "app notin (a",
                          "app=a b", "-bad=x", "app=" "a_very_long_value_that_goes_beyond_sixty_three_characters_xxxxxxx"}) {
    auto s = Selector::parse(bad);
    if (std::string_view(bad) == "app=") {
      // An empty value is a valid label value.
      EXPECT_TRUE(s.ok());
      continue;
    }
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.error().message.find("position"), std::string::npos) << s.error().message;
  }
}

TEST(Selector, FromLabelSelector) {
  LabelSelector ls;
  ls.matchLabels = {{"app", "web"}};
  ls.matchExpressions = {{"tier", "In", {"frontend", "edge"}}, {"canary", "DoesNotExist", {}}};
  auto s = Selector::fromLabelSelector(&ls);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->matches(web));
  EXPECT_EQ(s->toString(), "app=web,!canary,tier in (edge,frontend)");

  EXPECT_TRUE(Selector::fromLabelSelector(nullptr)->isNothing());
  EXPECT_FALSE(Selector::fromLabelSelector(nullptr)->matches(web));
  LabelSelector empty;
  EXPECT_TRUE(Selector::fromLabelSelector(&empty)->isEverything());

  LabelSelector bad;
  bad.matchExpressions = {{"tier", "Sometimes", {}}};
  auto r = Selector::fromLabelSelector(&bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "\"Sometimes\" is not a valid label selector operator");
}

TEST(Selector, GoDebugStringMatchesUpstream) {
  LabelSelector ls;
  ls.matchLabels = {{"queue", "work"}};
  EXPECT_EQ(goDebugString(&ls),
            "&LabelSelector{MatchLabels:map[string]string{queue: work,},MatchExpressions:[]LabelSelectorRequirement{},}");
  EXPECT_EQ(goDebugString(nullptr), "nil");
  ls.matchExpressions = {{"a", "In", {"x", "y"}}};
  EXPECT_EQ(goDebugString(&ls),
            "&LabelSelector{MatchLabels:map[string]string{queue: work,},MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:a,Operator:In,Values:[x y],},},}");
}

}  // namespace
}  // namespace hpa::api
