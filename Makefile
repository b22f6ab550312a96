# The two commands of the README:
#   make run   install what is missing, build, run the main job on built-in defaults
#   make test  install what is missing, build, run every test (ctest: lit + gtest)
# Everything builds in build/ with Ninja, clang-19 + lld-19 and ccache.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# `make test SANITIZE=1`: the same suite built with ASan + UBSan (no
# recovery) in build-sanitize/, with the libFuzzer targets and their corpus
# runs. MLIR's libraries are not instrumented (their poisoned allocator slabs
# would be false reports) and SystemC switches coroutine stacks unannounced:
# docs/Testing.md.
ifeq ($(SANITIZE),1)
BUILD_DIR := build-sanitize
CMAKE_FLAGS += -DSNAPFLOW_SANITIZE=ON
export ASAN_OPTIONS ?= allow_user_poisoning=0:detect_stack_use_after_return=0:detect_leaks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
endif
# ccache keys on paths relative to the checkout, so every clone on a machine
# shares one cache.
export CCACHE_BASEDIR ?= $(CURDIR)
# `make fuzz`: each fuzz target for FUZZ_SECONDS on its corpus.
FUZZ_SECONDS ?= 60

.PHONY: all run test install configure build clean format fuzz

all: build

install:
	@./scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	@$(MAKE) --no-print-directory install
	cmake -S . -B $(BUILD_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-19 -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-19 \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py \
	  -DPython3_EXECUTABLE=/usr/bin/python3 $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: install configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@$(BUILD_DIR)/bin/snapflow run --model deepseek-r1 --chip sn40l-16 --tp 16 --context 131072 \
	  --kv snapstream:ratio=4 --batch max --steps 64

test: build
	cd $(BUILD_DIR) && SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ctest --output-on-failure -j $(JOBS)

fuzz:
	@$(MAKE) --no-print-directory build SANITIZE=1
	./scripts/fuzz.sh build-sanitize $(FUZZ_SECONDS)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format-19 -i

clean:
	rm -rf $(BUILD_DIR) build-sanitize
