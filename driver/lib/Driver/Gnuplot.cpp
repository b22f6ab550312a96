//===- Gnuplot.cpp - Drawing SVGs with gnuplot ----------------------------===//

#include "snapflow/Driver/Gnuplot.h"

#include "snapflow/Driver/Errors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::StringRef;

std::string snapflow::driver::gnuplotQuote(StringRef s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += '\'';
    out += c;
  }
  return out + "'";
}

std::string snapflow::driver::gnuplotOutput(StringRef svg) {
  return "if (!exists('out')) out = " + gnuplotQuote(svg) +
         "\nset output out\n";
}

bool snapflow::driver::haveGnuplot() {
  return static_cast<bool>(llvm::sys::findProgramByName("gnuplot"));
}

Error snapflow::driver::runGnuplot(llvm::ArrayRef<GnuplotScript> scripts) {
  if (scripts.empty())
    return Error::success();
  auto gnuplot = llvm::sys::findProgramByName("gnuplot");
  if (!gnuplot)
    return makeError("gnuplot is not installed (`make install` brings it); "
                     "draw " +
                     scripts.front().svg + " later with `gnuplot " +
                     scripts.front().script + "`");
  // out='a.svg.tmp'; load 'a.gp'; reset; out='b.svg.tmp'; load 'b.gp'; ...
  // Each script sets its terminal and output; `reset` keeps one script's
  // settings from leaking into the next, and the temporary files are
  // renamed only when gnuplot succeeded.
  std::string commands;
  for (const GnuplotScript &s : scripts)
    commands += "out=" + gnuplotQuote(s.svg + ".tmp") + "; load " +
                gnuplotQuote(s.script) + "; reset; ";
  commands += "unset output";
  std::string message;
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""),
                                          StringRef("")};
  int rc = llvm::sys::ExecuteAndWait(*gnuplot, {*gnuplot, "-e", commands},
                                     std::nullopt, redirects, 60, 0, &message);
  auto removeAll = [&] {
    for (const GnuplotScript &s : scripts)
      llvm::sys::fs::remove(s.svg + ".tmp");
  };
  if (rc != 0) {
    removeAll();
    return makeError("gnuplot failed drawing " + scripts.front().svg +
                     (scripts.size() > 1
                          ? " and " + std::to_string(scripts.size() - 1) +
                                " other plot(s)"
                          : std::string()) +
                     (message.empty() ? "" : ": " + message));
  }
  for (const GnuplotScript &s : scripts)
    if (std::error_code ec = llvm::sys::fs::rename(s.svg + ".tmp", s.svg)) {
      removeAll();
      return makeError("cannot write " + s.svg + ": " + ec.message());
    }
  return Error::success();
}
