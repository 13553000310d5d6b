#pragma once

namespace hpa {

// A visitor made of lambdas, one per alternative: std::visit(Overloaded{[](const A&) {...},
// [](const B&) {...}}, v). A variant alternative no lambda takes is a compile error, which is the
// point: every closed set the code visits this way (without a lambda taking `auto`) names each of
// its cases.
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};
template <typename... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

}  // namespace hpa
