# SPDX-License-Identifier: MIT
# Generic build rules shared by every part.mk. A part declares what it builds with
# these macros and never writes compile rules of its own.

# $(call objs,SOURCES): object files for SOURCES in the current build tree.
objs = $(patsubst %.c,$(B)/obj/%.o,$(1))

# library NAME SOURCES: $(B)/lib/libNAME.a
define library
LIB_$(1) := $(B)/lib/lib$(1).a
ALL_LIBS += $(B)/lib/lib$(1).a
$(B)/lib/lib$(1).a: $(call objs,$(2))
	@mkdir -p $$(@D)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef

# unit_test NAME SOURCES LIBS [EXTRA_LDLIBS]: a CUnit binary run by `make unit`.
define unit_test
UNIT_TESTS += $(B)/tests/$(1)
$(B)/tests/$(1): $(call objs,$(2) tests/unit/unit.c tests/unit/tmp_path.c) $(3)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(call objs,$(2) tests/unit/unit.c tests/unit/tmp_path.c) \
		-Wl,--start-group $(3) -Wl,--end-group $$(LDLIBS) $$(CUNIT_LIBS) $(4)
endef

# bench NAME SOURCES LIBS [EXTRA_LDLIBS]: a benchmark run by `make bench`.
define bench
BENCHES += $(B)/bench/$(1)
$(B)/bench/$(1): $(call objs,$(2)) $(3)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(call objs,$(2)) \
		-Wl,--start-group $(3) -Wl,--end-group $$(LDLIBS) $(4)
endef

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<
