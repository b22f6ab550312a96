//===- CheckedInt.h - 64-bit counts that cannot wrap silently ---*- C++ -*-===//
//
// Every count and byte total snapflow computes (parameters, tensor bytes,
// FLOPs, tiles x tile bytes, totals over layers) is a product or sum of
// numbers a user chose: config fields, flags, chip values, df IR attributes.
// A wrapped int64_t turns a too-large input into a negative or small answer
// that looks plausible ("fits"). CheckedInt is the one mechanism against that:
// it behaves like an int64_t in + - * and remembers if any step overflowed,
// so an expression is written naturally and checked once, where its result is
// used, and the caller turns an overflow into a located error.
//
// Header-only and MLIR-free. The cost interface and the dialects' size
// helpers, the program statistics, the Loader and the driver's info and sweep
// use it. The config reader and the flag parser do not: they bound each
// value where it is read.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_CHECKEDINT_H
#define SNAPFLOW_SUPPORT_CHECKEDINT_H

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace snapflow {

/// A signed 64-bit integer that is either a value or "overflowed". Any
/// operation with an overflowed operand, or whose exact result does not fit,
/// yields "overflowed".
class CheckedInt {
public:
  constexpr CheckedInt() = default;
  constexpr CheckedInt(int64_t v) : v(v) {}

  /// The overflowed state.
  static constexpr CheckedInt overflow() {
    CheckedInt c;
    c.ok = false;
    return c;
  }
  /// A finite double rounded to the nearest integer, or overflowed when it is
  /// not finite or outside the int64_t range.
  static CheckedInt fromDouble(double d) {
    // 2^63 is exactly representable; anything at or beyond it does not fit.
    if (!std::isfinite(d) || d >= 9223372036854775808.0 ||
        d < -9223372036854775808.0)
      return overflow();
    return CheckedInt(static_cast<int64_t>(std::llround(d)));
  }

  bool overflowed() const { return !ok; }
  /// The value, or nothing when a step overflowed.
  std::optional<int64_t> get() const {
    return ok ? std::optional<int64_t>(v) : std::nullopt;
  }
  /// The value; only for results known not to overflow (checked upstream,
  /// e.g. by a verifier). Overflow here is a snapflow bug.
  int64_t value() const {
    assert(ok && "CheckedInt::value() of an overflowed count");
    return v;
  }

  friend CheckedInt operator+(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.ok || !b.ok || __builtin_add_overflow(a.v, b.v, &r))
      return overflow();
    return r;
  }
  friend CheckedInt operator-(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.ok || !b.ok || __builtin_sub_overflow(a.v, b.v, &r))
      return overflow();
    return r;
  }
  friend CheckedInt operator*(CheckedInt a, CheckedInt b) {
    int64_t r;
    if (!a.ok || !b.ok || __builtin_mul_overflow(a.v, b.v, &r))
      return overflow();
    return r;
  }
  /// Truncating division; division by zero (a caller's bug) and
  /// INT64_MIN / -1 give "overflowed".
  friend CheckedInt operator/(CheckedInt a, CheckedInt b) {
    if (!a.ok || !b.ok || b.v == 0 ||
        (a.v == std::numeric_limits<int64_t>::min() && b.v == -1))
      return overflow();
    return a.v / b.v;
  }
  CheckedInt &operator+=(CheckedInt o) { return *this = *this + o; }
  CheckedInt &operator-=(CheckedInt o) { return *this = *this - o; }
  CheckedInt &operator*=(CheckedInt o) { return *this = *this * o; }

  /// ceil(a / b) for a >= 0 and b > 0.
  friend CheckedInt ceilDiv(CheckedInt a, CheckedInt b) {
    if (!a.ok || !b.ok || b.v <= 0 || a.v < 0)
      return overflow();
    return a.v / b.v + (a.v % b.v != 0);
  }

private:
  int64_t v = 0;
  bool ok = true;
};

/// The product of `dims`, checked (e.g. the elements of a tensor shape).
template <typename Range> CheckedInt checkedProduct(const Range &dims) {
  CheckedInt p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_CHECKEDINT_H
