# SPDX-License-Identifier: MIT
# event-kernel/: the bottom layer. The scheduler interface every model sees time through
# (scheduler.h), gbvp's native discrete-event kernel behind it (event_kernel.h) and the
# seeded generator (rng.h). Includes nothing of the project.
EVENT_KERNEL_SRCS := event-kernel/event_kernel.c event-kernel/rng.c
$(eval $(call library,event_kernel,$(EVENT_KERNEL_SRCS)))
