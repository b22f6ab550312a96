//===- SupportTest.cpp - The readers every user file goes through --------===//
//
// parseJson and YamlFile refuse what their parsers accept silently or cannot
// survive: a key given twice (the parsers keep both or the last) and
// nesting deep enough to overflow the stack; each error names the file,
// line and column (issue 32, item 2 and R02). readInput reads no more than
// an input can be (R04); writeOutput writes whole or not at all (R06, R07).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/YamlFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <string>

using namespace snapflow;

namespace {

std::string jsonError(llvm::StringRef text) {
  auto v = parseJson(text, "f.json");
  if (v)
    return "";
  return llvm::toString(v.takeError());
}

std::string yamlError(llvm::StringRef text) {
  YamlFile yaml(text, "f.yaml");
  if (yaml.syntaxOk())
    return "";
  return llvm::toString(yaml.fail());
}

} // namespace

// A key twice in one object is refused at the second, line 3 column 3; the
// same key in two objects, a key inside a string, and a quote escaped in a
// key are not duplicates.
TEST(Json, KeyGivenTwiceIsRefused) {
  EXPECT_EQ(jsonError("{\n  \"a\": 1,\n  \"a\": 2\n}"),
            "f.json:3:3: error: key \"a\" given twice in one object");
  EXPECT_EQ(jsonError("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}"),
            "");
  EXPECT_EQ(jsonError("{\"a\": \"{\\\"a\\\": 1\", \"b\": \"a\"}"), "");
  EXPECT_EQ(jsonError("{\"a\\\"\": 1, \"a\": 2}"), "");
  // Values that look like keys are not keys.
  EXPECT_EQ(jsonError("{\"a\": \"b\", \"b\": \"a\"}"), "");
}

// kMaxJsonDepth levels parse; one more is refused before the recursive
// parser sees it (a million would overflow its stack).
TEST(Json, DeepNestingIsRefused) {
  std::string ok(kMaxJsonDepth, '['), deep(kMaxJsonDepth + 1, '[');
  ok += std::string(kMaxJsonDepth, ']');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(jsonError(ok), "");
  EXPECT_EQ(jsonError(deep), "f.json:1:" + std::to_string(kMaxJsonDepth + 1) +
                                 ": error: nested deeper than " +
                                 std::to_string(kMaxJsonDepth) + " levels");
  std::string million(1000000, '[');
  EXPECT_NE(jsonError(million), "");
}

// A chip leaf with `value` twice (a copy-paste slip) is refused at the
// second, naming the first's line; the same key in sibling mappings is not.
TEST(Yaml, KeyGivenTwiceIsRefused) {
  std::string e = yamlError("socket:\n  clock_hz:\n    value: 1\n"
                            "    value: 2\n    source: \"test: x\"\n");
  EXPECT_NE(e.find("f.yaml:4:5: error: key 'value' given twice in one "
                   "mapping (first at line 3)"),
            std::string::npos)
      << e;
  EXPECT_EQ(yamlError("a:\n  value: 1\nb:\n  value: 2\n"), "");
}

// A '%' directive where a value should start gives the key no value node at
// all (not a null node) and no parse error: it is refused at the key, line 1
// column 1 (a fuzzed deployment file crashed on it; a model entry read its
// key as its value). An empty value is a null node and stays the reader's.
TEST(Yaml, AValueTheParserCannotStartIsRefusedAtItsKey) {
  EXPECT_EQ(yamlError("router:\n%o mod"),
            "f.yaml:1:1: error: this key's value cannot be read (a '%' "
            "directive or a stray token where the value should start)\n"
            "router:\n^~~~~~");
  EXPECT_NE(yamlError("models:\n  - model:\n%o mod").find("f.yaml:2:5:"),
            std::string::npos);
  EXPECT_EQ(yamlError("router:\n"), "");
}

// kMaxDepth levels of flow sequences parse, one more is refused.
TEST(Yaml, DeepNestingIsRefused) {
  auto nest = [](int n) {
    return "a: " + std::string(n, '[') + std::string(n, ']') + "\n";
  };
  EXPECT_EQ(yamlError(nest(YamlFile::kMaxDepth)), "");
  EXPECT_NE(yamlError(nest(YamlFile::kMaxDepth + 1)).find("nested deeper than"),
            std::string::npos);
}

namespace {
std::string slurp(const std::string &path) {
  auto b = llvm::MemoryBuffer::getFile(path);
  return b ? (*b)->getBuffer().str() : "<missing>";
}
} // namespace

// writeOutput replaces a file only with a whole new one: a writer that
// fails leaves the old file and no temporary beside it; one that succeeds
// replaces it. A symbolic link is followed (the file it names is replaced,
// the link stays). /dev/full is written in place and refused with the
// system's reason, and stays a device (issue 32, item 5: R06, R07).
TEST(Output, WholeOrNotAtAll) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("snapflow-output", dir));
  std::string path = (dir + "/out.txt").str();
  ASSERT_FALSE(writeOutput(path, [](llvm::raw_ostream &os) {
    os << "old";
    return llvm::Error::success();
  }));
  llvm::Error failed = writeOutput(path, [](llvm::raw_ostream &os) {
    os << "half";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "stop");
  });
  EXPECT_EQ(llvm::toString(std::move(failed)), "stop");
  EXPECT_EQ(slurp(path), "old");
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1); // no temporary left
  std::string link = (dir + "/link.txt").str();
  ASSERT_FALSE(llvm::sys::fs::create_link(path, link));
  ASSERT_FALSE(writeOutput(link, [](llvm::raw_ostream &os) {
    os << "new";
    return llvm::Error::success();
  }));
  EXPECT_EQ(slurp(path), "new");
  EXPECT_TRUE(llvm::sys::fs::is_symlink_file(link));
  if (llvm::sys::fs::exists("/dev/full")) {
    llvm::Error full = writeOutput("/dev/full", [](llvm::raw_ostream &os) {
      os << std::string(1 << 16, 'x');
      return llvm::Error::success();
    });
    EXPECT_EQ(llvm::toString(std::move(full)),
              "cannot write /dev/full: No space left on device");
    llvm::sys::fs::file_status st;
    ASSERT_FALSE(llvm::sys::fs::status("/dev/full", st));
    EXPECT_EQ(st.type(), llvm::sys::fs::file_type::character_file);
  }
  (void)llvm::sys::fs::remove(link);
  (void)llvm::sys::fs::remove(path);
  (void)llvm::sys::fs::remove(dir);
}

// readInput refuses a file past its limit: a regular file from its size,
// before reading; a device (/dev/zero never ends) or a pipe one byte past
// the limit, in chunks. At the limit it reads the file whole (issue 32,
// R04: `--model /dev/zero` ran out of memory).
TEST(Input, ReadsNoMoreThanItsLimit) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("snapflow-input", dir));
  std::string path = (dir + "/in.txt").str();
  ASSERT_FALSE(writeOutput(path, [](llvm::raw_ostream &os) {
    os << std::string(100, 'a');
    return llvm::Error::success();
  }));
  auto whole = readInput(path, 100, "a test");
  ASSERT_TRUE(bool(whole)) << llvm::toString(whole.takeError());
  EXPECT_EQ((*whole)->getBufferSize(), 100u);
  auto over = readInput(path, 99, "a test");
  ASSERT_FALSE(bool(over));
  EXPECT_EQ(llvm::toString(over.takeError()),
            "larger than 99 bytes, the most snapflow reads as a test");
  auto missing = readInput(path + ".no", 100, "a test");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()), "No such file or directory");
  auto folder = readInput(dir, 100, "a test");
  ASSERT_FALSE(bool(folder));
  EXPECT_EQ(llvm::toString(folder.takeError()), "Is a directory");
  if (llvm::sys::fs::exists("/dev/zero")) {
    auto zeros = readInput("/dev/zero", 200000, "a test");
    ASSERT_FALSE(bool(zeros));
    EXPECT_EQ(llvm::toString(zeros.takeError()),
              "larger than 200000 bytes, the most snapflow reads as a test");
    auto mib = readInput("/dev/zero", kConfigFileLimit, "a model config");
    ASSERT_FALSE(bool(mib));
    EXPECT_EQ(llvm::toString(mib.takeError()),
              "larger than 16 MiB, the most snapflow reads as a model config");
  }
  if (llvm::sys::fs::exists("/dev/null")) {
    auto empty = readInput("/dev/null", 10, "a test");
    ASSERT_TRUE(bool(empty)) << llvm::toString(empty.takeError());
    EXPECT_EQ((*empty)->getBufferSize(), 0u);
  }
  (void)llvm::sys::fs::remove(path);
  (void)llvm::sys::fs::remove(dir);
}
