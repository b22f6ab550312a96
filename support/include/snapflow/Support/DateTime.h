//===- DateTime.h - ISO 8601 dates and times, in UTC seconds ----*- C++ -*-===//
//
// The date-times request traces write (Azure 2023's naive
// "2023-11-16 18:15:46.6805900", Azure 2024's "+00:00" offsets, the LMM
// trace's "T...Z"), as seconds since 1970 in UTC.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_DATETIME_H
#define SNAPFLOW_SUPPORT_DATETIME_H

#include "snapflow/Support/Number.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace snapflow {
namespace datetime {

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
inline int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// Whether `text` is one or more decimal digits, and its value.
inline bool digits(llvm::StringRef text, int64_t &value) {
  return !text.empty() && llvm::all_of(text, llvm::isDigit) &&
         !text.getAsInteger(10, value);
}

inline int64_t daysInMonth(int64_t y, int64_t m) {
  static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

/// Seconds since 1970 (UTC) of "YYYY-MM-DD HH:MM:SS[.fraction][zone]" ('T'
/// may separate date and time; the zone a 'Z' or an ISO 8601 offset,
/// +HH:MM, +HHMM or +HH, as the Azure 2024 traces write
/// 2024-05-10 00:00:00.009930+00:00), a real calendar date (not
/// 2023-02-31, which was read as 3 March, R22); nullopt for anything else.
inline std::optional<double> parseDateTime(llvm::StringRef text) {
  // The zone: 'Z', or an offset east (+) or west (-) of UTC after the
  // time (past "YYYY-MM-DD HH:MM:SS", so a date's '-' is not one).
  double offset = 0;
  if (!text.consume_back("Z") && text.size() > 19) {
    size_t at = text.find_last_of("+-");
    if (at != llvm::StringRef::npos && at >= 19) {
      llvm::StringRef zone = text.drop_front(at + 1);
      int64_t oh = 0, om = 0;
      bool ok = zone.size() == 2   ? digits(zone, oh)
                : zone.size() == 4 ? digits(zone.take_front(2), oh) &&
                                         digits(zone.drop_front(2), om)
                : zone.size() == 5
                    ? zone[2] == ':' && digits(zone.take_front(2), oh) &&
                          digits(zone.drop_front(3), om)
                    : false;
      if (!ok || oh > 23 || om > 59)
        return std::nullopt;
      offset = (text[at] == '+' ? 1.0 : -1.0) * double(oh * 3600 + om * 60);
      text = text.take_front(at);
    }
  }
  int64_t y, mo, d, h, mi, whole;
  llvm::StringRef date = text.take_front(10), rest = text.drop_front(10);
  if (date.size() != 10 || date[4] != '-' || date[7] != '-' ||
      !digits(date.substr(0, 4), y) || !digits(date.substr(5, 2), mo) ||
      !digits(date.substr(8, 2), d) || mo < 1 || mo > 12 || d < 1 ||
      d > daysInMonth(y, mo))
    return std::nullopt;
  if (rest.empty() || (rest[0] != ' ' && rest[0] != 'T'))
    return std::nullopt;
  rest = rest.drop_front();
  if (rest.size() < 8 || rest[2] != ':' || rest[5] != ':' ||
      !digits(rest.substr(0, 2), h) || !digits(rest.substr(3, 2), mi) ||
      h > 23 || mi > 59)
    return std::nullopt;
  // SS, then an optional fraction: digits only (no sign, no exponent).
  llvm::StringRef sec = rest.drop_front(6);
  auto [wholePart, fraction] = sec.split('.');
  if (!digits(wholePart, whole) || wholePart.size() != 2 || whole > 60 ||
      (sec.contains('.') &&
       (fraction.empty() || !llvm::all_of(fraction, llvm::isDigit))))
    return std::nullopt;
  std::optional<double> s = readDouble(sec);
  if (!s)
    return std::nullopt;
  return double(daysFromCivil(y, mo, d)) * 86400.0 + double(h) * 3600.0 +
         double(mi) * 60.0 + *s - offset;
}

} // namespace datetime
} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_DATETIME_H
