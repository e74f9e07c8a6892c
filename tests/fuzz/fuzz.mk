# SPDX-License-Identifier: MIT
# libFuzzer targets for every parser of untrusted input besides manifests (those are in
# virtual-modules/part.mk). Included by the top-level Makefile after the parts, so the
# parts' source lists are known. Objects are built once with $(FUZZ_CC) $(FUZZ_CFLAGS)
# into $(B)/fuzz/obj/ and shared by the targets; see tests/fuzz/README.md.

FUZZ_OBJ := $(B)/fuzz/obj
fuzz_objs = $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(1))

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# fuzz_target NAME SOURCES: $(B)/fuzz/NAME from tests/fuzz/NAME.c and SOURCES.
define fuzz_target
FUZZ_TARGETS += $(B)/fuzz/$(1)
$(B)/fuzz/$(1): $(call fuzz_objs,tests/fuzz/$(1).c $(2))
	@mkdir -p $$(@D)
	$$(Q)$$(FUZZ_CC) $$(FUZZ_CFLAGS) -o $$@ $$^ -lm -lpthread -lutil
endef

FUZZ_VM_SRCS := $(filter-out virtual-modules/manifest_cli.c virtual-modules/module_cli.c,$(VM_SRCS))

$(eval $(call fuzz_target,fuzz_vm_interface,$(FUZZ_VM_SRCS)))
$(eval $(call fuzz_target,fuzz_behaviour,$(FUZZ_VM_SRCS)))
$(eval $(call fuzz_target,fuzz_svc,$(filter-out switch-model/switch.c,$(SWITCH_MODEL_SRCS)) \
	$(FUZZ_VM_SRCS)))
$(eval $(call fuzz_target,fuzz_gblink,$(GBLINK_SRCS) tests/unit/test_gblink_util.c))
$(eval $(call fuzz_target,fuzz_es2,qemu-hw/es2_proto.c gblink/record.c))
$(eval $(call fuzz_target,fuzz_model,$(filter-out unipro-model/model_cli.c,$(UP_MODEL_CLI_SRCS)) \
	$(UNIPRO_MODEL_SRCS) $(SWITCH_MODEL_SRCS) $(FUZZ_VM_SRCS) sim/kernel.c))

.PHONY: fuzz-build
fuzz-build: $(FUZZ_TARGETS)

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
