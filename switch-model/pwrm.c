// SPDX-License-Identifier: MIT
#include "switch-model/pwrm.h"

#include <errno.h>

#include "unipro-model/up_consts.h"

#define PWRM_UNCHANGED 0x07
#define PWRM_HIBERNATE 0x11
#define PWRM_OFF 0x12

int sw_pwrm_decode(const uint8_t *req, const up_phy_cfg *cur, sw_pwrm_action *action,
                   up_phy_cfg *out)
{
    uint8_t series = req[1], mode = req[2], gear = req[3], lanes = req[4];
    *action = mode == PWRM_UNCHANGED   ? SW_PWRM_KEEP
              : mode == PWRM_HIBERNATE ? SW_PWRM_HIBERNATE
              : mode == PWRM_OFF       ? SW_PWRM_OFF
                                       : SW_PWRM_SET;
    if (*action != SW_PWRM_SET)
        return 0;
    up_phy_cfg c = *cur;
    if (mode == UP_PWRMODE_FAST || mode == UP_PWRMODE_FASTAUTO) {
        c.mode = UP_PHY_HS;
        c.series = series;
    } else if (mode == UP_PWRMODE_SLOW || mode == UP_PWRMODE_SLOWAUTO) {
        c.mode = UP_PHY_PWM;
    } else {
        return -EINVAL;
    }
    c.gear = gear;
    c.lanes = lanes;
    if (up_phy_cfg_check(&c, NULL, 0))
        return -EINVAL;
    *out = c;
    return 0;
}
