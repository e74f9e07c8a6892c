// SPDX-License-Identifier: MIT
// The bridge over gblink (see bridge_gblink.h).
#include "sim/bridge_gblink.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"
#include "sim/lockstep.h"

/* Everything queued at most: messages up to the cap, answers in the reserve beyond it. */
#define OUT_QUEUE_LIMIT (SIM_BRIDGE_GBLINK_QUEUE_MAX + SIM_BRIDGE_GBLINK_RESULT_RESERVE)

/* A record for QEMU that found the ring full: a message for the AP or an answer to one of
 * QEMU's requests (the gbl_result is its data). */
typedef struct out_rec {
    uint16_t type;
    uint16_t cport;
    uint32_t id;
    uint64_t time_ns;
    uint32_t len;
    _Alignas(8) uint8_t data[GB_MSG_MAX_SIZE];
} out_rec;

struct sim_bridge_gblink {
    sim_bridge *bridge;
    gbl_link *link;
    sw_log_fn log;
    void *log_ctx;
    sim_time now; /* of the process call running */
    out_rec *outq;
    size_t out_head, out_count, out_cap;
    /* lockstep */
    bool lockstep;
    sim_bridge_gblink_lockstep lk;
    sim_bridge_gblink_clock rt; /* realtime: .now NULL when not set */
    sim_time base;       /* simulated time of the peer's link time 0 */
    char refuse[256];    /* why the connection must be dropped after this process call */
    bool grant_owed;     /* a grant found the ring full: sent when it has room */
    uint64_t grant_until;
    sim_bridge_gblink_stats st;
    /* Drops come in floods (QEMU stopped, or gone): each flood is told when it starts and
     * summed up when it ends, so that it cannot flood the log too. */
    uint64_t full_drops;    /* since the queue was last found full; ends when it drains */
    uint64_t no_peer_drops; /* since QEMU was last connected; ends when it connects */
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

/* ---- link time (lockstep: virtual ns since the connection) ---- */

static uint64_t link_ns(const sim_bridge_gblink *g, sim_time t)
{
    if (!g->lockstep)
        return t / 1000u;
    return t > g->base ? (t - g->base) / 1000u : 0;
}

static sim_time sim_at(const sim_bridge_gblink *g, uint64_t ns)
{
    return g->base + (sim_time)ns * 1000u;
}

static void refuse_later(sim_bridge_gblink *g, const char *why);

/* How far past its last grant a lockstep peer's stamp may lie before it is refused: the
 * peer is parked at each grant, so a stamp beyond it is a broken peer; the margin only
 * keeps a rounding of the peer's clock from ever being taken for one. */
#define LOCKSTEP_STAMP_SLACK_NS 1000000000ull

/* Whether a lockstep peer's time (a stamp, or how far it got) can be believed: within its
 * grant and inside simulated time. Otherwise the connection is dropped after this call. */
static bool believable(sim_bridge_gblink *g, uint64_t ns, const char *what)
{
    uint64_t granted = sim_lockstep_granted(g->lk.ls);
    bool in_time = ns <= (SIM_TIME_MAX - g->base) / 1000u;
    bool granted_enough = ns <= granted || ns - granted <= LOCKSTEP_STAMP_SLACK_NS;
    if (in_time && granted_enough)
        return true;
    char why[200];
    snprintf(why, sizeof why, "QEMU %s %llu ns, past the %llu ns it was granted", what,
             (unsigned long long)ns, (unsigned long long)granted);
    refuse_later(g, why);
    return false;
}

/* Lockstep: a record from the peer is handled at its stamp (stamps never go backwards).
 * Realtime with a clock: at the time it is read, which is after QEMU wrote it. */
static void follow_peer(sim_bridge_gblink *g, const gbl_record *rec)
{
    if (g->lockstep) {
        if (rec->type != GBL_T_HELLO && believable(g, rec->time_ns, "stamped a record at") &&
            sim_at(g, rec->time_ns) > g->now)
            g->now = g->lk.advance(g->lk.ctx, sim_at(g, rec->time_ns));
        return;
    }
    if (g->rt.now) {
        sim_time t = g->rt.now(g->rt.ctx);
        if (t > g->now)
            g->now = g->rt.advance(g->rt.ctx, t);
    }
}

static void refuse_later(sim_bridge_gblink *g, const char *why)
{
    if (!g->refuse[0])
        snprintf(g->refuse, sizeof g->refuse, "%s", why);
}

/* ---- to the AP ---- */

static bool send_grant(sim_bridge_gblink *g)
{
    gbl_time_grant t = { .until_ns = g->grant_until };
    int rc = gbl_send_msg(g->link, GBL_T_TIME_GRANT, GBL_CPORT_NONE, 0, link_ns(g, g->now), &t,
                          sizeof t);
    g->grant_owed = rc == -EAGAIN;
    if (rc && rc != -EAGAIN)
        glog(g, SW_LOG_ERROR, "bridge: time grant to QEMU lost: %s", gbl_error(g->link));
    return rc == 0;
}

/* The end of a flood of drops at the full queue: one line sums it up. */
static void end_full_drops(sim_bridge_gblink *g, const char *how)
{
    if (!g->full_drops)
        return;
    glog(g, SW_LOG_WARN, "bridge: %llu records for QEMU dropped while its queue was full; %s",
         (unsigned long long)g->full_drops, how);
    g->full_drops = 0;
}

static void end_no_peer_drops(sim_bridge_gblink *g, const char *how)
{
    if (!g->no_peer_drops)
        return;
    glog(g, SW_LOG_WARN, "bridge: %llu messages for the AP dropped while no QEMU was "
         "connected; %s", (unsigned long long)g->no_peer_drops, how);
    g->no_peer_drops = 0;
}

/* gblink refused a record for another reason than room (bad record, link broken). */
static void send_failed(sim_bridge_gblink *g, const gbl_record *rec, int rc)
{
    const char *why = gbl_error(g->link);
    g->st.send_failed++;
    glog(g, SW_LOG_WARN, "bridge: %s for QEMU on hd CPort %u lost: %s", gbl_type_name(rec->type),
         rec->cport, why[0] ? why : strerror(-rc));
}

/* Whatever waits is thrown away (QEMU went away, the bridge closes): counted and told. */
static void discard_queue(sim_bridge_gblink *g, const char *why)
{
    if (!g->out_count)
        return;
    size_t results = 0;
    for (size_t i = 0; i < g->out_count; i++)
        results += g->outq[(g->out_head + i) % g->out_cap].type == GBL_T_RESULT;
    g->st.discarded += g->out_count;
    glog(g, SW_LOG_WARN, "bridge: %zu records for QEMU discarded unsent (messages for the AP: "
         "%zu, answers to its requests: %zu): %s", g->out_count, g->out_count - results, results,
         why);
    g->out_head = g->out_count = 0;
}

static gbl_record out_record(const out_rec *r)
{
    return (gbl_record){ .type = r->type, .cport = r->cport, .id = r->id,
                         .time_ns = r->time_ns, .len = r->len, .payload = r->data };
}

static bool flush_out(sim_bridge_gblink *g)
{
    while (g->out_count) {
        gbl_record rec = out_record(&g->outq[g->out_head]);
        int rc = gbl_send(g->link, &rec);
        if (rc == -EAGAIN)
            return false;
        /* A broken ring took the link down inside the send: on_down counted and discarded
         * this record with the rest. */
        if (rc && gbl_state(g->link) != GBL_STATE_UP)
            return false;
        if (rc)
            send_failed(g, &rec, rc);
        g->out_head = (g->out_head + 1) % g->out_cap;
        g->out_count--;
    }
    end_full_drops(g, "QEMU reads again and the queue has drained");
    return !g->grant_owed || send_grant(g);
}

/* Drops a record the queue has no place for; the first of a flood is told. */
static void drop_at_queue(sim_bridge_gblink *g, const gbl_record *rec, const char *why)
{
    if (rec->type == GBL_T_RESULT)
        g->st.results_dropped++;
    else
        g->st.messages_dropped++;
    if (!g->full_drops++)
        glog(g, SW_LOG_WARN, "bridge: %s for QEMU on hd CPort %u dropped: %s; further drops "
             "are counted and summed up when the queue drains or QEMU goes away",
             gbl_type_name(rec->type), rec->cport, why);
}

/* Answers to QEMU's requests may use the reserve beyond the messages' cap. */
static bool queue_has_room(const sim_bridge_gblink *g, uint16_t type)
{
    return g->out_count < (type == GBL_T_RESULT ? OUT_QUEUE_LIMIT : SIM_BRIDGE_GBLINK_QUEUE_MAX);
}

static bool grow_queue(sim_bridge_gblink *g)
{
    size_t cap = g->out_cap ? g->out_cap * 2 : 64;
    if (cap > OUT_QUEUE_LIMIT)
        cap = OUT_QUEUE_LIMIT;
    out_rec *q = malloc(cap * sizeof *q);
    if (!q)
        return false;
    for (size_t i = 0; i < g->out_count; i++)
        q[i] = g->outq[(g->out_head + i) % g->out_cap];
    free(g->outq);
    g->outq = q;
    g->out_cap = cap;
    g->out_head = 0;
    return true;
}

/* Keeps a record the ring could not take, in order behind those already waiting. */
static void queue_out(sim_bridge_gblink *g, const gbl_record *rec)
{
    if (!queue_has_room(g, rec->type)) {
        char why[160];
        snprintf(why, sizeof why, "%zu records already wait for room in the ring (QEMU is not "
                 "reading: stopped, or its guest no longer polls)", g->out_count);
        drop_at_queue(g, rec, why);
        return;
    }
    if (g->out_count == g->out_cap && !grow_queue(g)) {
        drop_at_queue(g, rec, "out of memory for the queue");
        return;
    }
    out_rec *r = &g->outq[(g->out_head + g->out_count++) % g->out_cap];
    r->type = rec->type;
    r->cport = rec->cport;
    r->id = rec->id;
    r->time_ns = rec->time_ns;
    r->len = rec->len;
    memcpy(r->data, rec->payload, rec->len);
    g->st.queued++;
    if (g->out_count > g->st.queue_peak)
        g->st.queue_peak = g->out_count;
}

/* Into the ring when nothing waits, else behind what waits: QEMU gets every record in the
 * order it was made (an answer never overtakes a message, nor a message an answer). */
static void to_qemu(sim_bridge_gblink *g, const gbl_record *rec)
{
    if (!g->out_count) {
        int rc = gbl_send(g->link, rec);
        if (rc != -EAGAIN) {
            if (rc)
                send_failed(g, rec, rc);
            return;
        }
    }
    queue_out(g, rec);
}

/* A message for the AP while QEMU is not connected; the first of a flood is told. */
static void drop_without_peer(sim_bridge_gblink *g, uint16_t hd_cport, const gb_msg *m)
{
    g->st.no_peer++;
    if (!g->no_peer_drops++)
        glog(g, SW_LOG_WARN, "bridge: no QEMU connected, %u-byte message for hd CPort %u "
             "dropped; further ones are counted until QEMU connects", m->h.size, hd_cport);
}

static void to_ap(void *ctx, uint16_t hd_cport, const gb_msg *m, sim_time now)
{
    sim_bridge_gblink *g = ctx;
    if (gbl_state(g->link) != GBL_STATE_UP) {
        drop_without_peer(g, hd_cport, m);
        return;
    }
    if (m->h.size > GB_MSG_MAX_SIZE) {
        g->st.oversize++;
        glog(g, SW_LOG_ERROR, "bridge: %u-byte message for hd CPort %u exceeds the ES2 limit of "
             "2048 bytes, dropped", m->h.size, hd_cport);
        return;
    }
    gbl_record rec = { .type = GBL_T_GB_MESSAGE, .cport = hd_cport, .time_ns = link_ns(g, now),
                       .len = m->h.size, .payload = m->bytes };
    to_qemu(g, &rec);
}

/* Every request of QEMU gets exactly one answer, in order with what else it is sent. */
static void answer(sim_bridge_gblink *g, const gbl_record *req, uint8_t status)
{
    gbl_result res = { .status = status, .request_type = req->type };
    gbl_record rec = { .type = GBL_T_RESULT, .cport = req->cport, .id = req->id,
                       .time_ns = link_ns(g, g->now), .len = sizeof res, .payload = &res };
    to_qemu(g, &rec);
}

/* ---- from the AP ---- */

static void on_grant_request(sim_bridge_gblink *g, const gbl_record *rec)
{
    gbl_time_grant t;
    if (!g->lockstep) {
        glog(g, SW_LOG_DEBUG, "bridge: time grant from QEMU ignored (clock is not lockstep)");
        return;
    }
    memcpy(&t, rec->payload, sizeof t);
    if (!believable(g, t.until_ns, "reported reaching"))
        return;
    if (sim_at(g, t.until_ns) > g->now)
        g->now = g->lk.advance(g->lk.ctx, sim_at(g, t.until_ns));
    if (sim_lockstep_reached(g->lk.ls, t.until_ns)) {
        char why[160];
        snprintf(why, sizeof why, "QEMU reported virtual time %llu ns, before the %llu ns it "
                 "reported earlier", (unsigned long long)t.until_ns,
                 (unsigned long long)sim_lockstep_peer_time(g->lk.ls));
        refuse_later(g, why);
    }
}

static void on_record(void *ctx, const gbl_record *rec)
{
    sim_bridge_gblink *g = ctx;
    follow_peer(g, rec);
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
    case GBL_T_TIME_GRANT:
        on_grant_request(g, rec);
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
        answer(g, rec, status);
        return;
    }
    case GBL_T_LATENCY_TAG_ENABLE:
    case GBL_T_LATENCY_TAG_DISABLE:
        glog(g, SW_LOG_DEBUG, "bridge: %s hd CPort %u", gbl_type_name(rec->type), rec->cport);
        answer(g, rec, GBL_STATUS_OK);
        return;
    case GBL_T_LOG_REQUEST:
        answer(g, rec, GBL_STATUS_OK);
        return;
    case GBL_T_AUDIO_CONTROL: {
        uint8_t status = sim_bridge_audio_control(g->bridge, rec->payload, rec->len);
        answer(g, rec, status);
        return;
    }
    default:
        glog(g, SW_LOG_INFO, "bridge: %s not supported (Linux 6.1 does not use it)",
             gbl_type_name(rec->type));
        if (rec->type >= GBL_T_CPORT_RESET && rec->type < GBL_T_RESULT)
            answer(g, rec, GBL_STATUS_UNSUPPORTED);
        return;
    }
}

static void on_up(void *ctx)
{
    sim_bridge_gblink *g = ctx;
    glog(g, SW_LOG_INFO, "bridge: QEMU connected (ring %u bytes%s)", gbl_ring_size(g->link),
         gbl_features(g->link) & GBL_FEATURE_LOCKSTEP ? ", lockstep" : "");
    end_no_peer_drops(g, "QEMU is connected now");
    if (g->lockstep) {
        g->base = g->now;
        sim_lockstep_reset(g->lk.ls);
        if (!(gbl_features(g->link) & GBL_FEATURE_LOCKSTEP))
            refuse_later(g, "QEMU's greybus-es2 does not offer lockstep, which this simulator "
                         "runs (--clock lockstep): give the device lockstep=on and run QEMU "
                         "with -icount shift=N,sleep=off");
    }
    gbl_hello h;
    memset(&h, 0, sizeof h);
    h.version_major = GBL_VERSION_MAJOR;
    h.version_minor = GBL_VERSION_MINOR;
    h.cport_count = sim_bridge_cport_count(g->bridge);
    snprintf(h.name, sizeof h.name, "gbvp");
    gbl_record rec = { .type = GBL_T_HELLO, .cport = GBL_CPORT_NONE,
                       .time_ns = link_ns(g, g->now), .len = sizeof h, .payload = &h };
    to_qemu(g, &rec); /* (the queue is empty and the ring new: it goes straight in) */
}

static void on_down(void *ctx, int err, const char *why)
{
    sim_bridge_gblink *g = ctx;
    glog(g, err == -ECONNRESET ? SW_LOG_INFO : SW_LOG_WARN,
         "bridge: QEMU gone (%s); waiting for it again", why);
    end_full_drops(g, "QEMU went away");
    discard_queue(g, "QEMU went away before the ring had room for them");
    g->grant_owed = false;
    if (g->lockstep)
        sim_lockstep_reset(g->lk.ls);
    sim_bridge_ap_gone(g->bridge, g->now);
}

static void on_writable(void *ctx)
{
    flush_out(ctx);
}

/* gblink turned a peer away (out of file descriptors); QEMU, if connected, stays. */
static void on_notice(void *ctx, int err, const char *why)
{
    (void)err;
    glog(ctx, SW_LOG_WARN, "bridge: %s", why);
}

/* ---- life cycle ---- */

sim_bridge_gblink *sim_bridge_gblink_new(sim_bridge *b, const char *path,
                                         const sim_bridge_gblink_lockstep *lockstep,
                                         sw_log_fn log, void *log_ctx, char *err,
                                         size_t errlen)
{
    return sim_bridge_gblink_new_ring(b, path, lockstep, 0, log, log_ctx, err, errlen);
}

sim_bridge_gblink *sim_bridge_gblink_new_ring(sim_bridge *b, const char *path,
                                              const sim_bridge_gblink_lockstep *lockstep,
                                              uint32_t ring_size, sw_log_fn log, void *log_ctx,
                                              char *err, size_t errlen)
{
    sim_bridge_gblink *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->bridge = b;
    g->log = log;
    g->log_ctx = log_ctx;
    if (lockstep) {
        g->lockstep = true;
        g->lk = *lockstep;
    }
    gbl_config lc = { .name = "gbvp", .ring_size = ring_size,
                       .features = GBL_FEATURE_AUDIO | (lockstep ? GBL_FEATURE_LOCKSTEP : 0) };
    gbl_callbacks cb = { .record = on_record, .up = on_up, .down = on_down,
                         .writable = on_writable, .notice = on_notice };
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
    end_full_drops(g, "the bridge closes");
    discard_queue(g, "the bridge closes before QEMU read them");
    end_no_peer_drops(g, "the bridge closes");
    gbl_free(g->link);
    free(g->outq);
    free(g);
}

int sim_bridge_gblink_fd(const sim_bridge_gblink *g)
{
    return gbl_fd(g->link);
}

bool sim_bridge_gblink_has_records(const sim_bridge_gblink *g)
{
    return gbl_has_records(g->link);
}

int sim_bridge_gblink_process(sim_bridge_gblink *g, sim_time now, bool look)
{
    if (now > g->now || !g->lockstep)
        g->now = now;
    if (!look)
        return 0;
    int n = gbl_process(g->link);
    if (g->refuse[0]) {
        glog(g, SW_LOG_ERROR, "bridge: %s; dropping the connection", g->refuse);
        g->refuse[0] = 0;
        gbl_disconnect(g->link);
        on_down(g, -EPROTO, "lockstep refused");
    }
    return n;
}

bool sim_bridge_gblink_grant(sim_bridge_gblink *g, sim_time next_event, sim_time hold)
{
    if (!g->lockstep || gbl_state(g->link) != GBL_STATE_UP || g->out_count)
        return false; /* messages stamped before the grant must precede it */
    uint64_t next = next_event == SIM_TIME_MAX ? SIM_LOCKSTEP_NEVER
                    : next_event <= g->base    ? 0
                                               : (next_event - g->base + 999u) / 1000u;
    uint64_t until, held = hold == SIM_TIME_MAX ? SIM_LOCKSTEP_NEVER : link_ns(g, hold);
    if (g->grant_owed || !sim_lockstep_grant(g->lk.ls, next, held, &until))
        return false;
    g->grant_until = until;
    return send_grant(g);
}


void sim_bridge_gblink_read_clock(sim_bridge_gblink *g, const sim_bridge_gblink_clock *clock)
{
    g->rt = clock && !g->lockstep ? *clock : (sim_bridge_gblink_clock){ 0 };
}

bool sim_bridge_gblink_up(const sim_bridge_gblink *g)
{
    return gbl_state(g->link) == GBL_STATE_UP;
}

sim_bridge_gblink_stats sim_bridge_gblink_get_stats(const sim_bridge_gblink *g)
{
    sim_bridge_gblink_stats st = g->st;
    gbl_stats ls;
    gbl_get_stats(g->link, &ls);
    st.waiting = g->out_count;
    st.clients_refused = ls.refused;
    return st;
}
