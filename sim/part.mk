# SPDX-License-Identifier: MIT
# sim/: the event kernel, the gbvp program and its orchestration.
GBVP_SRCS += sim/main.c
# What the subcommands share on their command lines and poll loops.
GBVP_SRCS += sim/cli_opts.c sim/stop_signal.c

# The event kernel (sim/kernel.h): its library, unit test and benchmark.
$(eval $(call library,sim_kernel,sim/kernel.c sim/rng.c))
GBVP_LIBS += $(LIB_sim_kernel)
$(eval $(call unit_test,test_kernel,tests/unit/test_kernel.c,$(LIB_sim_kernel)))
$(eval $(call bench,bench_kernel,tests/bench/bench_kernel.c,$(LIB_sim_kernel)))

# `gbvp run` (sim/run_cli.c): the simulator, QEMU and the default demo or a scenario in one
# command; the integration tests that boot the guest against gbvp sim (tests/integration/).
GBVP_SRCS += sim/run_cli.c
INTEGRATION_TESTS += tests/integration/enumeration_test.sh tests/integration/classes_test.sh
