//===- Nearest.h - The name a misspelling most likely meant -----*- C++ -*-===//
//
// "did you mean": the candidate nearest a misspelled word by edit distance,
// for unknown commands and flags, chip keys and --set keys. Each caller
// says how far a guess may be.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_NEAREST_H
#define SNAPFLOW_SUPPORT_NEAREST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace snapflow {

/// The candidate nearest `word` (the first of equals), or "" when none is
/// within `maxDistance` edits.
inline llvm::StringRef nearestName(llvm::StringRef word,
                                   llvm::ArrayRef<llvm::StringRef> candidates,
                                   unsigned maxDistance) {
  llvm::StringRef best;
  unsigned bestDistance = maxDistance + 1;
  for (llvm::StringRef c : candidates) {
    unsigned d = word.edit_distance(c, /*AllowReplacements=*/true,
                                    /*MaxEditDistance=*/bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_NEAREST_H
