//===- Gnuplot.cpp - Drawing SVGs with gnuplot ----------------------------===//

#include "Gnuplot.h"

#include "Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace snapflow;
using namespace snapflow::tools;
using llvm::Error;
using llvm::StringRef;

std::string snapflow::tools::gnuplotQuote(StringRef s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += '\'';
    out += c;
  }
  return out + "'";
}

std::string snapflow::tools::gnuplotOutput(StringRef svg) {
  return "if (!exists('out')) out = " + gnuplotQuote(svg) +
         "\nset output out\n";
}

bool snapflow::tools::haveGnuplot() {
  return static_cast<bool>(llvm::sys::findProgramByName("gnuplot"));
}

Error snapflow::tools::runGnuplot(StringRef script, StringRef svg) {
  auto gnuplot = llvm::sys::findProgramByName("gnuplot");
  if (!gnuplot)
    return makeError("gnuplot is not installed (`make install` brings it); "
                     "draw " +
                     svg + " later with `gnuplot " + script + "`");
  std::string tmp = (svg + ".tmp").str();
  std::string out = "out=" + gnuplotQuote(tmp);
  std::string message;
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""),
                                          StringRef("")};
  int rc = llvm::sys::ExecuteAndWait(*gnuplot, {*gnuplot, "-e", out, script},
                                     std::nullopt, redirects, 60, 0, &message);
  if (rc != 0) {
    llvm::sys::fs::remove(tmp);
    return makeError("gnuplot failed drawing " + svg +
                     (message.empty() ? "" : ": " + message));
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, svg))
    return makeError("cannot write " + svg + ": " + ec.message());
  return Error::success();
}
