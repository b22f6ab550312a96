//===- KVAttrList.h - The kv attributes behind an interface ----*- C++ -*-===//
//
// What the policy and format files share about the dialect's attributes of
// one kind (those implementing KVPolicyAttrInterface, or
// KVFormatAttrInterface): their mnemonics, the keys each takes and their
// usage lines for `snapflow list`. Internal to the kv dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_IR_KVATTRLIST_H
#define SNAPFLOW_DIALECT_KV_IR_KVATTRLIST_H

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace kv {
namespace detail {

/// A type passed as a value, so a generic lambda can take it (C++17).
template <typename T> struct Tag {
  using type = T;
};

template <typename Interface, typename Attr, typename F> void visitIf(F &f) {
  if constexpr (std::is_base_of_v<typename Interface::template Trait<Attr>,
                                  Attr>)
    f(Tag<Attr>());
}
template <typename Interface, typename... Attrs, typename F>
void forEachIn(F &f) {
  (visitIf<Interface, Attrs>(f), ...);
}

/// Calls `f(Tag<Attr>())` for every attribute of the dialect that
/// implements `Interface`, in definition order.
template <typename Interface, typename F> void forEachAttr(F &&f) {
  forEachIn<Interface,
#define GET_ATTRDEF_LIST
#include "snapflow/Dialect/KV/IR/KVAttrs.cpp.inc"
            >(f);
}

/// The mnemonics of the attributes implementing `Interface`.
template <typename Interface> std::vector<std::string> mnemonicsOf() {
  std::vector<std::string> names;
  forEachAttr<Interface>([&](auto tag) {
    names.push_back(decltype(tag)::type::getMnemonic().str());
  });
  return names;
}

/// The keys the attribute named `name` takes ("keys: ..." of its usage, or
/// "it takes no keys"), if such an attribute implements `Interface`.
template <typename Interface>
std::optional<std::string> keysOf(llvm::StringRef name) {
  std::optional<std::string> usage;
  forEachAttr<Interface>([&](auto tag) {
    using Attr = typename decltype(tag)::type;
    if (Attr::getMnemonic() != name)
      return;
    llvm::StringRef text = Attr::getUsage();
    size_t keys = text.find("keys:");
    usage = keys == llvm::StringRef::npos ? std::string("it takes no keys")
                                          : text.drop_front(keys).str();
  });
  return usage;
}

/// One paragraph per attribute implementing `Interface`: its mnemonic and
/// usage lines, for `snapflow list`.
template <typename Interface> std::string usageLines() {
  std::string out;
  forEachAttr<Interface>([&](auto tag) {
    using Attr = typename decltype(tag)::type;
    llvm::SmallVector<llvm::StringRef> lines;
    Attr::getUsage().split(lines, '\n');
    for (auto [i, line] : llvm::enumerate(lines))
      out +=
          llvm::formatv("  {0,-13} {1}\n",
                        i == 0 ? Attr::getMnemonic() : llvm::StringRef(), line);
  });
  return out;
}

} // namespace detail
} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_IR_KVATTRLIST_H
