//===- Requests.cpp - Request traces, read and generated -----------------===//
//
// Request files in snapflow's CSV and the public trace formats (Azure LLM
// inference, BurstGPT), and the seeded generators: Poisson arrivals, and
// periodic multi-model load.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"
#include "snapflow/Support/Error.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Number.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;

namespace {

/// A trace format: its name and the header names of its three columns.
struct FormatSpec {
  TraceFormat format;
  const char *name, *title;
  const char *columns[3];  ///< arrival, prompt tokens, output tokens
  const char *modelColumn; ///< optional; null when the format has none
};
const FormatSpec kFormats[] = {
    {TraceFormat::Snapflow,
     "snapflow",
     "snapflow",
     {"arrival_s", "prompt_tokens", "output_tokens"},
     "model"},
    {TraceFormat::Azure,
     "azure",
     "Azure LLM inference",
     {"TIMESTAMP", "ContextTokens", "GeneratedTokens"},
     nullptr},
    {TraceFormat::BurstGPT,
     "burstgpt",
     "BurstGPT",
     {"Timestamp", "Request tokens", "Response tokens"},
     "Model"},
};

const FormatSpec &specOf(TraceFormat format) {
  for (const FormatSpec &f : kFormats)
    if (f.format == format)
      return f;
  return kFormats[0];
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The most seconds a public trace's time may give as a plain number:
/// 1e10, epoch seconds to the year 2286, where a double still resolves
/// 2 microseconds (at 1e15, three rows a millisecond apart arrived at
/// once, R22).
constexpr double kMaxTraceSeconds = 1e10;

/// How a public trace's row gives its time.
enum class TimeKind { Seconds, Date };

/// Whether `text` is one or more decimal digits, and its value.
bool digits(StringRef text, int64_t &value) {
  return !text.empty() && llvm::all_of(text, llvm::isDigit) &&
         !text.getAsInteger(10, value);
}

int64_t daysInMonth(int64_t y, int64_t m) {
  static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

/// Seconds since 1970 (UTC) of "YYYY-MM-DD HH:MM:SS[.fraction][zone]" ('T'
/// may separate date and time; the zone a 'Z' or an ISO 8601 offset,
/// +HH:MM, +HHMM or +HH, as the Azure 2024 traces write
/// 2024-05-10 00:00:00.009930+00:00), a real calendar date (not
/// 2023-02-31, which was read as 3 March, R22); or seconds as a plain
/// number in [0, kMaxTraceSeconds]. `kind` says which it was.
std::optional<double> parseTime(StringRef text, TimeKind &kind) {
  double seconds;
  if (!text.getAsDouble(seconds)) {
    kind = TimeKind::Seconds;
    return seconds >= 0 && seconds <= kMaxTraceSeconds
               ? std::optional<double>(seconds)
               : std::nullopt;
  }
  kind = TimeKind::Date;
  // The zone: 'Z', or an offset east (+) or west (-) of UTC after the
  // time (past "YYYY-MM-DD HH:MM:SS", so a date's '-' is not one).
  double offset = 0;
  if (!text.consume_back("Z") && text.size() > 19) {
    size_t at = text.find_last_of("+-");
    if (at != StringRef::npos && at >= 19) {
      StringRef zone = text.drop_front(at + 1);
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
  StringRef date = text.take_front(10), rest = text.drop_front(10);
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
  StringRef sec = rest.drop_front(6);
  auto [wholePart, fraction] = sec.split('.');
  if (!digits(wholePart, whole) || wholePart.size() != 2 || whole > 60 ||
      (sec.contains('.') &&
       (fraction.empty() || !llvm::all_of(fraction, llvm::isDigit))))
    return std::nullopt;
  double s;
  if (sec.getAsDouble(s))
    return std::nullopt;
  return double(daysFromCivil(y, mo, d)) * 86400.0 + double(h) * 3600.0 +
         double(mi) * 60.0 + s - offset;
}
} // namespace

StringRef snapflow::sim::serving::traceFormatName(TraceFormat format) {
  return format == TraceFormat::Auto ? "auto" : specOf(format).name;
}

std::optional<TraceFormat>
snapflow::sim::serving::parseTraceFormat(StringRef name) {
  if (name == "auto")
    return TraceFormat::Auto;
  for (const FormatSpec &f : kFormats)
    if (name == f.name)
      return f.format;
  return std::nullopt;
}

llvm::Expected<std::vector<Request>>
snapflow::sim::serving::readRequests(StringRef path, TraceFormat format,
                                     TraceInfo *info) {
  auto buffer = readInput(path, kDataFileLimit, "a request trace");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  return parseRequests((*buffer)->getBuffer(), path, format, info);
}

namespace {

/// Reads a request trace a line at a time: the header picks the format
/// (the one asked for, or the first whose columns it has) and the columns,
/// then each row is a request, every error located at its line and column.
class TraceParser {
public:
  TraceParser(StringRef path, TraceFormat format)
      : path(path), format(format) {}

  llvm::Expected<std::vector<Request>> parse(StringRef text, TraceInfo *info);

private:
  Error located(int64_t line, size_t col, const llvm::Twine &msg) const {
    return makeError(llvm::formatv("{0}:{1}:{2}: error: ", path, line, col) +
                     msg);
  }
  /// Column (1-based) where field k starts.
  static size_t colOf(StringRef line, llvm::ArrayRef<StringRef> fields,
                      size_t k) {
    return static_cast<size_t>(fields[k].data() - line.data()) + 1;
  }
  Error readHeader(int64_t lineNo, StringRef line,
                   llvm::ArrayRef<StringRef> fields);
  /// A row's request; none for a failed or empty one of a public trace.
  llvm::Expected<std::optional<Request>>
  readRow(int64_t lineNo, StringRef line, llvm::ArrayRef<StringRef> fields,
          int64_t id);
  /// A public trace's clock starts at its first request.
  Error shiftClock(std::vector<Request> &requests) const;

  StringRef path;
  TraceFormat format;
  const FormatSpec *spec = nullptr;
  int columnOf[3] = {-1, -1, -1};
  int modelColumn = -1;
  size_t width = 0;
  TimeKind timeKind = TimeKind::Seconds;
  int64_t timeKindLine = 0; // the first row with a time
};

Error TraceParser::readHeader(int64_t lineNo, StringRef line,
                              llvm::ArrayRef<StringRef> fields) {
  // The header: the format asked for, or the first whose columns it
  // has. When none has all, the one with the most names the missing
  // column.
  const FormatSpec *nearest = nullptr;
  int nearestFound = 0, nearestMissing = -1;
  for (const FormatSpec &f : kFormats) {
    if (format != TraceFormat::Auto && f.format != format)
      continue;
    int found[3] = {-1, -1, -1};
    for (size_t k = 0; k < fields.size(); ++k)
      for (int c = 0; c < 3; ++c)
        if (fields[k].trim() == f.columns[c])
          found[c] = static_cast<int>(k);
    int count = 0, missing = -1;
    for (int c = 0; c < 3; ++c)
      if (found[c] >= 0)
        ++count;
      else if (missing < 0)
        missing = c;
    if (count == 3) {
      spec = &f;
      std::copy(found, found + 3, columnOf);
      break;
    }
    if (count > nearestFound || (format != TraceFormat::Auto && !nearest)) {
      nearest = &f;
      nearestFound = count;
      nearestMissing = missing;
    }
  }
  if (!spec && nearest)
    return located(
        lineNo, 1,
        llvm::formatv(
            "the header needs the columns {0},{1},{2}{3}; "
            "'{4}' is missing",
            nearest->columns[0], nearest->columns[1], nearest->columns[2],
            nearest->format == TraceFormat::Snapflow
                ? ""
                : std::string(" of ") +
                      (nearest->format == TraceFormat::Azure ? "an " : "a ") +
                      nearest->title + " trace",
            nearest->columns[nearestMissing]));
  if (!spec)
    return located(lineNo, 1,
                   "the header is not one of a known request trace: "
                   "arrival_s,prompt_tokens,output_tokens (snapflow), "
                   "TIMESTAMP,ContextTokens,GeneratedTokens (Azure LLM "
                   "inference trace) or Timestamp,...,Request "
                   "tokens,Response tokens (BurstGPT)");
  width = fields.size();
  if (spec->modelColumn)
    for (size_t k = 0; k < fields.size(); ++k)
      if (fields[k].trim() == spec->modelColumn)
        modelColumn = static_cast<int>(k);
  // A column read twice would leave which one counts to chance (one
  // pass: comparing every pair took minutes at 50,000 columns, R13).
  llvm::StringMap<size_t> firstOf;
  for (size_t k = 0; k < fields.size(); ++k) {
    StringRef name = fields[k].trim();
    if (!llvm::is_contained(spec->columns, name) &&
        !(spec->modelColumn && name == spec->modelColumn))
      continue;
    auto [it, fresh] = firstOf.try_emplace(name, k);
    if (!fresh)
      return located(lineNo, colOf(line, fields, k),
                     llvm::formatv("column '{0}' appears twice (fields "
                                   "{1} and {2}); which one holds the "
                                   "requests' values?",
                                   name, it->second + 1, k + 1));
  }
  return Error::success();
}

llvm::Expected<std::optional<Request>>
TraceParser::readRow(int64_t lineNo, StringRef line,
                     llvm::ArrayRef<StringRef> fields, int64_t id) {
  if (fields.size() != width)
    return located(
        lineNo, 1,
        llvm::formatv("{0} fields, the header has {1}", fields.size(), width));
  bool own = spec->format == TraceFormat::Snapflow;
  Request r;
  r.id = id;
  r.line = lineNo;
  StringRef arrival = fields[columnOf[0]].trim();
  std::optional<double> when;
  double seconds;
  TimeKind kind = TimeKind::Seconds;
  if (!own)
    when = parseTime(arrival, kind);
  else if (!arrival.getAsDouble(seconds) && seconds >= 0 &&
           seconds <= limits::kMaxArrivalS)
    when = seconds;
  if (!when)
    return located(lineNo, colOf(line, fields, columnOf[0]),
                   llvm::Twine(spec->columns[0]) +
                       (own ? " must be seconds from 0 to " +
                                  shortestText(limits::kMaxArrivalS)
                            : " must be a date and time "
                              "(2023-11-16 18:15:46.68, with a zone such as "
                              "Z or +00:00 if any) or seconds from "
                              "0 to " +
                                  shortestText(kMaxTraceSeconds)) +
                       ", got '" + arrival + "'");
  // One column, one clock: epoch seconds among dates were silently
  // compared with them (R22).
  if (!own) {
    if (!timeKindLine)
      timeKind = kind, timeKindLine = lineNo;
    else if (kind != timeKind)
      return located(
          lineNo, colOf(line, fields, columnOf[0]),
          llvm::formatv(
              "{0} is {1} here but {2} at line {3}; give every "
              "row's time the same way",
              spec->columns[0], kind == TimeKind::Date ? "a date" : "seconds",
              timeKind == TimeKind::Date ? "a date" : "seconds", timeKindLine));
  }
  r.arrivalS = *when;
  if (modelColumn >= 0) {
    r.modelName = fields[modelColumn].trim().str();
    if (r.modelName.empty())
      return located(lineNo, colOf(line, fields, modelColumn),
                     llvm::Twine(spec->modelColumn) +
                         " must name a model, got an empty field");
  }
  bool empty = false;
  for (int c = 1; c < 3; ++c) {
    StringRef f = fields[columnOf[c]].trim();
    int64_t n;
    if (f.getAsInteger(10, n) || n < (own ? 1 : 0) || n > limits::kMaxTokens)
      return located(lineNo, colOf(line, fields, columnOf[c]),
                     llvm::formatv("{0} must be a whole number from {1} to "
                                   "{2}, got '{3}'",
                                   spec->columns[c], own ? 1 : 0,
                                   limits::kMaxTokens, f));
    (c == 1 ? r.promptTokens : r.outputTokens) = n;
    empty |= n == 0;
  }
  if (empty) // a failed or empty request of a public trace
    return std::optional<Request>();
  return std::optional<Request>(std::move(r));
}

Error TraceParser::shiftClock(std::vector<Request> &requests) const {
  if (spec->format == TraceFormat::Snapflow)
    return Error::success();
  double first = requests.front().arrivalS;
  for (const Request &r : requests)
    first = std::min(first, r.arrivalS);
  for (Request &r : requests) {
    r.arrivalS -= first;
    if (r.arrivalS > limits::kMaxArrivalS)
      return located(
          r.line, 1,
          llvm::formatv("{0} is {1} s after the first request; snapflow "
                        "serves arrivals up to {2} s",
                        spec->columns[0], shortestText(r.arrivalS),
                        shortestText(limits::kMaxArrivalS)));
  }
  return Error::success();
}

} // namespace

llvm::Expected<std::vector<Request>>
snapflow::sim::serving::parseRequests(StringRef text, StringRef path,
                                      TraceFormat format, TraceInfo *info) {
  return TraceParser(path, format).parse(text, info);
}

llvm::Expected<std::vector<Request>> TraceParser::parse(StringRef text,
                                                        TraceInfo *info) {
  std::vector<Request> requests;
  int64_t lineNo = 0, skipped = 0;
  // A UTF-8 byte order mark, as Excel writes a CSV, is not part of the
  // first column's name ("'arrival_s' is missing", R19).
  text.consume_front("\xEF\xBB\xBF");
  while (!text.empty()) {
    auto [raw, rest] = text.split('\n');
    text = rest;
    ++lineNo;
    StringRef line = raw.rtrim("\r");
    if (line.trim().empty() || line.trim().starts_with("#"))
      continue;
    llvm::SmallVector<StringRef> fields;
    line.split(fields, ',');
    if (!spec && fields.size() > static_cast<size_t>(limits::kMaxColumns))
      return located(lineNo, colOf(line, fields, limits::kMaxColumns),
                     llvm::formatv("the header has {0} columns; a request "
                                   "file has at most {1}",
                                   fields.size(), limits::kMaxColumns));
    if (!spec) {
      if (Error e = readHeader(lineNo, line, fields))
        return std::move(e);
      continue;
    }
    auto r =
        readRow(lineNo, line, fields, static_cast<int64_t>(requests.size()));
    if (!r)
      return r.takeError();
    if (!*r) {
      ++skipped;
      continue;
    }
    if (static_cast<int64_t>(requests.size()) == limits::kMaxRequests)
      return located(lineNo, 1,
                     llvm::formatv("more than {0} requests; snapflow serves "
                                   "at most that many in one run",
                                   limits::kMaxRequests));
    requests.push_back(std::move(**r));
  }
  if (!spec)
    return makeError(path + ": error: empty request file; expected a header "
                            "(arrival_s,prompt_tokens,output_tokens, or an "
                            "Azure or BurstGPT trace's) and rows");
  if (requests.empty())
    return makeError(
        path + ": error: no requests after the header" +
        (skipped ? llvm::formatv(" ({0} with 0 tokens skipped)", skipped).str()
                 : std::string()));
  if (Error e = shiftClock(requests))
    return std::move(e);
  if (info) {
    info->format = spec->format;
    info->skipped = skipped;
    info->hasModel = modelColumn >= 0;
  }
  return requests;
}

std::vector<Request>
snapflow::sim::serving::generateRequests(const GeneratorOptions &o) {
  std::mt19937_64 rng(o.seed);
  // 53 random bits -> [0, 1): the same sequence on every platform (the
  // standard distributions are not specified bit for bit).
  auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  auto length = [&](int64_t mean) {
    double lo = double(mean) * (1 - o.spread),
           hi = double(mean) * (1 + o.spread);
    return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform()));
  };
  std::vector<Request> out;
  double t = 0;
  for (int64_t i = 0; i < o.count; ++i) {
    t += -std::log1p(-uniform()) / o.rate;
    Request r;
    r.id = i;
    r.arrivalS = t;
    r.promptTokens = length(o.promptMean);
    r.outputTokens = length(o.outputMean);
    out.push_back(r);
  }
  return out;
}

std::vector<Request>
snapflow::sim::serving::generatePeriodic(llvm::ArrayRef<PeriodicLoad> loads,
                                         double durationS, uint64_t seed) {
  std::vector<Request> out;
  for (size_t m = 0; m < loads.size(); ++m) {
    const PeriodicLoad &l = loads[m];
    // Each model its own stream of the seed.
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ULL * (m + 1)));
    auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
    auto length = [&](int64_t mean) {
      double lo = double(mean) * (1 - l.spread),
             hi = double(mean) * (1 + l.spread);
      return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform()));
    };
    // Thinning: candidates at the peak rate, each kept with probability
    // rate(t) / peak.
    double peak = l.rate * (1 + l.amplitude);
    if (peak <= 0)
      continue;
    double t = 0;
    while (true) {
      t += -std::log1p(-uniform()) / peak;
      if (t >= durationS)
        break;
      double rate =
          l.rate *
          (1 + l.amplitude * std::sin(2 * M_PI * (t / l.periodS + l.phase)));
      double keep = uniform();
      if (keep * peak >= rate)
        continue;
      Request r;
      r.arrivalS = t;
      r.model = static_cast<int>(m);
      r.promptTokens = length(l.promptMean);
      r.outputTokens = length(l.outputMean);
      out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(), [](const Request &a, const Request &b) {
    return std::make_pair(a.arrivalS, a.model) <
           std::make_pair(b.arrivalS, b.model);
  });
  for (size_t i = 0; i < out.size(); ++i)
    out[i].id = static_cast<int64_t>(i);
  return out;
}
