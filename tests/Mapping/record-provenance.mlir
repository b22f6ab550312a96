// RUN: snapflow-opt %s --record-provenance="pipeline={chip=tiny kv=full}" | FileCheck %s
// RUN: snapflow-opt %s --record-provenance | FileCheck %s --check-prefix=EMPTY

// Tests that record-provenance records the pipeline's options as given and
// the version of the snapflow that ran it ("0.9.0 (revision)") on the
// module, next to what the module already says of itself.
// CHECK: module @m attributes {df.provenance = {pipeline = "chip=tiny kv=full", snapflow = "{{[0-9]+\.[0-9]+\.[0-9]+ \(.+\)}}"}, llm.model = "x"}
// EMPTY: df.provenance = {pipeline = "", snapflow = "{{.+}}"}
module @m attributes {llm.model = "x"} {
}
