#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace hpa::api {

// Text from a small fixed vocabulary, held in one byte instead of a 32-byte string: a pod's
// phase and its Ready condition's status, in a cache of a million pods. The first word is the
// default; text outside the vocabulary reads back as `Words[Other]`. That loses only the
// spelling of values the API does not define, which every rule treats as any other unknown
// value (upstream compares these fields with its constants only).
template <const auto& Words, std::size_t Other>
class Word {
 public:
  Word() = default;
  Word(std::string_view text) : index_(find(text)) {}
  Word(const char* text) : Word(std::string_view(text)) {}
  Word(const std::string& text) : Word(std::string_view(text)) {}

  std::string_view text() const { return Words[index_]; }
  bool empty() const { return text().empty(); }
  operator std::string() const { return std::string(text()); }

  bool operator==(const Word&) const = default;
  bool operator==(std::string_view other) const { return text() == other; }
  bool operator==(const char* other) const { return text() == other; }
  bool operator==(const std::string& other) const { return text() == other; }
  friend std::ostream& operator<<(std::ostream& out, const Word& w) { return out << w.text(); }

 private:
  static std::uint8_t find(std::string_view text) {
    for (std::size_t i = 0; i < Words.size(); ++i) {
      if (Words[i] == text) return static_cast<std::uint8_t>(i);
    }
    return static_cast<std::uint8_t>(Other);
  }
  static_assert(Words.size() <= 256 && Other < Words.size());

  std::uint8_t index_ = 0;
};

inline constexpr std::array<std::string_view, 6> kPodPhases{"",          "Pending", "Running",
                                                            "Succeeded", "Failed",  "Unknown"};
inline constexpr std::array<std::string_view, 3> kConditionStatuses{"Unknown", "True", "False"};

// status.phase; "" when absent; another text reads as "Unknown".
using PodPhase = Word<kPodPhases, 5>;
// A condition's status: "True", "False", anything else "Unknown".
using ConditionStatus = Word<kConditionStatuses, 0>;

}  // namespace hpa::api
