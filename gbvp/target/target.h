// SPDX-License-Identifier: MIT
// The one surface every front end drives: a simulator with an AP attached. The scenario
// engine (gbvp/scenario/) runs scripts against it and the control socket (gbvp/ctl/) serves
// it to other programs; both reach the modules' backends through its one command operation
// (the backend command table, virtual-modules/backend_cmd.h), and the typed commands
// (typed.h) are thin wrappers over that.
//
// Two kinds implement it: a simulator in this process with its AP (target_local.h: the test
// AP in-process or across gblink, or QEMU's guest), and a simulator in another process
// reached through its control socket (target_remote.h), which is how `gbvp run` drives
// the one it starts.
#ifndef GBVP_GBVP_TARGET_TARGET_H
#define GBVP_GBVP_TARGET_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "switch-model/fabric.h"
#include "virtual-modules/vm_reply.h"

struct sim_agent_result; /* gbvp/agent/agent_client.h */

/* An interface as the AP sees it (the test AP's own objects; for a guest, what the SVC
 * knows: the AP activated it, gave it a DeviceID and had its connections made). */
typedef struct sim_target_intf {
    bool known;     /* the AP created an interface object (its module was announced) */
    bool active;    /* activated (booted, ids read) */
    bool enabled;   /* control connection up, bundles created */
    bool suspended; /* runtime suspended */
    uint8_t device_id;
    unsigned bundles, bound_bundles, connections;
    /* the SVC's view of the slot position */
    bool present;   /* a module's interface sits there */
    bool powered;   /* V_SYS on */
    unsigned activations;
    /* the module's own identity, as the AP reads it over DME (Toshiba GMP attributes
     * 0x6000-0x6003) and shows it in sysfs: vendor_id, product_id, serial_number; 0 when
     * no module sits there */
    uint32_t vendor_id, product_id;
    uint64_t serial_number;
} sim_target_intf;

/* The SVC's counters and the fabric's (gbvp.stats, {"cmd":"stats"}). */
typedef struct sim_target_stats {
    uint64_t ap_requests, ap_bad_requests, svc_requests_sent, ap_timeouts, pings;
    uint64_t forwarded_to_ap, forwarded_to_intf, dropped, connections, pending_events;
    bool handshake_done;
    /* Records for QEMU over the gblink socket (all 0 without one): the ones that found the
     * ring full and waited, the most and the number waiting, and the ones lost: messages
     * and answers at the full queue, discarded when QEMU went, messages while no QEMU was
     * connected, too big for ES2, refused by gblink; and peers turned away. */
    uint64_t qemu_records_queued, qemu_queue_peak, qemu_records_waiting;
    uint64_t qemu_messages_dropped, qemu_answers_dropped, qemu_records_discarded;
    uint64_t qemu_messages_no_peer, qemu_messages_too_big, qemu_records_refused;
    uint64_t qemu_peers_refused;
} sim_target_stats;

/* A modelled UniPro link as it is now, both directions summed, with the network's messages
 * to and from the interfaces (gbvp.link_stats, {"cmd":"link_stats"}). */
typedef struct sim_target_link {
    char mode[32];  /* e.g. "HS-G2B x2" */
    char state[24]; /* "up", "down", "hibern8", ... */
    double ber, drop;
    uint64_t frames, replays, replay_timeouts, crc_errors, dropped, duplicates;
    uint64_t to_intf_sent, to_intf_delivered, from_intf_sent, from_intf_delivered;
    /* the model's latency of the last message delivered each way (ns): what the timing
     * model predicts for one crossing of the network at the links' current modes */
    uint64_t to_intf_last_ns, from_intf_last_ns;
} sim_target_link;

/* Where a link operation takes a slot, this one means the AP bridge's own link. */
#define SIM_TARGET_SLOT_AP 0xffffffffu
/* Where a command takes an interface index: the first interface of the module that has a
 * CPort of the command's class. */
#define SIM_TARGET_ANY_INTERFACE (-1)
/* Interfaces of one module a front end addresses by index. */
#define SIM_TARGET_INTERFACES_MAX 8

/* What a target offers beyond the operations every target has. */
enum {
    SIM_TARGET_LINK_MODEL = 1u << 0, /* frame-level links: link_set, link_fault, link_info */
    SIM_TARGET_TEST_AP = 1u << 1,    /* the test AP's requests, trace and step hook */
    SIM_TARGET_GUEST = 1u << 2,      /* commands in the guest through its agent */
    SIM_TARGET_REALTIME = 1u << 3,   /* its time is the wall clock, kept by a loop that
                                      * also serves the AP: settle and advance run that
                                      * loop, so a source of the loop must not call them */
    SIM_TARGET_LOCKSTEP = 1u << 4,   /* its time is QEMU's virtual clock (lockstep): a
                                      * control client may drive it (docs/control-protocol.md,
                                      * "drive") */
};

/* Every operation reports failure as a negative errno with the reason in err. */
typedef struct sim_target_ops {
    unsigned (*num_slots)(void *ctx);
    uint8_t (*slot_intf_id)(void *ctx, unsigned slot);
    /* A catalog module by name, or a path to a .mnfs file. */
    int (*insert)(void *ctx, unsigned slot, const char *module, char *err, size_t errlen);
    int (*remove)(void *ctx, unsigned slot, char *err, size_t errlen);
    /* The module's name into buf; false when the slot is empty. */
    bool (*module_name)(void *ctx, unsigned slot, char *buf, size_t len);
    /* A backend command line on interface `index` of the module in `slot` (or
     * SIM_TARGET_ANY_INTERFACE): 0 with the answer in reply, -ENOENT (empty slot), -ENODEV
     * (no interface has the class) or -EINVAL, with the reason in reply->text. */
    int (*command)(void *ctx, unsigned slot, int index, const char *line, vm_reply *reply);
    void (*intf)(void *ctx, uint8_t intf_id, sim_target_intf *out);
    void (*stats)(void *ctx, sim_target_stats *out);
    /* tx and rx mode the AP last set with INTF_SET_PWRM (0 = never); the AP's own link
     * has its tx mode in both. */
    int (*link_mode)(void *ctx, uint8_t intf_id, uint8_t *tx, uint8_t *rx, char *err,
                     size_t errlen);
    /* The interface crashes: the SVC reports INTF_OOPS. */
    int (*intf_oops)(void *ctx, uint8_t intf_id, uint8_t reason, char *err, size_t errlen);

    /* Lets the AP react to what just happened. */
    void (*settle)(void *ctx);
    /* Lets `dt` of the target's time pass, the AP reacting all along. */
    void (*advance)(void *ctx, sim_time dt);
    sim_time (*now)(void *ctx);

    /* SIM_TARGET_LINK_MODEL: the link of the interface in `slot` (or SIM_TARGET_SLOT_AP):
     * a power mode change (gear "HS-G2B", "PWM-G3" ...; series "A"/"B"; lanes "1"/"2";
     * NULL = keep), a fault, its state and counters. */
    int (*link_set)(void *ctx, unsigned slot, const char *gear, const char *series,
                    const char *lanes, char *err, size_t errlen);
    int (*link_fault)(void *ctx, unsigned slot, const sw_link_fault *f, char *err,
                      size_t errlen);
    int (*link_info)(void *ctx, unsigned slot, sim_target_link *out, char *err, size_t errlen);

    /* SIM_TARGET_TEST_AP: one request from the AP on its connection to (intf_id, cport):
     * 0 or a negative errno; the response payload (exactly resp_len bytes) into resp. The
     * AP's trace: does a line contain needle; clear it; a hook run after each AP step. */
    int (*ap_request)(void *ctx, uint8_t intf_id, uint16_t cport, uint8_t type,
                      const void *req, size_t req_len, void *resp, size_t resp_len);
    bool (*ap_traced)(void *ctx, const char *needle);
    void (*ap_trace_clear)(void *ctx);
    void (*ap_step_hook)(void *ctx, void (*hook)(void *hctx, const char *what), void *hctx);

    /* SIM_TARGET_GUEST: runs a shell command in the guest (the agent client's contract,
     * sim_agent_run) while the simulator keeps serving the guest. The agent's error text
     * into err when it is not SIM_AGENT_OK. */
    int (*guest_run)(void *ctx, const char *cmd, int timeout_ms, struct sim_agent_result *res,
                     char *err, size_t errlen);

    /* Every target: captures every message the fabric delivers or refuses to `path` as
     * pcapng (docs/tracing.md), replacing a running capture; path NULL ends it. 0 or a
     * negative errno with the reason in err. */
    int (*capture)(void *ctx, const char *path, char *err, size_t errlen);
    /* Every target: a timeline (trace-event JSON, docs/tracing.md) to `path`, replacing a
     * running one; path NULL ends it. 0 or a negative errno with the reason in err. */
    int (*trace)(void *ctx, const char *path, char *err, size_t errlen);
} sim_target_ops;

typedef struct sim_target {
    const char *name; /* "test-ap", "gbvp-sim+test-ap", "gbvp-sim+guest", "remote" ... */
    unsigned features;
    const sim_target_ops *ops;
    void *ctx;
} sim_target;

#endif
