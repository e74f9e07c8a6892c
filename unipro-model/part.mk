# SPDX-License-Identifier: MIT
# unipro-model/: one UniPro node's stack (PHY/PA timing, DL, L3, L4 CPorts, DME) and links.
UNIPRO_MODEL_SRCS := unipro-model/up_phy.c unipro-model/up_env.c unipro-model/up_port.c \
	unipro-model/up_link.c unipro-model/up_node.c unipro-model/up_stats.c \
	unipro-model/up_traffic.c unipro-model/up_dme.c \
	unipro-model/up_frame_codec.c unipro-model/up_fast.c unipro-model/up_fast_source.c \
	unipro-model/up_msg_wire.c
$(eval $(call library,unipro_model,$(UNIPRO_MODEL_SRCS)))

# `gbvp model` sits on top of the UniPro model and the switch, in a library of its own so
# the model itself does not depend on the switch (switch-model/part.mk is read after this).
UP_MODEL_CLI_SRCS := unipro-model/model_topo.c unipro-model/model_net.c unipro-model/model_cli.c \
	unipro-model/model_fast.c
$(eval $(call library,up_model_cli,$(UP_MODEL_CLI_SRCS)))
GBVP_LIBS += $(LIB_up_model_cli) $(B)/lib/libswitch_model.a $(LIB_unipro_model)

# switch-model/part.mk is read after this file: name its library by path.
UNIPRO_TEST_LIBS := $(B)/lib/libswitch_model.a $(LIB_unipro_model) $(LIB_sim_kernel)
$(eval $(call unit_test,test_unipro_model_cli,tests/unit/test_unipro_model_cli.c,$(LIB_up_model_cli) $(UNIPRO_TEST_LIBS)))
$(eval $(call unit_test,test_unipro_validation,tests/unit/test_unipro_validation.c,$(UNIPRO_TEST_LIBS)))
$(eval $(call unit_test,test_unipro_link,tests/unit/test_unipro_link.c,$(UNIPRO_TEST_LIBS)))
$(eval $(call unit_test,test_unipro_msg_wire,tests/unit/test_unipro_msg_wire.c,$(UNIPRO_TEST_LIBS)))
$(eval $(call bench,bench_unipro,tests/bench/bench_unipro.c,$(UNIPRO_TEST_LIBS)))
$(eval $(call unit_test,test_unipro_dme,tests/unit/test_unipro_dme.c,$(UNIPRO_TEST_LIBS)))
$(eval $(call unit_test,test_unipro_transit,tests/unit/test_unipro_transit.c,$(UNIPRO_TEST_LIBS)))
