# SPDX-License-Identifier: MIT
# switch-model/: the switch fabric (endpoints, connection and routing tables, direct
# delivery or the timed switch and links at frame or message level, power mode requests as
# link changes) and the SVC that programs it (SVC protocol, slots, hot-plug).
SWITCH_MODEL_SRCS := switch-model/sw_log.c switch-model/route_table.c \
	switch-model/conn_table.c switch-model/switch.c switch-model/switch_transit.c \
	switch-model/switch_transit_msg.c switch-model/pwrm.c switch-model/fabric.c \
	switch-model/fabric_report.c switch-model/svc.c switch-model/svc_ops.c \
	switch-model/svc_pwrmon.c switch-model/svc_slots.c
$(eval $(call library,switch_model,$(SWITCH_MODEL_SRCS)))
