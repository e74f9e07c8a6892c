# SPDX-License-Identifier: MIT
# switch-model/: the switch (routing table; the timed data plane is added by the UniPro
# part as switch*.c) and the SVC (SVC protocol, slots, hot-plug, connection table).

SWITCH_MODEL_SRCS := switch-model/route_table.c
# Parts appending sources (e.g. the timed switch): add them to SWITCH_MODEL_SRCS here,
# above the library line, or declare a library of their own below it.

$(eval $(call library,switch_model,$(SWITCH_MODEL_SRCS)))

$(eval $(call unit_test,test_svc_route_table,tests/unit/test_svc_route_table.c,$(LIB_switch_model)))
