# SPDX-License-Identifier: MIT
# gbvp top-level build. Every part describes itself in <part>/part.mk with the macros of
# mk/rules.mk; this file holds the flags, the part list and the user-facing targets.

# Bottom layer first: a part's library is known to every part read after it.
PARTS := event-kernel greybus gblink unipro-model switch-model virtual-modules ap-model sim gbvp systemc \
	qemu-hw guest scenarios tests

SAN ?=
ifeq ($(SAN),1)
B ?= build/asan
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
B ?= build
SAN_FLAGS :=
endif

V ?= 0
Q := $(if $(filter 1,$(V)),,@)

PKGS := glib-2.0 json-glib-1.0 lua5.4 libcrypto cunit
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs glib-2.0 json-glib-1.0 lua5.4 libcrypto 2>/dev/null)
CUNIT_LIBS := $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)

CC ?= cc
OPT ?= -O2 -g
CFLAGS += -std=c11 $(OPT) -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -fno-common $(SAN_FLAGS)
CPPFLAGS += -D_GNU_SOURCE -I. $(PKG_CFLAGS)
LDFLAGS += $(SAN_FLAGS)
LDLIBS += $(PKG_LIBS) -lm -lpthread

ALL_LIBS :=
UNIT_TESTS :=
BENCHES :=
INTEGRATION_TESTS :=
# libFuzzer targets: parts add `FUZZ_TARGETS += $(B)/fuzz/NAME` with a rule building it with
# $(FUZZ_CC) $(FUZZ_CFLAGS), seeds in tests/fuzz/corpus/NAME/ and optionally a libFuzzer
# dictionary tests/fuzz/NAME.dict.
FUZZ_TARGETS :=
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-D_GNU_SOURCE -I.

.PHONY: all deps check run test unit bench asan integration clean help
all: $(B)/gbvp

include mk/rules.mk
include $(addsuffix /part.mk,$(PARTS))

$(B)/gbvp: $(call objs,$(GBVP_SRCS)) $(GBVP_LIBS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(call objs,$(GBVP_SRCS)) \
		-Wl,--start-group $(GBVP_LIBS) -Wl,--end-group $(LDLIBS)

help:
	@echo "make run          install, build, boot the guest and run the default scenario"
	@echo "make check        install, build and run every test (what CI runs)"
	@echo "make deps         install the Debian packages gbvp needs (run as root)"
	@echo "make [all]        build the gbvp program into $(B)/gbvp"
	@echo "make test         unit tests, docs check, scenarios and integration tests (boots the guest)"
	@echo "make wireshark-check  the dissector on made-up captures and on every scenario's capture"
	@echo "make docs-check   docs/architecture.md names only functions that exist; includes point down"
	@echo "make scripts-check  the build scripts' caches after a failed step (stand-in tools)"
	@echo "make model-check  gbvp model sweeps and plots (tests/model/)"
	@echo "make plots        redraw docs/figures/ with gbvp model --plot"
	@echo "make unit         CUnit unit tests only"
	@echo "make scenarios    Lua scenarios on the simulator-only targets"
	@echo "make integration  boot the guest kernel in QEMU and test it"
	@echo "make bench        benchmarks, printed as 'bench NAME VALUE UNIT'"
	@echo "make bench-guest  what a capture costs a guest run (boots the guest)"
	@echo "make bench-fullsystem  the kernel's loopback_test in the guest at HS-G3B x2 (boots it)"
	@echo "make asan         unit tests built with AddressSanitizer and UBSan"
	@echo "make fuzz         run every libFuzzer target FUZZ_SECONDS (60) seconds each"
	@echo "make clean        remove build/"
	@echo "make install-wireshark  copy the capture dissector (tools/wireshark/) to your Lua plugins"
	@echo "make install PREFIX=DIR [DESTDIR=STAGE]  gbvp into DIR/bin, its data into DIR/share/gbvp"

deps:
	scripts/deps.sh

# The README's two commands. Both install what is missing first, then re-enter make so
# that pkg-config sees the freshly installed packages.
check:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory test

run:
	$(Q)scripts/deps.sh
	$(Q)$(MAKE) --no-print-directory all
	$(B)/gbvp run $(if $(GBVP_ARCH),--arch $(GBVP_ARCH)) $(RUN_ARGS)

unit: $(UNIT_TESTS)
	$(Q)scripts/run-unit.sh $(UNIT_TESTS)

bench: $(BENCHES) $(B)/gbvp
	$(Q)for b in $(BENCHES); do GBVP=$(B)/gbvp $$b || exit 1; done

# What a capture costs a guest run (boots the guest: RUNS pairs of gbvp run).
.PHONY: bench-guest
bench-guest: all
	$(Q)tests/bench/bench_guest_capture.sh

# RUNS=N repeats each case (default 3); PERF=FILE profiles gbvp sim meanwhile.
.PHONY: bench-fullsystem
bench-fullsystem: all
	$(Q)GBVP=$(B)/gbvp tests/bench/bench_fullsystem.sh

# Runs every fuzz target for FUZZ_SECONDS; new inputs go to $(B)/fuzz/corpus/NAME/.
.PHONY: fuzz
fuzz: $(FUZZ_TARGETS)
	$(Q)for t in $(FUZZ_TARGETS); do n=$$(basename $$t); mkdir -p $(B)/fuzz/corpus/$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		d=; [ -f tests/fuzz/$$n.dict ] && d=-dict=tests/fuzz/$$n.dict; \
		$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$d $(B)/fuzz/corpus/$$n \
			tests/fuzz/corpus/$$n || exit 1; done

asan:
	$(MAKE) SAN=1 OPT="-O1 -g" unit

integration: all
	$(Q)scripts/run-integration.sh $(INTEGRATION_TESTS)

# The docs that name code: docs/architecture.md's walk and the include rules.
.PHONY: docs-check
docs-check:
	$(Q)tests/docs/architecture_test.sh

# The build scripts' caches after a failed step (stand-ins for apt-get, ninja, make, strip in
# a throwaway GBVP_CACHE: no download, no real build).
.PHONY: scripts-check
scripts-check:
	$(Q)tests/scripts/cache_test.sh

# The Wireshark dissector of gbvp captures (docs/tracing.md) into the personal Lua plugins.
.PHONY: install-wireshark
install-wireshark:
	$(Q)d=$$(tshark -G folders 2>/dev/null | sed -n 's/^Personal Lua Plugins:[[:space:]]*//p'); \
	d=$${d:-$$HOME/.local/lib/wireshark/plugins}; mkdir -p "$$d" && \
	cp tools/wireshark/greybus.lua "$$d/" && echo "installed $$d/greybus.lua"

# `make install PREFIX=DIR [DESTDIR=STAGE]`: the program into PREFIX/bin; what it reads at
# run time (the catalog, scenarios, scripts, the guest's and the QEMU device's sources,
# which the cached builds are keyed on) into PREFIX/share/gbvp, where an installed gbvp
# finds them from its own place (gbvp/paths.h); the docs into PREFIX/share/doc/gbvp.
PREFIX ?= /usr/local
INSTALL_DATA_FILES = $(wildcard virtual-modules/catalog/* scenarios/*.lua scenarios/modules/* \
	guest/init guest/agent.c guest/*.config guest/*.dtsi guest/debian/* guest/firmware/* guest/tools/* qemu-hw/*.c qemu-hw/*.h qemu-hw/meson.build \
	qemu-hw/Kconfig gblink/*.c gblink/*.h gblink/meson.build tools/wireshark/greybus.lua \
	tools/model_plot.py tools/timeline_png.py)
INSTALL_DOC_FILES = README.md LICENSE $(wildcard docs/*.md)
.PHONY: install
install: $(B)/gbvp
	$(Q)[ -n "$(PREFIX)" ] || { echo "make install: PREFIX is empty"; exit 2; }
	$(Q)d="$(DESTDIR)$(PREFIX)"; \
	install -d "$$d/bin" "$$d/share/gbvp/scripts" "$$d/share/doc/gbvp/docs" && \
	install -m 755 $(B)/gbvp "$$d/bin/gbvp" && \
	install -m 755 scripts/*.sh "$$d/share/gbvp/scripts/" && \
	for f in $(INSTALL_DATA_FILES); do \
		install -D -m $$([ -x "$$f" ] && echo 755 || echo 644) "$$f" "$$d/share/gbvp/$$f" || exit 1; \
	done && \
	for f in $(INSTALL_DOC_FILES); do \
		install -D -m 644 "$$f" "$$d/share/doc/gbvp/$$f" || exit 1; \
	done && \
	echo "installed $$d/bin/gbvp, its data in $$d/share/gbvp, docs in $$d/share/doc/gbvp"

# The Wireshark dissector on made-up captures, and on captures of every scenario.
.PHONY: wireshark-check
wireshark-check: all
	$(Q)tests/wireshark/dissector_test.sh
	$(Q)tests/wireshark/capture_test.sh

# `gbvp model --sweep` and `--plot`: bad sweeps refused, rows in configuration order for any
# -j, a file's parameters set, the figures holding the table's series.
.PHONY: model-check
model-check: $(B)/gbvp
	$(Q)GBVP=$(B)/gbvp tests/model/sweep_test.sh

# The figures of docs/performance-model.md (docs/figures/), drawn by `gbvp model --plot`
# from two sweeps into $(B)/plots/; the SVG files docs/ shows are copied from there.
.PHONY: plots
plots: $(B)/gbvp
	$(Q)rm -rf $(B)/plots && mkdir -p $(B)/plots
	$(Q)$(B)/gbvp model --switch --sweep gear=HS-G1B,HS-G2B,HS-G3B,HS-G4B --sweep lanes=1,2 \
		--sweep size=8..8192x4 --duration 1ms -j2 --quiet --plot $(B)/plots/goodput
	$(Q)$(B)/gbvp model docs/figures/incast.txt --sweep rate=2Gb/s,4.5Gb/s,6Gb/s -j2 --quiet \
		--plot $(B)/plots/incast
	$(Q)cp $(B)/plots/goodput/goodput_vs_size.svg docs/figures/
	$(Q)cp $(B)/plots/incast/latency_cdf.svg $(B)/plots/incast/queue_depth.svg docs/figures/
	@echo "plots: docs/figures/goodput_vs_size.svg latency_cdf.svg queue_depth.svg"

test: unit docs-check scripts-check model-check scenarios wireshark-check integration

clean:
	rm -rf build

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
