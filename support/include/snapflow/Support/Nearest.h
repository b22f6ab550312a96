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

#include <algorithm>
#include <string>
#include <vector>

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

/// "; did you mean 'X'?" for the name of `candidates` nearest `word` (by
/// edit distance over the whole name, case ignored: 'llama-3.1-8B' is one
/// edit from 'llama-3.1-8b'), when it is within a third of the word's
/// length (at least 2 edits); "" otherwise. For messages naming what a
/// user misspelt: models, chips, KV policies and formats.
inline std::string didYouMean(llvm::StringRef word,
                              llvm::ArrayRef<std::string> candidates) {
  std::string lower = word.lower();
  std::vector<std::string> lowered;
  for (const std::string &c : candidates)
    lowered.push_back(llvm::StringRef(c).lower());
  std::vector<llvm::StringRef> refs(lowered.begin(), lowered.end());
  unsigned bound = std::max<unsigned>(2, word.size() / 3);
  llvm::StringRef best = nearestName(lower, refs, bound);
  for (size_t i = 0; i < refs.size(); ++i)
    if (!best.empty() && refs[i].data() == best.data())
      return "; did you mean '" + candidates[i] + "'?";
  return "";
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_NEAREST_H
