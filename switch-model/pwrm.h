// SPDX-License-Identifier: MIT
// The request of the SVC protocol's INTF_SET_PWRM (docs/greybus.md, "INTF_SET_PWRM") as a
// link change:
// what both timed switches (switch_transit.c, frame level; switch_transit_msg.c, message
// level) do with it.
#ifndef GBVP_SWITCH_MODEL_PWRM_H
#define GBVP_SWITCH_MODEL_PWRM_H

#include <stddef.h>
#include <stdint.h>

#include "unipro-model/up_phy.h"

#define SW_PWRM_REQ_LEN 63 /* INTF_SET_PWRM request payload */

typedef enum sw_pwrm_action {
    SW_PWRM_KEEP,      /* UNCHANGED */
    SW_PWRM_SET,       /* FAST / SLOW (AUTO): the new PHY mode */
    SW_PWRM_HIBERNATE,
    SW_PWRM_OFF,
} sw_pwrm_action;

/* Decodes req (SW_PWRM_REQ_LEN bytes) against the link's current mode `cur`; for
 * SW_PWRM_SET, *out is the new mode. -EINVAL for an unknown mode or a gear, series or lane
 * count the PHY does not have. */
int sw_pwrm_decode(const uint8_t *req, const up_phy_cfg *cur, sw_pwrm_action *action,
                   up_phy_cfg *out);

#endif
