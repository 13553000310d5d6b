#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hpa::api {

// How a Quantity is printed back (resource.Format upstream).
enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

// A Kubernetes resource.Quantity: an exact decimal number with the suffix family it was written
// in. Parsing accepts every form the API server accepts; milliValue() rounds as upstream's
// MilliValue (any fraction below 1/1000 rounds up in magnitude).
class Quantity {
 public:
  Quantity() = default;  // zero, DecimalSI

  // Parses "[+-]digits[.digits][suffix]" with decimal SI (n u m k M G T P E), binary SI
  // (Ki Mi Gi Ti Pi Ei) or an exponent (e/E). Never throws.
  static Result<Quantity> parse(std::string_view text);
  // resource.NewMilliQuantity(milli, format).
  static Quantity fromMilli(std::int64_t milli, QuantityFormat format = QuantityFormat::DecimalSI);
  // resource.NewQuantity(value, format).
  static Quantity fromValue(std::int64_t value, QuantityFormat format = QuantityFormat::DecimalSI);

  // Value x 1000, fraction rounded up in magnitude; saturates at the int64 limits.
  std::int64_t milliValue() const;
  // Value rounded up in magnitude to an integer; saturates at the int64 limits.
  std::int64_t value() const;
  // Unscaled integer x 10^exponent in double precision (upstream AsApproximateFloat64).
  double asApproximateFloat() const;

  QuantityFormat format() const { return format_; }
  int sign() const { return mantissa_ < 0 ? -1 : (mantissa_ > 0 ? 1 : 0); }

  // Canonical text as upstream's Quantity.String() prints it, e.g. "250m", "1500m", "2k",
  // "587624Ki", "2e3".
  std::string toString() const;

  // Compares by value, regardless of format (semantic equality).
  std::strong_ordering operator<=>(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return (*this <=> other) == 0; }

 private:
  Quantity(__int128 mantissa, int exponent, QuantityFormat format)
      : mantissa_(mantissa), exponent_(exponent), format_(format) {}

  // value = mantissa_ x 10^exponent_, kept normalized (no trailing zeros in the mantissa unless
  // zero). Values beyond the int128 range saturate.
  __int128 mantissa_ = 0;
  int exponent_ = 0;
  QuantityFormat format_ = QuantityFormat::DecimalSI;
};

}  // namespace hpa::api
