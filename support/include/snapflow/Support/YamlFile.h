//===- YamlFile.h - A YAML document read with located errors ----*- C++ -*-===//
//
// What snapflow's YAML readers (chip files, deployment files) share: the
// document's stream, every error printed at its file, line and column and
// collected (all of them reported, not only the first), a syntax check that
// reports a syntax error alone, and scalar values read as text.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_YAMLFILE_H
#define SNAPFLOW_SUPPORT_YAMLFILE_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace snapflow {

/// One YAML document (`text`, named `name` in errors). Not copyable: the
/// source manager reports to this object.
class YamlFile {
public:
  YamlFile(llvm::StringRef text, llvm::StringRef name)
      : text(text), name(name.str()) {
    sm.setDiagHandler(
        [](const llvm::SMDiagnostic &diag, void *ctx) {
          auto *self = static_cast<YamlFile *>(ctx);
          llvm::raw_string_ostream os(self->errors);
          diag.print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
          ++self->numErrors;
        },
        this);
    stream = std::make_unique<llvm::yaml::Stream>(
        llvm::MemoryBufferRef(text, this->name), sm, /*ShowColors=*/false);
  }
  YamlFile(const YamlFile &) = delete;
  YamlFile &operator=(const YamlFile &) = delete;

  /// Whether the whole document parses, nests at most kMaxDepth levels and
  /// gives no key twice in one mapping (llvm::yaml keeps both, and a reader
  /// taking the last would silently drop the first: a chip value pasted
  /// twice). A syntax error is then reported alone, not followed by every
  /// key the truncated document seems to miss.
  bool syntaxOk() {
    llvm::yaml::Stream probe(llvm::MemoryBufferRef(text, name), sm,
                             /*ShowColors=*/false);
    int documents = 0;
    for (llvm::yaml::Document &doc : probe) {
      if (numErrors > 0)
        break;
      llvm::yaml::Node *root = doc.getRoot();
      // A second document ('---') was silently ignored: a deployment of
      // two documents served only the first's models (R20).
      if (++documents > 1 && root && !llvm::isa<llvm::yaml::NullNode>(root)) {
        probe.printError(root, "a second YAML document (after '---'); "
                               "snapflow reads one document per file, so "
                               "put everything in the first");
        break;
      }
      checkKeys(root, 0, probe);
    }
    return numErrors == 0;
  }

  /// The deepest nesting of mappings and sequences a file may have; every
  /// file snapflow reads nests a few levels.
  static constexpr int kMaxDepth = 64;

  /// The document's root, or null when there is none.
  llvm::yaml::Node *root() {
    auto doc = stream->begin();
    return doc == stream->end() ? nullptr : doc->getRoot();
  }

  /// The line `node` starts at.
  unsigned lineOf(llvm::yaml::Node *node) const {
    return sm.getLineAndColumn(node->getSourceRange().Start).first;
  }

  void error(llvm::yaml::Node *node, const llvm::Twine &msg) {
    stream->printError(node, msg);
  }

  /// `node`'s text; an error naming `what` when it is not a scalar.
  bool scalarText(llvm::yaml::Node *node, std::string &out,
                  llvm::StringRef what) {
    auto *scalar = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(node);
    if (!scalar) {
      error(node, "'" + what + "' must be a scalar");
      return false;
    }
    llvm::SmallString<64> storage;
    out = scalar->getValue(storage).str();
    return true;
  }

  unsigned errorCount() const { return numErrors; }

  /// Every error so far, and `extra` (unlocated, named after the file).
  llvm::Error fail(llvm::StringRef extra = {}) const {
    std::string msg = errors;
    if (!extra.empty())
      msg += name + ": error: " + extra.str() + "\n";
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  }

private:
  /// Walks `node` of `probe`: each mapping's keys once each, no deeper than
  /// kMaxDepth.
  void checkKeys(llvm::yaml::Node *node, int depth, llvm::yaml::Stream &probe) {
    if (!node)
      return;
    if (numErrors > 0) {
      node->skip();
      return;
    }
    if (depth > kMaxDepth && (llvm::isa<llvm::yaml::MappingNode>(node) ||
                              llvm::isa<llvm::yaml::SequenceNode>(node))) {
      probe.printError(node, "nested deeper than " + llvm::Twine(kMaxDepth) +
                                 " levels");
      node->skip();
      return;
    }
    if (auto *map = llvm::dyn_cast<llvm::yaml::MappingNode>(node)) {
      llvm::StringMap<llvm::yaml::Node *> seen;
      // Every entry is visited to its end (an iteration left half-way
      // confuses the stream), checking stops at the first error.
      for (llvm::yaml::KeyValueNode &kv : *map) {
        if (numErrors > 0) {
          kv.skip();
          continue;
        }
        if (auto *key =
                llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey())) {
          llvm::SmallString<64> storage;
          std::string k = key->getValue(storage).str();
          auto [it, fresh] = seen.try_emplace(k, key);
          if (!fresh) {
            unsigned line =
                sm.getLineAndColumn(it->second->getSourceRange().Start).first;
            probe.printError(key, "key '" + k +
                                      "' given twice in one mapping (first "
                                      "at line " +
                                      llvm::Twine(line) + ")");
            kv.skip();
            continue;
          }
        }
        // The parser gives no value (null, where a missing value is a
        // NullNode) for a token that cannot start one, a '%' directive
        // after 'key:' say, without an error of its own; every reader
        // would then meet a null node (a fuzzed deployment crashed, and a
        // model entry read its own key as its value).
        llvm::yaml::Node *value = kv.getValue();
        if (!value) {
          llvm::yaml::Node *at = kv.getKey() ? kv.getKey() : map;
          probe.printError(at, "this key's value cannot be read (a '%' "
                               "directive or a stray token where the value "
                               "should start)");
          continue;
        }
        checkKeys(value, depth + 1, probe);
      }
    } else if (auto *seq = llvm::dyn_cast<llvm::yaml::SequenceNode>(node)) {
      for (llvm::yaml::Node &item : *seq) {
        if (numErrors > 0)
          item.skip();
        else
          checkKeys(&item, depth + 1, probe);
      }
    }
  }

  llvm::StringRef text;
  std::string name;
  llvm::SourceMgr sm;
  std::unique_ptr<llvm::yaml::Stream> stream;
  std::string errors;
  unsigned numErrors = 0;
};

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_YAMLFILE_H
