# SPDX-License-Identifier: MIT
# gbvp/: the program and its front ends: one file per command (cmd_*.c), the scenario
# engine (scenario/), the control socket (ctl/), `gbvp model`'s networks (model/) and the
# guest agent's client (agent/). Everything but main.c is a library the tests link.
GBVP_FRONTEND_SRCS := $(filter-out gbvp/main.c,$(wildcard gbvp/*.c gbvp/*/*.c))
$(eval $(call library,gbvp,$(GBVP_FRONTEND_SRCS)))
GBVP_SRCS := gbvp/main.c
GBVP_LIBS := $(LIB_gbvp) $(LIB_sim) $(LIB_ap_model) $(LIB_vm) $(LIB_switch_model) \
	$(LIB_unipro_model) $(LIB_gblink) $(LIB_greybus) $(LIB_event_kernel)
