# SPDX-License-Identifier: MIT
# sim/: the event kernel, the gbvp program and its orchestration.
GBVP_SRCS += sim/main.c
