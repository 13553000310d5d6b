#include "api/quantity.h"

#include <cmath>
#include <limits>
#include <string>

namespace hpa::api {
namespace {

using int128 = __int128;

// Mantissas are kept below 10^36 so that scaling by 1000 and comparing never overflows int128.
constexpr int kMaxMantissaDigits = 36;
// Exponents beyond this are saturated: the value is far outside anything int64 can carry.
constexpr int kExponentLimit = 1000;

int128 pow10(int n) {
  int128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

int digitCount(int128 v) {
  if (v < 0) v = -v;
  int n = 0;
  while (v > 0) {
    v /= 10;
    ++n;
  }
  return n;
}

std::string int128ToString(int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string out;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    out.push_back(static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  }
  if (negative) out.push_back('-');
  return {out.rbegin(), out.rend()};
}

// Divides by 10^n rounding away from zero (inf.RoundUp).
int128 divideRoundingUp(int128 v, int n) {
  if (n > kMaxMantissaDigits + 2) return v == 0 ? 0 : (v > 0 ? 1 : -1);
  int128 d = pow10(n);
  int128 q = v / d;
  if (v % d != 0) q += v > 0 ? 1 : -1;
  return q;
}

// Strips trailing zeros into the exponent; caps precision at the nano unit as the API server does.
void normalize(int128& mantissa, int& exponent) {
  if (mantissa == 0) {
    exponent = 0;
    return;
  }
  if (exponent < -9) {
    mantissa = divideRoundingUp(mantissa, -9 - exponent);
    exponent = -9;
  }
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
}

std::int64_t saturate(int128 v) {
  if (v > std::numeric_limits<std::int64_t>::max()) return std::numeric_limits<std::int64_t>::max();
  if (v < std::numeric_limits<std::int64_t>::min()) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

// value x 10^shift as int64, rounding any fraction away from zero, saturating.
std::int64_t scaledToInt64(int128 mantissa, int exponent, int shift) {
  int e = exponent + shift;
  if (mantissa == 0) return 0;
  if (e >= 0) {
    if (e + digitCount(mantissa) > 20)
      return mantissa > 0 ? std::numeric_limits<std::int64_t>::max()
                          : std::numeric_limits<std::int64_t>::min();
    return saturate(mantissa * pow10(e));
  }
  return saturate(divideRoundingUp(mantissa, -e));
}

struct Suffix {
  int base = 10;  // 10 or 2
  int exponent = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
};

Result<Suffix> interpretSuffix(std::string_view s) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (auto [text, e] : kDecimal) {
    if (s == text) return Suffix{10, e, QuantityFormat::DecimalSI};
  }
  for (auto [text, e] : kBinary) {
    if (s == text) return Suffix{2, e, QuantityFormat::BinarySI};
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view digits = s.substr(1);
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty()) return Error::format("unable to parse quantity's suffix");
    long long e = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return Error::format("unable to parse quantity's suffix");
      e = e * 10 + (c - '0');
      if (e > std::numeric_limits<std::int32_t>::max())
        return Error::format("unable to parse quantity's suffix");
    }
    return Suffix{10, static_cast<int>(negative ? -e : e), QuantityFormat::DecimalExponent};
  }
  return Error::format("unable to parse quantity's suffix");
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSuffixChar(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// The parts of a quantity's text: sign, the digits either side of the point, the suffix.
struct LexedQuantity {
  bool negative = false;
  std::string_view integerDigits;
  std::string_view fractionDigits;
  std::string_view suffix;
};

Result<LexedQuantity> lexQuantity(std::string_view text) {
  // The grammar and its oddities follow resource.ParseQuantity: "[+-]digits[.digits]suffix",
  // where either digit run may be empty ("5.", ".5" and even "-" parse).
  if (text.empty())
    return Error::format(
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  LexedQuantity lexed;
  size_t pos = 0;
  if (text[pos] == '-' || text[pos] == '+') {
    lexed.negative = text[pos] == '-';
    ++pos;
  }
  size_t intStart = pos;
  while (pos < text.size() && isDigit(text[pos])) ++pos;
  lexed.integerDigits = text.substr(intStart, pos - intStart);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t fracStart = pos;
    while (pos < text.size() && isDigit(text[pos])) ++pos;
    lexed.fractionDigits = text.substr(fracStart, pos - fracStart);
  }
  size_t suffixStart = pos;
  while (pos < text.size() && isSuffixChar(text[pos])) ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < text.size() && isDigit(text[pos])) ++pos;
  if (pos != text.size()) {
    return Error::format(
        "quantity \"{}\": quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        text);
  }
  lexed.suffix = text.substr(suffixStart);
  return lexed;
}

// The digits as mantissa x 10^exponent. Digits beyond int128's comfortable range only move the
// exponent (rounding the dropped ones up in magnitude, as the API server rounds).
std::pair<int128, int> accumulateDigits(std::string_view integerDigits,
                                        std::string_view fractionDigits) {
  int128 mantissa = 0;
  int exponent = 0;
  int significant = 0;
  bool droppedNonZero = false;
  auto push = [&](char c, bool fractional) {
    int digit = c - '0';
    if (significant == 0 && digit == 0) {
      if (fractional) --exponent;
      return;
    }
    if (significant < kMaxMantissaDigits) {
      mantissa = mantissa * 10 + digit;
      ++significant;
      if (fractional) --exponent;
    } else {
      if (digit != 0) droppedNonZero = true;
      if (!fractional) ++exponent;
    }
  };
  for (char c : integerDigits) push(c, false);
  for (char c : fractionDigits) push(c, true);
  if (droppedNonZero) mantissa += 1;
  return {mantissa, exponent};
}

// Scales a non-zero mantissa x 10^exponent by the suffix.
void applySuffix(const Suffix& suffix, int128& mantissa, int& exponent) {
  if (suffix.base == 10) {
    long long e = static_cast<long long>(exponent) + suffix.exponent;
    if (e > kExponentLimit) e = kExponentLimit;
    if (e < -kExponentLimit) e = -kExponentLimit;
    exponent = static_cast<int>(e);
    return;
  }
  // Binary suffixes multiply exactly: shift in 2^10 steps, keeping the mantissa in range by
  // giving up fraction digits (rounded up) first.
  for (int i = 0; i < suffix.exponent / 10; ++i) {
    while (digitCount(mantissa) > kMaxMantissaDigits - 4) {
      mantissa = divideRoundingUp(mantissa, 1);
      ++exponent;
    }
    mantissa *= 1024;
  }
}

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  auto lexed = lexQuantity(text);
  if (!lexed.ok()) return lexed.error();
  auto suffix = interpretSuffix(lexed->suffix);
  if (!suffix.ok())
    return Error::format("quantity \"{}\": unable to parse quantity's suffix", text);
  auto [mantissa, exponent] = accumulateDigits(lexed->integerDigits, lexed->fractionDigits);
  if (mantissa == 0) return Quantity(0, 0, suffix->format);
  applySuffix(*suffix, mantissa, exponent);
  normalize(mantissa, exponent);
  if (exponent > kExponentLimit) {
    // Saturated: normalizing moved the exponent past the limit, and the digits of a value this
    // far beyond int64 mean nothing. One representation keeps parse(toString()) stable.
    mantissa = 1;
    exponent = kExponentLimit;
  }
  if (lexed->negative) mantissa = -mantissa;
  Quantity q(mantissa, exponent, suffix->format);
  if (suffix->format == QuantityFormat::BinarySI) {
    // The API server caps the magnitude of binary-SI amounts at 2^63-1 (negative ones too).
    const auto max = std::numeric_limits<std::int64_t>::max();
    const Quantity cap = Quantity::fromValue(max, QuantityFormat::BinarySI);
    const Quantity negativeCap = Quantity::fromValue(-max, QuantityFormat::BinarySI);
    if (q > cap) return cap;
    if (q < negativeCap) return negativeCap;
  }
  return q;
}

Quantity Quantity::fromMilli(std::int64_t milli, QuantityFormat format) {
  int128 m = milli;
  int e = -3;
  normalize(m, e);
  return Quantity(m, e, format);
}

Quantity Quantity::fromValue(std::int64_t value, QuantityFormat format) {
  int128 m = value;
  int e = 0;
  normalize(m, e);
  return Quantity(m, e, format);
}

std::int64_t Quantity::milliValue() const { return scaledToInt64(mantissa_, exponent_, 3); }

std::int64_t Quantity::value() const { return scaledToInt64(mantissa_, exponent_, 0); }

double Quantity::asApproximateFloat() const {
  return static_cast<double>(mantissa_) * std::pow(10.0, static_cast<double>(exponent_));
}

std::string Quantity::toString() const {
  if (mantissa_ == 0) return "0";
  QuantityFormat format = format_;
  if (format == QuantityFormat::BinarySI) {
    const bool small = *this > Quantity::fromValue(-1024) && *this < Quantity::fromValue(1024);
    if (small || exponent_ < 0 || exponent_ + digitCount(mantissa_) > 19)
      format = QuantityFormat::DecimalSI;
  }
  if (format == QuantityFormat::BinarySI) {
    auto n = static_cast<std::int64_t>(mantissa_ * pow10(exponent_));
    int k = 0;
    while ((n >= 1024 || n <= -1024) && n % 1024 == 0 && k < 6) {
      n /= 1024;
      ++k;
    }
    static constexpr const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    return std::to_string(n) + kBinary[k];
  }
  // Decimal forms: the exponent is brought down to a multiple of 3.
  int128 m = mantissa_;
  int e = exponent_;
  int remainder = ((e % 3) + 3) % 3;
  if (remainder != 0 && digitCount(m) + remainder <= kMaxMantissaDigits + 2) {
    m *= pow10(remainder);
    e -= remainder;
  }
  std::string number = int128ToString(m);
  if (format == QuantityFormat::DecimalExponent) {
    return e == 0 ? number : number + "e" + std::to_string(e);
  }
  switch (e) {
    case -9:
      return number + "n";
    case -6:
      return number + "u";
    case -3:
      return number + "m";
    case 0:
      return number;
    case 3:
      return number + "k";
    case 6:
      return number + "M";
    case 9:
      return number + "G";
    case 12:
      return number + "T";
    case 15:
      return number + "P";
    case 18:
      return number + "E";
    default:
      return number + "e" + std::to_string(e);
  }
}

std::strong_ordering Quantity::operator<=>(const Quantity& other) const {
  const int lhsSign = sign();
  const int rhsSign = other.sign();
  if (lhsSign != rhsSign) return lhsSign <=> rhsSign;
  if (lhsSign == 0) return std::strong_ordering::equal;
  // Same sign: compare magnitudes by order of magnitude, then digit by digit.
  auto magnitude = [](const Quantity& q) { return digitCount(q.mantissa_) + q.exponent_; };
  std::strong_ordering byMagnitude = std::strong_ordering::equal;
  if (magnitude(*this) != magnitude(other)) {
    byMagnitude = magnitude(*this) <=> magnitude(other);
  } else {
    std::string a = int128ToString(mantissa_ < 0 ? -mantissa_ : mantissa_);
    std::string b = int128ToString(other.mantissa_ < 0 ? -other.mantissa_ : other.mantissa_);
    a.resize(std::max(a.size(), b.size()), '0');
    b.resize(a.size(), '0');
    int c = a.compare(b);
    byMagnitude = c < 0 ? std::strong_ordering::less
                        : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
  }
  if (lhsSign > 0) return byMagnitude;
  return 0 <=> byMagnitude;
}

}  // namespace hpa::api
