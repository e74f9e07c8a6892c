# SPDX-License-Identifier: MIT
# gblink/: the shared-memory link between QEMU's greybus-es2 device and the simulator.
# The same sources build inside QEMU's meson build (gblink/meson.build).
GBLINK_SRCS := gblink/record.c gblink/ring.c gblink/shm.c gblink/handshake.c gblink/link.c
$(eval $(call library,gblink,$(GBLINK_SRCS)))
