// SPDX-License-Identifier: MIT
// A UniPro link: two ports joined by M-PHY lanes in one power mode, with its PHY timing and
// its faults (bit errors, frame drops, link down). Changes of power mode, HIBERN8 and link
// start-up take modelled time, during which no frame moves.
#ifndef GBVP_UNIPRO_MODEL_UP_LINK_H
#define GBVP_UNIPRO_MODEL_UP_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "unipro-model/up_phy.h"
#include "unipro-model/up_port.h"

typedef struct up_fault_cfg {
    double ber;        /* bit error rate on the line (per wire bit, 20 per symbol) */
    double drop;       /* probability a frame vanishes (never reaches the receiver) */
    uint64_t seed;     /* both directions derive their generators from it */
} up_fault_cfg;

typedef struct up_link_cfg {
    up_phy_cfg phy;
    up_phy_params params;
    up_fault_cfg faults;
} up_link_cfg;

typedef enum up_link_state {
    UP_LINK_UP = 0,
    UP_LINK_DOWN,
    UP_LINK_STARTUP,
    UP_LINK_PMC,        /* power mode change in progress */
    UP_LINK_HIBERN8,    /* in HIBERN8 (or entering it) */
    UP_LINK_H8_EXIT,
} up_link_state;

/* up_phy_cfg_default(), up_phy_params_default(), no faults, seed 1. */
up_link_cfg up_link_cfg_default(void);

/* Joins a and b (neither may be linked already); the link starts UP. NULL on a bad config
 * (message in err) or no memory. The caller owns the link. */
up_link *up_link_new(up_env *env, up_port *a, up_port *b, const up_link_cfg *cfg, char *err,
                     size_t errlen);
/* Detaches the ports (frames in flight are dropped) and frees the link. */
void up_link_free(up_link *l);

const up_link_cfg *up_link_get_cfg(const up_link *l);
up_link_state up_link_get_state(const up_link *l);
const char *up_link_state_name(up_link_state s);
up_port *up_link_port(const up_link *l, unsigned side);

/* Changes the fault settings from now on. 0 or -EINVAL (ber/drop outside [0, 1)). */
int up_link_set_faults(up_link *l, const up_fault_cfg *f);
/* Link down: frames on the wire are lost and nothing moves. Link up: the start-up sequence
 * runs (up_phy_startup_time), then both data links resume and replay what was not
 * acknowledged. Either is a no-op when already in that state. */
void up_link_set_down(up_link *l, bool down);
/* Runs the link start-up sequence now (as after power-on): the link is usable after
 * up_phy_startup_time(). */
void up_link_startup(up_link *l);
/* The power mode change the SVC's set-power-mode asks for: frames already on the wire
 * finish, then traffic stops for up_phy_pmc_time() and resumes at the new rates. -EINVAL on
 * a bad config (message in err), -EBUSY while the link is not UP. */
int up_link_set_power_mode(up_link *l, const up_phy_cfg *phy, char *err, size_t errlen);
/* HIBERN8 entry (after the line drains) and exit; -EBUSY when not in a state allowing it. */
int up_link_hibernate(up_link *l, bool enter);
/* Called whenever the link becomes UP again (optional). */
void up_link_set_state_hook(up_link *l, void (*fn)(void *ctx, up_link *l), void *ctx);
/* One data-link frame (or AFC, NAC) that finished crossing the link from side `side` (0
 * or 1, as the ports were given to up_link_new) to the other. */
typedef enum up_dl_kind { UP_DL_DATA = 0, UP_DL_AFC = 1, UP_DL_NAC = 2 } up_dl_kind;

typedef struct up_dl_event {
    unsigned side;          /* the sender's */
    up_dl_kind kind;
    unsigned tc;
    uint32_t seq;           /* data: its sequence number; AFC: the one acknowledged */
    uint32_t len;           /* data: segment payload bytes; AFC: credits granted so far */
    uint16_t dst_cport;     /* data */
    uint8_t dst_dev;        /* data */
    bool replay, crc_error, dropped;
    sim_time start, end;    /* on the wire */
} up_dl_event;

/* Called for every frame, AFC and NAC that reaches the far side (optional; observers only). */
void up_link_set_frame_observer(up_link *l, void (*fn)(void *ctx, up_link *l,
                                                       const up_dl_event *ev), void *ctx);

/* Called on every change of state (up, down, start-up, power mode change, HIBERN8 and its
 * exit), after it took effect (optional; for observers, not for the model's own logic). */
void up_link_set_observer(up_link *l, void (*fn)(void *ctx, up_link *l), void *ctx);

#endif
