// SPDX-License-Identifier: MIT
#include "unipro-model/up_phy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "unipro-model/up_consts.h"

up_phy_params up_phy_params_default(void)
{
    return (up_phy_params){
        .tx_latency = SIM_NS(20),
        .rx_latency = SIM_NS(40),
        .prepare_si = 15,
        .sync_si = 15,
        .burst_hold = SIM_US(1),
        .hibern8_enter = SIM_US(10),
        .hibern8_exit = SIM_US(100),
        .pmc_reconfig = SIM_US(50),
        .pacp_symbols = 18,
        .startup_base = SIM_US(500),
        .startup_pacp = 8,
    };
}

up_phy_cfg up_phy_cfg_default(void)
{
    return (up_phy_cfg){ .mode = UP_PHY_HS, .gear = 3, .series = UP_SERIES_B, .lanes = 2 };
}

up_phy_cfg up_phy_cfg_startup(void)
{
    return (up_phy_cfg){ .mode = UP_PHY_PWM, .gear = 1, .series = UP_SERIES_A, .lanes = 1 };
}

int up_phy_cfg_check(const up_phy_cfg *c, char *err, size_t errlen)
{
    const char *why = NULL;
    if (c->lanes < 1 || c->lanes > UP_MAX_LANES)
        why = "lanes must be 1 to 4";
    else if (c->mode == UP_PHY_HS && (c->gear < 1 || c->gear > UP_HS_GEARS))
        why = "HS gear must be 1 to 4";
    else if (c->mode == UP_PHY_HS && c->series != UP_SERIES_A && c->series != UP_SERIES_B)
        why = "rate series must be A or B";
    else if (c->mode == UP_PHY_PWM && (c->gear < 1 || c->gear > UP_PWM_GEARS))
        why = "PWM gear must be 1 to 7";
    else if (c->mode != UP_PHY_HS && c->mode != UP_PHY_PWM)
        why = "mode must be HS or PWM";
    if (!why)
        return 0;
    if (err && errlen)
        snprintf(err, errlen, "%s", why);
    return -EINVAL;
}

uint64_t up_phy_lane_rate_kbps(const up_phy_cfg *c)
{
    if (up_phy_cfg_check(c, NULL, 0))
        return 0;
    if (c->mode == UP_PHY_PWM)
        return (uint64_t)9000 << (c->gear - 1);
    uint64_t base = c->series == UP_SERIES_B ? 1457600 : 1248000;
    return base << (c->gear - 1);
}

uint64_t up_phy_symbol_ps_fp16(const up_phy_cfg *c)
{
    uint64_t kbps = up_phy_lane_rate_kbps(c);
    if (!kbps)
        return 0;
    /* one bit at r kbit/s lasts 1e9 / r ps; a symbol is 20 bits; lanes share the symbols */
    uint64_t den = kbps * c->lanes;
    return ((uint64_t)UP_UI_PER_SYMBOL * 1000000000ull * 65536ull + den / 2) / den;
}

double up_phy_data_rate_bps(const up_phy_cfg *c)
{
    return (double)up_phy_lane_rate_kbps(c) * 1000.0 * c->lanes * 0.8;
}

void up_phy_cfg_name(const up_phy_cfg *c, char *buf, size_t len)
{
    if (c->mode == UP_PHY_PWM)
        snprintf(buf, len, "PWM-G%u x%u", c->gear, c->lanes);
    else
        snprintf(buf, len, "HS-G%u%c x%u", c->gear, c->series == UP_SERIES_B ? 'B' : 'A',
                 c->lanes);
}

int up_phy_cfg_parse_gear(up_phy_cfg *c, const char *t)
{
    up_phy_cfg n = *c;
    if (!strncasecmp(t, "HS-G", 4)) {
        n.mode = UP_PHY_HS;
        if (t[4] < '1' || t[4] > '4')
            return -EINVAL;
        n.gear = (uint8_t)(t[4] - '0');
        if (t[5] == 'A' || t[5] == 'a')
            n.series = UP_SERIES_A;
        else if (t[5] == 'B' || t[5] == 'b')
            n.series = UP_SERIES_B;
        else
            return -EINVAL;
        if (t[6])
            return -EINVAL;
    } else if (!strncasecmp(t, "PWM-G", 5)) {
        n.mode = UP_PHY_PWM;
        if (t[5] < '1' || t[5] > '7' || t[6])
            return -EINVAL;
        n.gear = (uint8_t)(t[5] - '0');
    } else {
        return -EINVAL;
    }
    *c = n;
    return 0;
}

/* One symbol interval (10 UI) on a lane, ps. Lanes open their bursts in parallel. */
static double si_ps(const up_phy_cfg *c)
{
    return 10.0 * 1e9 / (double)up_phy_lane_rate_kbps(c);
}

sim_time up_phy_burst_open_time(const up_phy_cfg *c, const up_phy_params *p)
{
    if (!up_phy_lane_rate_kbps(c))
        return 0;
    return (sim_time)(si_ps(c) * (p->prepare_si + p->sync_si + 2) + 0.5);
}

static sim_time pacp_time(const up_phy_cfg *c, const up_phy_params *p)
{
    return up_phy_burst_open_time(c, p) +
           up_phy_symbols_time(up_phy_symbol_ps_fp16(c), p->pacp_symbols);
}

sim_time up_phy_pmc_time(const up_phy_cfg *from, const up_phy_cfg *to, const up_phy_params *p)
{
    return 2 * pacp_time(from, p) + p->pmc_reconfig + up_phy_burst_open_time(to, p);
}

sim_time up_phy_startup_time(const up_phy_params *p)
{
    up_phy_cfg g1 = up_phy_cfg_startup();
    return p->startup_base + p->startup_pacp * pacp_time(&g1, p);
}
