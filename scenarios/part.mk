# SPDX-License-Identifier: MIT
# scenarios/: the Lua scenarios. `make scenarios` runs every one on the simulator-only
# targets (reports validated), the deliberately broken one, and `gbvp ctl` against a
# running simulator; scenarios/guest_test.sh runs them against the real guest.
# Every scenario in scenarios/ against the simulator with the test AP (no QEMU), then the
# deliberately broken one, which must fail and name its line.
SCENARIO_JOBS ?= 2
.PHONY: scenarios
scenarios: $(B)/gbvp
	$(Q)$(B)/gbvp test -j $(SCENARIO_JOBS) --artifacts $(B)/scenario-artifacts \
		--junit $(B)/scenarios.xml scenarios
	$(Q)echo "the same scenarios through gbvp sim's simulator object and a real gblink link:"
	$(Q)$(B)/gbvp test -j $(SCENARIO_JOBS) --artifacts $(B)/scenario-artifacts-gbvp-sim \
		--junit $(B)/scenarios-gbvp-sim.xml --target gbvp-sim scenarios
	$(Q)echo "the same with the UniPro timing model (gbvp.link, gbvp.fault; --timing frame):"
	$(Q)$(B)/gbvp test -j $(SCENARIO_JOBS) --artifacts $(B)/scenario-artifacts-timing \
		--junit $(B)/scenarios-timing.xml --target gbvp-sim --timing frame scenarios
	$(Q)rm -rf $(B)/runner-check && if $(B)/gbvp test --artifacts $(B)/runner-check \
		tests/scenarios >$(B)/runner-check.out 2>&1; then \
		echo "gbvp test passed a failing scenario"; exit 1; fi; \
		grep -q '^0 passed, 1 failed$$' $(B)/runner-check.out && \
		grep -q 'broken.lua:7:' $(B)/runner-check/001-broken/log && \
		grep -q '^# gbvp scenario: tests/scenarios/broken.lua: .*broken.lua:7:' \
			$(B)/runner-check.out || \
		{ echo "gbvp test did not report or keep the failing scenario:"; \
		  cat $(B)/runner-check.out; exit 1; }; \
		echo "gbvp test reports a failing scenario, says why and keeps its log: ok"
	$(Q)if $(B)/gbvp scenario tests/scenarios/broken.lua >$(B)/broken.tap 2>$(B)/broken.err; \
		then echo "broken.lua passed but must fail"; exit 1; fi; \
		grep -q 'tests/scenarios/broken.lua:[0-9]*:' $(B)/broken.err || \
		{ echo "broken.lua's error does not name its line:"; cat $(B)/broken.err; exit 1; }; \
		echo "broken.lua fails as it must: $$(head -1 $(B)/broken.err)"
	$(Q)bash scenarios/ctl_test.sh $(B)/gbvp
	$(Q)$(B)/gbvp scenario scenarios/hotplug_basic.lua >$(B)/hotplug_basic.tap 2>/dev/null
	$(Q)scripts/validate-reports.sh --tap $(B)/hotplug_basic.tap --tap $(B)/broken.tap \
		--junit $(B)/scenarios.xml --junit $(B)/scenarios-gbvp-sim.xml \
		--junit $(B)/scenarios-timing.xml

# The same scenarios against the real guest in QEMU (make integration).
INTEGRATION_TESTS += scenarios/guest_test.sh
