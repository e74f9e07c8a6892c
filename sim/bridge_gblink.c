// SPDX-License-Identifier: MIT
// The bridge over gblink (see bridge_gblink.h).
#include "sim/bridge_gblink.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"

/* A message for the AP that found the ring full. */
typedef struct out_rec {
    uint16_t cport;
    uint16_t len;
    uint64_t time_ns;
    uint8_t data[GB_MSG_MAX_SIZE];
} out_rec;

struct sim_bridge_gblink {
    sim_bridge *bridge;
    gbl_link *link;
    sw_log_fn log;
    void *log_ctx;
    sim_time now; /* of the process call running */
    out_rec *outq;
    size_t out_head, out_count, out_cap;
};

static void glog(const sim_bridge_gblink *g, sw_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void glog(const sim_bridge_gblink *g, sw_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(g->log, g->log_ctx, level, g->now, fmt, ap);
    va_end(ap);
}

/* ---- to the AP ---- */

static bool flush_out(sim_bridge_gblink *g)
{
    while (g->out_count) {
        out_rec *r = &g->outq[g->out_head];
        int rc = gbl_send_msg(g->link, GBL_T_GB_MESSAGE, r->cport, 0, r->time_ns, r->data, r->len);
        if (rc == -EAGAIN)
            return false;
        if (rc)
            glog(g, SW_LOG_WARN, "bridge: message to hd CPort %u lost: %s", r->cport,
                 gbl_error(g->link));
        g->out_head = (g->out_head + 1) % g->out_cap;
        g->out_count--;
    }
    return true;
}

/* Keeps a message the ring could not take, in order behind those already waiting. */
static void queue_out(sim_bridge_gblink *g, uint16_t hd_cport, const gb_msg *m, uint64_t time_ns)
{
    if (g->out_count == g->out_cap) {
        size_t cap = g->out_cap ? g->out_cap * 2 : 64;
        out_rec *q = malloc(cap * sizeof *q);
        if (!q) {
            glog(g, SW_LOG_ERROR, "bridge: out of memory, message for hd CPort %u dropped",
                 hd_cport);
            return;
        }
        for (size_t i = 0; i < g->out_count; i++)
            q[i] = g->outq[(g->out_head + i) % g->out_cap];
        free(g->outq);
        g->outq = q;
        g->out_cap = cap;
        g->out_head = 0;
    }
    out_rec *r = &g->outq[(g->out_head + g->out_count++) % g->out_cap];
    r->cport = hd_cport;
    r->len = m->h.size;
    r->time_ns = time_ns;
    memcpy(r->data, m->bytes, m->h.size);
}

static void to_ap(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now)
{
    sim_bridge_gblink *g = ctx;
    if (gbl_state(g->link) != GBL_STATE_UP) {
        glog(g, SW_LOG_DEBUG, "bridge: no AP connected, %u bytes for hd CPort %u dropped",
             m->h.size, hd_cport);
        return;
    }
    if (m->h.size > GB_MSG_MAX_SIZE) {
        glog(g, SW_LOG_ERROR, "bridge: %u-byte message for hd CPort %u exceeds the ES2 limit of "
             "2048 bytes, dropped", m->h.size, hd_cport);
        return;
    }
    /* Straight into the ring when nothing waits; a full ring keeps it for later. */
    uint64_t time_ns = now / 1000u;
    if (!g->out_count) {
        int rc = gbl_send_msg(g->link, GBL_T_GB_MESSAGE, hd_cport, 0, time_ns, m->bytes,
                              m->h.size);
        if (rc != -EAGAIN) {
            if (rc)
                glog(g, SW_LOG_WARN, "bridge: message to hd CPort %u lost: %s", hd_cport,
                     gbl_error(g->link));
            return;
        }
    }
    queue_out(g, hd_cport, m, time_ns);
}

/* ---- from the AP ---- */

static void on_record(void *ctx, const gbl_record *rec)
{
    sim_bridge_gblink *g = ctx;
    switch (rec->type) {
    case GBL_T_HELLO: {
        gbl_hello h;
        memcpy(&h, rec->payload, sizeof h);
        h.name[sizeof h.name - 1] = 0;
        glog(g, SW_LOG_INFO, "bridge: peer '%s' speaks gblink %u.%u", h.name, h.version_major,
             h.version_minor);
        return;
    }
    case GBL_T_LINK_UP:
        glog(g, SW_LOG_INFO, "bridge: USB side up");
        return;
    case GBL_T_LINK_DOWN:
        glog(g, SW_LOG_INFO, "bridge: USB side down (bus reset or unplug)");
        sim_bridge_ap_gone(g->bridge, g->now);
        return;
    case GBL_T_GB_MESSAGE:
        sim_bridge_from_ap(g->bridge, rec->cport, rec->payload, rec->len, g->now);
        return;
    case GBL_T_CPORT_RESET:
    case GBL_T_CPORT_CONNECTED:
    case GBL_T_CPORT_QUIESCE:
    case GBL_T_CPORT_CLEAR:
    case GBL_T_CPORT_FLUSH:
    case GBL_T_CPORT_SHUTDOWN:
    case GBL_T_CPORT_FLAGS: {
        uint8_t status = sim_bridge_cport_op(g->bridge, rec->type, rec->cport, rec->payload,
                                             rec->len, g->now);
        gbl_send_result(g->link, rec, status, NULL, 0, g->now / 1000u);
        return;
    }
    case GBL_T_LATENCY_TAG_ENABLE:
    case GBL_T_LATENCY_TAG_DISABLE:
        glog(g, SW_LOG_DEBUG, "bridge: %s hd CPort %u", gbl_type_name(rec->type), rec->cport);
        gbl_send_result(g->link, rec, GBL_STATUS_OK, NULL, 0, g->now / 1000u);
        return;
    case GBL_T_LOG_REQUEST:
        gbl_send_result(g->link, rec, GBL_STATUS_OK, NULL, 0, g->now / 1000u);
        return;
    default:
        glog(g, SW_LOG_INFO, "bridge: %s not supported (Linux 6.1 does not use it)",
             gbl_type_name(rec->type));
        if (rec->type >= GBL_T_CPORT_RESET && rec->type < GBL_T_RESULT)
            gbl_send_result(g->link, rec, GBL_STATUS_UNSUPPORTED, NULL, 0, g->now / 1000u);
        return;
    }
}

static void on_up(void *ctx)
{
    sim_bridge_gblink *g = ctx;
    glog(g, SW_LOG_INFO, "bridge: QEMU connected (ring %u bytes)", gbl_ring_size(g->link));
    gbl_hello h;
    memset(&h, 0, sizeof h);
    h.version_major = GBL_VERSION_MAJOR;
    h.version_minor = GBL_VERSION_MINOR;
    h.cport_count = sim_bridge_cport_count(g->bridge);
    snprintf(h.name, sizeof h.name, "gbvp");
    gbl_send_msg(g->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, g->now / 1000u, &h, sizeof h);
}

static void on_down(void *ctx, int err, const char *why)
{
    sim_bridge_gblink *g = ctx;
    glog(g, err == -ECONNRESET ? SW_LOG_INFO : SW_LOG_WARN,
         "bridge: QEMU gone (%s); waiting for it again", why);
    g->out_count = 0;
    sim_bridge_ap_gone(g->bridge, g->now);
}

static void on_writable(void *ctx)
{
    flush_out(ctx);
}

/* ---- life cycle ---- */

sim_bridge_gblink *sim_bridge_gblink_new(sim_bridge *b, const char *path, sw_log_fn log,
                                         void *log_ctx, char *err, size_t errlen)
{
    sim_bridge_gblink *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->bridge = b;
    g->log = log;
    g->log_ctx = log_ctx;
    gbl_config lc = { .name = "gbvp" };
    gbl_callbacks cb = { .record = on_record, .up = on_up, .down = on_down,
                         .writable = on_writable };
    g->link = gbl_server_new(path, &lc, &cb, g, err, errlen);
    if (!g->link) {
        free(g);
        return NULL;
    }
    sim_bridge_sink sink = { .to_ap = to_ap, .ctx = g };
    sim_bridge_set_sink(b, &sink);
    return g;
}

void sim_bridge_gblink_free(sim_bridge_gblink *g)
{
    if (!g)
        return;
    sim_bridge_set_sink(g->bridge, NULL);
    gbl_free(g->link);
    free(g->outq);
    free(g);
}

int sim_bridge_gblink_fd(const sim_bridge_gblink *g)
{
    return gbl_fd(g->link);
}

int sim_bridge_gblink_process(sim_bridge_gblink *g, sim_time now)
{
    g->now = now;
    return gbl_process(g->link);
}

bool sim_bridge_gblink_up(const sim_bridge_gblink *g)
{
    return gbl_state(g->link) == GBL_STATE_UP;
}
