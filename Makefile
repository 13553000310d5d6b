# hpa-controller: every target installs what it needs on a fresh Debian bookworm machine.
#
#   make demo            the main job: a local cluster where hpa-controller scales a workload
#   make run             build, then explain a sample HPA decision offline
#   make test            unit + end-to-end tests (real etcd + kube-apiserver), as CI runs them
#   make test-unit       unit tests only
#   make test-sanitize   unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench           benchmarks (Release build); bench/results/binary.py runs one and records
#                        its figures (bench/README.md)
#   make bench-scale     hpa-controller beside kube-controller-manager at scale (N=, PODS=,
#                        NAMESPACES=, DURATION=; bench/README.md); not part of `make test`
#   make bench-recovery  how soon hpa-controller and kube-controller-manager act once kube-apiserver
#                        is back, after a restart and after an etcd compaction (BENCH_RECOVERY_FLAGS=)
#   make bench-failover  a SIGKILLed leader: how soon each controller's standby decides for every
#                        HPA, and what it asks the API for (BENCH_FAILOVER_FLAGS=, e.g. --n 2000)
#   make bench-predictive  the forecast control against reactive scaling and Crane's method on
#                        generated traces (BENCH_PREDICTIVE_FLAGS=; bench/README.md)
#   make soak            100 HPAs for 30 min under apiserver restarts, etcd compactions, metrics
#                        outages and leader kills (SOAK_FLAGS=; bench/README.md); not in `make test`
#   make fuzz            every libFuzzer target for FUZZ_SECONDS (60) each (clang build, build-fuzz/)
#   make fuzz-replay     time every fuzz corpus input with the Release build (slowest per target)
#   make build           configure and build (build/)
#   make image           the container image from deploy/Dockerfile, without a registry where none
#                        is reachable (IMAGE=, IMAGE_ENGINE=, IMAGE_BASE=, IMAGE_SAVE=; docs/install.md)
#   make push            make image, then push IMAGE (a registry's name) with the engine that built it
#   make e2e-incluster   deploy/ applied to the local cluster with a real node (containerd,
#                        kubelet): the controller runs as pods; changes sysctls while it runs
#                        (hack/local-node.sh, docs/install.md); not part of `make test`
#   make e2e-monitoring  the same, with deploy/monitoring/ on Debian's Prometheus (docs/operations.md)
#   make e2e-journey     the README's migration, shadow to rollback, on the same kind of cluster
#   make soak-incluster  deploy/ as pods on the local node for 30 min (SOAK_INCLUSTER_FLAGS=--short:
#                        10 min) under kubelet and containerd restarts, a drain, the leader cut off
#                        from the API server and an OOM kill (bench/README.md); root; not in `make test`

SHELL := /bin/bash
BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
BENCH_DIR ?= build-bench
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SEED ?= 0
FUZZ_RUNS ?=
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_TIMEOUT ?= 1800
# make bench-scale: HPAs (one Deployment each), pods per Deployment, namespaces, steady window (s);
# BENCH_SCALE_FLAGS passes any other option of bench/scale/run.sh (--help lists them).
N ?= 100
PODS ?= 1
NAMESPACES ?= 10
DURATION ?= 120
BENCH_SCALE_FLAGS ?=
# make image: the name (without a registry it is given docker.io/library/, the name the kubelet
# reads deploy/'s `hpa-controller:<version>` as), the engine (podman or docker; default podman when
# installed, else docker when its engine answers, else podman) and where the bases come from when
# missing (auto: pull, else make them from the Debian archive; pull; local). VERSION is the one
# source of the version (the binary's --version, the image's tag, deploy/'s image).
VERSION := $(shell cat VERSION)
IMAGE ?= hpa-controller:$(VERSION)
IMAGE_ENGINE ?=
IMAGE_BASE ?= auto
IMAGE_ARCHIVE ?= $(BUILD_DIR)/hpa-controller-image.tar

.PHONY: all demo run deps e2e-deps soak soak-incluster fuzz-deps configure build test test-unit test-e2e test-sanitize tidy tidy-changed format bench \
        bench-scale bench-shadow bench-recovery bench-failover bench-predictive fuzz-build fuzz fuzz-replay clean image push node-deps e2e-incluster e2e-monitoring e2e-journey

all: build

deps:
	@bash hack/install-deps.sh

e2e-deps: deps
	@bash hack/ensure-e2e-deps.sh

configure: deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPA_WERROR=ON $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build e2e-deps
	@bash hack/demo.sh

run: build
	$(BUILD_DIR)/cmd/hpa-controller/hpa-controller explain -f deploy/examples/snapshot.yaml --now 2026-11-23T10:00:00Z -o text

test-unit: build
	ctest --test-dir $(BUILD_DIR) -L unit -j $(JOBS) --output-on-failure --timeout $(CTEST_TIMEOUT)

# The e2e tier runs in lanes, one local control plane each (tests/e2e/CMakeLists.txt): the lanes
# run side by side, the tests of a lane one at a time.
E2E_LANES ?= 3
test-e2e: build e2e-deps
	ctest --test-dir $(BUILD_DIR) -L e2e -j $(E2E_LANES) --output-on-failure --timeout $(CTEST_TIMEOUT)

test: test-unit test-e2e

# clang-tidy (.clang-tidy's checks) over every C++ source, or over those changed since
# .ci/tidy-base (what .ci/run lints: the whole tree takes about 20 minutes on two cores).
tidy: build
	JOBS=$(JOBS) BUILD_DIR=$(BUILD_DIR) bash hack/tidy.sh

tidy-changed: build
	JOBS=$(JOBS) BUILD_DIR=$(BUILD_DIR) bash hack/tidy.sh --changed

format:
	bash hack/check-format.sh --fix

test-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHPA_SANITIZE=ON -DHPA_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/tests/sanitizer/ubsan.supp \
	  ctest --test-dir $(SANITIZE_DIR) -L unit -j $(JOBS) --output-on-failure --timeout $(CTEST_TIMEOUT)

bench: deps
	cmake -S . -B $(BENCH_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPA_BUILD_BENCH=ON $(CMAKE_FLAGS)
	cmake --build $(BENCH_DIR) -j $(JOBS) --target replicacalc_bench pod_cache_bench sim_metrics_bench
	@for b in $(BENCH_DIR)/bench/*_bench; do echo "== $$b"; python3 -B bench/results/binary.py $$b --benchmark_counters_tabular=true; done

bench-scale: build e2e-deps
	@bash bench/scale/run.sh --n $(N) --pods $(PODS) --namespaces $(NAMESPACES) --duration $(DURATION) $(BENCH_SCALE_FLAGS)

# hpa-controller --shadow beside kube-controller-manager's HPA controller: 20 HPAs, a load that
# changes every minute for 10 minutes; prints the agreement (bench/README.md).
bench-shadow: build e2e-deps
	@python3 -B bench/shadow/shadow_bench.py $(BENCH_SHADOW_FLAGS)

soak: build e2e-deps
	@python3 -B bench/soak/soak.py $(SOAK_FLAGS)

# How soon each controller acts on a load step once kube-apiserver is back, after a restart and
# after an etcd compaction and a restart (bench/README.md).
bench-recovery: build e2e-deps
	@python3 -B bench/recovery/recovery_bench.py $(BENCH_RECOVERY_FLAGS)

# A leader SIGKILLed: how soon each controller's standby decides for every HPA (bench/README.md).
bench-failover: build e2e-deps
	@python3 -B bench/failover/failover_bench.py $(BENCH_FAILOVER_FLAGS)

# The forecast control against reactive scaling and Crane's method, replayed on six-week generated
# traces: pod-minutes above target and replica-hours, and the goals (bench/README.md).
bench-predictive: build
	@python3 -B bench/predictive/predictive_bench.py $(BENCH_PREDICTIVE_FLAGS)

image:
	@bash hack/build-image.sh --image $(IMAGE) --base $(IMAGE_BASE) $(if $(IMAGE_ENGINE),--engine $(IMAGE_ENGINE)) \
	  $(if $(IMAGE_SAVE),--save $(IMAGE_SAVE))

push:
	@bash hack/build-image.sh --image $(IMAGE) --base $(IMAGE_BASE) $(if $(IMAGE_ENGINE),--engine $(IMAGE_ENGINE)) --push

node-deps: e2e-deps
	@bash hack/ensure-node-deps.sh

# deploy/ as pods under node faults, on its own cluster and node (build/soak-incluster/); the image
# is saved to IMAGE_ARCHIVE for containerd. Needs root (bench/README.md).
soak-incluster: build node-deps
	@$(MAKE) --no-print-directory image IMAGE_SAVE=$(IMAGE_ARCHIVE)
	@python3 -B bench/soak-incluster/soak_incluster.py --image-archive $(abspath $(IMAGE_ARCHIVE)) \
	  --sim $(abspath $(BUILD_DIR))/cmd/hpa-sim/hpa-sim $(SOAK_INCLUSTER_FLAGS)

# Each on its own cluster and node (build/incluster-ci, monitoring-ci, journey-ci), one at a time;
# each builds and imports the image by the README's commands. Root; not part of `make test`.
e2e-incluster: build node-deps
	ctest --test-dir $(BUILD_DIR) -L '^incluster$$' --output-on-failure --timeout $(CTEST_TIMEOUT)

e2e-monitoring: build node-deps
	ctest --test-dir $(BUILD_DIR) -L '^monitoring-incluster$$' --output-on-failure --timeout 7200

e2e-journey: build node-deps
	ctest --test-dir $(BUILD_DIR) -L '^journey$$' --output-on-failure --timeout 7200

fuzz-deps: deps
	@bash hack/install-fuzz-deps.sh

# clang with ASan + UBSan + libFuzzer instrumentation; only the fuzz targets and what they link.
fuzz-build: fuzz-deps
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DHPA_FUZZ=ON -DHPA_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz-targets

# Fails on any finding; artifacts in $(FUZZ_DIR)/fuzz-artifacts/<target>/ (tests/fuzz/README.md).
fuzz: fuzz-build
	FUZZ_SEED=$(FUZZ_SEED) FUZZ_RUNS=$(FUZZ_RUNS) bash tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Times every corpus input (seeds + what make fuzz grew) with the Release build of the parsers.
fuzz-replay: fuzz-deps
	cmake -S . -B $(BENCH_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPA_BUILD_BENCH=ON $(CMAKE_FLAGS)
	cmake --build $(BENCH_DIR) -j $(JOBS) --target fuzz-replays
	bash tests/fuzz/replay.sh $(BENCH_DIR) $(FUZZ_DIR) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(BENCH_DIR) $(FUZZ_DIR)
