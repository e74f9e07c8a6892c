// SPDX-License-Identifier: MIT
// The trace-event writer behind timelines (trace.h, docs/tracing.md). Tracks are threads of
// three processes: 1 "connections" (one per connection, named after its ends), 2 "frame"
// (hot-plug, links, drops, the marks, and a byte counter per port), 3 "links" (one per
// modelled link, its states as slices). An operation becomes a
// complete event when its response arrives (or, unanswered, when the trace closes), so
// events are kept and written in time order when the trace closes: every track's
// timestamps then rise through the file.
#include "sim/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "greybus/gb_message.h"
#include "greybus/gb_protocols.h"
#include "greybus/svc_protocol.h"
#include "sim/output_file.h"

enum { PID_CONNECTIONS = 1, PID_FRAME = 2, PID_LINKS = 3 };
#define TRACKS_MAX 512u
#define OPEN_MAX 64u /* operations waiting for their response, per connection */
#define COUNTER_EVERY SIM_US(500)
/* A frame that starts within this of the last one's end continues its burst (the PHY keeps
 * a burst open that long between frames, up_phy.h's default burst hold). */
#define BURST_GAP SIM_US(1)

typedef struct open_op {
    uint16_t id;
    uint8_t type;
    sim_time start;
} open_op;

typedef struct track {
    char name[48];
    unsigned a_port, b_port;     /* the connection's ends (a: the AP side, if any) */
    uint16_t a_cport, b_cport;
    open_op open[OPEN_MAX];
    unsigned nopen;
} track;

typedef struct kept {
    sim_time ts;
    uint64_t seq;
    char *text; /* the event object */
} kept;

struct sim_trace {
    FILE *f;
    kept *events;
    size_t nevents, cap;
    uint64_t seq;
    unsigned ports, ap_port;
    track *tracks;
    unsigned ntracks;
    char marks[16][24]; /* named tracks of process 2, in order of first use */
    unsigned nmarks;
    uint64_t *port_bytes;
    sim_time *counted_at;   /* per port: when its counter was last written */
    struct link_state {     /* per port: the state its link is in, since when */
        bool known;
        char name[40];
        sim_time since;
        struct burst {      /* per direction (0 toward the switch): frames back to back */
            bool open, named;
            sim_time start, end;
            unsigned frames, replays, errors;
            uint64_t bytes;
        } burst[2];
        sim_time queue_at;  /* when its switch queue depth was last written */
        bool queue_named;
    } *links;
    bool failed;
    int failed_errno;   /* why it failed, for sim_trace_close */
    sim_time last;
    char path[256];
    char error[384];
};

static void fail_io(sim_trace *t)
{
    if (!t->failed) {
        t->failed_errno = errno ? errno : EIO;
        snprintf(t->error, sizeof t->error, "trace %s: %s; no more events are written",
                 t->path, strerror(t->failed_errno));
    }
    t->failed = true;
}

/* One event object at time `ts` (its order in the file); `body` is the rest of its members
 * after "ph". */
__attribute__((format(printf, 4, 5))) static void event(sim_trace *t, sim_time ts, char ph,
                                                         const char *body, ...)
{
    if (t->failed)
        return;
    if (t->nevents == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        kept *e = realloc(t->events, cap * sizeof *e);
        if (!e) {
            errno = ENOMEM;
            fail_io(t);
            return;
        }
        t->events = e;
        t->cap = cap;
    }
    char buf[1024] = "{\"ph\":\"?\",";
    buf[7] = ph;
    va_list ap;
    va_start(ap, body);
    int n = vsnprintf(buf + 10, sizeof buf - 11, body, ap);
    va_end(ap);
    size_t len = 10 + (n < 0 ? 0 : (size_t)n < sizeof buf - 11 ? (size_t)n : sizeof buf - 12);
    buf[len++] = '}';
    char *text = malloc(len + 1);
    if (!text) {
        errno = ENOMEM;
        fail_io(t);
        return;
    }
    memcpy(text, buf, len);
    text[len] = 0;
    t->events[t->nevents++] = (kept){ ts, t->seq++, text };
}

/* Microseconds, the trace-event unit, with the picoseconds kept. */
static void us(char *buf, size_t len, sim_time ps)
{
    snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ps / 1000000u, ps % 1000000u);
}

static void json_text(char *out, size_t len, const char *in);

static void name_thread(sim_trace *t, int pid, unsigned tid, const char *name)
{
    char esc[256]; /* (a mark's track is named by its caller: escaped like any text) */
    json_text(esc, sizeof esc, name);
    event(t, 0, 'M', "\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":\"%s\"}",
          pid, tid, esc);
}

static const char *port_name(const sim_trace *t, unsigned port, char *buf, size_t len)
{
    if (port == t->ap_port)
        snprintf(buf, len, "AP");
    else if (port == t->ports - 1)
        snprintf(buf, len, "SVC");
    else
        snprintf(buf, len, "intf %u", port);
    return buf;
}

/* The track of the connection (from, src) <-> (to, dst), made on first sight. */
static track *track_of(sim_trace *t, unsigned from, uint16_t src, unsigned to, uint16_t dst)
{
    bool swap = to == t->ap_port || (from != t->ap_port && to < from);
    unsigned a = swap ? to : from, b = swap ? from : to;
    uint16_t ac = swap ? dst : src, bc = swap ? src : dst;
    for (unsigned i = 0; i < t->ntracks; i++) {
        track *k = &t->tracks[i];
        if (k->a_port == a && k->b_port == b && k->a_cport == ac && k->b_cport == bc)
            return k;
    }
    if (t->ntracks == TRACKS_MAX)
        return NULL;
    track *k = &t->tracks[t->ntracks++];
    memset(k, 0, sizeof *k);
    k->a_port = a;
    k->b_port = b;
    k->a_cport = ac;
    k->b_cport = bc;
    char an[16], bn[16];
    snprintf(k->name, sizeof k->name, "%s:%u <-> %s:%u", port_name(t, a, an, sizeof an), ac,
             port_name(t, b, bn, sizeof bn), bc);
    name_thread(t, PID_CONNECTIONS, t->ntracks, k->name);
    return k;
}

static unsigned track_id(const sim_trace *t, const track *k)
{
    return (unsigned)(k - t->tracks) + 1;
}

/* The operation's name: SVC and control types by name, others by number. */
static void op_name(const track *k, const sim_trace *t, uint8_t type, char *buf, size_t len)
{
    const char *n = NULL;
    if (k->b_port == t->ports - 1 || k->a_port == t->ports - 1)
        n = gb_svc_type_name(type);
    else if (k->b_cport == 0 && k->a_port == t->ap_port)
        n = gb_control_type_name(type);
    if (n)
        snprintf(buf, len, "%s", n);
    else
        snprintf(buf, len, "type 0x%02x", type & 0x7f);
}

static unsigned mark_track(sim_trace *t, const char *name)
{
    for (unsigned i = 0; i < t->nmarks; i++)
        if (!strcmp(t->marks[i], name))
            return i + 1;
    unsigned n = sizeof t->marks / sizeof t->marks[0];
    if (t->nmarks == n)
        return n; /* the last takes the rest */
    snprintf(t->marks[t->nmarks], sizeof t->marks[0], "%s", name);
    t->nmarks++;
    name_thread(t, PID_FRAME, t->nmarks, name);
    return t->nmarks;
}

/* The length of the well-formed UTF-8 sequence at s (1 to 4 bytes), 0 when there is none
 * there (a stray byte, an overlong form, a surrogate, a sequence cut short: a scenario's
 * text cut to its buffer may end inside a character). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
             : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (n == 2 && c < 0xc2) || c > 0xf4)
        return 0;
    for (size_t i = 1; i < n; i++) /* (stops at the NUL, which is no continuation byte) */
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* Text for a JSON string: quotes, backslashes and control characters escaped, and what is
 * not UTF-8 replaced by U+FFFD (JSON is UTF-8: one bad byte makes the whole file one that
 * parsers refuse). Cut short at a whole character when out is full. */
static void json_text(char *out, size_t len, const char *in)
{
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)in;
    while (*p && o + 7 < len) {
        size_t n = utf8_len(p);
        if (*p == '"' || *p == '\\') {
            out[o++] = '\\';
            out[o++] = (char)*p++;
        } else if (*p < 0x20) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", *p++);
        } else if (!n) {
            o += (size_t)snprintf(out + o, len - o, "\\ufffd");
            p++;
        } else if (o + n + 7 < len) {
            memcpy(out + o, p, n);
            o += n;
            p += n;
        } else {
            break;
        }
    }
    out[o] = 0;
}

void sim_trace_mark(sim_trace *t, const char *track_name, const char *text, sim_time now)
{
    char ts[32], esc[512];
    us(ts, sizeof ts, now);
    json_text(esc, sizeof esc, text);
    unsigned tid = mark_track(t, track_name);
    event(t, now, 'i', "\"name\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":%s,\"s\":\"t\"", esc, PID_FRAME,
          tid, ts);
    if (now > t->last)
        t->last = now;
}

static void slice(sim_trace *t, const track *k, const open_op *op, sim_time end, int result,
                  bool answered)
{
    char ts[32], dur[32], name[48];
    us(ts, sizeof ts, op->start);
    us(dur, sizeof dur, end > op->start ? end - op->start : 0);
    op_name(k, t, op->type, name, sizeof name);
    event(t, op->start, 'X', "\"name\":\"%s\",\"cat\":\"operation\",\"pid\":%d,\"tid\":%u,\"ts\":%s,"
          "\"dur\":%s,\"args\":{\"operation_id\":%u,\"type\":%u,\"result\":\"%s\"%s}",
          name, PID_CONNECTIONS, track_id(t, k), ts, dur, op->id, op->type,
          answered ? gb_result_name((uint8_t)result) : "none",
          answered ? "" : ",\"unanswered\":true");
}

void sim_trace_observe(void *ctx, const sw_observed *ev)
{
    sim_trace *t = ctx;
    if (t->failed)
        return;
    const gb_msg_header *h = &ev->m->h;
    char ts[32];
    us(ts, sizeof ts, ev->at);
    if (ev->at > t->last)
        t->last = ev->at;
    if (ev->verdict != SW_VERDICT_OK) {
        char name[48];
        snprintf(name, sizeof name, "dropped (%s)", sw_verdict_name(ev->verdict));
        sim_trace_mark(t, "drops", name, ev->at);
        return;
    }
    track *k = track_of(t, ev->from, ev->src_cport, ev->to, ev->dst_cport);
    /* SVC events the AP is told of: hot-plug and power, as instants on the frame */
    bool from_svc = ev->from == t->ports - 1;
    if (ev->to == t->ports - 1 && h->type == GB_SVC_TYPE_INTF_SET_PWRM &&
        h->size > GB_MSG_HEADER_SIZE) { /* the AP changes a link's power mode */
        char text[48];
        snprintf(text, sizeof text, "INTF_SET_PWRM interface %u",
                 ev->m->bytes[GB_MSG_HEADER_SIZE]);
        sim_trace_mark(t, "links", text, ev->at);
    }
    if (from_svc && !gb_msg_is_response(h->type)) {
        const char *n = gb_svc_type_name(h->type);
        uint8_t intf = h->size > GB_MSG_HEADER_SIZE ? ev->m->bytes[GB_MSG_HEADER_SIZE] : 0;
        char text[64];
        snprintf(text, sizeof text, "%s %u", n ? n : "SVC request", intf);
        if (h->type == GB_SVC_TYPE_MODULE_INSERTED || h->type == GB_SVC_TYPE_MODULE_REMOVED ||
            h->type == GB_SVC_TYPE_INTF_OOPS || h->type == GB_SVC_TYPE_INTF_MAILBOX_EVENT)
            sim_trace_mark(t, "hot-plug", text, ev->at);
    }
    /* bytes delivered to each port, as a counter: a sample at most every COUNTER_EVERY of
     * simulated time per port (one per message would outweigh the rest of the timeline) */
    if (ev->to < t->ports) {
        t->port_bytes[ev->to] += h->size;
        if (t->counted_at[ev->to] && ev->at - t->counted_at[ev->to] < COUNTER_EVERY)
            goto operations;
        t->counted_at[ev->to] = ev->at;
        char pn[16];
        event(t, ev->at, 'C', "\"name\":\"bytes to %s\",\"pid\":%d,\"ts\":%s,\"args\":{\"bytes\":%"
              PRIu64 "}", port_name(t, ev->to, pn, sizeof pn), PID_FRAME, ts,
              t->port_bytes[ev->to]);
    }
operations:
    if (!k)
        return;
    if (!gb_msg_is_response(h->type)) {
        if (!h->operation_id) { /* unidirectional: an instant */
            char name[48];
            op_name(k, t, h->type, name, sizeof name);
            event(t, ev->at, 'i', "\"name\":\"%s\",\"cat\":\"operation\",\"pid\":%d,\"tid\":%u,"
                  "\"ts\":%s,\"s\":\"t\"", name, PID_CONNECTIONS, track_id(t, k), ts);
            return;
        }
        if (k->nopen == OPEN_MAX) { /* the oldest waited long enough: close it unanswered */
            slice(t, k, &k->open[0], ev->sent, 0, false);
            memmove(k->open, k->open + 1, --k->nopen * sizeof k->open[0]);
        }
        k->open[k->nopen++] = (open_op){ h->operation_id, h->type, ev->sent };
        return;
    }
    for (unsigned i = 0; i < k->nopen; i++)
        if (k->open[i].id == h->operation_id && (k->open[i].type | 0x80) == h->type) {
            slice(t, k, &k->open[i], ev->at, h->result, true);
            memmove(k->open + i, k->open + i + 1, (--k->nopen - i) * sizeof k->open[0]);
            return;
        }
    /* a response to nothing seen (the trace started after its request) */
    char name[48];
    op_name(k, t, h->type, name, sizeof name);
    event(t, ev->at, 'i', "\"name\":\"%s response\",\"cat\":\"operation\",\"pid\":%d,\"tid\":%u,"
          "\"ts\":%s,\"s\":\"t\"", name, PID_CONNECTIONS, track_id(t, k), ts);
}

/* The file as a stream (sim/output_file.h); NULL with errno. */
static FILE *open_output(const char *path, bool wait_for_reader)
{
    int fd = sim_output_file_open(path, wait_for_reader);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

sim_trace *sim_trace_open(const char *path, unsigned ports, unsigned ap_port,
                          bool wait_for_reader, char *err, size_t errlen)
{
    if (!path || !*path || strlen(path) >= sizeof ((sim_trace *)0)->path) {
        snprintf(err, errlen, "trace: the file name is empty or longer than 255 characters");
        return NULL;
    }
    if (ports < 3 || ap_port >= ports - 1) {
        snprintf(err, errlen, "trace: a fabric of %u ports with the AP on port %u", ports,
                 ap_port);
        return NULL;
    }
    sim_trace *t = calloc(1, sizeof *t);
    if (t) {
        t->tracks = calloc(TRACKS_MAX, sizeof *t->tracks);
        t->port_bytes = calloc(ports, sizeof *t->port_bytes);
        t->counted_at = calloc(ports, sizeof *t->counted_at);
        t->links = calloc(ports, sizeof *t->links);
    }
    if (!t || !t->tracks || !t->port_bytes || !t->counted_at || !t->links) {
        if (t) {
            free(t->tracks);
            free(t->port_bytes);
            free(t->counted_at);
            free(t->links);
        }
        free(t);
        snprintf(err, errlen, "trace: out of memory");
        return NULL;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    t->ports = ports;
    t->ap_port = ap_port;
    t->f = open_output(path, wait_for_reader);
    if (!t->f) {
        if (errno == ENXIO)
            snprintf(err, errlen, "trace %s: a FIFO nobody reads yet; start its reader "
                     "first", path);
        else
            snprintf(err, errlen, "trace %s: %s", path, strerror(errno));
        free(t->tracks);
        free(t->port_bytes);
        free(t->counted_at);
        free(t->links);
        free(t);
        return NULL;
    }
    event(t, 0, 'M', "\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"connections\"}",
          PID_CONNECTIONS);
    event(t, 0, 'M', "\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"frame\"}",
          PID_FRAME);
    event(t, 0, 'M', "\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"links\"}",
          PID_LINKS);
    return t;
}

static unsigned burst_tid(unsigned port, unsigned dir)
{
    return 1000u + 2u * port + dir;
}

static void burst_slice(sim_trace *t, unsigned port, unsigned dir)
{
    struct burst *b = &t->links[port].burst[dir];
    if (!b->open)
        return;
    char ts[32], dur[32];
    us(ts, sizeof ts, b->start);
    us(dur, sizeof dur, b->end - b->start);
    event(t, b->start, 'X', "\"name\":\"burst of %u frames\",\"cat\":\"link\",\"pid\":%d,"
          "\"tid\":%u,\"ts\":%s,\"dur\":%s,\"args\":{\"result\":\"burst\",\"frames\":%u,"
          "\"payload_bytes\":%" PRIu64 ",\"replays\":%u,\"crc_errors\":%u}", b->frames,
          PID_LINKS, burst_tid(port, dir), ts, dur, b->frames, b->bytes, b->replays, b->errors);
    b->open = false;
}

void sim_trace_frame(sim_trace *t, const sw_frame_event *ev, unsigned queued)
{
    if (ev->port >= t->ports || t->failed)
        return;
    struct link_state *ls = &t->links[ev->port];
    unsigned dir = ev->to_switch ? 0 : 1;
    struct burst *b = &ls->burst[dir];
    const up_dl_event *dl = &ev->dl;
    if (!b->named) {
        char pn[16], name[48];
        snprintf(name, sizeof name, "link of %s %s", port_name(t, ev->port, pn, sizeof pn),
                 dir ? "from the switch" : "to the switch");
        name_thread(t, PID_LINKS, burst_tid(ev->port, dir), name);
        b->named = true;
    }
    if (b->open && dl->start > b->end + BURST_GAP)
        burst_slice(t, ev->port, dir);
    if (!b->open) {
        *b = (struct burst){ .open = true, .named = true, .start = dl->start };
    }
    b->end = dl->end > b->end ? dl->end : b->end;
    b->frames++;
    b->replays += dl->replay;
    b->errors += dl->crc_error;
    if (dl->kind == UP_DL_DATA)
        b->bytes += dl->len;
    if (dl->end > t->last)
        t->last = dl->end;
    /* what waits in the switch's input buffer of the port, sampled */
    if (ev->to_switch && (!ls->queue_named || dl->end - ls->queue_at >= COUNTER_EVERY)) {
        char pn[16], ts[32];
        us(ts, sizeof ts, dl->end);
        event(t, dl->end, 'C', "\"name\":\"switch queue of %s\",\"pid\":%d,\"ts\":%s,"
              "\"args\":{\"frames\":%u}", port_name(t, ev->port, pn, sizeof pn), PID_LINKS, ts,
              queued);
        ls->queue_at = dl->end;
        ls->queue_named = true;
    }
}

/* The state a link was in until `now`, as a slice on its track. */
static void link_slice(sim_trace *t, unsigned port, sim_time now)
{
    struct link_state *ls = &t->links[port];
    char ts[32], dur[32];
    us(ts, sizeof ts, ls->since);
    us(dur, sizeof dur, now > ls->since ? now - ls->since : 0);
    event(t, ls->since, 'X', "\"name\":\"%s\",\"cat\":\"link\",\"pid\":%d,\"tid\":%u,"
          "\"ts\":%s,\"dur\":%s,\"args\":{\"result\":\"state\"}", ls->name, PID_LINKS,
          port + 1, ts, dur);
}

void sim_trace_link(sim_trace *t, const sw_link_event *ev)
{
    if (ev->port >= t->ports || t->failed)
        return;
    struct link_state *ls = &t->links[ev->port];
    if (!ls->known) {
        char pn[16], name[32];
        snprintf(name, sizeof name, "link of %s", port_name(t, ev->port, pn, sizeof pn));
        name_thread(t, PID_LINKS, ev->port + 1, name);
        ls->known = true;
    } else {
        link_slice(t, ev->port, ev->at);
    }
    char mode[24];
    up_phy_cfg_name(&ev->phy, mode, sizeof mode);
    if (ev->state == UP_LINK_UP || ev->state == UP_LINK_PMC)
        snprintf(ls->name, sizeof ls->name, "%s %s", up_link_state_name(ev->state), mode);
    else
        snprintf(ls->name, sizeof ls->name, "%s", up_link_state_name(ev->state));
    ls->since = ev->at;
    if (ev->at > t->last)
        t->last = ev->at;
}

static int by_time(const void *a, const void *b)
{
    const kept *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int sim_trace_close(sim_trace *t, sim_time now)
{
    if (!t)
        return 0;
    if (now < t->last)
        now = t->last;
    for (unsigned i = 0; i < t->ntracks; i++)
        for (unsigned j = 0; j < t->tracks[i].nopen; j++)
            slice(t, &t->tracks[i], &t->tracks[i].open[j], now, 0, false);
    for (unsigned p = 0; p < t->ports; p++) {
        if (t->links[p].known)
            link_slice(t, p, now);
        burst_slice(t, p, 0);
        burst_slice(t, p, 1);
    }
    qsort(t->events, t->nevents, sizeof *t->events, by_time);
    if (fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"gbvp\",\"clock\":"
              "\"simulated\"},\"traceEvents\":[\n", t->f) < 0)
        fail_io(t);
    for (size_t i = 0; i < t->nevents && !t->failed; i++)
        if (fputs(t->events[i].text, t->f) < 0 || fputs(i + 1 < t->nevents ? ",\n" : "\n", t->f) < 0)
            fail_io(t);
    if (!t->failed && fputs("]}\n", t->f) < 0)
        fail_io(t);
    int rc = fclose(t->f) ? -errno : 0;
    if (t->failed)
        rc = -t->failed_errno; /* the first failure's reason, not a generic one */
    for (size_t i = 0; i < t->nevents; i++)
        free(t->events[i].text);
    free(t->events);
    free(t->tracks);
    free(t->port_bytes);
    free(t->counted_at);
    free(t->links);
    free(t);
    return rc;
}

const char *sim_trace_path(const sim_trace *t)
{
    return t->path;
}

bool sim_trace_writes_to(const sim_trace *t, const char *path)
{
    return sim_output_file_is(fileno(t->f), path);
}

const char *sim_trace_error(const sim_trace *t)
{
    return t->failed ? t->error : NULL;
}
