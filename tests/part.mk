# SPDX-License-Identifier: MIT
# tests/: the CUnit unit tests (tests/unit/), benchmarks (tests/bench/), fuzz targets
# (tests/fuzz/, rules in fuzz.mk) and the integration tests that boot the real guest
# (tests/integration/). Read after every part, so each part's library is known; a test
# links the libraries it needs from that list and nothing is compiled twice.
TEST_LIBS := $(GBVP_LIBS) $(LIB_qemu_hw_es2)

# ---- unit tests, one binary per part or concept ----
$(eval $(call unit_test,test_event_kernel,tests/unit/test_event_kernel.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_gblink,tests/unit/test_gblink.c tests/unit/test_gblink_util.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_gblink_hostile,tests/unit/test_gblink_hostile.c \
	tests/unit/test_gblink_util.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_es2_proto,tests/unit/test_es2_proto.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_link,tests/unit/test_unipro_link.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_msg_wire,tests/unit/test_unipro_msg_wire.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_dme,tests/unit/test_unipro_dme.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_validation,tests/unit/test_unipro_validation.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_identity,tests/unit/test_unipro_identity.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_transit,tests/unit/test_unipro_transit.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_svc_route_table,tests/unit/test_svc_route_table.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_fabric,tests/unit/test_fabric.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_capture,tests/unit/test_capture.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_trace,tests/unit/test_trace.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_svc,tests/unit/test_svc.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_svc_ap,tests/unit/test_svc_ap.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_svc_sim,tests/unit/test_svc_sim.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_bridge_audio,tests/unit/test_bridge_audio.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_sim_bridge,tests/unit/test_sim_bridge.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_bridge_gblink,tests/unit/test_bridge_gblink.c tests/unit/test_gblink_util.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_lockstep,tests/unit/test_lockstep.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_manifest,tests/unit/test_manifest.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_manifest_text,tests/unit/test_manifest_text.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_manifest_rules,tests/unit/test_manifest_rules.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_manifest_cli,tests/unit/test_manifest_cli.c,$(TEST_LIBS)))
VM_TEST_SRCS := tests/unit/test_vm_main.c tests/unit/test_vm_harness.c \
	tests/unit/test_vm_interface.c tests/unit/test_vm_behaviour.c tests/unit/test_vm_gpio.c \
	tests/unit/test_vm_i2c.c tests/unit/test_vm_loopback.c tests/unit/test_vm_power_supply.c \
	tests/unit/test_vm_uart.c tests/unit/test_vm_hid.c tests/unit/test_vm_light.c \
	tests/unit/test_vm_vibrator.c tests/unit/test_vm_robustness.c \
	tests/unit/test_vm_commands.c tests/unit/test_vm_pwm.c \
	tests/unit/test_vm_lograw.c tests/unit/test_vm_spi.c tests/unit/test_vm_firmware.c \
	tests/unit/test_vm_spi_nor.c
VM_TEST_SRCS += tests/unit/test_vm_usb.c tests/unit/test_vm_camera.c
VM_TEST_SRCS += tests/unit/test_vm_sdio.c
VM_TEST_SRCS += tests/unit/test_vm_audio.c
$(eval $(call unit_test,test_vm,$(VM_TEST_SRCS),$(TEST_LIBS)))
$(eval $(call unit_test,test_vm_ap_path,tests/unit/test_vm_ap_path.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_unipro_model_cli,tests/unit/test_unipro_model_cli.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_model_sweep,tests/unit/test_model_sweep.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_scenario,tests/unit/test_scenario.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_target_fields,tests/unit/test_target_fields.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_paths,tests/unit/test_paths.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_cpu_list,tests/unit/test_cpu_list.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_run_cli,tests/unit/test_run_cli.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_sim_cli,tests/unit/test_sim_cli.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_sim_loop,tests/unit/test_sim_loop.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_control,tests/unit/test_control.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_scenario_gbvp,tests/unit/test_scenario_gbvp.c,$(TEST_LIBS)))
$(eval $(call unit_test,test_scenario_link,tests/unit/test_scenario_link.c,$(TEST_LIBS)))
# The agent client talks to the real agent program (guest/part.mk builds it for the host).
$(eval $(call unit_test,test_agent_client,tests/unit/test_agent_client.c,$(TEST_LIBS)))
$(B)/tests/test_agent_client: $(GUEST_AGENT)
$(B)/obj/tests/unit/test_agent_client.o: CPPFLAGS += -DGBVP_TEST_AGENT='"$(abspath $(GUEST_AGENT))"'

# ---- benchmarks: `bench NAME VALUE UNIT` lines ----
# (each links only the layers it measures: what else is in the binary moves their code and
# data, which the event kernel's large-queue figure is sensitive to)
$(eval $(call bench,bench_event_kernel,tests/bench/bench_event_kernel.c,$(LIB_event_kernel)))
$(eval $(call bench,bench_gblink,tests/bench/bench_gblink.c,$(LIB_gblink)))
$(eval $(call bench,bench_unipro,tests/bench/bench_unipro.c,$(LIB_switch_model) \
	$(LIB_unipro_model) $(LIB_greybus) $(LIB_event_kernel)))
$(eval $(call bench,bench_capture,tests/bench/bench_capture.c,$(TEST_LIBS)))
# what lockstep costs: boots the guest (RUNS pairs of gbvp run, realtime and lockstep)
BENCHES += tests/bench/bench_lockstep.sh
# the kernel's loopback_test through QEMU and the simulator: boots the guest
BENCHES += tests/bench/bench_fullsystem.sh

# ---- integration tests: boot the real guest kernel in QEMU ----
INTEGRATION_TESTS += tests/integration/boot_test.sh tests/integration/es2_bridge_test.sh \
	tests/integration/es2_fault_test.sh tests/integration/enumeration_test.sh \
	tests/integration/classes_test.sh tests/integration/run_test.sh
INTEGRATION_TESTS += tests/integration/userland_test.sh
INTEGRATION_TESTS += tests/integration/arm64_test.sh
INTEGRATION_TESTS += tests/integration/firmware_test.sh
INTEGRATION_TESTS += tests/integration/kill_test.sh
INTEGRATION_TESTS += tests/integration/lockstep_test.sh
INTEGRATION_TESTS += tests/integration/clock_test.sh
INTEGRATION_TESTS += tests/integration/sim_valgrind_test.sh
INTEGRATION_TESTS += tests/integration/install_test.sh
INTEGRATION_TESTS += tests/integration/multi_run_test.sh
INTEGRATION_TESTS += tests/integration/storm_test.sh
INTEGRATION_TESTS += tests/integration/classes_more_test.sh
INTEGRATION_TESTS += tests/integration/spinor_test.sh
INTEGRATION_TESTS += tests/integration/sdcard_test.sh
INTEGRATION_TESTS += tests/integration/audio_test.sh
INTEGRATION_TESTS += tests/integration/network_test.sh
INTEGRATION_TESTS += tests/integration/image_test.sh
INTEGRATION_TESTS += tests/integration/android_test.sh
INTEGRATION_TESTS += tests/integration/byo_test.sh
INTEGRATION_TESTS += tests/integration/es2_hostile_test.sh
# es2_peer: a misbehaving gblink server (silent, lying, dropping its side of the bridge) for
# the fault test of the device; built on demand by that test.
ES2_PEER := $(B)/tests/es2_peer
$(ES2_PEER): $(call objs,tests/integration/es2_peer.c) $(LIB_gblink)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# es2_hostile: a gblink server that fills, corrupts and floods the link and withholds or
# garbles lockstep grants, for es2_hostile_test.sh; built on demand by that test.
ES2_HOSTILE := $(B)/tests/es2_hostile
$(ES2_HOSTILE): $(call objs,tests/integration/es2_hostile.c) $(LIB_gblink)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

include tests/fuzz/fuzz.mk
