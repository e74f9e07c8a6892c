# SPDX-License-Identifier: MIT
# unipro-model/: one UniPro node's stack (PHY/PA timing, DL, L3, L4 CPorts, DME), links
# between two ports, and the message-level arithmetic of the same.
UNIPRO_MODEL_SRCS := unipro-model/up_phy.c unipro-model/up_env.c unipro-model/up_port.c \
	unipro-model/up_link.c unipro-model/up_node.c unipro-model/up_stats.c \
	unipro-model/up_traffic.c unipro-model/up_dme.c \
	unipro-model/up_frame_codec.c unipro-model/up_msg_net.c unipro-model/up_msg_source.c \
	unipro-model/up_msg_wire.c
$(eval $(call library,unipro_model,$(UNIPRO_MODEL_SRCS)))
