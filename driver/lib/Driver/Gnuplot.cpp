//===- Gnuplot.cpp - Drawing SVGs with gnuplot ----------------------------===//

#include "snapflow/Driver/Gnuplot.h"

#include "snapflow/Driver/Errors.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
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

std::string snapflow::driver::gnuplotText(StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string snapflow::driver::wrapText(StringRef s, size_t width) {
  std::string out, line;
  auto flush = [&] {
    out += (out.empty() ? "" : "\n") + line;
    line.clear();
  };
  llvm::SmallVector<StringRef> paragraphs;
  s.split(paragraphs, '\n');
  for (StringRef paragraph : paragraphs) {
    llvm::SmallVector<StringRef> words;
    paragraph.split(words, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef w : words) {
      if (!line.empty() && line.size() + 1 + w.size() > width)
        flush();
      line += (line.empty() ? "" : " ") + w.str();
    }
    flush();
  }
  return out;
}

LineStyle snapflow::driver::lineStyle(int i) {
  // Okabe and Ito's colour-blind-safe palette, with Tol's wine in place of
  // its yellow (too light on white); a dash pattern and a point shape each
  // (filled, then open), so that lines differ also in grey.
  static const LineStyle styles[kLinesPerChart] = {
      {"#0072B2", "1", 7, 3.0},
      {"#D55E00", "(10,5)", 5, 2.7},
      {"#009E73", "(3,4)", 9, 2.5},
      {"#CC79A7", "(12,4,3,4)", 13, 2.3},
      {"#E69F00", "(18,6)", 11, 2.1},
      {"#56B4E9", "(6,3)", 6, 1.9},
      {"#000000", "(12,3,3,3,3,3)", 4, 1.7},
      {"#882255", "(2,3)", 8, 1.5}};
  return styles[((i % kLinesPerChart) + kLinesPerChart) % kLinesPerChart];
}

std::string snapflow::driver::gnuplotLineStyle(int i, StringRef dash) {
  LineStyle s = lineStyle(i);
  return llvm::formatv("lc rgb '{0}' pt {1} lw {2:f1} dt {3}", s.colour,
                       s.pointType, s.width,
                       dash.empty() ? StringRef(s.dash) : dash)
      .str();
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
  // A plot whose folder is missing is named with the reason, before
  // gnuplot runs (its own message was lost: "gnuplot failed drawing
  // nodir/x.svg", R19).
  for (const GnuplotScript &s : scripts) {
    StringRef dir = llvm::sys::path::parent_path(s.svg);
    if (dir.empty())
      dir = ".";
    if (!llvm::sys::fs::is_directory(dir))
      return makeError("cannot write " + s.svg + ": " +
                       (llvm::sys::fs::exists(dir)
                            ? "'" + dir.str() + "' is not a folder"
                            : "no folder '" + dir.str() + "'"));
    if (llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write))
      return makeError("cannot write " + s.svg + ": the folder '" + dir.str() +
                       "' is not writable");
  }
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
  // gnuplot's own words go to a temporary file, for the error.
  llvm::SmallString<128> errPath;
  int errFd = -1;
  if (llvm::sys::fs::createTemporaryFile("snapflow-gnuplot", "txt", errFd,
                                         errPath))
    errPath.clear();
  else
    (void)llvm::sys::Process::SafelyCloseFileDescriptor(errFd);
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""),
                                          StringRef(errPath)};
  int rc = llvm::sys::ExecuteAndWait(*gnuplot, {*gnuplot, "-e", commands},
                                     std::nullopt, redirects, 60, 0, &message);
  if (!errPath.empty()) {
    // On failure, its last line says what went wrong.
    if (rc != 0 && message.empty())
      if (auto text = llvm::MemoryBuffer::getFile(errPath)) {
        StringRef said = (*text)->getBuffer().rtrim();
        message = said.substr(said.rfind('\n') + 1).trim().str();
      }
    (void)llvm::sys::fs::remove(errPath);
  }
  auto removeAll = [&] {
    for (const GnuplotScript &s : scripts)
      (void)llvm::sys::fs::remove(s.svg + ".tmp");
  };
  if (rc != 0) {
    removeAll();
    return makeError(
        "gnuplot failed drawing " + scripts.front().svg +
        (scripts.size() > 1
             ? " and " + std::to_string(scripts.size() - 1) + " other plot(s)"
             : std::string()) +
        (message.empty() ? "" : ": " + message));
  }
  // gnuplot exits 0 when its output fails (a full disk), leaving a
  // truncated SVG: one that does not end its document is not renamed over
  // the old plot.
  for (const GnuplotScript &s : scripts) {
    auto drawn = llvm::MemoryBuffer::getFile(s.svg + ".tmp");
    if (!drawn || !(*drawn)->getBuffer().rtrim().ends_with("</svg>")) {
      removeAll();
      return makeError("cannot write " + s.svg +
                       ": gnuplot left it incomplete (is the disk full?)");
    }
  }
  for (const GnuplotScript &s : scripts)
    if (std::error_code ec = llvm::sys::fs::rename(s.svg + ".tmp", s.svg)) {
      removeAll();
      return makeError("cannot write " + s.svg + ": " + ec.message());
    }
  return Error::success();
}
