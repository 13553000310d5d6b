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
  for (auto [text, expected] :
       {Case{"app=web", true}, Case{"app==web", true}, Case{"app!=web", false},
        Case{"app in (web,api)", true}, Case{"app notin (web)", false}, Case{"app", true},
        Case{"!app", false}, Case{"!canary", true}, Case{"app=web,tier=backend", false},
        Case{"missing!=x", true}, Case{"missing notin (a)", true}, Case{"version>2", true},
        Case{"version<3", false}, Case{"  app = web ,  tier in ( frontend )", true},
        Case{"", true}}) {
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
  for (const char* bad : {"app=", "app in web", "app in (", "app=web,", "=web", "app=(x", "!",
                          "app notin (a", "app=a b", "-bad=x",
                          "app="
                          "a_very_long_value_that_goes_beyond_sixty_three_characters_xxxxxxx"}) {
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

// Fuzz finding (label_selector_fuzz): "i in (,)" holds the empty value and printed as "i in ()",
// which did not parse back. As in labels.Parse, "()" is the set holding the empty value.
TEST(Selector, EmptyParenthesesHoldTheEmptyValue) {
  auto s = Selector::parse("i in (,)");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->toString(), "i in ()");
  auto again = Selector::parse(s->toString());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *s);
  ASSERT_EQ(again->requirements().size(), 1u);
  EXPECT_EQ(again->requirements()[0].values, std::vector<std::string>{""});
  EXPECT_TRUE(again->matches(Labels{{"i", ""}}));
  EXPECT_FALSE(again->matches(Labels{{"i", "x"}}));
  EXPECT_TRUE(Selector::parse("i notin ()")->matches(Labels{{"i", "x"}}));
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

TEST(Selector, ToLabelSelectorRoundTripsTheSpecForms) {
  for (const char* text : {"app=web,!canary,tier in (edge,frontend)",
                           "env notin (ci,dev),queue=work", "release", ""}) {
    auto parsed = Selector::parse(text);
    ASSERT_TRUE(parsed.ok()) << text;
    auto spec = parsed->toLabelSelector();
    ASSERT_TRUE(spec.has_value()) << text;
    auto back = Selector::fromLabelSelector(&*spec);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(back->toString(), text);
  }
  auto equals = Selector::parse("app=web")->toLabelSelector();
  ASSERT_TRUE(equals.has_value());
  EXPECT_EQ(equals->matchLabels, (std::map<std::string, std::string>{{"app", "web"}}));
  EXPECT_TRUE(equals->matchExpressions.empty());
  EXPECT_FALSE(Selector::parse("app!=web")->toLabelSelector().has_value());
  EXPECT_FALSE(Selector::parse("size>3")->toLabelSelector().has_value());
  EXPECT_FALSE(Selector::nothing().toLabelSelector().has_value());
}

TEST(Selector, GoDebugStringMatchesUpstream) {
  LabelSelector ls;
  ls.matchLabels = {{"queue", "work"}};
  EXPECT_EQ(goDebugString(&ls),
            "&LabelSelector{MatchLabels:map[string]string{queue: "
            "work,},MatchExpressions:[]LabelSelectorRequirement{},}");
  EXPECT_EQ(goDebugString(nullptr), "nil");
  ls.matchExpressions = {{"a", "In", {"x", "y"}}};
  EXPECT_EQ(goDebugString(&ls),
            "&LabelSelector{MatchLabels:map[string]string{queue: "
            "work,},MatchExpressions:[]LabelSelectorRequirement{"
            "LabelSelectorRequirement{Key:a,Operator:In,Values:[x y],},},}");
}

}  // namespace
}  // namespace hpa::api
