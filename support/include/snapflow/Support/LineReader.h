//===- LineReader.h - A file's lines, a chunk at a time ---------*- C++ -*-===//
//
// A data file of any length read a line at a time: a regular file a chunk
// (1 MiB) at a time, so a week of Azure's request trace (27 million rows,
// 1.2 GB) never sits in memory; anything else (a pipe, a device) is read
// whole through readInput, up to the data limit. A line is at most 64 MiB.
// rewind() starts again from the first line (a second pass).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_LINEREADER_H
#define SNAPFLOW_SUPPORT_LINEREADER_H

#include "snapflow/Support/Input.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace snapflow {

/// A file's lines without their ends (\n or \r\n), numbered from 1.
class LineReader {
public:
  static llvm::Expected<std::unique_ptr<LineReader>>
  open(llvm::StringRef path, llvm::StringRef what) {
    auto lines = std::unique_ptr<LineReader>(new LineReader());
    lines->path = path.str();
    llvm::sys::fs::file_status status;
    if (std::error_code ec = llvm::sys::fs::status(path, status))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     ec.message());
    if (status.type() == llvm::sys::fs::file_type::directory_file)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          std::make_error_code(std::errc::is_a_directory).message());
    if (status.type() != llvm::sys::fs::file_type::regular_file) {
      // A pipe or a device: read once, whole, up to the data limit.
      auto buffer = readInput(path, kDataFileLimit, what);
      if (!buffer)
        return buffer.takeError();
      lines->held = std::move(*buffer);
      lines->text = lines->held->getBuffer();
      return std::move(lines);
    }
    if (llvm::Error e = lines->reopen())
      return std::move(e);
    return std::move(lines);
  }
  static std::unique_ptr<LineReader> of(llvm::StringRef text) {
    auto lines = std::unique_ptr<LineReader>(new LineReader());
    lines->text = text;
    return lines;
  }
  ~LineReader() { close(); }

  /// The next line; false at the end. The line stays valid until the next
  /// call.
  llvm::Expected<bool> next(llvm::StringRef &line) {
    if (!streaming) {
      if (pos >= text.size())
        return false;
      size_t nl = text.find('\n', pos);
      size_t end = nl == llvm::StringRef::npos ? text.size() : nl;
      line = text.slice(pos, end);
      pos = end + 1;
      return finish(line);
    }
    for (;;) {
      size_t nl = llvm::StringRef(buf).find('\n', scanned);
      if (nl != llvm::StringRef::npos) {
        line = llvm::StringRef(buf).slice(pos, nl);
        pos = scanned = nl + 1;
        return finish(line);
      }
      scanned = buf.size();
      if (eof) {
        if (pos >= buf.size())
          return false;
        line = llvm::StringRef(buf).drop_front(pos);
        pos = scanned = buf.size();
        return finish(line);
      }
      buf.erase(0, pos);
      scanned -= pos;
      pos = 0;
      if (buf.size() > kMaxLine)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("line {0} is longer than {1} MiB; a "
                          "request is one short line",
                          number + 1, kMaxLine >> 20));
      size_t old = buf.size();
      buf.resize(old + kChunk);
      auto got = llvm::sys::fs::readNativeFile(
          file, llvm::MutableArrayRef<char>(&buf[old], kChunk));
      if (!got) {
        buf.resize(old);
        return got.takeError();
      }
      buf.resize(old + *got);
      eof = *got == 0;
    }
  }
  llvm::Error rewind() {
    number = 0;
    pos = 0;
    return streaming ? reopen() : llvm::Error::success();
  }
  int64_t lineNumber() const { return number; }

private:
  static constexpr size_t kChunk = size_t(1) << 20;
  static constexpr size_t kMaxLine = size_t(64) << 20;
  LineReader() = default;
  bool finish(llvm::StringRef &line) {
    ++number;
    line = line.rtrim('\r');
    return true;
  }
  void close() {
    if (streaming)
      (void)llvm::sys::fs::closeFile(file);
    streaming = false;
  }
  llvm::Error reopen() {
    close();
    auto opened = llvm::sys::fs::openNativeFileForRead(path);
    if (!opened)
      return opened.takeError();
    file = *opened;
    streaming = true;
    buf.clear();
    pos = scanned = 0;
    eof = false;
    return llvm::Error::success();
  }

  std::string path;
  // Held text.
  std::unique_ptr<llvm::MemoryBuffer> held;
  llvm::StringRef text;
  // A file read a chunk at a time: buf[pos, scanned) has no newline.
  bool streaming = false;
  llvm::sys::fs::file_t file{};
  std::string buf;
  size_t scanned = 0;
  bool eof = false;
  size_t pos = 0;
  int64_t number = 0;
};

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_LINEREADER_H
