# SPDX-License-Identifier: MIT
# guest/: the in-guest agent (guest/agent.c, built into the initramfs by
# scripts/build-guest.sh), and with sim/agent_client.c the host side of its channel and the
# `gbvp agent` subcommand (guest/agent_cli.c).
$(eval $(call library,sim_agent,sim/agent_client.c guest/agent_cli.c))
GBVP_LIBS += $(LIB_sim_agent)

# The agent built for the host as well, so the unit tests talk to the real program over a
# socketpair. (The guest's copy is a static binary made by scripts/build-guest.sh.)
GUEST_AGENT := $(B)/guest/gbvp-agent
$(GUEST_AGENT): guest/agent.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

$(eval $(call unit_test,test_agent_client,tests/unit/test_agent_client.c,$(LIB_sim_agent)))
$(B)/tests/test_agent_client: $(GUEST_AGENT)
$(B)/obj/tests/unit/test_agent_client.o: CPPFLAGS += -DGBVP_TEST_AGENT='"$(abspath $(GUEST_AGENT))"'

INTEGRATION_TESTS += tests/integration/boot_test.sh

.PHONY: guest
guest:
	scripts/build-guest.sh
