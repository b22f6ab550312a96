//===- Output.h - A file written whole or not at all ------------*- C++ -*-===//
//
// writeOutput is how snapflow writes every file a user names (reports,
// programs, traces, CSVs, plots' data, sweep files): to a temporary file
// beside it, every write and the close checked, renamed over the old file
// only when all of it is on disk; on failure the old file is untouched and
// the error names the path and the system's reason ("No space left on
// device"). llvm::writeToOutput renames whatever it has, so a full disk
// replaced a report by a truncated one, then aborted with "LLVM ERROR: IO
// failure on output stream" (reliability defect R06).
//
// A path under /dev or /proc, or one that exists and is not a regular file
// (a pipe), is written in place: renaming a file over a device would replace
// the device (R07), and /dev/stdout must reach the shell's redirection. A
// symbolic link is followed, and the file it names replaced. "-" is
// standard output.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_OUTPUT_H
#define SNAPFLOW_SUPPORT_OUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace snapflow {

namespace detail {
inline llvm::Error outputError(llvm::StringRef path, std::error_code ec) {
  return llvm::createStringError(ec, "cannot write " + path.str() + ": " +
                                         ec.message());
}

/// Writes with `write` to `os`, flushed; the first error of the stream
/// (cleared, so its destructor does not abort) or of `write`.
inline llvm::Error
writeChecked(llvm::raw_fd_ostream &os, llvm::StringRef path,
             llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  llvm::Error e = write(os);
  os.flush();
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    llvm::consumeError(std::move(e));
    return outputError(path, ec);
  }
  return e;
}
} // namespace detail

/// Writes `path` with `write`, whole or not at all (see the file comment).
inline llvm::Error
writeOutput(llvm::StringRef path,
            llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (path == "-") {
    llvm::Error e = write(llvm::outs());
    llvm::outs().flush();
    if (llvm::outs().has_error()) {
      std::error_code ec = llvm::outs().error();
      llvm::outs().clear_error();
      llvm::consumeError(std::move(e));
      return detail::outputError("standard output", ec);
    }
    return e;
  }
  // A symbolic link is followed: the file it names is replaced, the link
  // stays.
  llvm::SmallString<256> target(path);
  if (llvm::sys::fs::is_symlink_file(path)) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(path, real))
      target = real;
  }
  llvm::sys::fs::file_status status;
  bool special = llvm::StringRef(target).starts_with("/dev/") ||
                 llvm::StringRef(target).starts_with("/proc/");
  if (special || (!llvm::sys::fs::status(target, status) &&
                  llvm::sys::fs::exists(status) &&
                  status.type() != llvm::sys::fs::file_type::regular_file &&
                  status.type() != llvm::sys::fs::file_type::directory_file)) {
    // A device or a pipe: written in place, never replaced.
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return detail::outputError(path, ec);
    return detail::writeChecked(os, path, write);
  }
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          target + ".tmp-%%%%%%", fd, temp, llvm::sys::fs::OF_None,
          llvm::sys::fs::all_read | llvm::sys::fs::all_write))
    return detail::outputError(path, ec);
  llvm::Error e = llvm::Error::success();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    e = detail::writeChecked(os, path, write);
    if (!e) {
      os.close();
      if (os.has_error()) {
        std::error_code ec = os.error();
        os.clear_error();
        e = detail::outputError(path, ec);
      }
    }
  }
  if (e) {
    (void)llvm::sys::fs::remove(temp);
    return e;
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, target)) {
    (void)llvm::sys::fs::remove(temp);
    return detail::outputError(path, ec);
  }
  return llvm::Error::success();
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_OUTPUT_H
