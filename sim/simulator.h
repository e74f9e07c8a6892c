// SPDX-License-Identifier: MIT
// `gbvp sim`: the simulator for the QEMU path. sim/simulator.c holds the simulator object (a
// gblink server, the APBridgeA side, the SVC, slots and catalog modules); gbvp/cmd_sim.c the
// command line and the poll loop.
#ifndef GBVP_SIM_SIM_CLI_H
#define GBVP_SIM_SIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "event-kernel/scheduler.h"
#include "switch-model/svc.h"
#include "unipro-model/up_phy.h"

typedef struct sim_gbvp sim_gbvp;

/* How simulated time relates to the wall clock (DESIGN.md, contract 1). */
typedef enum sim_gbvp_clock {
    SIM_CLOCK_REALTIME = 0, /* paced: events run when the wall clock reaches their time */
    SIM_CLOCK_FAST,         /* unpaced: the clock jumps to the next event */
} sim_gbvp_clock;

/* Whether Greybus messages cross the UniPro timing model (docs/timing-in-sim.md). */
typedef enum sim_gbvp_timing {
    SIM_TIMING_OFF = 0,     /* delivered at once (functional path) */
    SIM_TIMING_FRAME,       /* frame-level links and switch (switch-model/switch_transit.h) */
    SIM_TIMING_MESSAGE,     /* message-level (switch-model/switch_transit_msg.h) */
} sim_gbvp_timing;

typedef struct sim_gbvp_config {
    const char *link_path;   /* gblink Unix socket */
    unsigned num_slots;
    const char *catalog_dir; /* NULL = virtual-modules/catalog */
    gb_svc_log_level log_level;
    uint16_t cport_count;    /* APBridgeA hd CPorts; 0 = 44 */
    sim_gbvp_clock clock;
    sim_gbvp_timing timing;
    up_phy_cfg link;         /* every link at start; gear 0 = PWM-G1 x1 (after link start-up) */
    double ber;              /* bit error rate on every link (timing on) */
    uint64_t seed;           /* fault generators; 0 = 1 */
} sim_gbvp_config;

/* NULL with a reason in err. The caller owns the result. */
sim_gbvp *sim_gbvp_new(const sim_gbvp_config *cfg, char *err, size_t errlen);
void sim_gbvp_free(sim_gbvp *s);
/* The descriptor to poll for readability. */
int sim_gbvp_fd(const sim_gbvp *s);
/* Does all pending link work and lets the SVC see the time. now in picoseconds. */
void sim_gbvp_process(sim_gbvp *s, sim_time now);
/* Inserts catalog module `name` into `slot` / removes the module in `slot`. 0 or -errno
 * with the reason logged. */
int sim_gbvp_insert(sim_gbvp *s, unsigned slot, const char *name, sim_time now);
int sim_gbvp_remove(sim_gbvp *s, unsigned slot, sim_time now);
/* Runs a backend command line (virtual-modules/backend_cmd.h, e.g. "gpio set 3 1") on
 * interface `index` (0-based) of the module in `slot`, at the time of the last process or
 * insert call. 0 with the answer in reply, or -1 with the reason. */
int sim_gbvp_command(sim_gbvp *s, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len);
/* Prints the slots, interfaces and connections (and the timing statistics). */
void sim_gbvp_status(sim_gbvp *s);
gb_svc *sim_gbvp_svc(sim_gbvp *s);

/* The simulated time (picoseconds) the simulator has reached. */
sim_time sim_gbvp_now(const sim_gbvp *s);
/* The time of the next pending event; false when none is. */
bool sim_gbvp_next_event(sim_gbvp *s, sim_time *out);
/* The clock for the poll loop, given the wall clock `wall` (ps since start): realtime:
 * max(wall, now); fast: the next event's time, or now when nothing is pending. Pass the
 * result to sim_gbvp_process. */
sim_time sim_gbvp_clock_now(sim_gbvp *s, sim_time wall);
/* How long the poll loop may sleep: realtime: until the next event is due (at most
 * 100 ms); fast: 0 with events pending, else 100 ms. */
struct timespec sim_gbvp_poll_timeout(sim_gbvp *s, sim_time wall);
/* The timing model's statistics as JSON to `path`. 0, or -errno with the reason logged;
 * -ENOTSUP when timing is off. */
int sim_gbvp_write_stats(sim_gbvp *s, const char *path);
/* Parses --clock / --timing values. 0 or -EINVAL. */
int sim_gbvp_parse_clock(const char *text, sim_gbvp_clock *out);
int sim_gbvp_parse_timing(const char *text, sim_gbvp_timing *out);
/* Parses --gear / --series / --lanes (each may be NULL) into c. 0 or -EINVAL with the
 * reason in err. */
int sim_gbvp_parse_link(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                        char *err, size_t errlen);

#endif
