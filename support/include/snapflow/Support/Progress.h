//===- Progress.h - A progress line for long runs ---------------*- C++ -*-===//
//
// A serving loop of millions of requests or a simulation of 100,000 steps
// without fast-forwarding runs for minutes; it ran silently (reliability
// defect R14). Progress prints, on standard error, how far a run is and
// about how long is left: on a terminal one line rewritten in place once a
// second after the first two seconds, cleared at the end; elsewhere (a
// Slurm log) nothing, unless SNAPFLOW_PROGRESS=SECONDS asks for a line at
// every tenth of the work, at most one per SECONDS (0: every tenth), which
// is also how the tests see it.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_PROGRESS_H
#define SNAPFLOW_SUPPORT_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace snapflow {

class Progress {
public:
  /// `what` names the work ("serving"), `unit` what is counted
  /// ("requests finished").
  Progress(llvm::StringRef what, llvm::StringRef unit, int64_t total)
      : what(what.str()), unit(unit.str()), total(total),
        start(std::chrono::steady_clock::now()) {
    if (const char *env = std::getenv("SNAPFLOW_PROGRESS")) {
      char *end = nullptr;
      double s = std::strtod(env, &end);
      if (end != env && s >= 0)
        interval = s, lines = true;
    } else if (llvm::sys::Process::StandardErrIsDisplayed()) {
      interval = 1.0, delay = 2.0;
    }
  }
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  ~Progress() {
    if (shown && !lines)
      llvm::errs() << "\r" << std::string(width, ' ') << "\r";
  }

  /// `done` of the total are done; cheap when nothing is printed.
  void update(int64_t done) {
    if (!interval || total <= 0)
      return;
    int64_t tenth = done * 10 / total;
    if (lines && tenth <= lastTenth)
      return;
    if (!lines && ++calls % 64 != 0 && done != total)
      return;
    double now =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (now < delay || (shown && now - lastS < *interval))
      return;
    lastS = now;
    lastTenth = tenth;
    shown = true;
    std::string text = llvm::formatv("{0}: {1} of {2} {3} ({4}%)", what, done,
                                     total, unit, done * 100 / total)
                           .str();
    if (!lines) {
      if (done > 0 && done < total)
        text += llvm::formatv(", about {0} s left",
                              static_cast<int64_t>(now / double(done) *
                                                   double(total - done)))
                    .str();
      width = std::max(width, text.size());
      llvm::errs() << "\r" << text << std::string(width - text.size(), ' ');
    } else {
      llvm::errs() << text << "\n";
    }
    llvm::errs().flush();
  }

private:
  std::string what, unit;
  int64_t total;
  std::chrono::steady_clock::time_point start;
  std::optional<double> interval; ///< none: print nothing
  double delay = 0;
  bool lines = false, shown = false;
  int64_t calls = 0, lastTenth = 0;
  double lastS = 0;
  size_t width = 0;
};

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_PROGRESS_H
