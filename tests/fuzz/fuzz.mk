# SPDX-License-Identifier: MIT
# libFuzzer targets for every parser of untrusted input. Included by tests/part.mk after the
# parts, so the parts' source lists are known. Objects are built once with $(FUZZ_CC) $(FUZZ_CFLAGS)
# into $(B)/fuzz/obj/, archived per part (so a part may add sources the targets do not
# use) and shared by the targets; see tests/fuzz/README.md.

FUZZ_OBJ := $(B)/fuzz/obj
fuzz_objs = $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(1))

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# fuzz_lib NAME SOURCES: $(B)/fuzz/lib/libNAME.a, sanitizer-instrumented.
define fuzz_lib
FUZZ_LIB_$(1) := $(B)/fuzz/lib/lib$(1).a
$(B)/fuzz/lib/lib$(1).a: $(call fuzz_objs,$(2))
	@mkdir -p $$(@D)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef

# fuzz_target NAME OBJECT_SOURCES LIBS [EXTRA_LDLIBS]: $(B)/fuzz/NAME from tests/fuzz/NAME.c.
define fuzz_target
FUZZ_TARGETS += $(B)/fuzz/$(1)
$(B)/fuzz/$(1): $(call fuzz_objs,tests/fuzz/$(1).c $(2)) $(3)
	@mkdir -p $$(@D)
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $(call fuzz_objs,tests/fuzz/$(1).c $(2)) \
		-Wl,--start-group $(3) -Wl,--end-group $(4) -lm -lpthread -lutil -lcrypto
endef

# The front ends (control socket, scenario engine, targets) include glib, json-glib and Lua.
$(FUZZ_OBJ)/gbvp/%.o $(FUZZ_OBJ)/tests/fuzz/%.o: FUZZ_CFLAGS += $(PKG_CFLAGS)

$(eval $(call fuzz_lib,vm,$(VM_SRCS) $(GREYBUS_SRCS)))
$(eval $(call fuzz_lib,switch,$(SWITCH_MODEL_SRCS)))
$(eval $(call fuzz_lib,unipro,$(UNIPRO_MODEL_SRCS)))
$(eval $(call fuzz_lib,model,gbvp/model/model_topo.c gbvp/model/model_net.c \
	gbvp/model/model_msg.c))
$(eval $(call fuzz_lib,gblink,$(GBLINK_SRCS)))
$(eval $(call fuzz_lib,kernel,$(EVENT_KERNEL_SRCS)))
$(eval $(call fuzz_lib,sim,$(SIM_SRCS)))
$(eval $(call fuzz_lib,ap,$(AP_MODEL_SRCS)))
$(eval $(call fuzz_lib,front,$(wildcard gbvp/ctl/*.c gbvp/scenario/*.c gbvp/target/*.c \
	gbvp/agent/*.c)))
FUZZ_FRONT_LIBS := $(FUZZ_LIB_front) $(FUZZ_LIB_sim) $(FUZZ_LIB_ap) $(FUZZ_LIB_switch) \
	$(FUZZ_LIB_vm) $(FUZZ_LIB_unipro) $(FUZZ_LIB_gblink) $(FUZZ_LIB_kernel)

$(eval $(call fuzz_target,fuzz_vm_interface,,$(FUZZ_LIB_vm)))
$(eval $(call fuzz_target,fuzz_behaviour,,$(FUZZ_LIB_vm)))
$(eval $(call fuzz_target,fuzz_svc,,$(FUZZ_LIB_sim) $(FUZZ_LIB_switch) $(FUZZ_LIB_vm) $(FUZZ_LIB_unipro) \
	$(FUZZ_LIB_kernel)))
$(eval $(call fuzz_target,fuzz_gblink,tests/unit/test_gblink_util.c tests/unit/tmp_path.c,$(FUZZ_LIB_gblink)))
$(eval $(call fuzz_target,fuzz_es2,qemu-hw/es2_proto.c,$(FUZZ_LIB_gblink)))
$(eval $(call fuzz_target,fuzz_model,,$(FUZZ_LIB_model) $(FUZZ_LIB_unipro) $(FUZZ_LIB_switch) \
	$(FUZZ_LIB_vm) $(FUZZ_LIB_kernel)))
$(eval $(call fuzz_target,fuzz_control,,$(FUZZ_FRONT_LIBS),$(PKG_LIBS)))
$(eval $(call fuzz_target,fuzz_scenario_api,,$(FUZZ_FRONT_LIBS),$(PKG_LIBS)))

# The manifest readers, straight from their sources (they need nothing else).
FUZZ_TARGETS += $(B)/fuzz/fuzz_manifest_text $(B)/fuzz/fuzz_manifest_binary
$(B)/fuzz/fuzz_manifest_%: tests/fuzz/fuzz_manifest_%.c $(VM_MANIFEST_SRCS) \
		$(wildcard virtual-modules/manifest*.h)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(VM_MANIFEST_SRCS)

.PHONY: fuzz-build
fuzz-build: $(FUZZ_TARGETS)

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
