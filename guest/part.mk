# SPDX-License-Identifier: MIT
# guest/: what runs inside the guest: the agent (guest/agent.c, built static into the
# initramfs by scripts/build-guest.sh), init and the kernel configuration fragments.

# The agent built for the host as well, so the unit tests talk to the real program over a
# socketpair.
GUEST_AGENT := $(B)/guest/gbvp-agent
$(GUEST_AGENT): guest/agent.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

.PHONY: guest
guest:
	scripts/build-guest.sh
