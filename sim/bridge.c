// SPDX-License-Identifier: MIT
// The APBridgeA side of the bridge (see bridge.h).
#include "sim/bridge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"
#include "sim/bridge_audio.h"

#define BRIDGE_CPORTS_MAX 256u

typedef struct bridge_cport {
    uint32_t flags;
    bool connected;
} bridge_cport;

struct sim_bridge {
    sw_fabric *fabric;
    gb_svc *svc;
    unsigned port;
    uint16_t cport_count;
    sw_log_fn log;
    void *log_ctx;
    bool log_messages; /* a debug line per message (sim_bridge_log_messages) */
    sim_bridge_sink sink;
    bool has_sink;
    sim_bridge_audio *audio;
    bridge_cport cports[BRIDGE_CPORTS_MAX];
    sim_bridge_stats st;
};

static void blog(const sim_bridge *b, sw_log_level level, sim_time now, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void blog(const sim_bridge *b, sw_log_level level, sim_time now, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(b->log, b->log_ctx, level, now, fmt, ap);
    va_end(ap);
}

/* "interface 2 CPort 1" for the connection behind an hd CPort, for the debug log. */
static const char *peer_name(const sim_bridge *b, uint16_t hd_cport, char *buf, size_t len)
{
    uint8_t port;
    uint16_t cport;
    if (hd_cport == 0)
        snprintf(buf, len, "SVC");
    else if (sw_conn_peer(sw_fabric_connections(b->fabric), (uint8_t)b->port, hd_cport, &port,
                          &cport, NULL))
        snprintf(buf, len, "interface %u CPort %u", port, cport);
    else
        snprintf(buf, len, "no connection");
    return buf;
}

/* The fabric's endpoint on the AP port: a message for the AP. */
static void bridge_receive(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now)
{
    sim_bridge *b = ctx;
    if (sim_bridge_audio_take(b->audio, hd_cport, m))
        return; /* audio data for the bridge's I2S output, not for the AP */
    if (!b->has_sink) {
        blog(b, SW_LOG_DEBUG, now, "bridge: no AP connected, %u bytes for hd CPort %u dropped",
             m->h.size, hd_cport);
        return;
    }
    if (hd_cport != 0 && b->log_messages) {
        char peer[48];
        blog(b, SW_LOG_DEBUG, now, "bridge: -> AP hd CPort %u from %s: type 0x%02x id %u, %u "
             "bytes", hd_cport, peer_name(b, hd_cport, peer, sizeof peer), m->h.type,
             m->h.operation_id, m->h.size);
    }
    b->st.to_ap++;
    b->sink.to_ap(b->sink.ctx, hd_cport, m, now);
}

/* The audio side's stream: from the bridge's hd CPort into the network, as the AP's
 * messages go. */
static void audio_send(void *ctx, uint16_t hd_cport, const gb_msg *m)
{
    sim_bridge *b = ctx;
    b->st.audio_out++;
    sw_fabric_send(b->fabric, b->port, hd_cport, m);
}

sim_bridge *sim_bridge_new(const sim_scheduler *sched, sw_fabric *fabric, gb_svc *svc,
                           uint16_t cport_count, sw_log_fn log, void *log_ctx)
{
    if (!cport_count || cport_count > BRIDGE_CPORTS_MAX)
        return NULL;
    sim_bridge *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->audio = sim_bridge_audio_new(sched, cport_count, audio_send, b, log, log_ctx);
    if (!b->audio) {
        free(b);
        return NULL;
    }
    b->fabric = fabric;
    b->svc = svc;
    b->port = sw_fabric_get_cfg(fabric)->ap_port;
    b->cport_count = cport_count;
    b->log = log;
    b->log_ctx = log_ctx;
    b->log_messages = log != NULL;
    sw_endpoint ep = { .receive = bridge_receive, .ctx = b };
    sw_fabric_attach(fabric, b->port, &ep);
    return b;
}

void sim_bridge_log_messages(sim_bridge *b, bool on)
{
    b->log_messages = on && b->log;
}

void sim_bridge_free(sim_bridge *b)
{
    if (!b)
        return;
    sw_fabric_detach(b->fabric, b->port);
    sim_bridge_audio_free(b->audio);
    free(b);
}

void sim_bridge_set_sink(sim_bridge *b, const sim_bridge_sink *sink)
{
    b->has_sink = sink != NULL;
    if (sink)
        b->sink = *sink;
}

uint16_t sim_bridge_cport_count(const sim_bridge *b)
{
    return b->cport_count;
}

/* The AP's session ends: what is in flight to or from it is dropped, the SVC forgets it. */
static void end_session(sim_bridge *b, sim_time now)
{
    sw_fabric_reset(b->fabric, b->port);
    gb_svc_ap_lost(b->svc, now);
}

void sim_bridge_from_ap(sim_bridge *b, uint16_t hd_cport, const uint8_t *msg, size_t len,
                        sim_time now)
{
    gb_msg m;
    if (hd_cport >= b->cport_count) {
        b->st.refused++;
        blog(b, SW_LOG_WARN, now, "bridge: message from hd CPort %u, beyond the %u CPorts",
             hd_cport, b->cport_count);
        return;
    }
    /* gblink carries up to 4096 bytes, the ES2 bridge's buffers 2048: a longer message
     * is one no real AP could send, and nothing behind the bridge is sized for it */
    if (len > GB_MSG_MAX_SIZE) {
        b->st.refused++;
        blog(b, SW_LOG_WARN, now, "bridge: %zu-byte message from the AP on hd CPort %u, "
             "beyond the ES2 limit of %u bytes, dropped", len, hd_cport, GB_MSG_MAX_SIZE);
        return;
    }
    int rc = gb_msg_parse(msg, len, &m);
    if (rc) {
        b->st.refused++;
        blog(b, SW_LOG_WARN, now, "bridge: malformed message of %zu bytes from the AP on hd "
             "CPort %u (%s), dropped", len, hd_cport,
             rc == -EMSGSIZE ? "size field disagrees with length" : "short header");
        return;
    }
    if (hd_cport != 0 && b->log_messages) {
        char peer[48];
        blog(b, SW_LOG_DEBUG, now, "bridge: <- AP hd CPort %u to %s: type 0x%02x id %u, %zu "
             "bytes", hd_cport, peer_name(b, hd_cport, peer, sizeof peer), m.h.type,
             m.h.operation_id, len);
    }
    /* The ES2 link carries the hd CPort in the header's pad bytes; UniPro does not: the
     * parsed header the network passes on has them clear. */
    m.h.pad[0] = m.h.pad[1] = 0;
    b->st.from_ap++;
    sw_fabric_send(b->fabric, b->port, hd_cport, &m);
}

uint8_t sim_bridge_cport_op(sim_bridge *b, uint16_t op, uint16_t hd_cport, const void *payload,
                            size_t len, sim_time now)
{
    if (hd_cport >= b->cport_count) {
        blog(b, SW_LOG_WARN, now, "bridge: %s for hd CPort %u, beyond the %u CPorts",
             gbl_type_name(op), hd_cport, b->cport_count);
        return GBL_STATUS_INVALID;
    }
    bridge_cport *hc = &b->cports[hd_cport];
    switch (op) {
    case GBL_T_CPORT_FLAGS: {
        gbl_cport_flags f = { 0 };
        memcpy(&f, payload, len < sizeof f ? len : sizeof f);
        hc->flags = f.flags;
        break;
    }
    case GBL_T_CPORT_CONNECTED:
        hc->connected = true;
        break;
    case GBL_T_CPORT_CLEAR:
    case GBL_T_CPORT_RESET:
        hc->connected = false;
        break;
    case GBL_T_CPORT_FLUSH:
    case GBL_T_CPORT_QUIESCE:
    case GBL_T_CPORT_SHUTDOWN: /* nothing is ever held in the bridge */
        break;
    default:
        return GBL_STATUS_UNSUPPORTED;
    }
    blog(b, SW_LOG_DEBUG, now, "bridge: %s hd CPort %u", gbl_type_name(op), hd_cport);
    if (op == GBL_T_CPORT_CONNECTED && hd_cport == 0) {
        blog(b, SW_LOG_INFO, now, "bridge: SVC connection up (hd CPort 0), starting the SVC");
        sw_fabric_reset(b->fabric, b->port); /* a new session: nothing of the last one */
        gb_svc_start(b->svc, now);
    } else if ((op == GBL_T_CPORT_CLEAR || op == GBL_T_CPORT_RESET) && hd_cport == 0) {
        /* The host driver is going away (unbind, shutdown): nothing more goes to it until
         * a new instance connects hd CPort 0 again. */
        blog(b, SW_LOG_INFO, now, "bridge: SVC connection closed by the AP");
        end_session(b, now);
    }
    return GBL_STATUS_OK;
}

void sim_bridge_ap_gone(sim_bridge *b, sim_time now)
{
    memset(b->cports, 0, sizeof b->cports);
    sim_bridge_audio_reset(b->audio);
    end_session(b, now);
}

sim_bridge_stats sim_bridge_get_stats(const sim_bridge *b)
{
    return b->st;
}

uint8_t sim_bridge_audio_control(sim_bridge *b, const uint8_t *req, size_t len)
{
    return sim_bridge_audio_request(b->audio, req, len);
}

const sim_bridge_audio *sim_bridge_get_audio(const sim_bridge *b)
{
    return b->audio;
}
