// SPDX-License-Identifier: MIT
#include "ap-model/ap_gblink.h"

#include <string.h>

#include "gblink/gblink.h"

int tap_gblink_ctl_record(const char *what, uint32_t flags, tap_gblink_ctl *out)
{
    *out = (tap_gblink_ctl){ 0 };
    if (!strcmp(what, "FLAGS")) {
        out->type = GBL_T_CPORT_FLAGS;
        memcpy(out->payload, &flags, sizeof flags);
        out->len = sizeof flags;
    } else if (!strcmp(what, "CONNECTED")) {
        out->type = GBL_T_CPORT_CONNECTED;
    } else if (!strcmp(what, "FLUSH")) {
        out->type = GBL_T_CPORT_FLUSH;
    } else if (!strcmp(what, "CLEAR")) {
        out->type = GBL_T_CPORT_CLEAR;
    } else if (!strcmp(what, "QUIESCE")) {
        gbl_cport_quiesce q = { .peer_space = 9, .timeout_ms = 1000 };
        _Static_assert(sizeof q <= sizeof out->payload, "quiesce payload");
        out->type = GBL_T_CPORT_QUIESCE;
        memcpy(out->payload, &q, sizeof q);
        out->len = sizeof q;
    } else {
        return -1;
    }
    return 0;
}
