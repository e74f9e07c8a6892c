// SPDX-License-Identifier: MIT
// The APBridgeA's audio side, as gb-audio-codec drives it through ES2's AUDIO_CONTROL
// requests (the layouts of drivers/staging/greybus/audio_apbridgea.h): one I2S port (0)
// configured with a sample format and rate, CPorts registered to it for transmit (AP to
// module) or receive, a data size per direction, and the prepare / start / stop / shutdown
// sequence of each direction.
//
// While transmit runs, the bridge does what Ara's APBridgeA did with the samples its I2S
// input clocked in: every `data size` bytes' worth of time (192 bytes of 16-bit stereo at
// 48 kHz: 1 ms) it sends one Audio Data SEND_DATA request to each registered transmit CPort.
// In gbvp nothing drives that I2S input (the guest's PCM data stays with its CPU DAI), so
// the samples are silence; their count and timing are the stream's. Audio data a module
// sends to a CPort registered for receive ends here, counted, as the I2S output would take
// it.
//
// Sans-IO apart from time: the scheduler paces the stream, messages leave through `send`.
#ifndef GBVP_SIM_BRIDGE_AUDIO_H
#define GBVP_SIM_BRIDGE_AUDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event-kernel/scheduler.h"
#include "greybus/gb_message.h"
#include "switch-model/sw_log.h"

typedef struct sim_bridge_audio sim_bridge_audio;

/* Puts a message from the bridge's hd CPort `hd_cport` into the network. */
typedef void (*sim_bridge_audio_send_fn)(void *ctx, uint16_t hd_cport, const gb_msg *m);

/* The audio side of a bridge with `cport_count` hd CPorts. NULL when out of memory. */
sim_bridge_audio *sim_bridge_audio_new(const sim_scheduler *sched, uint16_t cport_count,
                                       sim_bridge_audio_send_fn send, void *send_ctx,
                                       sw_log_fn log, void *log_ctx);
void sim_bridge_audio_free(sim_bridge_audio *a);

/* One APBridgeA audio request (header + body, little-endian, as the AP sent it). Every
 * field is checked against the request's type and the port's state; a request that does not
 * fit is refused with a logged reason and changes nothing. A direction that streams takes
 * its own data size, PREPARE and START again and streams on: Linux 6.1 sends them on an
 * ALSA xrun recovery, with no STOP first. Returns the GBL_STATUS_* to answer: OK, or
 * INVALID. */
uint8_t sim_bridge_audio_request(sim_bridge_audio *a, const uint8_t *req, size_t len);

/* A message for the AP on hd CPort `hd_cport`: true when the CPort is registered for
 * receive and the bridge took it (the AP does not see it). */
bool sim_bridge_audio_take(sim_bridge_audio *a, uint16_t hd_cport, const gb_msg *m);

/* The AP went away: streams stop, registrations and settings are forgotten. */
void sim_bridge_audio_reset(sim_bridge_audio *a);

#define SIM_BRIDGE_AUDIO_CPORTS 4u /* CPorts one direction can register */

typedef struct sim_bridge_audio_dir {
    bool prepared, started;
    uint16_t data_size;                           /* bytes of samples per message, 0 unset */
    unsigned cports;                              /* registered */
    uint16_t cport[SIM_BRIDGE_AUDIO_CPORTS];
    uint64_t messages, bytes;                     /* TX: sent; RX: taken */
} sim_bridge_audio_dir;

typedef struct sim_bridge_audio_state {
    bool configured;
    uint32_t format_bits;                         /* bits per sample: 8, 16, 24, 32 or 64 */
    uint32_t rate_hz;
    uint32_t mclk_hz;
    sim_bridge_audio_dir tx, rx;
    uint64_t refused;                             /* requests refused */
    uint64_t restarts;   /* START while streaming: 6.1's ALSA xrun recovery, taken as is */
} sim_bridge_audio_state;

sim_bridge_audio_state sim_bridge_audio_get_state(const sim_bridge_audio *a);

#endif
