// SPDX-License-Identifier: MIT
// The APBridgeA's audio side (see bridge_audio.h).
#include "sim/bridge_audio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gblink/gblink.h"

/* APBridgeA request types (audio_apbridgea.h). */
enum {
    APBA_SET_CONFIG = 0x01,
    APBA_REGISTER_CPORT = 0x02,
    APBA_UNREGISTER_CPORT = 0x03,
    APBA_SET_TX_DATA_SIZE = 0x04,
    APBA_PREPARE_TX = 0x06,
    APBA_START_TX = 0x07,
    APBA_STOP_TX = 0x08,
    APBA_SHUTDOWN_TX = 0x09,
    APBA_SET_RX_DATA_SIZE = 0x0a,
    APBA_PREPARE_RX = 0x0c,
    APBA_START_RX = 0x0d,
    APBA_STOP_RX = 0x0e,
    APBA_SHUTDOWN_RX = 0x0f,
};
#define APBA_HEADER 3u
#define APBA_DIRECTION_TX 0x01u
#define APBA_DIRECTION_RX 0x02u
#define APBA_PCM_FMT_BITS 5u   /* AUDIO_APBRIDGEA_PCM_FMT_8 .. _64 */
#define APBA_PCM_RATE_BITS 13u /* AUDIO_APBRIDGEA_PCM_RATE_5512 .. _192000 */


/* I2S carries two channels (left and right slots) per frame. */
#define I2S_CHANNELS 2u

struct sim_bridge_audio {
    const sim_scheduler *sched;
    uint16_t cport_count;
    sim_bridge_audio_send_fn send;
    void *send_ctx;
    sw_log_fn log;
    void *log_ctx;
    sim_bridge_audio_state st;
    sim_event tick;
    sim_time period;         /* time one TX message's samples take on the I2S line */
    sim_time started_at;
    uint64_t ticks;          /* messages' worth of time since the start */
};

static void alog(const sim_bridge_audio *a, sw_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void alog(const sim_bridge_audio *a, sw_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sw_log_vprintf(a->log, a->log_ctx, level, sim_now(a->sched), fmt, ap);
    va_end(ap);
}

sim_bridge_audio *sim_bridge_audio_new(const sim_scheduler *sched, uint16_t cport_count,
                                       sim_bridge_audio_send_fn send, void *send_ctx,
                                       sw_log_fn log, void *log_ctx)
{
    sim_bridge_audio *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->sched = sched;
    a->cport_count = cport_count;
    a->send = send;
    a->send_ctx = send_ctx;
    a->log = log;
    a->log_ctx = log_ctx;
    return a;
}

void sim_bridge_audio_free(sim_bridge_audio *a)
{
    if (!a)
        return;
    sim_cancel(a->sched, a->tick);
    free(a);
}

sim_bridge_audio_state sim_bridge_audio_get_state(const sim_bridge_audio *a)
{
    return a->st;
}

/* ---- the transmit stream ---- */

static void schedule_tick(sim_bridge_audio *a);

/* One message's worth of samples has been clocked in: it goes to every transmit CPort. */
static void on_tick(void *ctx)
{
    sim_bridge_audio *a = ctx;
    sim_bridge_audio_dir *tx = &a->st.tx;
    uint8_t buf[GB_MSG_MAX_SIZE];
    uint8_t payload[GB_MSG_MAX_PAYLOAD];
    size_t plen = GB_AUDIO_SEND_DATA_HEADER_SIZE + tx->data_size;
    /* the timestamp is the stream time of the first sample, in nanoseconds */
    uint64_t ts = (a->ticks * a->period) / 1000u;

    a->tick = SIM_EVENT_NONE;
    gb_put_le64(payload, ts);
    memset(payload + GB_AUDIO_SEND_DATA_HEADER_SIZE, 0, tx->data_size); /* silence */
    size_t n = gb_msg_build(buf, sizeof buf, 0, GB_AUDIO_TYPE_SEND_DATA, 0, payload, plen);
    gb_msg m;
    if (n && gb_msg_parse(buf, n, &m) == 0) {
        for (unsigned i = 0; i < tx->cports; i++) {
            a->send(a->send_ctx, tx->cport[i], &m);
            tx->messages++;
            tx->bytes += tx->data_size;
        }
    }
    a->ticks++;
    schedule_tick(a);
}

static void schedule_tick(sim_bridge_audio *a)
{
    /* due at start + ticks * period, so rounding never accumulates */
    sim_time due = a->started_at + (sim_time)a->ticks * a->period;
    sim_time now = sim_now(a->sched);
    if (sim_schedule(a->sched, due > now ? due - now : 0, on_tick, a, &a->tick)) {
        alog(a, SW_LOG_WARN, "bridge audio: cannot schedule the next TX message; the "
             "stream stops");
        a->st.tx.started = false;
    }
}

static void stop_stream(sim_bridge_audio *a)
{
    sim_cancel(a->sched, a->tick);
    a->tick = SIM_EVENT_NONE;
}

/* ---- requests ---- */

typedef struct request {
    uint8_t type;
    const uint8_t *body;
    size_t body_len;
} request;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static uint8_t refuse(sim_bridge_audio *a, const request *r, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    a->st.refused++;
    alog(a, SW_LOG_WARN, "bridge audio: request 0x%02x refused: %s", r->type, why);
    return GBL_STATUS_INVALID;
}

static uint8_t want_body(sim_bridge_audio *a, const request *r, size_t len)
{
    if (r->body_len != len)
        return refuse(a, r, "%zu body bytes, this type has %zu", r->body_len, len);
    return GBL_STATUS_OK;
}

/* The one bit set in `mask` below `bits`, or -1. */
static int one_bit(uint32_t mask, unsigned bits)
{
    for (unsigned i = 0; i < bits; i++)
        if (mask == 1u << i)
            return (int)i;
    return -1;
}

static uint8_t set_config(sim_bridge_audio *a, const request *r)
{
    static const uint32_t rates[APBA_PCM_RATE_BITS] = {
        5512, 8000, 11025, 16000, 22050, 32000, 44100, 48000, 64000, 88200, 96000, 176400,
        192000,
    };
    if (want_body(a, r, 12))
        return GBL_STATUS_INVALID;
    uint32_t format = gb_get_le32(r->body), rate = gb_get_le32(r->body + 4);
    int f = one_bit(format, APBA_PCM_FMT_BITS), q = one_bit(rate, APBA_PCM_RATE_BITS);
    if (f < 0)
        return refuse(a, r, "format 0x%x is not one AUDIO_APBRIDGEA_PCM_FMT_* bit", format);
    if (q < 0)
        return refuse(a, r, "rate 0x%x is not one AUDIO_APBRIDGEA_PCM_RATE_* bit", rate);
    if (a->st.tx.started || a->st.rx.started)
        return refuse(a, r, "the I2S port is streaming; stop it first");
    a->st.configured = true;
    static const uint32_t bits[APBA_PCM_FMT_BITS] = { 8, 16, 24, 32, 64 };
    a->st.format_bits = bits[f];
    a->st.rate_hz = rates[q];
    a->st.mclk_hz = gb_get_le32(r->body + 8);
    alog(a, SW_LOG_INFO, "bridge audio: I2S 0 set to %u-bit at %u Hz (MCLK %u Hz)",
         a->st.format_bits, a->st.rate_hz, a->st.mclk_hz);
    return GBL_STATUS_OK;
}

static sim_bridge_audio_dir *dir_of(sim_bridge_audio *a, uint8_t direction)
{
    return direction == APBA_DIRECTION_TX ? &a->st.tx
         : direction == APBA_DIRECTION_RX ? &a->st.rx : NULL;
}

static int find_cport(const sim_bridge_audio_dir *d, uint16_t cport)
{
    for (unsigned i = 0; i < d->cports; i++)
        if (d->cport[i] == cport)
            return (int)i;
    return -1;
}

static uint8_t register_cport(sim_bridge_audio *a, const request *r, bool add)
{
    if (want_body(a, r, 3))
        return GBL_STATUS_INVALID;
    uint16_t cport = gb_get_le16(r->body);
    uint8_t direction = r->body[2];
    sim_bridge_audio_dir *d = dir_of(a, direction);
    const char *dname = direction == APBA_DIRECTION_TX ? "TX" : "RX";
    if (!d)
        return refuse(a, r, "direction 0x%02x is neither TX (0x1) nor RX (0x2)", direction);
    if (cport == 0 || cport >= a->cport_count)
        return refuse(a, r, "hd CPort %u is not a data CPort of this bridge (1..%u)", cport,
                      a->cport_count - 1u);
    int i = find_cport(d, cport);
    if (add) {
        if (i >= 0)
            return refuse(a, r, "hd CPort %u is already registered for %s", cport, dname);
        if (d->cports == SIM_BRIDGE_AUDIO_CPORTS)
            return refuse(a, r, "%u CPorts are registered for %s already, the most it takes",
                          d->cports, dname);
        d->cport[d->cports++] = cport;
    } else {
        if (i < 0)
            return refuse(a, r, "hd CPort %u is not registered for %s", cport, dname);
        d->cport[i] = d->cport[--d->cports];
    }
    alog(a, SW_LOG_INFO, "bridge audio: hd CPort %u %sregistered for %s", cport,
         add ? "" : "un", dname);
    return GBL_STATUS_OK;
}

static uint8_t set_data_size(sim_bridge_audio *a, const request *r, sim_bridge_audio_dir *d,
                             const char *dname)
{
    if (want_body(a, r, 2))
        return GBL_STATUS_INVALID;
    uint16_t size = gb_get_le16(r->body);
    if (size == 0 || size > GB_MSG_MAX_PAYLOAD - GB_AUDIO_SEND_DATA_HEADER_SIZE)
        return refuse(a, r, "%s data size %u is outside 1..%u", dname, size,
                      GB_MSG_MAX_PAYLOAD - GB_AUDIO_SEND_DATA_HEADER_SIZE);
    if (d->started && size != d->data_size)
        return refuse(a, r, "%s is streaming; its data size cannot change", dname);
    if (d->started) {
        /* 6.1 mutes (STOP, SHUTDOWN) only at hw_free, so an ALSA xrun recovery (stop,
         * prepare, start) sends the prepare sequence again to a streaming bridge */
        alog(a, SW_LOG_INFO, "bridge audio: %s data size %u bytes again while it streams "
             "(the kernel's xrun recovery): unchanged", dname, size);
        return GBL_STATUS_OK;
    }
    d->data_size = size;
    alog(a, SW_LOG_INFO, "bridge audio: %s data size %u bytes", dname, size);
    return GBL_STATUS_OK;
}

static uint8_t sequence(sim_bridge_audio *a, const request *r, sim_bridge_audio_dir *d,
                        const char *dname, uint8_t step)
{
    bool tx = d == &a->st.tx;
    const char *what = "";
    if (want_body(a, r, step == APBA_START_TX ? 8 : 0))
        return GBL_STATUS_INVALID;
    switch (step) {
    case APBA_PREPARE_TX:
    case APBA_PREPARE_RX:
        if (d->started) {
            alog(a, SW_LOG_INFO, "bridge audio: %s prepared again while it streams (the "
                 "kernel's xrun recovery): it streams on", dname);
            return GBL_STATUS_OK;
        }
        if (!a->st.configured)
            return refuse(a, r, "prepare %s before the I2S port is configured", dname);
        if (!d->data_size)
            return refuse(a, r, "prepare %s before its data size is set", dname);
        d->prepared = true;
        what = "prepared";
        break;
    case APBA_START_TX:
    case APBA_START_RX:
        if (!d->prepared)
            return refuse(a, r, "start %s before it is prepared", dname);
        if (d->started) {
            alog(a, SW_LOG_INFO, "bridge audio: %s started again while it streams (the "
                 "kernel's xrun recovery): it streams on", dname);
            a->st.restarts++;
            return GBL_STATUS_OK;
        }
        d->started = true;
        what = "started";
        if (tx) {
            uint64_t bytes_per_s = (uint64_t)a->st.rate_hz * (a->st.format_bits / 8u) *
                                   I2S_CHANNELS;
            a->period = (sim_time)d->data_size * SIM_S(1) / bytes_per_s;
            a->started_at = sim_now(a->sched);
            a->ticks = 0;
            schedule_tick(a);
            alog(a, SW_LOG_INFO, "bridge audio: TX started: %u bytes of samples every %llu ns "
                 "to %u CPort%s", d->data_size, (unsigned long long)(a->period / 1000u),
                 d->cports, d->cports == 1 ? "" : "s");
            return GBL_STATUS_OK;
        }
        break;
    case APBA_STOP_TX:
    case APBA_STOP_RX:
        if (!d->started)
            return refuse(a, r, "stop %s, which is not streaming", dname);
        d->started = false;
        what = "stopped";
        if (tx)
            stop_stream(a);
        break;
    case APBA_SHUTDOWN_TX:
    case APBA_SHUTDOWN_RX:
        if (d->started)
            return refuse(a, r, "shut %s down while it streams; stop it first", dname);
        d->prepared = false;
        what = "shut down";
        break;
    }
    alog(a, SW_LOG_INFO, "bridge audio: %s %s (%llu messages, %llu bytes so far)", dname, what,
         (unsigned long long)d->messages, (unsigned long long)d->bytes);
    return GBL_STATUS_OK;
}

uint8_t sim_bridge_audio_request(sim_bridge_audio *a, const uint8_t *req, size_t len)
{
    request r = { .type = len ? req[0] : 0 };
    if (len < APBA_HEADER)
        return refuse(a, &r, "%zu bytes, shorter than the 3-byte header", len);
    r.body = req + APBA_HEADER;
    r.body_len = len - APBA_HEADER;
    uint16_t i2s_port = gb_get_le16(req + 1);
    if (i2s_port != 0)
        return refuse(a, &r, "I2S port %u; the bridge has one, port 0", i2s_port);
    switch (r.type) {
    case APBA_SET_CONFIG: return set_config(a, &r);
    case APBA_REGISTER_CPORT: return register_cport(a, &r, true);
    case APBA_UNREGISTER_CPORT: return register_cport(a, &r, false);
    case APBA_SET_TX_DATA_SIZE: return set_data_size(a, &r, &a->st.tx, "TX");
    case APBA_SET_RX_DATA_SIZE: return set_data_size(a, &r, &a->st.rx, "RX");
    case APBA_PREPARE_TX:
    case APBA_START_TX:
    case APBA_STOP_TX:
    case APBA_SHUTDOWN_TX: return sequence(a, &r, &a->st.tx, "TX", r.type);
    case APBA_PREPARE_RX:
    case APBA_START_RX:
    case APBA_STOP_RX:
    case APBA_SHUTDOWN_RX: return sequence(a, &r, &a->st.rx, "RX", r.type);
    }
    return refuse(a, &r, "unknown APBridgeA audio request type");
}

bool sim_bridge_audio_take(sim_bridge_audio *a, uint16_t hd_cport, const gb_msg *m)
{
    sim_bridge_audio_dir *rx = &a->st.rx;
    if (find_cport(rx, hd_cport) < 0)
        return false;
    if (m->h.type == GB_AUDIO_TYPE_SEND_DATA && gb_msg_payload_len(m) >= GB_AUDIO_SEND_DATA_HEADER_SIZE) {
        rx->messages++;
        rx->bytes += gb_msg_payload_len(m) - GB_AUDIO_SEND_DATA_HEADER_SIZE;
    }
    return true;
}

void sim_bridge_audio_reset(sim_bridge_audio *a)
{
    stop_stream(a);
    memset(&a->st, 0, sizeof a->st);
}
