# SPDX-License-Identifier: MIT
# virtual-modules/: module and interface models, manifests, control and class protocols,
# the module catalog. Every source of the library is one `VM_SRCS += file.c` line, above
# the $(eval) that declares the library.
VM_SRCS :=
# Manifests (text and binary readers, writers, checks, `gbvp manifest`): also a library of
# their own, so that their tests and fuzz targets build whatever state the rest is in.
VM_MANIFEST_SRCS := virtual-modules/manifest.c virtual-modules/manifest_binary.c \
	virtual-modules/manifest_check.c virtual-modules/manifest_diag.c \
	virtual-modules/manifest_ini.c virtual-modules/manifest_text.c \
	virtual-modules/manifest_text_write.c
VM_SRCS += $(VM_MANIFEST_SRCS)
VM_SRCS += virtual-modules/manifest_cli.c
VM_SRCS += virtual-modules/gb_message.c
VM_SRCS += virtual-modules/vm_error.c
VM_SRCS += virtual-modules/behaviour.c
VM_SRCS += virtual-modules/dme.c
VM_SRCS += virtual-modules/vm_interface.c
VM_SRCS += virtual-modules/control.c
VM_SRCS += virtual-modules/vm_class.c
VM_SRCS += virtual-modules/gpio.c
VM_SRCS += virtual-modules/i2c.c
VM_SRCS += virtual-modules/uart.c
VM_SRCS += virtual-modules/uart_pty.c
VM_SRCS += virtual-modules/loopback.c
VM_SRCS += virtual-modules/power_supply.c
VM_SRCS += virtual-modules/vibrator.c
VM_SRCS += virtual-modules/light.c
VM_SRCS += virtual-modules/hid.c
VM_SRCS += virtual-modules/pwm.c
VM_SRCS += virtual-modules/log.c
VM_SRCS += virtual-modules/raw.c
VM_SRCS += virtual-modules/spi.c
VM_SRCS += virtual-modules/vm_module.c
VM_SRCS += virtual-modules/module_cli.c
VM_SRCS += virtual-modules/backend_cmd.c
$(eval $(call library,vm,$(VM_SRCS)))
GBVP_LIBS += $(LIB_vm)

# ---- interfaces, control and class protocols: one unit test binary, a suite per file ----
VM_TEST_SRCS := tests/unit/test_vm_main.c tests/unit/test_vm_harness.c \
	tests/unit/test_vm_interface.c tests/unit/test_vm_behaviour.c tests/unit/test_vm_gpio.c \
	tests/unit/test_vm_i2c.c tests/unit/test_vm_loopback.c tests/unit/test_vm_power_supply.c \
	tests/unit/test_vm_uart.c tests/unit/test_vm_hid.c tests/unit/test_vm_light.c \
	tests/unit/test_vm_vibrator.c tests/unit/test_vm_robustness.c \
	tests/unit/test_vm_commands.c tests/unit/test_vm_pwm.c \
	tests/unit/test_vm_lograw.c tests/unit/test_vm_spi.c
$(eval $(call unit_test,test_vm,$(VM_TEST_SRCS),$(LIB_vm)))

# ---- manifests: library, unit tests, fuzz targets ----
$(eval $(call library,vm_manifest,$(VM_MANIFEST_SRCS) virtual-modules/manifest_cli.c))
$(eval $(call unit_test,test_manifest,tests/unit/test_manifest.c,$(LIB_vm_manifest)))
$(eval $(call unit_test,test_manifest_text,tests/unit/test_manifest_text.c,$(LIB_vm_manifest)))
$(eval $(call unit_test,test_manifest_rules,tests/unit/test_manifest_rules.c,$(LIB_vm_manifest)))
$(eval $(call unit_test,test_manifest_cli,tests/unit/test_manifest_cli.c,$(LIB_vm_manifest)))

# libFuzzer targets, built with $(FUZZ_CC) straight from the sources into $(B)/fuzz/;
# `make fuzz` runs each with the seeds in tests/fuzz/corpus/<target>/.
VM_MANIFEST_HDRS := $(wildcard virtual-modules/manifest*.h)
FUZZ_TARGETS += $(B)/fuzz/fuzz_manifest_text $(B)/fuzz/fuzz_manifest_binary
$(B)/fuzz/fuzz_manifest_%: tests/fuzz/fuzz_manifest_%.c $(VM_MANIFEST_SRCS) $(VM_MANIFEST_HDRS)
	@mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(VM_MANIFEST_SRCS)

# Module-originated traffic through the SVC's slots and data path to the test AP
# (tests/ap/ and the switch-model library come from switch-model/part.mk).
$(eval $(call unit_test,test_vm_ap_path,tests/unit/test_vm_ap_path.c,$(LIB_test_ap) $(LIB_switch_model) $(LIB_vm)))
