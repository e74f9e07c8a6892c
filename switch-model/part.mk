# SPDX-License-Identifier: MIT
# switch-model/: the switch (routing table; the timed data plane is added by the UniPro
# part as switch*.c) and the SVC (SVC protocol, slots, hot-plug, connection table).

SWITCH_MODEL_SRCS := switch-model/route_table.c switch-model/svc.c switch-model/svc_ops.c \
	switch-model/svc_conn.c switch-model/svc_path.c switch-model/svc_pwrmon.c switch-model/slot.c \
	switch-model/slot_vm.c
# Parts appending sources (e.g. the timed switch): add them to SWITCH_MODEL_SRCS here,
# above the library line, or declare a library of their own below it.
# The timed switch data plane (owned by the UniPro model helper).
SWITCH_MODEL_SRCS += switch-model/switch.c switch-model/switch_transit.c switch-model/pwrm.c
# Its message-level counterpart, for `gbvp sim --timing message`.
SWITCH_MODEL_SRCS += switch-model/switch_transit_msg.c

$(eval $(call library,switch_model,$(SWITCH_MODEL_SRCS)))

$(eval $(call unit_test,test_svc_route_table,tests/unit/test_svc_route_table.c,$(LIB_switch_model)))

# The test AP driver (tests/ap/): the AP side as Linux 6.1 does it, for the SVC tests.
TEST_AP_SRCS := tests/ap/ap.c tests/ap/ap_conn.c tests/ap/ap_intf.c tests/ap/ap_gblink.c
$(eval $(call library,test_ap,$(TEST_AP_SRCS)))

$(eval $(call unit_test,test_svc,tests/unit/test_svc.c,$(LIB_switch_model) $(B)/lib/libvm.a))
$(eval $(call unit_test,test_svc_ap,tests/unit/test_svc_ap.c,$(LIB_test_ap) $(LIB_switch_model) $(B)/lib/libvm.a))

# `gbvp sim` (sim/gbvp_sim.c, sim/sim_cli.c are owned by the switch-model part).
# sim/gbvp_net.c: its timed network (--timing frame) on switch_transit.
GBVP_SRCS += sim/gbvp_sim.c sim/gbvp_net.c sim/sim_cli.c
GBVP_LIBS += $(LIB_switch_model)
$(eval $(call unit_test,test_svc_sim,tests/unit/test_svc_sim.c sim/gbvp_sim.c sim/gbvp_net.c,$(LIB_test_ap) $(LIB_switch_model) $(B)/lib/libvm.a $(LIB_gblink) $(LIB_unipro_model) $(LIB_sim_kernel)))
