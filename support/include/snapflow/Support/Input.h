//===- Input.h - A file read whole, up to a size ----------------*- C++ -*-===//
//
// readInput is how snapflow reads every file a user names (model configs,
// chip files, deployments, sweep manifests and rows, programs, request and
// memory traces): whole, but never more than a size that input could have.
// MemoryBuffer::getFile read `--model /dev/zero` until the process ran out
// of memory and aborted with "LLVM ERROR: out of memory" (reliability defect
// R04). A regular file is refused from its size before a byte is read; a
// device, a pipe or standard input is read in chunks and refused one byte
// past the limit.
//
// Two limits: a configuration (a config.json, a chip, a deployment, a sweep
// manifest) is kilobytes, so 16 MiB is far past any real one; data (a
// program of a 4096-layer model tens of MB, a sweep's 100,000 rows tens of
// MB, a request trace given as a pipe; a trace file is streamed,
// LineReader.h) gets 1 GiB.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_INPUT_H
#define SNAPFLOW_SUPPORT_INPUT_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace snapflow {

/// The most bytes of a configuration file (see the file comment).
constexpr uint64_t kConfigFileLimit = uint64_t(16) << 20;
/// The most bytes of a data file (see the file comment).
constexpr uint64_t kDataFileLimit = uint64_t(1) << 30;

namespace detail {
inline std::string byteSize(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}
} // namespace detail

/// Reads `path` whole, refusing more than `limit` bytes ("-" is standard
/// input when `dashIsStdin`). The error is the reason alone ("No such file
/// or directory", "larger than 16 MiB, the most snapflow reads as a model
/// config"), for the caller to put after the path as it words its errors;
/// its error_code is the system's, or file_too_large.
inline llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInput(llvm::StringRef path, uint64_t limit, llvm::StringRef what,
          bool dashIsStdin = false) {
  auto tooLarge = [&] {
    return llvm::createStringError(
        std::make_error_code(std::errc::file_too_large),
        "larger than " + detail::byteSize(limit) +
            ", the most snapflow reads as " + what);
  };
  auto failed = [](std::error_code ec) {
    return llvm::createStringError(ec, ec.message());
  };
  bool stdinInput = dashIsStdin && path == "-";
  if (!stdinInput) {
    llvm::sys::fs::file_status status;
    if (std::error_code ec = llvm::sys::fs::status(path, status))
      return failed(ec);
    if (status.type() == llvm::sys::fs::file_type::directory_file)
      return failed(std::make_error_code(std::errc::is_a_directory));
    if (status.type() == llvm::sys::fs::file_type::regular_file) {
      if (status.getSize() > limit)
        return tooLarge();
      auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
      if (!buffer)
        return failed(buffer.getError());
      // The file may have grown since its size was read.
      if ((*buffer)->getBufferSize() > limit)
        return tooLarge();
      return std::move(*buffer);
    }
  }
  // A device, a pipe or standard input: no size to check, read in chunks.
  llvm::sys::fs::file_t file = llvm::sys::fs::getStdinHandle();
  if (!stdinInput) {
    auto opened = llvm::sys::fs::openNativeFileForRead(path);
    if (!opened)
      return opened.takeError();
    file = *opened;
  }
  llvm::SmallString<0> text;
  llvm::Error error = llvm::Error::success();
  constexpr size_t kChunk = 1 << 16;
  for (;;) {
    if (text.size() > limit) {
      error = tooLarge();
      break;
    }
    size_t size = text.size();
    text.resize_for_overwrite(size + kChunk);
    auto read = llvm::sys::fs::readNativeFile(
        file, llvm::MutableArrayRef<char>(text.data() + size, kChunk));
    if (!read) {
      error = read.takeError();
      break;
    }
    text.truncate(size + *read);
    if (*read == 0)
      break;
  }
  if (!stdinInput)
    (void)llvm::sys::fs::closeFile(file);
  if (error)
    return std::move(error);
  return llvm::MemoryBuffer::getMemBufferCopy(text, path);
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_INPUT_H
