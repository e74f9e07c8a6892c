# SPDX-License-Identifier: MIT
# switch-model/: the switch fabric (routing table, the timed switch and its transits at
# frame and message level, power mode requests as link changes) and the SVC that programs
# it (SVC protocol, slots, hot-plug, connection table).
SWITCH_MODEL_SRCS := switch-model/route_table.c switch-model/switch.c \
	switch-model/switch_transit.c switch-model/switch_transit_msg.c switch-model/pwrm.c \
	switch-model/svc.c switch-model/svc_ops.c switch-model/svc_conn.c switch-model/svc_path.c \
	switch-model/svc_pwrmon.c switch-model/slot.c
$(eval $(call library,switch_model,$(SWITCH_MODEL_SRCS)))
