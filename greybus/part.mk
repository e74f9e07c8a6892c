# SPDX-License-Identifier: MIT
# greybus/: the Greybus wire vocabulary: the message header and its parsed form, operation
# types and protocol constants, the SVC protocol's layouts. No behaviour.
GREYBUS_SRCS := greybus/gb_message.c greybus/gb_names.c
$(eval $(call library,greybus,$(GREYBUS_SRCS)))
