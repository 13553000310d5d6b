#include "metricsclient/name_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace hpa::metricsclient {
namespace {

// A list of names, as an owner keeps them; the table reads them by position.
struct Names {
  std::vector<std::string> storage;
  std::vector<std::string_view> views;
  explicit Names(std::vector<std::string> names) : storage(std::move(names)) {
    for (const auto& n : storage) views.emplace_back(n);
  }
  auto at() const {
    return [this](std::size_t p) -> const std::string_view& { return views[p]; };
  }
  std::vector<std::size_t> allPositions() const {
    std::vector<std::size_t> out;
    for (std::size_t p = 0; p < views.size(); ++p) out.push_back(p);
    return out;
  }
};

std::vector<std::size_t> positionsOf(const NameTable& table, std::string_view name,
                                     const Names& names) {
  std::vector<std::size_t> out;
  for (auto p = table.first(name, names.at()); p != NameTable::kNone; p = table.next(p))
    out.push_back(p);
  return out;
}

TEST(NameTableTest, FindsEachNameAtItsPosition) {
  Names names({"web-0", "web-1", "api-0"});
  NameTable table(names.allPositions(), names.views.size(), names.at());
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(positionsOf(table, "web-0", names), std::vector<std::size_t>{0});
  EXPECT_EQ(positionsOf(table, "web-1", names), std::vector<std::size_t>{1});
  EXPECT_EQ(positionsOf(table, "api-0", names), std::vector<std::size_t>{2});
  EXPECT_EQ(table.first("web-2", names.at()), NameTable::kNone);
  EXPECT_EQ(table.first("", names.at()), NameTable::kNone);
}

TEST(NameTableTest, KeepsOnlyThePositionsGiven) {
  Names names({"a", "b", "c", "d"});
  NameTable table({1, 3}, names.views.size(), names.at());
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.first("a", names.at()), NameTable::kNone);
  EXPECT_EQ(positionsOf(table, "b", names), std::vector<std::size_t>{1});
  EXPECT_EQ(table.first("c", names.at()), NameTable::kNone);
  EXPECT_EQ(positionsOf(table, "d", names), std::vector<std::size_t>{3});
}

TEST(NameTableTest, ChainsARepeatedNameInTheOrderAdded) {
  Names names({"dup", "x", "dup", "y", "dup"});
  NameTable table(names.allPositions(), names.views.size(), names.at());
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(positionsOf(table, "dup", names), (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(positionsOf(table, "x", names), std::vector<std::size_t>{1});
}

TEST(NameTableTest, AnEmptyTableFindsNothing) {
  Names names({});
  NameTable table(names.allPositions(), 0, names.at());
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.first("anything", names.at()), NameTable::kNone);
  NameTable defaulted;
  EXPECT_TRUE(defaulted.empty());
  EXPECT_EQ(defaulted.first("anything", names.at()), NameTable::kNone);
}

// Names whose hashes collide on the home slot exercise the linear probe: with a table of 16
// slots, any two names whose hashes agree in the low four bits share a home slot.
TEST(NameTableTest, ProbesPastCollidingHomeSlots) {
  std::map<std::uint32_t, std::vector<std::string>> byHome;
  std::vector<std::string> colliding;
  for (int i = 0; colliding.empty(); ++i) {
    std::string name = "pod-" + std::to_string(i);
    auto& sameHome = byHome[NameTable::hashOf(name) & 15];
    sameHome.push_back(name);
    if (sameHome.size() == 5) colliding = sameHome;
  }
  Names names(colliding);
  NameTable table(names.allPositions(), names.views.size(), names.at());
  for (std::size_t p = 0; p < 5; ++p)
    EXPECT_EQ(positionsOf(table, names.views[p], names), std::vector<std::size_t>{p});
}

// The batched lookup answers what one lookup after another answers, across batch boundaries.
TEST(NameTableTest, BatchedLookupMatchesOneByOne) {
  std::mt19937 random(7);
  std::vector<std::string> list;
  for (int i = 0; i < 300; ++i)
    list.push_back("pod-" + std::to_string(random() % 200));  // some repeat
  Names names(list);
  NameTable table(names.allPositions(), names.views.size(), names.at());
  std::vector<std::string> keys;
  for (int i = 0; i < 97; ++i)
    keys.push_back("pod-" + std::to_string(random() % 260));  // some absent

  std::vector<std::size_t> batched;
  table.forEachMatch(
      keys.size(), [&](std::size_t k) -> std::string_view { return keys[k]; }, names.at(),
      [&](std::size_t p) { batched.push_back(p); });
  std::vector<std::size_t> oneByOne;
  for (const auto& k : keys) {
    for (auto p : positionsOf(table, k, names)) oneByOne.push_back(p);
  }
  EXPECT_EQ(batched, oneByOne);
  EXPECT_FALSE(batched.empty());
}

// At most half full: a table of n names has at least 2n slots, so a full scan of absent names
// always ends (an absent name's probe stops at an empty slot).
TEST(NameTableTest, AbsentNamesEndTheirProbeInAFullTable) {
  std::vector<std::string> list;
  for (int i = 0; i < 1024; ++i) list.push_back("n" + std::to_string(i));
  Names names(list);
  NameTable table(names.allPositions(), names.views.size(), names.at());
  EXPECT_EQ(table.size(), 1024u);
  for (int i = 1024; i < 2048; ++i)
    EXPECT_EQ(table.first("n" + std::to_string(i), names.at()), NameTable::kNone);
}

}  // namespace
}  // namespace hpa::metricsclient
