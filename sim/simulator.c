// SPDX-License-Identifier: MIT
// The simulator behind `gbvp sim`: a gblink server whose client is QEMU's greybus-es2 device,
// the APBridgeA side of the bridge (hd CPorts, CPort control answered as ES2 firmware does),
// the SVC on hd CPort 0, and the frame's slots with catalog modules. Greybus messages from
// the AP enter the SVC's data path; what the SVC and modules send to the AP leaves as
// gblink records, queued while the ring is full.
//
// Time comes from an event kernel (event-kernel/event_kernel.h): the caller says how far the clock may go
// (sim_gbvp_process), due events run first, then what QEMU sent is handled at that time.
// Records to QEMU carry the simulated time. With timing on (sim/network.h) every message
// between the AP bridge and an interface or the SVC crosses the modelled UniPro network
// as kernel events; with timing off it is delivered at once.
#include "sim/simulator.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"
#include "sim/network.h"
#include "event-kernel/event_kernel.h"
#include "gbvp/scenario/scenario.h"
#include "sim/slots.h"
#include "greybus/svc_protocol.h"
#include "virtual-modules/backend_cmd.h"

typedef struct out_rec {
    uint16_t cport;
    uint16_t len;
    uint64_t time_ns;
    uint8_t data[GB_MSG_MAX_SIZE];
} out_rec;

/* The SVC connection's messages in the network, oldest first, each with the AP session it
 * belongs to: those of a session that ended (QEMU gone, bus reset, hd CPort 0 cleared or
 * connected anew) are dropped on arrival instead of reaching the next session. One FIFO per
 * direction, as the network delivers a connection's messages in order. */
#define SVC_FLIGHT_MAX 256u
typedef struct svc_flights {
    uint32_t session[SVC_FLIGHT_MAX];
    unsigned head, count;
} svc_flights;

typedef struct bridge_cport {
    uint32_t flags;
    bool connected;
} bridge_cport;

struct sim_gbvp {
    sim_gbvp_config cfg;
    gbl_link *link;
    gb_svc *svc;
    gb_slots *slots;
    sim_event_kernel *k;
    sim_net *net;       /* NULL: timing off */
    uint32_t session;   /* AP sessions begun or ended so far */
    svc_flights svc_fl[2]; /* [0]: AP -> SVC, [1]: SVC -> AP */
    sim_time now;
    bridge_cport cports[256];
    out_rec *outq;
    size_t out_head, out_count, out_cap;
};

static const char *const level_names[] = { "error", "warn", "info", "debug" };

static void logf_(sim_gbvp *s, gb_svc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void print_line(gb_svc_log_level level, sim_time now, const char *line)
{
    fprintf(stderr, "[%11.6f] %s%s%s\n", (double)now / 1e12,
            level <= GB_SVC_LOG_WARN ? level_names[level] : "",
            level <= GB_SVC_LOG_WARN ? ": " : "", line);
}

static void logf_(sim_gbvp *s, gb_svc_log_level level, const char *fmt, ...)
{
    if (level > s->cfg.log_level)
        return;
    char line[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    print_line(level, s->now, line);
}

static void svc_log(void *ctx, gb_svc_log_level level, sim_time now, const char *line)
{
    sim_gbvp *s = ctx;
    if (level <= s->cfg.log_level)
        print_line(level, now, line);
}

/* "interface 2 CPort 1" for the connection behind an hd CPort, for the debug log. */
static const char *peer_name(sim_gbvp *s, uint16_t hd_cport, char *buf, size_t len)
{
    uint8_t intf;
    uint16_t cport;
    if (hd_cport == 0)
        snprintf(buf, len, "SVC");
    else if (gb_svc_conn_peer(gb_svc_connections(s->svc), gb_svc_ap_intf_id(s->svc), hd_cport,
                              &intf, &cport, NULL))
        snprintf(buf, len, "interface %u CPort %u", intf, cport);
    else
        snprintf(buf, len, "no connection");
    return buf;
}

/* ---- to the AP ---- */

static bool flush_out(sim_gbvp *s)
{
    while (s->out_count) {
        out_rec *r = &s->outq[s->out_head];
        int rc = gbl_send_msg(s->link, GBL_T_GB_MESSAGE, r->cport, 0, r->time_ns, r->data, r->len);
        if (rc == -EAGAIN)
            return false;
        if (rc)
            logf_(s, GB_SVC_LOG_WARN, "bridge: message to hd CPort %u lost: %s", r->cport,
                  gbl_error(s->link));
        s->out_head = (s->out_head + 1) % s->out_cap;
        s->out_count--;
    }
    return true;
}

static void queue_to_ap(sim_gbvp *s, uint16_t hd_cport, const uint8_t *msg, size_t len)
{
    if (gbl_state(s->link) != GBL_STATE_UP) {
        logf_(s, GB_SVC_LOG_DEBUG, "bridge: no AP connected, %zu bytes for hd CPort %u dropped",
              len, hd_cport);
        return;
    }
    if (len > GB_MSG_MAX_SIZE) {
        logf_(s, GB_SVC_LOG_ERROR, "bridge: %zu-byte message for hd CPort %u exceeds the ES2 "
              "limit of 2048 bytes, dropped", len, hd_cport);
        return;
    }
    if (hd_cport != 0 && len >= GB_MSG_HEADER_SIZE && s->cfg.log_level >= GB_SVC_LOG_DEBUG) {
        char peer[48];
        logf_(s, GB_SVC_LOG_DEBUG, "bridge: -> AP hd CPort %u from %s: type 0x%02x id %u, %zu "
              "bytes", hd_cport, peer_name(s, hd_cport, peer, sizeof peer), msg[4],
              gb_get_le16(msg + 2), len);
    }
    if (s->out_count == s->out_cap) {
        size_t cap = s->out_cap ? s->out_cap * 2 : 64;
        out_rec *q = malloc(cap * sizeof *q);
        if (!q) {
            logf_(s, GB_SVC_LOG_ERROR, "bridge: out of memory, message dropped");
            return;
        }
        for (size_t i = 0; i < s->out_count; i++)
            q[i] = s->outq[(s->out_head + i) % s->out_cap];
        free(s->outq);
        s->outq = q;
        s->out_cap = cap;
        s->out_head = 0;
    }
    out_rec *r = &s->outq[(s->out_head + s->out_count++) % s->out_cap];
    r->cport = hd_cport;
    r->len = (uint16_t)len;
    r->time_ns = s->now / 1000u;
    memcpy(r->data, msg, len);
    flush_out(s);
}

static bool svc_send(sim_gbvp *s, bool to_svc, const uint8_t *msg, size_t len)
{
    svc_flights *f = &s->svc_fl[to_svc ? 0 : 1];
    gb_svc_path p = sim_net_svc_path(s->net, to_svc);
    if (f->count == SVC_FLIGHT_MAX || sim_net_send(s->net, &p, msg, len))
        return false;
    f->session[(f->head + f->count++) % SVC_FLIGHT_MAX] = s->session;
    return true;
}

/* true when the SVC message arriving now belongs to the current AP session */
static bool svc_arrived(sim_gbvp *s, bool to_svc)
{
    svc_flights *f = &s->svc_fl[to_svc ? 0 : 1];
    if (!f->count)
        return true;
    uint32_t sess = f->session[f->head];
    f->head = (f->head + 1) % SVC_FLIGHT_MAX;
    f->count--;
    if (sess == s->session)
        return true;
    logf_(s, GB_SVC_LOG_DEBUG, "timing: SVC message of an ended AP session dropped");
    return false;
}

static void ap_session_ended(sim_gbvp *s)
{
    s->session++;
    gb_svc_ap_lost(s->svc, s->now);
}

static void to_ap(void *ctx, uint16_t hd_cport, const uint8_t *msg, size_t len)
{
    sim_gbvp *s = ctx;
    /* The SVC's own messages leave from the switch's internal port; data messages reach
     * this sink only once they have crossed the network (gb_svc_path_deliver). */
    if (s->net && hd_cport == 0 && gbl_state(s->link) == GBL_STATE_UP) {
        if (svc_send(s, false, msg, len))
            return;
        logf_(s, GB_SVC_LOG_WARN, "timing: SVC message not timed, delivered at once");
    }
    queue_to_ap(s, hd_cport, msg, len);
}

/* ---- the timed network ---- */

static void net_arrived(void *ctx, const gb_svc_path *p, const uint8_t *msg, size_t len,
                        sim_time now)
{
    sim_gbvp *s = ctx;
    s->now = now;
    if (p->dst_intf == SIM_NET_SVC_INTF) {
        if (svc_arrived(s, true)) {
            gb_svc_from_ap(s->svc, 0, msg, len, now);
            sim_net_sync(s->net, s->svc);
        }
    } else if (p->src_intf == SIM_NET_SVC_INTF) {
        if (svc_arrived(s, false))
            queue_to_ap(s, 0, msg, len);
    } else {
        gb_svc_path_deliver(s->svc, p, msg, len, now);
    }
}

static void net_transit(void *ctx, const gb_svc_path *p, const uint8_t *msg, size_t len,
                        sim_time now)
{
    sim_gbvp *s = ctx;
    int rc = sim_net_send(s->net, p, msg, len);
    if (rc) {
        logf_(s, GB_SVC_LOG_WARN, "timing: interface %u CPort %u -> %u:%u not modelled (%s), "
              "delivered at once", p->src_intf, p->src_cport, p->dst_intf, p->dst_cport,
              strerror(-rc));
        gb_svc_path_deliver(s->svc, p, msg, len, now);
    }
}

static void net_power_mode(void *ctx, uint8_t intf_id, const uint8_t *req, size_t len)
{
    sim_gbvp *s = ctx;
    int rc = sim_net_power_mode(s->net, intf_id, req, len);
    if (rc)
        logf_(s, GB_SVC_LOG_WARN, "timing: link of interface %u keeps its mode (%s)", intf_id,
              strerror(-rc));
}

/* ---- from the AP ---- */

static const char *cport_op_name(uint16_t type)
{
    return gbl_type_name(type);
}

static void cport_control(sim_gbvp *s, const gbl_record *rec)
{
    uint16_t c = rec->cport;
    if (c >= s->cfg.cport_count) {
        logf_(s, GB_SVC_LOG_WARN, "bridge: %s for hd CPort %u, beyond the %u CPorts",
              cport_op_name(rec->type), c, s->cfg.cport_count);
        gbl_send_result(s->link, rec, GBL_STATUS_INVALID, NULL, 0, s->now / 1000u);
        return;
    }
    bridge_cport *hc = &s->cports[c];
    switch (rec->type) {
    case GBL_T_CPORT_FLAGS: {
        gbl_cport_flags f;
        memcpy(&f, rec->payload, sizeof f);
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
    default: /* FLUSH, QUIESCE, SHUTDOWN: nothing is ever held in the bridge */
        break;
    }
    logf_(s, GB_SVC_LOG_DEBUG, "bridge: %s hd CPort %u", cport_op_name(rec->type), c);
    gbl_send_result(s->link, rec, GBL_STATUS_OK, NULL, 0, s->now / 1000u);
    if (rec->type == GBL_T_CPORT_CONNECTED && c == 0) {
        logf_(s, GB_SVC_LOG_INFO, "bridge: SVC connection up (hd CPort 0), starting the SVC");
        s->session++;
        gb_svc_start(s->svc, s->now);
    } else if ((rec->type == GBL_T_CPORT_CLEAR || rec->type == GBL_T_CPORT_RESET) && c == 0) {
        /* The host driver is going away (unbind, shutdown): nothing more goes to it until
         * a new instance connects hd CPort 0 again. */
        logf_(s, GB_SVC_LOG_INFO, "bridge: SVC connection closed by the AP");
        ap_session_ended(s);
    }
}

static void on_record(void *ctx, const gbl_record *rec)
{
    sim_gbvp *s = ctx;
    switch (rec->type) {
    case GBL_T_HELLO: {
        gbl_hello h;
        memcpy(&h, rec->payload, sizeof h);
        h.name[sizeof h.name - 1] = 0;
        logf_(s, GB_SVC_LOG_INFO, "bridge: peer '%s' speaks gblink %u.%u", h.name,
              h.version_major, h.version_minor);
        return;
    }
    case GBL_T_LINK_UP:
        logf_(s, GB_SVC_LOG_INFO, "bridge: USB side up");
        return;
    case GBL_T_LINK_DOWN:
        logf_(s, GB_SVC_LOG_INFO, "bridge: USB side down (bus reset or unplug)");
        ap_session_ended(s);
        memset(s->cports, 0, sizeof s->cports);
        return;
    case GBL_T_GB_MESSAGE:
        if (rec->cport >= s->cfg.cport_count) {
            logf_(s, GB_SVC_LOG_WARN, "bridge: message from hd CPort %u, beyond the %u CPorts",
                  rec->cport, s->cfg.cport_count);
            return;
        }
        if (rec->len >= GB_MSG_HEADER_SIZE && rec->cport != 0 &&
            s->cfg.log_level >= GB_SVC_LOG_DEBUG) {
            const uint8_t *m = rec->payload;
            char peer[48];
            logf_(s, GB_SVC_LOG_DEBUG, "bridge: <- AP hd CPort %u to %s: type 0x%02x id %u, %u "
                  "bytes", rec->cport, peer_name(s, rec->cport, peer, sizeof peer), m[4],
                  gb_get_le16(m + 2), rec->len);
        }
        {
            uint8_t buf[GBL_MAX_PAYLOAD];
            memcpy(buf, rec->payload, rec->len);
            if (rec->len >= 8)
                buf[6] = buf[7] = 0; /* ES2 carries the hd CPort in pad[0]; UniPro does not */
            if (s->net && rec->cport == 0 && svc_send(s, true, buf, rec->len))
                return;
            gb_svc_from_ap(s->svc, rec->cport, buf, rec->len, s->now);
            if (s->net)
                sim_net_sync(s->net, s->svc);
        }
        return;
    case GBL_T_CPORT_RESET:
    case GBL_T_CPORT_CONNECTED:
    case GBL_T_CPORT_QUIESCE:
    case GBL_T_CPORT_CLEAR:
    case GBL_T_CPORT_FLUSH:
    case GBL_T_CPORT_SHUTDOWN:
    case GBL_T_CPORT_FLAGS:
        cport_control(s, rec);
        return;
    case GBL_T_LATENCY_TAG_ENABLE:
    case GBL_T_LATENCY_TAG_DISABLE:
        logf_(s, GB_SVC_LOG_DEBUG, "bridge: %s hd CPort %u", gbl_type_name(rec->type), rec->cport);
        gbl_send_result(s->link, rec, GBL_STATUS_OK, NULL, 0, s->now / 1000u);
        return;
    case GBL_T_LOG_REQUEST:
        gbl_send_result(s->link, rec, GBL_STATUS_OK, NULL, 0, s->now / 1000u);
        return;
    case GBL_T_TIMESYNC_ENABLE:
    case GBL_T_TIMESYNC_DISABLE:
    case GBL_T_TIMESYNC_AUTHORITATIVE:
    case GBL_T_TIMESYNC_GET_LAST_EVENT:
    default:
        logf_(s, GB_SVC_LOG_INFO, "bridge: %s not supported (Linux 6.1 does not use it)",
              gbl_type_name(rec->type));
        if (rec->type >= GBL_T_CPORT_RESET && rec->type < GBL_T_RESULT)
            gbl_send_result(s->link, rec, GBL_STATUS_UNSUPPORTED, NULL, 0, s->now / 1000u);
        return;
    }
}

static void on_up(void *ctx)
{
    sim_gbvp *s = ctx;
    logf_(s, GB_SVC_LOG_INFO, "bridge: QEMU connected (ring %u bytes)", gbl_ring_size(s->link));
    gbl_hello h;
    memset(&h, 0, sizeof h);
    h.version_major = GBL_VERSION_MAJOR;
    h.version_minor = GBL_VERSION_MINOR;
    h.cport_count = s->cfg.cport_count;
    snprintf(h.name, sizeof h.name, "gbvp");
    gbl_send_msg(s->link, GBL_T_HELLO, GBL_CPORT_NONE, 0, s->now / 1000u, &h, sizeof h);
}

static void on_down(void *ctx, int err, const char *why)
{
    sim_gbvp *s = ctx;
    logf_(s, err == -ECONNRESET ? GB_SVC_LOG_INFO : GB_SVC_LOG_WARN,
          "bridge: QEMU gone (%s); waiting for it again", why);
    s->out_count = 0;
    memset(s->cports, 0, sizeof s->cports);
    ap_session_ended(s);
}

static void on_writable(void *ctx)
{
    flush_out(ctx);
}

/* ---- life cycle ---- */

sim_gbvp *sim_gbvp_new(const sim_gbvp_config *cfg, char *err, size_t errlen)
{
    sim_gbvp *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (!s->cfg.cport_count)
        s->cfg.cport_count = 44;
    if (!s->cfg.link.gear)
        s->cfg.link = up_phy_cfg_startup();
    gb_svc_config sc = { .num_slots = s->cfg.num_slots, .ap_cport_count = s->cfg.cport_count };
    gb_svc_env env = { .to_ap = to_ap, .log = svc_log, .ctx = s };
    if (s->cfg.timing != SIM_TIMING_OFF) {
        env.transit = net_transit;
        env.power_mode = net_power_mode;
    }
    s->k = sim_event_kernel_new(0);
    s->svc = s->k ? gb_svc_new(&sc, &env, err, errlen) : NULL;
    if (!s->svc) {
        if (!s->k)
            snprintf(err, errlen, "out of memory");
        sim_event_kernel_free(s->k);
        free(s);
        return NULL;
    }
    if (s->cfg.timing != SIM_TIMING_OFF) {
        /* ports 0..last interface, the SVC on the next (as gb_svc's routing table) */
        sim_net_cfg nc = { .ports = s->cfg.num_slots + 3u, .ap_intf = gb_svc_ap_intf_id(s->svc),
                           .phy = s->cfg.link, .ber = s->cfg.ber, .seed = s->cfg.seed,
                           .message_level = s->cfg.timing == SIM_TIMING_MESSAGE };
        char why[200];
        s->net = sim_net_new(sim_event_kernel_scheduler(s->k), &nc, net_arrived, s, why, sizeof why);
        if (!s->net) {
            snprintf(err, errlen, "timing: %s", why);
            sim_gbvp_free(s);
            return NULL;
        }
    }
    s->slots = gb_slots_new(s->svc);
    gbl_config lc = { .name = "gbvp" };
    gbl_callbacks cb = { .record = on_record, .up = on_up, .down = on_down,
                         .writable = on_writable };
    s->link = s->slots ? gbl_server_new(cfg->link_path, &lc, &cb, s, err, errlen) : NULL;
    if (!s->link) {
        sim_gbvp_free(s);
        return NULL;
    }
    logf_(s, GB_SVC_LOG_INFO, "gbvp sim: %u slots, APBridgeA with %u CPorts, waiting for QEMU "
          "on %s", s->cfg.num_slots, s->cfg.cport_count, cfg->link_path);
    char mode[32];
    up_phy_cfg_name(&s->cfg.link, mode, sizeof mode);
    logf_(s, GB_SVC_LOG_INFO, "gbvp sim: clock %s, timing %s%s%s", s->cfg.clock == SIM_CLOCK_FAST ?
          "fast" : "realtime", !s->net ? "off" : s->cfg.timing == SIM_TIMING_MESSAGE ?
          "message, links " : "frame, links ", s->net ? mode : "",
          s->net && s->cfg.ber > 0 ? " with bit errors" : "");
    return s;
}

void sim_gbvp_free(sim_gbvp *s)
{
    if (!s)
        return;
    if (s->slots)
        gb_slots_free(s->slots, s->now);
    gbl_free(s->link);
    sim_net_free(s->net); /* before the kernel: its pending events refer to the network */
    gb_svc_free(s->svc);
    sim_event_kernel_free(s->k);
    free(s->outq);
    free(s);
}

int sim_gbvp_fd(const sim_gbvp *s)
{
    return gbl_fd(s->link);
}

/* Runs the events due up to `now` and sets the clock there (never backwards). */
static void advance(sim_gbvp *s, sim_time now)
{
    if (now > sim_event_kernel_now(s->k))
        sim_event_kernel_run_until(s->k, now);
    s->now = sim_event_kernel_now(s->k);
}

void sim_gbvp_process(sim_gbvp *s, sim_time now)
{
    advance(s, now);
    gbl_process(s->link);
    gb_svc_tick(s->svc, s->now);
}

sim_time sim_gbvp_now(const sim_gbvp *s)
{
    return s->now;
}

bool sim_gbvp_next_event(sim_gbvp *s, sim_time *out)
{
    return sim_event_kernel_next_time(s->k, out);
}

sim_time sim_gbvp_clock_now(sim_gbvp *s, sim_time wall)
{
    sim_time next;
    if (s->cfg.clock == SIM_CLOCK_FAST)
        return sim_event_kernel_next_time(s->k, &next) ? next : s->now;
    return wall > s->now ? wall : s->now;
}

struct timespec sim_gbvp_poll_timeout(sim_gbvp *s, sim_time wall)
{
    sim_time next, wait = SIM_MS(100);
    if (sim_event_kernel_next_time(s->k, &next)) {
        if (s->cfg.clock == SIM_CLOCK_FAST || next <= wall)
            wait = 0;
        else if (next - wall < wait)
            wait = next - wall;
    }
    wait = (wait + 999u) / 1000u; /* ns, rounded up so the event is due on waking */
    return (struct timespec){ .tv_sec = (time_t)(wait / 1000000000u),
                              .tv_nsec = (long)(wait % 1000000000u) };
}

int sim_gbvp_write_stats(sim_gbvp *s, const char *path)
{
    if (!s->net) {
        logf_(s, GB_SVC_LOG_ERROR, "--stats %s: timing is off, there are no model statistics",
              path);
        return -ENOTSUP;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        logf_(s, GB_SVC_LOG_ERROR, "--stats %s: %s", path, strerror(e));
        return -e;
    }
    int rc = sim_net_write_json(s->net, f);
    if (fclose(f) && !rc)
        rc = -EIO;
    if (rc)
        logf_(s, GB_SVC_LOG_ERROR, "--stats %s: write failed", path);
    return rc;
}

int sim_gbvp_parse_clock(const char *text, sim_gbvp_clock *out)
{
    if (!strcmp(text, "realtime"))
        *out = SIM_CLOCK_REALTIME;
    else if (!strcmp(text, "fast"))
        *out = SIM_CLOCK_FAST;
    else
        return -EINVAL;
    return 0;
}

int sim_gbvp_parse_link(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                        char *err, size_t errlen)
{
    return sim_net_parse_link(c, gear, series, lanes, err, errlen);
}

int sim_gbvp_parse_timing(const char *text, sim_gbvp_timing *out)
{
    if (!strcmp(text, "frame"))
        *out = SIM_TIMING_FRAME;
    else if (!strcmp(text, "message"))
        *out = SIM_TIMING_MESSAGE;
    else if (!strcmp(text, "off"))
        *out = SIM_TIMING_OFF;
    else
        return -EINVAL;
    return 0;
}

int sim_gbvp_insert(sim_gbvp *s, unsigned slot, const char *name, sim_time now)
{
    advance(s, now);
    now = s->now;
    char err[256];
    vm_module *m = vm_module_load(s->cfg.catalog_dir, name, err, sizeof err);
    if (!m) {
        logf_(s, GB_SVC_LOG_ERROR, "%s", err);
        return -ENOENT;
    }
    int rc = gb_slots_insert(s->slots, slot, m, now, err, sizeof err);
    vm_module_free(m);
    if (rc)
        logf_(s, GB_SVC_LOG_ERROR, "cannot insert %s in slot %u: %s", name, slot, err);
    return rc;
}

int sim_gbvp_remove(sim_gbvp *s, unsigned slot, sim_time now)
{
    advance(s, now);
    now = s->now;
    int rc = gb_slots_remove(s->slots, slot, now);
    if (rc)
        logf_(s, GB_SVC_LOG_ERROR, "slot %u is empty", slot);
    return rc;
}

void sim_gbvp_status(sim_gbvp *s)
{
    printf("link: %s, SVC handshake %s\n",
           gbl_state(s->link) == GBL_STATE_UP ? "up" : "waiting for QEMU",
           gb_svc_handshake_done(s->svc) ? "done" : "not done");
    for (unsigned i = 0; i < gb_svc_num_slots(s->svc); i++) {
        gb_svc_intf_info in;
        uint8_t id = gb_svc_slot_intf_id(s->svc, i);
        gb_svc_get_intf(s->svc, id, &in);
        const char *name = gb_slots_module_name(s->slots, i);
        if (!name) {
            printf("slot %u (interface %u): empty\n", i, id);
            continue;
        }
        printf("slot %u (interface %u): %s%s%s%s", i, id, name, in.vsys ? ", powered" : "",
               in.active ? ", active" : "", in.hibernated ? ", hibernated" : "");
        if (in.device_id)
            printf(", device id %u", in.device_id);
        printf("\n");
    }
    const gb_svc_conn_table *t = gb_svc_connections(s->svc);
    for (size_t i = 0; i < gb_svc_conn_count(t); i++) {
        const gb_svc_conn *c = gb_svc_conn_at(t, i);
        printf("connection %u:%u <-> %u:%u flags 0x%02x\n", c->intf1, c->cport1, c->intf2,
               c->cport2, c->flags);
    }
    gb_svc_stats st = gb_svc_get_stats(s->svc);
    printf("AP requests %llu (bad %llu), pings %llu, to AP %llu, to modules %llu, dropped %llu\n",
           (unsigned long long)st.ap_requests, (unsigned long long)st.ap_bad_requests,
           (unsigned long long)st.pings, (unsigned long long)st.forwarded_to_ap,
           (unsigned long long)st.forwarded_to_intf, (unsigned long long)st.dropped);
    printf("time %.6f s simulated, %llu events\n", (double)s->now / 1e12,
           (unsigned long long)sim_event_kernel_executed(s->k));
    if (s->net)
        sim_net_print(s->net, stdout);
    fflush(stdout);
}

int sim_gbvp_command(sim_gbvp *s, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len)
{
    vm_interface *intf = slot < s->cfg.num_slots ? gb_slots_interface(s->slots, slot, index)
                                                 : NULL;
    if (!intf) {
        snprintf(reply, len, "slot %u has no interface %u (empty slot, or the module is "
                 "narrower)", slot, index + 1);
        return -1;
    }
    return vm_backend_command(intf, line, s->now, reply, len);
}

sim_net *sim_gbvp_net(sim_gbvp *s)
{
    return s->net;
}

/* The switch port of the interface in slot, or of the AP for GB_SVC_SLOT_AP (port of
 * interface i is i), or -errno. */
static int slot_port(sim_gbvp *s, unsigned slot, char *err, size_t errlen)
{
    if (!s->net) {
        snprintf(err, errlen, "timing is off: there is no UniPro link model (run the simulator "
                 "with --timing frame)");
        return -ENOTSUP;
    }
    if (slot == GB_SVC_SLOT_AP)
        return gb_svc_ap_intf_id(s->svc);
    if (slot >= s->cfg.num_slots) {
        snprintf(err, errlen, "slot %u outside 0..%u", slot, s->cfg.num_slots - 1);
        return -EINVAL;
    }
    return gb_svc_slot_intf_id(s->svc, slot);
}

/* "slot N" or "the AP" for messages. */
static const char *link_name(unsigned slot, char *buf, size_t len)
{
    if (slot == GB_SVC_SLOT_AP)
        snprintf(buf, len, "the AP");
    else
        snprintf(buf, len, "slot %u", slot);
    return buf;
}

int sim_gbvp_link_set(sim_gbvp *s, unsigned slot, const up_phy_cfg *phy, char *err,
                      size_t errlen)
{
    int port = slot_port(s, slot, err, errlen);
    return port < 0 ? port : sim_net_link_set(s->net, (unsigned)port, phy, err, errlen);
}

int sim_gbvp_link_fault(sim_gbvp *s, unsigned slot, const sim_link_fault *f, char *err,
                        size_t errlen)
{
    int port = slot_port(s, slot, err, errlen);
    if (port < 0)
        return port;
    int rc = sim_net_link_fault(s->net, (unsigned)port, f, err, errlen);
    char name[24];
    if (!rc)
        logf_(s, GB_SVC_LOG_INFO, "timing: link of %s:%s%s%s", link_name(slot, name, sizeof name),
              f->set_ber ? " bit errors set" : "", f->set_drop ? " frame drops set" : "",
              f->set_down ? (f->down ? " down" : " up") : "");
    return rc;
}

int sim_gbvp_link_info(sim_gbvp *s, unsigned slot, sim_net_link_info *out, char *err,
                       size_t errlen)
{
    int port = slot_port(s, slot, err, errlen);
    if (port < 0)
        return port;
    if (!sim_net_link_info_get(s->net, (unsigned)port, out)) {
        char name[24];
        snprintf(err, errlen, "the link of %s has no frame-level model yet (it carried no "
                 "traffic, or timing is message-level)", link_name(slot, name, sizeof name));
        return -ENODEV;
    }
    return 0;
}

int sim_gbvp_link_report(sim_gbvp *s, unsigned slot, sim_scenario_link *out, char *err,
                         size_t errlen)
{
    sim_net_link_info li;
    int rc = sim_gbvp_link_info(s, slot, &li, err, errlen);
    if (rc)
        return rc;
    sim_net_dir_stats to = sim_net_get_dir_stats(s->net, SIM_NET_AP_TO_INTF);
    sim_net_dir_stats from = sim_net_get_dir_stats(s->net, SIM_NET_INTF_TO_AP);
    *out = (sim_scenario_link){ .ber = li.ber, .drop = li.drop, .frames = li.frames,
                                .replays = li.replays, .replay_timeouts = li.replay_timeouts,
                                .crc_errors = li.crc_errors, .dropped = li.dropped,
                                .duplicates = li.duplicates, .to_intf_sent = to.sent_msgs,
                                .to_intf_delivered = to.delivered_msgs,
                                .from_intf_sent = from.sent_msgs,
                                .from_intf_delivered = from.delivered_msgs };
    up_phy_cfg_name(&li.phy, out->mode, sizeof out->mode);
    snprintf(out->state, sizeof out->state, "%s", li.state);
    return 0;
}

gb_svc *sim_gbvp_svc(sim_gbvp *s)
{
    return s->svc;
}
