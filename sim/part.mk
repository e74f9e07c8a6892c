# SPDX-License-Identifier: MIT
# sim/: the simulator object: the APBridgeA side over gblink, the network assembled from
# the switch and UniPro models, the slots filled with virtual modules, the clock. A library
# the program and the tests link.
SIM_SRCS := sim/simulator.c sim/network.c sim/slots.c
$(eval $(call library,sim,$(SIM_SRCS)))
