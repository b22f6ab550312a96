//===- Csv.h - The CSV dialect of snapflow's result files --------*- C++
//-*-===//
//
// Fields are quoted only when they hold a comma, a quote or a newline
// (newlines become spaces); quotes inside quoted fields are doubled.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_CSV_H
#define SNAPFLOW_DRIVER_CSV_H

#include "snapflow/Support/Number.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace snapflow {
namespace driver {
namespace csv {

/// One field as written to a file.
inline std::string field(llvm::StringRef s) {
  if (s.find_first_of(",\"\n") == llvm::StringRef::npos)
    return s.str();
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

/// The columns every per-sample and per-request CSV ends its rows with,
/// naming what made it (a sweep's rows have their own: the grid's inputs
/// and report.*): the model, the chip, the KV policy as resolved and
/// snapflow's version.
constexpr const char *kProvenanceHeader = ",model,chip,kv,snapflow";
inline std::string provenanceCells(llvm::StringRef model, llvm::StringRef chip,
                                   llvm::StringRef kv,
                                   llvm::StringRef version) {
  return "," + field(model) + "," + field(chip) + "," + field(kv) + "," +
         field(version);
}

/// One line split into fields.
/// A number in the shortest text that reads back to the same double.
inline std::string number(double v) { return shortestText(v); }

inline std::vector<std::string> split(llvm::StringRef line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

} // namespace csv
} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_CSV_H
