//===- Deployment.cpp - Several models served on one chip -----------------===//

#include "snapflow/Driver/Deployment.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/YamlFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <set>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::StringRef;

llvm::Expected<std::vector<DeployedWorkload>>
snapflow::driver::splitModels(const WorkloadOptions &shared, bool maxBatch) {
  std::vector<DeployedWorkload> out;
  llvm::SmallVector<StringRef> names;
  StringRef(shared.model).split(names, ',', -1, /*KeepEmpty=*/true);
  if (names.size() > 1 && !shared.name.empty())
    return makeError("--name " + shared.name +
                     " names one model; --model "
                     "lists " +
                     std::to_string(names.size()) +
                     " (a deployment file names each with 'name:')");
  for (StringRef name : names) {
    if (name.trim().empty())
      return makeError("--model: an empty name in '" + shared.model + "'");
    DeployedWorkload one{shared, maxBatch};
    one.options.model = name.trim().str();
    out.push_back(std::move(one));
  }
  return out;
}

namespace {

/// Reads one deployment file; errors go through the YAML stream, so each
/// names the file, line and column, and all of them are reported.
class DeploymentParser {
public:
  DeploymentParser(StringRef path, StringRef text,
                   const WorkloadOptions &shared, bool maxBatch)
      : yaml(text, path), path(path), shared(shared), maxBatch(maxBatch) {}

  llvm::Expected<std::vector<DeployedWorkload>> run() {
    if (!yaml.syntaxOk())
      return yaml.fail();
    llvm::yaml::Node *root = yaml.root();
    if (!root || llvm::isa<llvm::yaml::NullNode>(root))
      return yaml.fail("the deployment file is empty; it needs 'models:', a "
                       "list of at least one model");
    auto *top = llvm::dyn_cast<llvm::yaml::MappingNode>(root);
    if (!top) {
      error(root, "a deployment file is a mapping with the key 'models'");
      return yaml.fail();
    }
    // The parser streams: each node is read where it stands, so the models
    // are parsed inside the loop over the top-level keys.
    bool hasList = false;
    for (llvm::yaml::KeyValueNode &kv : *top) {
      std::string key;
      if (!scalarText(kv.getKey(), key, "key"))
        continue;
      if (key == "nodes" || key == "router" || key == "disaggregate") {
        nodeKey(key, kv);
        continue;
      }
      if (key != "models") {
        error(kv.getKey(), "unknown key '" + key +
                               "'; a deployment file has 'models' and "
                               "optionally 'nodes', 'router' or "
                               "'disaggregate' (the chip, --tp and --set come "
                               "from the command)");
        continue;
      }
      if (hasList) {
        error(kv.getKey(), "duplicate key 'models'");
        continue;
      }
      hasList = true;
      auto *list =
          llvm::dyn_cast_or_null<llvm::yaml::SequenceNode>(kv.getValue());
      if (!list) {
        error(kv.getValue() ? kv.getValue() : kv.getKey(),
              "'models' must be a list of models, each '- model: NAME'");
        continue;
      }
      std::set<std::string> seen;
      for (llvm::yaml::Node &entry : *list) {
        auto one = parseModel(entry);
        if (!one)
          continue;
        if (!seen.insert(one->options.model).second) {
          error(&entry, "model '" + one->options.model +
                            "' is deployed twice; a deployment serves each "
                            "model once");
          continue;
        }
        models.push_back(std::move(*one));
      }
    }
    if (!hasList && !yaml.errorCount())
      error(top, "missing key 'models'");
    if (yaml.errorCount())
      return yaml.fail();
    if (models.empty())
      return yaml.fail("'models' lists no model");
    return std::move(models);
  }

  DeploymentNodes nodes;

private:
  /// A top-level key of the cluster, read as its flag is.
  void nodeKey(StringRef key, llvm::yaml::KeyValueNode &kv) {
    llvm::yaml::Node *v = kv.getValue();
    std::string value;
    if (!scalarText(v ? v : kv.getKey(), value, key))
      return;
    std::string at =
        llvm::formatv("'{0}' at {1}:{2}", key, path, yaml.lineOf(v)).str();
    auto fail = [&](llvm::Error e) { error(v, llvm::toString(std::move(e))); };
    auto once = [&](bool given) {
      if (given)
        error(kv.getKey(), "duplicate key '" + key + "'");
      return !given;
    };
    if (key == "nodes") {
      auto n = parseInteger(value, "'nodes'");
      if (!n)
        return fail(n.takeError());
      if (once(nodes.nodes.has_value()))
        nodes.nodes = *n, nodes.nodesAt = at;
    } else if (key == "router") {
      auto r = parseRouterValue(value, "'router'");
      if (!r)
        return fail(r.takeError());
      if (once(nodes.router.has_value()))
        nodes.router = *r, nodes.routerAt = at;
    } else {
      auto d = parseNodeSplit(value, "'disaggregate'");
      if (!d)
        return fail(d.takeError());
      if (once(nodes.disaggregate.has_value()))
        nodes.disaggregate = *d, nodes.disaggregateAt = at;
    }
  }

  std::optional<DeployedWorkload> parseModel(llvm::yaml::Node &node) {
    auto *map = llvm::dyn_cast<llvm::yaml::MappingNode>(&node);
    if (!map) {
      error(&node, "a model is a mapping: '- model: NAME' and optionally " +
                       keyList(", ", ", ", /*optionalOnly=*/true));
      return std::nullopt;
    }
    DeployedWorkload d{shared, maxBatch};
    bool hasModel = false, ok = true;
    std::set<std::string> keys;
    for (llvm::yaml::KeyValueNode &kv : *map) {
      std::string key, value;
      if (!scalarText(kv.getKey(), key, "key")) {
        ok = false;
        continue;
      }
      if (!keys.insert(key).second) {
        error(kv.getKey(), "duplicate key '" + key + "'");
        ok = false;
        continue;
      }
      llvm::yaml::Node *v = kv.getValue();
      if (!scalarText(v ? v : kv.getKey(), value, key)) {
        ok = false;
        continue;
      }
      if (value.empty()) {
        error(v ? v : kv.getKey(), "'" + key + "' must not be empty");
        ok = false;
        continue;
      }
      if (!applyKey(key, value, kv.getKey(), v, d)) {
        ok = false;
        continue;
      }
      hasModel |= key == "model";
    }
    if (!hasModel) {
      error(map, "a model needs the key 'model' (a name `snapflow list` "
                 "shows, or a config file)");
      return std::nullopt;
    }
    if (!ok)
      return std::nullopt;
    // The model, its policy and format must resolve; a bad one is reported
    // here, at the model's entry.
    auto w = resolveWorkload(d.options, /*needChip=*/true);
    if (!w) {
      error(map, "model '" + d.options.model +
                     "': " + llvm::toString(w.takeError()));
      return std::nullopt;
    }
    return d;
  }

  /// The keys WorkloadOptions.def gives a model, in its order: "model, batch,
  /// ... or weights_dtype" with `sep` and `last` between them; without
  /// `model` when `optionalOnly`.
  static std::string keyList(StringRef sep, StringRef last,
                             bool optionalOnly = false) {
    std::vector<StringRef> keys;
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, DEFAULT, PARSE, FLAG, KEY, ...)  \
  if (!StringRef(KEY).empty() && !(optionalOnly && StringRef(KEY) == "model")) \
    keys.push_back(KEY);
#include "snapflow/Driver/WorkloadOptions.def"
    std::string out;
    for (size_t i = 0; i < keys.size(); ++i)
      out += (i == 0                 ? ""
              : i + 1 == keys.size() ? last
                                     : sep)
                 .str() +
             keys[i].str();
    return out;
  }

  /// Sets the option `key` names from its value as its flag reads it; a bad
  /// value or an unknown key is reported at its node.
  bool applyKey(StringRef key, StringRef value, llvm::yaml::Node *keyNode,
                llvm::yaml::Node *valueNode, DeployedWorkload &d) {
    bool known = false, ok = true;
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, DEFAULT, PARSE, FLAG, KEY, ...)  \
  if (!StringRef(KEY).empty() && key == KEY) {                                 \
    known = true;                                                              \
    auto parsed = PARSE(value, "'" KEY "'");                                   \
    if (!parsed) {                                                             \
      error(valueNode, llvm::toString(parsed.takeError()));                    \
      ok = false;                                                              \
    } else {                                                                   \
      assign(d.options.FIELD, std::move(*parsed));                             \
    }                                                                          \
  }
#include "snapflow/Driver/WorkloadOptions.def"
    if (!known) {
      error(keyNode, "unknown key '" + key + "' for a model; expected " +
                         keyList(", ", " or "));
      return false;
    }
    if (!ok)
      return false;
    if (key == "model") {
      // A config file is found beside the deployment file.
      llvm::SmallString<256> p(value);
      if (value.ends_with(".json") && llvm::sys::path::is_relative(p)) {
        p = llvm::sys::path::parent_path(path);
        llvm::sys::path::append(p, value);
      }
      d.options.model = std::string(p);
    } else if (key == "batch") {
      d.maxBatch = d.options.batch == kBatchMax;
      if (d.maxBatch)
        d.options.batch = 1;
    } else if (key == "context") {
      d.contextFrom =
          llvm::formatv("'context' at {0}:{1}", path, yaml.lineOf(valueNode))
              .str();
    }
    return true;
  }

  template <class T> static void assign(T &field, T value) {
    field = std::move(value);
  }
  /// A list option (none is a deployment key today) takes one item.
  template <class T> static void assign(std::vector<T> &field, T value) {
    field.push_back(std::move(value));
  }

  void error(llvm::yaml::Node *node, const llvm::Twine &msg) {
    yaml.error(node, msg);
  }

  bool scalarText(llvm::yaml::Node *node, std::string &out, StringRef what) {
    return yaml.scalarText(node, out, what);
  }

  YamlFile yaml;
  StringRef path;
  const WorkloadOptions &shared;
  bool maxBatch;
  std::vector<DeployedWorkload> models;
};

} // namespace

llvm::Expected<std::vector<DeployedWorkload>>
snapflow::driver::readDeployment(StringRef path, const WorkloadOptions &shared,
                                 bool maxBatch, DeploymentNodes *nodes) {
  if (!shared.name.empty())
    return makeError("--name " + shared.name + " names one --model; " + path +
                     " names each of its models with 'name:'");
  auto buffer = readInput(path, kConfigFileLimit, "a deployment");
  if (!buffer)
    return makeError("--deployment: cannot read '" + path +
                     "': " + llvm::toString(buffer.takeError()));
  return parseDeployment((*buffer)->getBuffer(), path, shared, maxBatch, nodes);
}

llvm::Expected<std::vector<DeployedWorkload>>
snapflow::driver::parseDeployment(StringRef text, StringRef path,
                                  const WorkloadOptions &shared, bool maxBatch,
                                  DeploymentNodes *nodes) {
  DeploymentParser parser(path, text, shared, maxBatch);
  auto models = parser.run();
  if (models && nodes)
    *nodes = parser.nodes;
  return models;
}
