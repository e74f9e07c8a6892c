// SPDX-License-Identifier: MIT
// The APBridgeA side of the bridge between the AP and the UniPro network, as the ES2
// firmware behaves: the AP's hd CPorts are the CPorts of the fabric's AP port; CPort
// control requests are answered (nothing is ever held in the bridge, so flush and quiesce
// succeed at once); hd CPort 0 connecting starts the SVC, and its closing, or the AP going
// away, ends the AP's session. What the AP sends is parsed here, once, and handed to the
// fabric; what the fabric delivers for the AP leaves through a sink.
//
// Transport-agnostic: QEMU's greybus-es2 device reaches it over gblink
// (bridge_gblink.h), the in-process test AP through direct calls (simulator.h).
#ifndef GBVP_SIM_BRIDGE_H
#define GBVP_SIM_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/bridge_audio.h"
#include "switch-model/fabric.h"
#include "switch-model/svc.h"

typedef struct sim_bridge sim_bridge;

/* Where the bridge puts a message for the AP (hd CPort `hd_cport`); `m` lives only during
 * the call. */
typedef struct sim_bridge_sink {
    void (*to_ap)(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now);
    void *ctx;
} sim_bridge_sink;

/* A bridge of `cport_count` hd CPorts on the fabric's AP port; `sched` paces its audio
 * stream. NULL when out of memory. The scheduler, the fabric and the SVC must outlive it. */
sim_bridge *sim_bridge_new(const sim_scheduler *sched, sw_fabric *fabric, gb_svc *svc,
                           uint16_t cport_count, sw_log_fn log, void *log_ctx);
void sim_bridge_free(sim_bridge *b);
/* Whether each message to and from the AP gets a debug line (on when the bridge has a log).
 * Off when the log drops debug lines anyway: formatting one costs more than the bridge's
 * own work on the message. */
void sim_bridge_log_messages(sim_bridge *b, bool on);
/* Where messages for the AP go; NULL: nowhere yet (they are dropped, at debug level). */
void sim_bridge_set_sink(sim_bridge *b, const sim_bridge_sink *sink);
uint16_t sim_bridge_cport_count(const sim_bridge *b);

/* A message from the AP on hd CPort `hd_cport`: checked (CPort, header), then into the
 * fabric. Refusals are logged and counted, never forwarded. */
void sim_bridge_from_ap(sim_bridge *b, uint16_t hd_cport, const uint8_t *msg, size_t len,
                        sim_time now);
/* A CPort control request of the AP (op is a gblink record type GBL_T_CPORT_*; payload as
 * gblink defines it). Returns the GBL_STATUS_* it answers. */
uint8_t sim_bridge_cport_op(sim_bridge *b, uint16_t op, uint16_t hd_cport, const void *payload,
                            size_t len, sim_time now);
/* The AP's side went away (USB reset or unplug, QEMU gone): its session ends. */
void sim_bridge_ap_gone(sim_bridge *b, sim_time now);

/* An APBridgeA audio request of the AP (sim_bridge_audio_request). Returns GBL_STATUS_*. */
uint8_t sim_bridge_audio_control(sim_bridge *b, const uint8_t *req, size_t len);
const sim_bridge_audio *sim_bridge_get_audio(const sim_bridge *b);

typedef struct sim_bridge_stats {
    uint64_t from_ap, to_ap, refused; /* messages; refused: bad CPort or header, or beyond
                                       * GB_MSG_MAX_SIZE */
    uint64_t audio_out;               /* audio data messages the bridge itself sent */
} sim_bridge_stats;
sim_bridge_stats sim_bridge_get_stats(const sim_bridge *b);

#endif
