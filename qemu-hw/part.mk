# SPDX-License-Identifier: MIT
# qemu-hw/: the QEMU device greybus-es2 (GPL-2.0-or-later). The device itself is built
# inside QEMU's tree by scripts/build-qemu.sh; here only its QEMU-free protocol core is
# compiled, for its unit test. Nothing of qemu-hw/ is linked into gbvp.
$(eval $(call library,qemu_hw_es2,qemu-hw/es2_proto.c))
$(eval $(call unit_test,test_es2_proto,tests/unit/test_es2_proto.c,$(LIB_qemu_hw_es2)))

# Builds QEMU with the device (cached), boots the guest with it and `gbvp sim`, kills and
# restarts the simulator.
INTEGRATION_TESTS += tests/integration/es2_bridge_test.sh

# es2_peer: a misbehaving gblink server (silent, lying, dropping its side of the bridge) for
# the fault test of the device; built on demand by that test.
ES2_PEER := $(B)/tests/es2_peer
$(ES2_PEER): $(call objs,tests/integration/es2_peer.c) $(LIB_gblink)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
INTEGRATION_TESTS += tests/integration/es2_fault_test.sh
