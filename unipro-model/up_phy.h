// SPDX-License-Identifier: MIT
// M-PHY and PHY adapter timing: line rates per gear and series, lanes, 8b10b, burst framing,
// HIBERN8, power mode change and link start-up durations (docs/unipro.md, "M-PHY line
// rates", "Bursts and line states", "HIBERN8", "Power mode change", "Link start-up").
// Pure arithmetic: no state, no clock.
#ifndef GBVP_UNIPRO_MODEL_UP_PHY_H
#define GBVP_UNIPRO_MODEL_UP_PHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"

typedef enum up_phy_mode { UP_PHY_HS = 0, UP_PHY_PWM = 1 } up_phy_mode;

/* The power mode of one link (both directions use it). */
typedef struct up_phy_cfg {
    up_phy_mode mode;
    uint8_t gear;   /* HS 1..4, PWM 1..7 */
    uint8_t series; /* UP_SERIES_A or UP_SERIES_B (HS only; ignored for PWM) */
    uint8_t lanes;  /* 1..4 */
} up_phy_cfg;

/* Timing parameters of the PHY and PA that are not fixed by the power mode. All [E]
 * defaults from docs/unipro.md, "PHY model defaults" (up_phy_params_default). */
typedef struct up_phy_params {
    sim_time tx_latency;      /* serializer + coder + driver */
    sim_time rx_latency;      /* CDR + deserializer + decoder (wire flight included) */
    unsigned prepare_si;      /* PREPARE length in symbol intervals (10 UI) */
    unsigned sync_si;         /* SYNC length in symbol intervals */
    sim_time burst_hold;      /* an idle TX keeps its burst open (fillers) this long */
    sim_time hibern8_enter;   /* time to enter HIBERN8 after the line drained */
    sim_time hibern8_exit;    /* time to leave HIBERN8 (PA_TActivate + PLL) */
    sim_time pmc_reconfig;    /* PHY reconfiguration / PLL relock during a power mode change */
    unsigned pacp_symbols;    /* symbols of one PACP frame */
    sim_time startup_base;    /* LINE-RESET, lane discovery and trigger handshakes */
    unsigned startup_pacp;    /* PACP frames exchanged at PWM-G1 during start-up */
} up_phy_params;

up_phy_params up_phy_params_default(void);

/* HS-G3 series B, 2 lanes: the Ara "10 Gb/s" setting. */
up_phy_cfg up_phy_cfg_default(void);
/* PWM-G1, 1 lane: the mode after link start-up. */
up_phy_cfg up_phy_cfg_startup(void);

/* 0 when valid; otherwise -EINVAL and a message naming the bad field in err. */
int up_phy_cfg_check(const up_phy_cfg *c, char *err, size_t errlen);

/* Line rate of one lane in kbit/s (before 8b10b): HS A 1248000 << (gear-1), HS B 1457600 <<
 * (gear-1); PWM at the top of each gear's range, 9000 << (gear-1). 0 for a bad config. */
uint64_t up_phy_lane_rate_kbps(const up_phy_cfg *c);

/* Fixed-point picoseconds per symbol over all lanes, scaled by 2^16: a 16-bit symbol is
 * 20 UI on one lane and symbols are striped over the lanes. */
uint64_t up_phy_symbol_ps_fp16(const up_phy_cfg *c);
static inline sim_time up_phy_symbols_time(uint64_t ps_fp16, uint64_t symbols)
{
    return (sim_time)((symbols * ps_fp16 + 0x8000u) >> 16);
}
/* UniPro payload capacity after 8b10b over all lanes, bit/s. */
double up_phy_data_rate_bps(const up_phy_cfg *c);
/* Text such as "HS-G3B x2" or "PWM-G1 x1". */
void up_phy_cfg_name(const up_phy_cfg *c, char *buf, size_t len);
/* Parses "HS-G3B", "hs-g3b", "PWM-G2" (gear and series only; lanes untouched). 0 or -EINVAL. */
int up_phy_cfg_parse_gear(up_phy_cfg *c, const char *text);

/* Opening a burst after idle: PREPARE + SYNC + start marker (2 SI), 1 SI = 10 UI per lane. */
sim_time up_phy_burst_open_time(const up_phy_cfg *c, const up_phy_params *p);
/* A power mode change from `from` to `to`: request and confirm PACP frames in the old
 * mode (each opening its own burst), PHY reconfiguration, then a burst in the new mode. */
sim_time up_phy_pmc_time(const up_phy_cfg *from, const up_phy_cfg *to, const up_phy_params *p);
/* Link start-up: base time + the PACP capability exchange at PWM-G1 x1. */
sim_time up_phy_startup_time(const up_phy_params *p);

#endif
