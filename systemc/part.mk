# SPDX-License-Identifier: MIT
# systemc/: the SystemC/TLM-2.0 binding (docs/performance-model.md, "On SystemC"): a
# sim_scheduler on SystemC's kernel, the UniPro network as an sc_module, TLM-2.0 sockets at a
# CPort, and the saturate example. C++ (SystemC demands it); Debian's libsystemc-dev.
# mk/rules.mk's macros compile C only, so the C++ rules are here.
SYSTEMC_PKG_CFLAGS := $(shell pkg-config --cflags systemc 2>/dev/null)
SYSTEMC_PKG_LIBS := $(shell pkg-config --libs systemc 2>/dev/null || echo -lsystemc)
CXX ?= g++
SC_CXXFLAGS := -std=c++17 $(OPT) -Wall -Wextra -Werror -Wshadow $(SAN_FLAGS)

$(B)/obj/%.o: %.cpp
	@mkdir -p $(@D)
	$(Q)$(CXX) $(CPPFLAGS) $(SYSTEMC_PKG_CFLAGS) $(SC_CXXFLAGS) -MMD -MP -c -o $@ $<

cxx_objs = $(patsubst %.cpp,$(B)/obj/%.o,$(1))

SYSTEMC_SRCS := systemc/sc_scheduler.cpp systemc/sc_network.cpp systemc/sc_cport.cpp \
	systemc/saturate.cpp
LIB_systemc := $(B)/lib/libsystemc_binding.a
ALL_LIBS += $(LIB_systemc)
$(LIB_systemc): $(call cxx_objs,$(SYSTEMC_SRCS))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# What the binding's programs link: the binding, the model's layers, SystemC.
SYSTEMC_MODEL_LIBS := $(LIB_systemc) $(LIB_switch_model) $(LIB_unipro_model) $(LIB_greybus) \
	$(LIB_event_kernel)

SYSTEMC_EXAMPLE := $(B)/systemc/example_saturate
$(SYSTEMC_EXAMPLE): $(call cxx_objs,systemc/example_saturate.cpp) $(SYSTEMC_MODEL_LIBS)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(LDFLAGS) -o $@ $(call cxx_objs,systemc/example_saturate.cpp) \
		-Wl,--start-group $(SYSTEMC_MODEL_LIBS) -Wl,--end-group $(LDLIBS) $(SYSTEMC_PKG_LIBS)

# The binding's tests (CUnit, run by `make unit` and `make systemc-check`): scheduler contract,
# TLM round trip, identity of the example with `gbvp model` (it runs both programs).
SYSTEMC_TEST := $(B)/tests/test_systemc
UNIT_TESTS += $(SYSTEMC_TEST)
$(SYSTEMC_TEST): $(call cxx_objs,tests/systemc/test_systemc.cpp) $(call objs,tests/unit/unit.c) \
		$(SYSTEMC_MODEL_LIBS) $(SYSTEMC_EXAMPLE) $(B)/gbvp
	@mkdir -p $(@D)
	$(Q)$(CXX) $(LDFLAGS) -o $@ $(call cxx_objs,tests/systemc/test_systemc.cpp) \
		$(call objs,tests/unit/unit.c) -Wl,--start-group $(SYSTEMC_MODEL_LIBS) \
		-Wl,--end-group $(LDLIBS) $(CUNIT_LIBS) $(SYSTEMC_PKG_LIBS)
$(B)/obj/tests/systemc/test_systemc.o: CPPFLAGS += \
	-DGBVP_SC_EXAMPLE='"$(abspath $(SYSTEMC_EXAMPLE))"' -DGBVP_SC_GBVP='"$(abspath $(B)/gbvp)"'

# The same network on the native kernel and on SystemC, side by side.
BENCHES += $(B)/bench/bench_systemc
$(B)/bench/bench_systemc: $(call cxx_objs,tests/systemc/bench_systemc.cpp) $(SYSTEMC_MODEL_LIBS)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(LDFLAGS) -o $@ $(call cxx_objs,tests/systemc/bench_systemc.cpp) \
		-Wl,--start-group $(SYSTEMC_MODEL_LIBS) -Wl,--end-group $(LDLIBS) $(SYSTEMC_PKG_LIBS)

.PHONY: systemc-check systemc-example
systemc-example: $(SYSTEMC_EXAMPLE)
	$(Q)$(SYSTEMC_EXAMPLE)
systemc-check: $(SYSTEMC_TEST)
	$(Q)scripts/run-unit.sh $(SYSTEMC_TEST)
