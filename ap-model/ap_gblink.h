// SPDX-License-Identifier: MIT
// The test AP's CPort control requests (tap_transport.cport_ctl) as the gblink records the
// greybus-es2 device sends for them, for transports that reach `gbvp sim` over gblink.
#ifndef GBVP_AP_MODEL_AP_GBLINK_H
#define GBVP_AP_MODEL_AP_GBLINK_H

#include <stdint.h>

typedef struct tap_gblink_ctl {
    uint16_t type;      /* GBL_T_CPORT_* */
    uint32_t len;       /* payload bytes */
    uint8_t payload[4];
} tap_gblink_ctl;

/* The record for `what` ("FLAGS" with flags, "CONNECTED", "FLUSH", "CLEAR", "QUIESCE");
 * -1 for anything else. */
int tap_gblink_ctl_record(const char *what, uint32_t flags, tap_gblink_ctl *out);

#endif
