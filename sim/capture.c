// SPDX-License-Identifier: MIT
// The pcapng writer behind captures (capture.h, docs/tracing.md). Blocks are built one at
// a time and gathered, whole, in an output buffer that write(2) empties. Knowing where each
// block ends lets a failed write (the disk full, a file size limit) leave a file of whole
// blocks, which Wireshark reads to its end, instead of one cut inside a block.
#include "sim/capture.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "greybus/gb_message.h"
#include "sim/output_file.h"

#define BLOCK_SHB 0x0a0d0d0au
#define BLOCK_IDB 0x00000001u
#define BLOCK_EPB 0x00000006u
#define OPT_END 0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_TSRESOL 9
#define RECORD_VERSION 1
#define FLAG_DROPPED 0x01
#define BLOCK_MAX (64 + SIM_CAPTURE_HEADER + GB_MSG_MAX_SIZE)
#define FLUSH_EVERY 0.05 /* s of wall time a regular file's records may wait in the buffer */
#define OUT_BUFFER 65536u /* bytes of whole blocks gathered for one write */

typedef struct block {
    uint8_t b[BLOCK_MAX];
    size_t n;
} block;

struct sim_capture {
    int fd;
    block k; /* the block being built */
    uint8_t out[OUT_BUFFER]; /* whole blocks not written yet */
    size_t out_n;
    size_t out_packets;      /* messages among them */
    unsigned ports, ap_port;
    uint64_t packets, frames;
    uint64_t file_bytes;     /* whole blocks in the file */
    uint64_t file_packets;   /* messages among them */
    bool live;          /* a FIFO or a terminal: every record written at once */
    double flushed_at;  /* else: written when FLUSH_EVERY has passed since then */
    char path[256];
    char error[384];
    int failed;         /* the errno that stopped the capture; 0 while writing works */
};

static void put8(block *k, uint8_t v)
{
    k->b[k->n++] = v;
}

static void put16(block *k, uint16_t v)
{
    put8(k, (uint8_t)v);
    put8(k, (uint8_t)(v >> 8));
}

static void put32(block *k, uint32_t v)
{
    put16(k, (uint16_t)v);
    put16(k, (uint16_t)(v >> 16));
}

static void put64(block *k, uint64_t v)
{
    put32(k, (uint32_t)v);
    put32(k, (uint32_t)(v >> 32));
}

static void put_bytes(block *k, const void *p, size_t n)
{
    if (!n)
        return; /* p may be NULL then (an option without a value) */
    memcpy(k->b + k->n, p, n);
    k->n += n;
}

static void pad4(block *k)
{
    while (k->n % 4)
        put8(k, 0);
}

static void put_option(block *k, uint16_t code, const void *p, size_t n)
{
    put16(k, code);
    put16(k, (uint16_t)n);
    put_bytes(k, p, n);
    pad4(k);
}

static void begin(block *k, uint32_t type)
{
    k->n = 0;
    put32(k, type);
    put32(k, 0); /* the total length, filled by finish */
}

static void finish(block *k)
{
    uint32_t total = (uint32_t)k->n + 4;
    for (int i = 0; i < 4; i++)
        k->b[4 + i] = (uint8_t)(total >> (8 * i)); /* little-endian, as every field */
    put32(k, total);
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether the block at b (n bytes) is a packet block holding a message (record kind 0,
 * not a data-link frame). */
static bool holds_message(const uint8_t *b, size_t n)
{
    return n > 29 && b[0] == BLOCK_EPB && !b[1] && !b[2] && !b[3] && b[29] == 0;
}

/* The blocks wholly inside the first `n` bytes of `b` (blocks as gathered in the output
 * buffer): where the last one ends, and in *messages how many of them are messages. */
static size_t whole_blocks(const uint8_t *b, size_t n, size_t *messages)
{
    size_t off = 0;
    *messages = 0;
    while (off + 12 <= n) {
        uint32_t total = (uint32_t)b[off + 4] | (uint32_t)b[off + 5] << 8 |
                         (uint32_t)b[off + 6] << 16 | (uint32_t)b[off + 7] << 24;
        if (total < 12 || total > n - off)
            break;
        *messages += holds_message(b + off, total);
        off += total;
    }
    return off;
}

/* The capture stops at error `e` (an errno). A regular file is cut back to the whole
 * blocks written before it, so that it stays a file Wireshark reads to its end. */
static void fail(sim_capture *c, int e)
{
    c->failed = e ? e : EIO;
    bool cut = !c->live && ftruncate(c->fd, (off_t)c->file_bytes) == 0;
    snprintf(c->error, sizeof c->error, "capture %s: %s; no more records are written (%s "
             "the first %llu messages%s)", c->path, strerror(c->failed),
             c->live ? "the reader got" : "the file holds", (unsigned long long)c->file_packets,
             c->live || cut ? "" : ", then part of a block");
}

/* Writes the gathered blocks. False, with the capture stopped, when the file refused them:
 * what of them was written whole is kept. */
static bool write_out(sim_capture *c)
{
    size_t done = 0;
    while (done < c->out_n && !c->failed) {
        ssize_t w = write(c->fd, c->out + done, c->out_n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC; /* (a write of 0 bytes: no room) */
            size_t messages, whole = whole_blocks(c->out, done, &messages);
            c->file_bytes += whole;
            c->file_packets += messages;
            fail(c, e);
            return false;
        }
        done += (size_t)w;
    }
    if (c->failed)
        return false;
    c->file_bytes += c->out_n;
    c->file_packets += c->out_packets;
    c->out_n = c->out_packets = 0;
    return true;
}

/* A record reaches a FIFO at once (a live reader waits for it), a regular file within
 * FLUSH_EVERY: one write per message would cost more than the simulation itself. */
static bool emit(sim_capture *c, const block *k)
{
    if (c->failed)
        return false;
    if (c->out_n + k->n > sizeof c->out && !write_out(c))
        return false;
    memcpy(c->out + c->out_n, k->b, k->n);
    c->out_n += k->n;
    c->out_packets += holds_message(k->b, k->n);
    bool now_due = c->live;
    if (!now_due) {
        double now = wall();
        now_due = now - c->flushed_at >= FLUSH_EVERY;
        if (now_due)
            c->flushed_at = now;
    }
    return !now_due || write_out(c);
}

static bool write_header(sim_capture *c)
{
    block *k = &c->k;
    begin(k, BLOCK_SHB);
    put32(k, 0x1a2b3c4du);
    put16(k, 1);
    put16(k, 0);
    put64(k, UINT64_MAX); /* section length unknown */
    static const char app[] = "gbvp";
    put_option(k, OPT_SHB_USERAPPL, app, sizeof app - 1);
    put_option(k, OPT_END, NULL, 0);
    finish(k);
    if (!emit(c, k))
        return false;
    /* interfaces 0 (AP) and 1 (SVC), then one per slot's port (2 .. ports - 2): the last
     * port is the SVC's, already interface 1 */
    for (unsigned i = 0; i < c->ports - 1; i++) {
        char name[32];
        if (i == 0)
            snprintf(name, sizeof name, "ap");
        else if (i == 1)
            snprintf(name, sizeof name, "svc");
        else
            snprintf(name, sizeof name, "slot %u", i - 2);
        begin(k, BLOCK_IDB);
        put16(k, SIM_CAPTURE_LINKTYPE);
        put16(k, 0);
        put32(k, 0); /* no snapshot limit */
        put_option(k, OPT_IF_NAME, name, strlen(name));
        put_option(k, OPT_IF_TSRESOL, &(uint8_t){ 9 }, 1);
        put_option(k, OPT_END, NULL, 0);
        finish(k);
        if (!emit(c, k))
            return false;
    }
    return true;
}

sim_capture *sim_capture_open(const char *path, unsigned ports, unsigned ap_port,
                              bool wait_for_reader, char *err, size_t errlen)
{
    if (!path || !*path || strlen(path) >= sizeof ((sim_capture *)0)->path) {
        snprintf(err, errlen, "capture: the file name is empty or longer than 255 characters");
        return NULL;
    }
    if (ports < 3 || ap_port >= ports - 1) {
        snprintf(err, errlen, "capture: a fabric of %u ports with the AP on port %u", ports,
                 ap_port);
        return NULL;
    }
    sim_capture *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "capture: out of memory");
        return NULL;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    c->ports = ports;
    c->ap_port = ap_port;
    c->fd = sim_output_file_open(path, wait_for_reader);
    if (c->fd < 0 && errno == ENXIO) {
        snprintf(err, errlen, "capture %s: a FIFO nobody reads yet; start its reader first "
                 "(wireshark -k -i %s)", path, path);
        free(c);
        return NULL;
    }
    if (c->fd < 0) {
        snprintf(err, errlen, "capture %s: %s", path, strerror(errno));
        free(c);
        return NULL;
    }
    struct stat st;
    c->live = fstat(c->fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
    c->flushed_at = wall();
    if (!write_header(c) || !write_out(c)) {
        snprintf(err, errlen, "capture %s: %s", path, strerror(c->failed));
        sim_capture_close(c);
        return NULL;
    }
    return c;
}

int sim_capture_flush(sim_capture *c)
{
    if (!c->failed)
        write_out(c);
    return -c->failed;
}

int sim_capture_close(sim_capture *c)
{
    if (!c)
        return 0;
    if (!c->failed)
        write_out(c);
    if (close(c->fd) && !c->failed)
        c->failed = errno;
    int rc = -c->failed;
    free(c);
    return rc;
}

bool sim_capture_writes_to(const sim_capture *c, const char *path)
{
    return sim_output_file_is(c->fd, path);
}

unsigned sim_capture_interface(const sim_capture *c, unsigned port)
{
    if (port == c->ap_port)
        return 0;
    if (port == c->ports - 1)
        return 1;
    return port; /* interface N is on port N; ports 0 and 1 hold no interface */
}

void sim_capture_observe(void *ctx, const sw_observed *ev)
{
    sim_capture *c = ctx;
    if (c->failed)
        return;
    block *k = &c->k;
    bool dropped = ev->verdict != SW_VERDICT_OK;
    unsigned where = dropped || ev->to >= c->ports ? ev->from : ev->to;
    uint64_t ns = ev->at / 1000u;
    size_t len = ev->m->h.size;
    /* the block is sized for the largest message gbvp carries; one beyond it (no part
     * should pass one on) is recorded cut short, with its length, as pcapng allows */
    size_t kept = len > GB_MSG_MAX_SIZE ? GB_MSG_MAX_SIZE : len;
    begin(k, BLOCK_EPB);
    put32(k, sim_capture_interface(c, where));
    put32(k, (uint32_t)(ns >> 32));
    put32(k, (uint32_t)ns);
    put32(k, (uint32_t)(SIM_CAPTURE_HEADER + kept));
    put32(k, (uint32_t)(SIM_CAPTURE_HEADER + len));
    uint16_t hd = ev->from == c->ap_port ? ev->src_cport
                  : ev->to == c->ap_port ? ev->dst_cport
                                         : 0xffff;
    put8(k, RECORD_VERSION);
    put8(k, 0); /* a Greybus message */
    put8(k, (uint8_t)ev->dir);
    put8(k, dropped ? FLAG_DROPPED : 0);
    put8(k, (uint8_t)ev->from);
    put8(k, ev->to < c->ports ? (uint8_t)ev->to : 0xff);
    put8(k, ev->src_dev);
    put8(k, ev->dst_dev);
    put16(k, ev->src_cport);
    put16(k, ev->dst_cport);
    put16(k, hd);
    put8(k, ev->tc);
    put8(k, (uint8_t)ev->verdict);
    put64(k, dropped || ev->at < ev->sent ? 0 : ev->at - ev->sent);
    size_t msg_at = k->n;
    put_bytes(k, ev->m->bytes, kept);
    /* the header as it travelled on UniPro: the pad bytes the ES2 link borrows are clear */
    if (kept >= GB_MSG_HEADER_SIZE)
        k->b[msg_at + 6] = k->b[msg_at + 7] = 0;
    pad4(k);
    finish(k);
    if (emit(c, k))
        c->packets++;
}

void sim_capture_tick(sim_capture *c)
{
    if (!c->out_n || c->failed)
        return;
    double now = wall();
    if (now - c->flushed_at < FLUSH_EVERY)
        return;
    c->flushed_at = now;
    write_out(c);
}

void sim_capture_frame(void *ctx, const sw_frame_event *ev)
{
    sim_capture *c = ctx;
    if (c->failed || ev->port >= c->ports)
        return;
    block *k = &c->k;
    const up_dl_event *dl = &ev->dl;
    uint64_t ns = dl->end / 1000u;
    sim_time dur = dl->end > dl->start ? dl->end - dl->start : 0;
    begin(k, BLOCK_EPB);
    put32(k, sim_capture_interface(c, ev->port));
    put32(k, (uint32_t)(ns >> 32));
    put32(k, (uint32_t)ns);
    put32(k, SIM_CAPTURE_HEADER);
    put32(k, SIM_CAPTURE_HEADER);
    put8(k, RECORD_VERSION);
    put8(k, 1); /* a data-link frame */
    put8(k, ev->to_switch ? 0 : 1);
    put8(k, (uint8_t)((dl->dropped ? 0x01 : 0) | (dl->crc_error ? 0x02 : 0) |
                      (dl->replay ? 0x04 : 0)));
    put8(k, (uint8_t)ev->port);
    put8(k, (uint8_t)dl->kind);
    put8(k, (uint8_t)dl->tc);
    put8(k, dl->dst_dev);
    put32(k, dl->seq);
    put32(k, dl->len);
    put16(k, dl->dst_cport);
    put16(k, 0);
    put32(k, dur > UINT32_MAX ? UINT32_MAX : (uint32_t)dur);
    finish(k);
    if (emit(c, k))
        c->frames++;
}

uint64_t sim_capture_packets(const sim_capture *c)
{
    return c->packets;
}

const char *sim_capture_path(const sim_capture *c)
{
    return c->path;
}

const char *sim_capture_error(const sim_capture *c)
{
    return c->failed ? c->error : NULL;
}
