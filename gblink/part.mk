# SPDX-License-Identifier: MIT
# gblink/: the shared-memory link between QEMU's greybus-es2 device and the simulator.
# The same sources build inside QEMU's meson build (gblink/meson.build).
GBLINK_SRCS := gblink/record.c gblink/ring.c gblink/shm.c gblink/handshake.c gblink/link.c
$(eval $(call library,gblink,$(GBLINK_SRCS)))
GBVP_LIBS += $(LIB_gblink)

$(eval $(call unit_test,test_gblink,tests/unit/test_gblink.c tests/unit/test_gblink_util.c,$(LIB_gblink)))
$(eval $(call bench,bench_gblink,tests/bench/bench_gblink.c,$(LIB_gblink)))
