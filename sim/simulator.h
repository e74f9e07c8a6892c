// SPDX-License-Identifier: MIT
// The simulator object: what `gbvp sim` runs and every front end drives. It assembles the
// parts into one Ara frame: the switch fabric (switch-model/fabric.h) with its timing, the
// SVC, the slots filled with catalog modules (slots.h), and the APBridgeA side of the
// bridge (bridge.h), which the AP reaches over gblink (QEMU's greybus-es2 device, or the
// test AP across a real gblink connection) or directly from this process (the test AP).
//
// Time comes from an event kernel (event-kernel/event_kernel.h). The owner says how far
// the clock may go (sim_simulator_process): due events run first, then what the AP and the
// modules' backends sent is handled at that time. The loop (loop.h) picks that time from
// the wall clock (realtime) or the next event (unpaced).
#ifndef GBVP_SIM_SIMULATOR_H
#define GBVP_SIM_SIMULATOR_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "event-kernel/scheduler.h"
#include "sim/bridge.h"
#include "sim/bridge_gblink.h"
#include "sim/lockstep.h"
#include "switch-model/fabric.h"
#include "switch-model/svc.h"
#include "unipro-model/up_phy.h"
#include "virtual-modules/vm_interface.h"
#include "virtual-modules/vm_reply.h"

typedef struct sim_simulator sim_simulator;

/* How simulated time relates to the wall clock (docs/timing-in-sim.md). */
typedef enum sim_clock {
    SIM_CLOCK_REALTIME = 0, /* paced: events run when the wall clock reaches their time */
    SIM_CLOCK_UNPACED,      /* the clock jumps to the next event (runs without QEMU) */
    SIM_CLOCK_STEPPED,      /* time moves only when the owner says (sim_simulator_process):
                             * an AP in this process keeps the clock (the test AP) */
    SIM_CLOCK_LOCKSTEP,     /* time follows QEMU's virtual clock through gblink time grants
                             * (docs/timing-in-sim.md, "Lockstep"); needs link_path */
} sim_clock;

/* "realtime", "unpaced", "stepped" or "lockstep" (all but "stepped" are words of --clock). */
const char *sim_clock_name(sim_clock c);
/* 0, or -1 for a word that names no clock. */
int sim_clock_parse(const char *name, sim_clock *out);

typedef struct sim_config {
    const char *link_path;   /* gblink socket the AP connects to; NULL: the AP is in this
                              * process (sim_simulator_bridge, sim_bridge_set_sink) */
    unsigned num_slots;      /* 1..GB_SVC_SLOTS_MAX; 0 = 4 */
    const char *catalog_dir; /* NULL = virtual-modules/catalog */
    sw_log_level log_level;  /* lines above it are not printed */
    FILE *log;               /* where log lines go; NULL = standard error */
    uint16_t cport_count;    /* APBridgeA hd CPorts; 0 = 44 */
    sim_clock clock;
    sim_lockstep_cfg lockstep; /* SIM_CLOCK_LOCKSTEP's quanta; 0 = the defaults */
    sw_timing timing;
    up_phy_cfg link;         /* every link at start; gear 0 = PWM-G1 x1 (after link start-up) */
    double ber;              /* bit error rate on every link (frame timing) */
    uint64_t seed;           /* fault generators; 0 = 1 */
    const char *pcap_path;   /* capture every message from the start (docs/tracing.md) */
    bool pcap_frames;        /* captures hold every data-link frame too (frame timing) */
    const char *trace_path;  /* write a timeline from the start (docs/tracing.md) */
} sim_config;

/* Options of cfg that cannot go together (frames in a capture without a frame-level
 * capture, bit errors without frame timing): 0, or -EINVAL with the reason, naming the
 * options, in err. sim_simulator_new refuses the same; a command line checks first, to
 * call it bad usage. */
int sim_config_check(const sim_config *cfg, char *err, size_t errlen);
/* NULL with a reason in err. The caller owns the result. */
sim_simulator *sim_simulator_new(const sim_config *cfg, char *err, size_t errlen);
void sim_simulator_free(sim_simulator *s);
const sim_config *sim_simulator_config(const sim_simulator *s);

/* ---- time ---- */

/* The simulated time (picoseconds) the simulator has reached. */
sim_time sim_simulator_now(const sim_simulator *s);
/* Runs the events due up to `until` (never backwards), then handles what the AP and the
 * modules' backends sent, and lets the SVC see the time. */
void sim_simulator_process(sim_simulator *s, sim_time until);
/* Lockstep: a front end (the control socket's driving client) holds the clock at `until`:
 * QEMU is granted no time beyond it (SIM_TIME_MAX: no hold). Takes effect at the next
 * sim_simulator_process. Ignored by the other clocks. */
void sim_simulator_hold(sim_simulator *s, sim_time until);
/* Lockstep: the grant statistics (zero for the other clocks). */
void sim_simulator_lockstep_stats(const sim_simulator *s, sim_lockstep_stats *out);
/* The time of the next pending event; false when none is. */
bool sim_simulator_next_event(sim_simulator *s, sim_time *out);
/* The clock for a loop that has run `wall` (ps): realtime: max(wall, now); unpaced: the
 * next event's time, or now when nothing is pending; stepped and lockstep: now (in lockstep
 * QEMU's reports move it). Pass it to sim_simulator_process. */
sim_time sim_simulator_clock_now(sim_simulator *s, sim_time wall);
/* Realtime: the wall clock the owner's loop paces by (the `wall` of sim_simulator_clock_now;
 * NULL: none). With it, every record from QEMU is handled at the clock as it is read: a
 * pass's time is taken before the ring is read, and a record written meanwhile would
 * otherwise enter the network before the guest sent it (the guest would see a round trip
 * shorter than the model's). Ignored by the other clocks. */
void sim_simulator_set_wall_clock(sim_simulator *s, sim_time (*wall)(void *ctx), void *ctx);
/* How long a loop at `wall` may wait for input before the clock needs it: realtime: until
 * the next event is due; unpaced: 0 with events pending; otherwise (and stepped, lockstep)
 * SIM_TIME_MAX. */
sim_time sim_simulator_idle_for(sim_simulator *s, sim_time wall);
/* The descriptors the simulator reads (the gblink socket, the modules' ptys): at most cap
 * written (POLLIN), the number it has returned. */
size_t sim_simulator_pollfds(const sim_simulator *s, struct pollfd *fds, size_t cap);
/* What the loop's poll found on the descriptors sim_simulator_pollfds gave it (n of them,
 * revents filled), for the next sim_simulator_process only: a quiet gblink descriptor with
 * nothing in the ring spares that pass gblink's own system call. Without it (tests that
 * call sim_simulator_process alone) every pass looks. */
void sim_simulator_polled(sim_simulator *s, const struct pollfd *fds, size_t n);
/* Whether QEMU has written records the next sim_simulator_process would take (read from the
 * gblink ring alone, no system call): what a loop busy-polls before it sleeps. */
bool sim_simulator_input_waiting(const sim_simulator *s);
/* Events the simulator has run so far. */
uint64_t sim_simulator_events_run(const sim_simulator *s);

/* ---- the frame's slots ---- */

unsigned sim_simulator_num_slots(const sim_simulator *s);
/* The interface id of the interface in `slot` (also its switch port). */
uint8_t sim_simulator_slot_intf_id(const sim_simulator *s, unsigned slot);
/* Inserts a module into `slot`: a catalog entry name, or a path to a .mnfs file (with its
 * .behaviour beside it). 0, or a negative errno with the reason in err (and logged):
 * -ENOENT no such module (err names where it looked), -EINVAL, -EBUSY. err may be NULL
 * (the reason is logged either way). */
int sim_simulator_insert(sim_simulator *s, unsigned slot, const char *module, char *err,
                         size_t errlen);
/* Pulls the module in `slot` out. 0, or -ENOENT with the reason in err (may be NULL). */
int sim_simulator_remove(sim_simulator *s, unsigned slot, char *err, size_t errlen);
/* The module name in `slot`, NULL when empty. */
const char *sim_simulator_module_name(const sim_simulator *s, unsigned slot);
/* Interface `index` (0-based) of the module in `slot`; NULL when there is none. */
vm_interface *sim_simulator_interface(sim_simulator *s, unsigned slot, unsigned index);
/* The interface whose id is intf_id (the switch port of its slot); NULL when none. */
vm_interface *sim_simulator_interface_by_id(sim_simulator *s, uint8_t intf_id);
/* Runs a backend command line (virtual-modules/backend_cmd.h, e.g. "gpio set 3 1") on
 * interface `index` (0-based) of the module in `slot`, or with index -1 on the first of
 * its interfaces that has a CPort of the command's class, at the simulator's time. 0 with
 * the answer in reply; -ENOENT (empty slot, no such interface), -ENODEV (no interface has
 * the class) or -EINVAL (the command was refused), with the reason in reply->text. */
int sim_simulator_command(sim_simulator *s, unsigned slot, int index, const char *line,
                          vm_reply *reply);

/* ---- links (a timed fabric; slot GB_SVC_SLOT_AP is the AP bridge's own link) ---- */

/* A power mode change: gear "HS-G2B", "PWM-G3" ..., series "A"/"B", lanes "1"/"2" (each
 * NULL = keep). 0 or a negative errno with the reason in err. */
int sim_simulator_link_set(sim_simulator *s, unsigned slot, const char *gear,
                           const char *series, const char *lanes, char *err, size_t errlen);
int sim_simulator_link_fault(sim_simulator *s, unsigned slot, const sw_link_fault *f, char *err,
                             size_t errlen);
int sim_simulator_link_info(sim_simulator *s, unsigned slot, sw_link_info *out, char *err,
                            size_t errlen);

/* ---- the parts ---- */

gb_svc *sim_simulator_svc(const sim_simulator *s);
sw_fabric *sim_simulator_fabric(const sim_simulator *s);
/* The APBridgeA side: an AP in this process sets its sink and calls sim_bridge_from_ap and
 * sim_bridge_cport_op. */
sim_bridge *sim_simulator_bridge(const sim_simulator *s);
/* With a gblink socket: the AP (QEMU) is connected. */
bool sim_simulator_ap_linked(const sim_simulator *s);
/* What happened to records for QEMU (sim_bridge_gblink_stats), into *out; all zero
 * without a gblink socket. */
void sim_simulator_link_queue(const sim_simulator *s, sim_bridge_gblink_stats *out);

/* ---- captures (docs/tracing.md) ---- */

/* Writes every message the fabric delivers or refuses to `path` as pcapng from now on,
 * replacing a running capture. A FIFO must have its reader already (sim_config.pcap_path,
 * opened at start, waits for one). 0, or -EINVAL with the reason in err (and logged). */
int sim_simulator_capture_start(sim_simulator *s, const char *path, char *err, size_t errlen);
/* Ends a running capture; returns the messages it wrote (0 when none ran). */
uint64_t sim_simulator_capture_stop(sim_simulator *s);
bool sim_simulator_capturing(const sim_simulator *s);

/* Writes a timeline (trace-event JSON for ui.perfetto.dev) to `path` from now on, replacing
 * a running one. A FIFO must have its reader already (sim_config.trace_path, opened at
 * start, waits for one). 0, or -EINVAL with the reason in err (and logged). */
int sim_simulator_trace_start(sim_simulator *s, const char *path, char *err, size_t errlen);
/* Ends it: open operations are closed as unanswered and the JSON completed. 0 or -errno. */
int sim_simulator_trace_stop(sim_simulator *s);
/* An instant on the timeline's track `track` (e.g. "scenario"); nothing when not tracing. */
void sim_simulator_trace_mark(sim_simulator *s, const char *track, const char *text);

/* ---- reports ---- */

/* The slots, interfaces and connections, the counters and the timing statistics. */
void sim_simulator_status(sim_simulator *s, FILE *out);
/* The timing model's statistics as JSON to `out` (flushed). 0, -errno when the stream
 * refused them, or -ENOTSUP when timing is off (nothing written). */
int sim_simulator_write_stats(sim_simulator *s, FILE *out);

#endif
