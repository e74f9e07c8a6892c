# SPDX-License-Identifier: MIT
# ap-model/: the AP side of Greybus exactly as Linux 6.1 performs it (the test AP), which
# the test-ap and gbvp-sim targets and the tests enumerate modules with.
AP_MODEL_SRCS := ap-model/ap.c ap-model/ap_conn.c ap-model/ap_intf.c ap-model/ap_gblink.c
$(eval $(call library,ap_model,$(AP_MODEL_SRCS)))
