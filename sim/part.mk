# SPDX-License-Identifier: MIT
# sim/: the simulator object: the APBridgeA side of the bridge (over gblink or in-process),
# the switch fabric and SVC assembled, the slots filled with virtual modules, the clock and
# the one event loop. A library the program and the tests link.
SIM_SRCS := sim/simulator.c sim/slots.c sim/bridge.c sim/bridge_audio.c sim/bridge_gblink.c \
	sim/loop.c sim/capture.c sim/trace.c sim/lockstep.c sim/output_file.c
$(eval $(call library,sim,$(SIM_SRCS)))
