# SPDX-License-Identifier: MIT
# qemu-hw/: the QEMU device greybus-es2 (GPL-2.0-or-later). The device itself is built
# inside QEMU's tree by scripts/build-qemu.sh; here only its QEMU-free protocol core is
# compiled, for its unit test and fuzz target. Nothing of qemu-hw/ is linked into gbvp.
QEMU_HW_SRCS := qemu-hw/es2_proto.c
$(eval $(call library,qemu_hw_es2,$(QEMU_HW_SRCS)))
