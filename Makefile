# baglab — the Makefile targets are the CI steps.
#   make demo   generate a sample study and run baglab on it
#   make test   install test peers if missing, then run every test
#   make lint   gofmt, go vet, staticcheck
#   make fuzz   run each fuzz target for FUZZTIME
#   make bench  run the go benchmarks
SHELL       := /bin/bash
GO          ?= go
BIN         := bin/baglab
DEMO        := demo
FUZZTIME    ?= 20s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
PY          := /usr/bin/python3
NODE_DIR    := testdata/node
APT_PKGS    := python3-rosbag python3-genpy python3-genmsg python3-rostopic python3-numpy \
               python3-std-msgs python3-geometry-msgs python3-sensor-msgs ros-std-msgs ros-geometry-msgs \
               ros-sensor-msgs weka default-jdk-headless chromium python3-rospy ros-core python3-distributed \
               libactionlib-msgs-dev jq python3-rosservice python3-std-srvs python3-pandas zstd \
               python3-tf2 python3-tf2-ros python3-tf2-msgs python3-tf2-geometry-msgs libtf2-dev g++ python3-message-filters python3-nav-msgs python3-websockets \
               python3-cv-bridge python3-opencv python3-open3d pcl-tools ros-image-view ffmpeg \
               awscli python3-boto3 strace
# The SeaweedFS S3 server the remote tests read and write (internal/testkit/s3test),
# built once from the Go module proxy into a cache outside the tree.
WEED_MOD    := github.com/seaweedfs/seaweedfs@v0.0.0-20261109003541-7506e5f91cd6
WEED        ?= $(HOME)/.cache/baglab/weed/weed
AZURITE_DIR := testdata/azurite
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: all build install test deps deps-apt deps-npm deps-weed deps-azurite lint fuzz bench demo sample clean

all: build

## build: bin/baglab, the lean build that starts in 3 ms, and bin/baglab-full,
## every verb, to which the lean one hands export, analyze, report, check, tf,
## media, help and object-storage URLs (cmd/baglab/lean.go). Static (no cgo):
## no dynamic loader at start-up.
build:
	$(call build-pair,bin)

## install: both binaries into $(go env GOBIN), default ~/go/bin
install:
	$(call build-pair,$$(d=$$($(GO) env GOBIN); echo $${d:-$$($(GO) env GOPATH)/bin}))

LDFLAGS := -s -w -X main.version=$(VERSION)
define build-pair
	mkdir -p $(1)
	CGO_ENABLED=0 $(GO) build -trimpath -tags baglab_lean -ldflags "$(LDFLAGS)" -o $(1)/baglab ./cmd/baglab
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(1)/baglab-full ./cmd/baglab
endef

## deps: the independent peers the tests compare against (Debian ROS1, npm MCAP/CDR/DuckDB, chromium)
deps: deps-apt deps-npm deps-weed deps-azurite

## deps-weed: build SeaweedFS's weed once (its go.mod has replace directives, so
## `go install pkg@version` refuses it: build it as a main module from a copy)
deps-weed:
	@if [ ! -x $(WEED) ]; then \
	  echo "building SeaweedFS $(WEED_MOD) into $(WEED) (several minutes, once)"; \
	  dir=$$($(GO) mod download -json $(WEED_MOD) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p') && \
	  tmp=$$(mktemp -d) && cp -r $$dir/. $$tmp && chmod -R u+w $$tmp && \
	  mkdir -p $$(dirname $(WEED)) && (cd $$tmp && $(GO) build -o $(WEED).tmp ./weed) && mv $(WEED).tmp $(WEED); \
	  rc=$$?; rm -rf $$tmp; exit $$rc; \
	fi

## deps-azurite: Azurite, the Azure Storage emulator the azblob:// tests run
## (npm, in a folder of its own: testdata/azurite)
deps-azurite:
	@if [ -f $(AZURITE_DIR)/package.json ] && ! cmp -s $(AZURITE_DIR)/package-lock.json $(AZURITE_DIR)/node_modules/.baglab-installed-lock; then \
	  echo "installing Azurite in $(AZURITE_DIR)"; \
	  npm ci --prefix $(AZURITE_DIR) --no-audit --no-fund --loglevel=error && \
	  cp $(AZURITE_DIR)/package-lock.json $(AZURITE_DIR)/node_modules/.baglab-installed-lock; \
	fi

deps-apt:
	@if ! $(PY) -c 'import boto3, rosbag, genpy, genmsg, numpy, pandas, rostopic, rospy, rosmaster, distributed, websockets, std_msgs.msg, geometry_msgs.msg, sensor_msgs.msg, tf2_py, tf2_ros, tf2_msgs.msg, tf2_geometry_msgs, message_filters, nav_msgs.msg, cv_bridge, cv2, open3d' >/dev/null 2>&1 || ! command -v pcl_pcd2ply >/dev/null 2>&1 || ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1 || [ ! -x /usr/lib/image_view/extract_images ] || ! command -v roscore >/dev/null 2>&1 || [ ! -f /usr/lib/actionlib_msgs/genaction.py ] || ! command -v chromium >/dev/null 2>&1 || [ ! -f /usr/include/tf2/buffer_core.h ] || ! command -v g++ >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1 || ! command -v aws >/dev/null 2>&1 || ! command -v zstd >/dev/null 2>&1 || ! command -v strace >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 || [ ! -f /usr/share/java/weka.jar ] >/dev/null 2>&1; then \
	  echo "installing Debian test peers: $(APT_PKGS)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PKGS) >/dev/null; \
	fi

deps-npm:
	@# npm ci again whenever package-lock.json differs from the one node_modules was installed from
	@if [ -f $(NODE_DIR)/package.json ] && ! cmp -s $(NODE_DIR)/package-lock.json $(NODE_DIR)/node_modules/.baglab-installed-lock; then \
	  echo "installing npm test peers in $(NODE_DIR)"; \
	  npm ci --prefix $(NODE_DIR) --no-audit --no-fund --loglevel=error && \
	  cp $(NODE_DIR)/package-lock.json $(NODE_DIR)/node_modules/.baglab-installed-lock; \
	fi

test: deps build
	$(GO) test -count=1 -timeout 25m ./...

# lint also checks the lean build's own files (tag baglab_lean; its tests are
# the full build's, lean_test.go).
lint:
	.ci/commit-subjects
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tests=false -tags baglab_lean ./cmd/baglab ./recording/remote
	# a laptop's baglab: both builds compile for macOS and Windows too
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/baglab
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null -tags baglab_lean ./cmd/baglab
	GOOS=windows $(GO) build -o /dev/null ./cmd/baglab
	GOOS=windows $(GO) build -o /dev/null -tags baglab_lean ./cmd/baglab

# Go before 1.27 can end a fuzz run that found nothing with "context deadline
# exceeded" at the -fuzztime boundary (golang/go#75804, a race in its fuzz
# coordinator): such a run, which wrote no failing input, is reported and
# not counted as a failure. Any failing input fails the target.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
	    before=$$(ls "$$dir/testdata/fuzz/$$t" 2>/dev/null | wc -l); \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg 2>&1); rc=$$?; \
	    echo "$$out" | tail -3; \
	    if [ $$rc -ne 0 ]; then \
	      after=$$(ls "$$dir/testdata/fuzz/$$t" 2>/dev/null | wc -l); \
	      if [ "$$after" = "$$before" ] && echo "$$out" | grep -q '^    context deadline exceeded$$' && ! echo "$$out" | grep -q 'Failing input written'; then \
	        echo "fuzz $$t: 'context deadline exceeded' at the end of -fuzztime without a failing input (golang/go#75804, Go < 1.27): not a failure"; \
	      else echo "$$out"; exit 1; fi; \
	    fi; \
	  done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@echo "side by side with the peers (minutes, not in CI): testdata/bench/compare.sh"

demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== generate a sample study (go run ./testdata/gen)"
	$(GO) run ./testdata/gen -o $(DEMO)/data -media
	@echo "== what is in it"
	./$(BIN) info $(DEMO)/data/study.bag
	./$(BIN) info $(DEMO)/data/queries.mcap
	@echo "== the first messages, as NDJSON"
	./$(BIN) cat $(DEMO)/data/study.bag --topics /lama/objects,/agent_monitor/factList --limit 3
	@echo "== export every topic to Parquet (demo/parquet) and CSV (demo/csv)"
	./$(BIN) export $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap --out $(DEMO)/parquet
	./$(BIN) export $(DEMO)/data/study.bag --out $(DEMO)/csv --format csv
	@echo "== a partitioned export (demo/by-date: topic=…/date=…/part-N.parquet)"
	./$(BIN) export $(DEMO)/data/study.bag --out $(DEMO)/by-date --partition-by date
	@echo "== the grasp demonstrations' images and the clouds as PNG and PCD files (demo/media)"
	./$(BIN) media $(DEMO)/data/study.bag --out $(DEMO)/media
	@echo "== the analyses"
	./$(BIN) analyze all $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap --out $(DEMO)/tables --plots $(DEMO)/plots --json > $(DEMO)/analysis.json
	./$(BIN) analyze all $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap
	./$(BIN) analyze placements $(DEMO)/data/study.bag --models-out $(DEMO)/models.bag > /dev/null
	@echo "== topic health: rates, gaps, stamp latency"
	./$(BIN) analyze topics $(DEMO)/data/study.bag
	./$(BIN) analyze all $(DEMO)/data/study-lz4.mcap $(DEMO)/data/queries.db3 --baseline $(DEMO)/analysis.json --tolerance 1e-9 > /dev/null && echo "baseline: the MCAP/db3 copies give the same numbers"
	@echo "== the CI check: analysis and dataset baselines, JUnit and Markdown reports"
	./$(BIN) info $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap --json > $(DEMO)/dataset.json
	./$(BIN) check --baseline $(DEMO)/dataset.json $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap
	./$(BIN) check --baseline $(DEMO)/analysis.json $(DEMO)/data/study-lz4.mcap $(DEMO)/data/queries.db3 --report junit:$(DEMO)/baseline.xml --report markdown:$(DEMO)/baseline.md
	@echo "== the recording contract (examples/contract.yaml): rates, gaps, latency, value ranges"
	./$(BIN) check --spec examples/contract.yaml $(DEMO)/data/study.bag $(DEMO)/data/study-lz4.mcap --report junit:$(DEMO)/contract.xml
	./$(BIN) report $(DEMO)/data/study.bag $(DEMO)/data/queries.mcap -o $(DEMO)/report.html
	@echo "== transforms: a recording with /tf, /tf_static, /imu and /pose (go run ./testdata/bench/tfgen)"
	$(GO) run ./testdata/bench/tfgen -o $(DEMO)/data/tf.bag -seconds 20 -cloud-bytes 12000
	./$(BIN) tf $(DEMO)/data/tf.bag --tree
	./$(BIN) tf $(DEMO)/data/tf.bag --target map --source camera --at +5s,+5.25s,0
	./$(BIN) tf $(DEMO)/data/tf.bag --target map --source base_link --every 1s --json | head -3
	./$(BIN) tf $(DEMO)/data/tf.bag --target odom --source imu_link --at-topic /imu --out $(DEMO)/tf --format csv
	./$(BIN) export $(DEMO)/data/tf.bag --topics /pose --tf-frame map --out $(DEMO)/pose-in-map --format csv
	@echo "== synchronised tables: /imu and /pose matched as message_filters' ApproximateTimeSynchronizer"
	./$(BIN) export $(DEMO)/data/tf.bag --sync /imu,/pose --slop 5ms --out $(DEMO)/synced --format csv
	head -c 300 $(DEMO)/synced/synced.csv; echo
	@echo "== ROS 1 to ROS 2: the study as a rosbag2 recording (MCAP, as rosbags-convert makes it), and back"
	./$(BIN) convert $(DEMO)/data/study.bag $(DEMO)/study_ros2 --to ros2
	./$(BIN) info $(DEMO)/study_ros2
	./$(BIN) convert $(DEMO)/study_ros2 $(DEMO)/study_back.bag
	@echo "== done: open $(DEMO)/report.html; tables in $(DEMO)/tables, Parquet in $(DEMO)/parquet"

## sample: regenerate the committed sample study (testdata/sample)
sample:
	$(GO) run ./testdata/gen -o testdata/sample -sessions 2 > /dev/null

clean:
	rm -rf bin $(DEMO)
