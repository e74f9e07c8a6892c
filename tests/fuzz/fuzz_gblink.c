// SPDX-License-Identifier: MIT
// libFuzzer target: gblink from a hostile peer. The peer owns half of the shared memory and
// may write anything there; the input plays it.
//
// Byte 0 picks the scenario:
//  0: consumer. A buffer laid out like the shared memory (gbl_shm_init, 16 KiB rings); the
//     input gives the consumer's start position, a series of producer indices the peer
//     publishes and the ring's contents; the receive path (gbl_ring_read, then the record
//     checks gbl_process applies) runs after each index. Checked: every record read is
//     24..GBL_REC_MAX bytes, never more than was published, and a record that passes
//     gbl_record_check has a payload of at most GBL_MAX_PAYLOAD bytes.
//  1: producer. The peer moves the consumer index (tail) anywhere while we write records:
//     gbl_ring_write returns 0, -EAGAIN or -EPROTO, never writes outside the ring (ASan),
//     and never overwrites what the consumer has not released by its last valid index.
//  2: the shared-memory header and handshake reply a client receives (gbl_shm_map_peer on
//     a memfd whose size, seals and first page the input chooses). Checked: accepted only
//     with the announced size, sealed, and a header that matches the reply.
//  3: the whole server: a fake client (tests/unit/test_gblink_util.h) does the real
//     handshake with a gbl_link server, writes the input into its ring and publishes it in
//     steps, kicking the doorbell; gbl_process delivers. Checked: every record delivered
//     passes gbl_record_check; a link dropped for what the peer wrote says -EPROTO with a
//     reason; the server always listens again after the client goes.

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gblink/gblink.h"
#include "gblink/layout.h"
#include "tests/unit/test_gblink_util.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_gblink: invariant broken: %s\n", what);
    abort();
}

#define R GBL_RING_MIN
#define SHM_SIZE (GBL_SHM_HEADER_SIZE + 2u * R)

static uint8_t *shm(void)
{
    static uint8_t *base;
    if (!base && !(base = aligned_alloc(4096, SHM_SIZE)))
        abort();
    return base;
}

static uint32_t *ctrl(uint8_t *base, int ring, uint32_t which)
{
    return (uint32_t *)(base + GBL_RING_CTRL_OFFSET(ring) + which);
}

/* A new index from the input: relative to `from` (mostly plausible) or absolute. */
static uint32_t index_from(in *r, uint32_t from)
{
    uint8_t how = u8(r);
    if (how & 1)
        return u32(r);
    return from + (uint32_t)(u16(r) & ~7u);
}

static void consumer(in *r)
{
    uint8_t *base = shm();
    static uint8_t buf[GBL_REC_MAX];
    gbl_ring ring;
    gbl_shm_init(base, R, 0, 0);
    gbl_ring_attach(&ring, base, R, GBL_RING_C2S);
    uint32_t start = u32(r) & ~7u; /* indices run freely; only their distance matters */
    ring.local = ring.peer = start;
    *ctrl(base, GBL_RING_C2S, GBL_CTRL_HEAD) = start;
    *ctrl(base, GBL_RING_C2S, GBL_CTRL_TAIL) = start;
    unsigned nheads = 1 + u8(r) % 8;
    uint32_t heads[8];
    uint32_t last = start;
    for (unsigned i = 0; i < nheads; i++)
        heads[i] = last = index_from(r, last);
    /* the rest of the input is the ring's contents, from the start position on */
    uint8_t *d = base + GBL_SHM_HEADER_SIZE;
    memset(d, 0, R);
    for (uint32_t k = 0; r->n && k < R; k++)
        d[(start + k) & (R - 1)] = u8(r);
    uint64_t consumed = 0, published = 0;
    uint32_t prev = start;
    for (unsigned i = 0; i < nheads; i++) {
        char why[200];
        *ctrl(base, GBL_RING_C2S, GBL_CTRL_HEAD) = heads[i];
        if (heads[i] - prev <= R)
            published += heads[i] - prev;
        prev = heads[i];
        for (;;) {
            uint32_t len = 0;
            int rc = gbl_ring_read(&ring, buf, &len, why, sizeof why);
            if (getenv("FUZZ_VERBOSE"))
                fprintf(stderr, "read: %d, %u bytes%s%s\n", rc, len, rc < 0 ? ": " : "",
                        rc < 0 ? why : "");
            if (rc < 0) {
                if (!why[0])
                    fail("a refused ring gives no reason");
                return;
            }
            if (rc == 0) {
                gbl_ring_consumer_arm(&ring);
                gbl_ring_consumer_kick(&ring);
                break;
            }
            if (len < GBL_REC_HEADER || len > GBL_REC_MAX)
                fail("a record of an impossible length was read");
            consumed += (len + 7u) & ~7u;
            if (consumed > published)
                fail("more was read than the peer published");
            gbl_wire_record w;
            memcpy(&w, buf, sizeof w);
            if (w.len != len)
                fail("the length in the record copy is not the validated one");
            gbl_record rec = {.type = w.type, .cport = w.cport, .id = w.id,
                              .time_ns = w.time_ns, .len = len - GBL_REC_HEADER};
            rec.payload = rec.len ? buf + GBL_REC_HEADER : NULL;
            if (gbl_record_check(&rec, why, sizeof why) == 0) {
                if (rec.len > GBL_MAX_PAYLOAD)
                    fail("a record over GBL_MAX_PAYLOAD passed the checks");
                (void)gbl_type_name(rec.type);
            } else if (!why[0]) {
                fail("a refused record gives no reason");
            }
        }
    }
}

static void producer(in *r)
{
    uint8_t *base = shm();
    static uint8_t payload[GBL_MAX_PAYLOAD + 64];
    gbl_ring ring;
    gbl_shm_init(base, R, 0, 0);
    gbl_ring_attach(&ring, base, R, GBL_RING_S2C);
    uint32_t start = u32(r) & ~7u;
    ring.local = ring.peer = start;
    *ctrl(base, GBL_RING_S2C, GBL_CTRL_HEAD) = start;
    *ctrl(base, GBL_RING_S2C, GBL_CTRL_TAIL) = start;
    memset(payload, 0x5a, sizeof payload);
    while (r->n) {
        char why[200];
        uint8_t op = u8(r);
        if (op & 1) { /* the peer moves its consumer index */
            uint32_t tail = *ctrl(base, GBL_RING_S2C, GBL_CTRL_TAIL);
            *ctrl(base, GBL_RING_S2C, GBL_CTRL_TAIL) = index_from(r, tail);
            continue;
        }
        gbl_record rec = {.type = (uint16_t)(op >> 1 & 0x7f), .cport = u16(r), .id = u8(r),
                          .len = u16(r) % (GBL_MAX_PAYLOAD + 32)};
        rec.payload = rec.len ? payload : NULL;
        if (gbl_record_check(&rec, why, sizeof why) < 0)
            continue; /* gbl_send refuses it before the ring */
        uint32_t head_before = ring.local;
        int rc = gbl_ring_write(&ring, &rec, why, sizeof why);
        if (getenv("FUZZ_VERBOSE"))
            fprintf(stderr, "write %u bytes: %d\n", rec.len, rc);
        if (rc == -EPROTO)
            return;
        if (rc != 0 && rc != -EAGAIN)
            fail("gbl_ring_write returned an unexpected code");
        if (rc == 0) {
            /* the producer trusts its last validated tail until the ring looks full */
            if (ring.local - ring.peer > R)
                fail("the producer wrote past the consumer's last valid index");
            if (*ctrl(base, GBL_RING_S2C, GBL_CTRL_HEAD) != ring.local ||
                ring.local - head_before > 2u * GBL_REC_MAX)
                fail("the published head is not where the record ended");
        }
        gbl_ring_producer_kick(&ring);
    }
}

static void map_peer(in *r)
{
    gbl_hs_accept acc;
    uint8_t page[sizeof(gbl_shm_header)];
    memset(&acc, 0, sizeof acc);
    uint8_t how = u8(r);
    /* mostly a plausible reply, with fields the input may replace */
    acc.magic = GBL_HS_ACCEPT_MAGIC;
    acc.version_major = GBL_VERSION_MAJOR;
    acc.ring_size = (how & 2) ? u32(r) : (uint32_t)R << (u8(r) % 3);
    acc.header_size = (how & 4) ? u32(r) : GBL_SHM_HEADER_SIZE;
    acc.total_size = (how & 8) ? (uint64_t)u32(r)
                               : (uint64_t)GBL_SHM_HEADER_SIZE + 2u * (uint64_t)acc.ring_size;
    acc.max_payload = (how & 16) ? u32(r) : GBL_MAX_PAYLOAD;
    gbl_shm_init(shm(), R, 0, 0);
    gbl_shm_header h;
    memcpy(&h, shm(), sizeof h);
    h.ring_size = acc.ring_size;
    h.total_size = acc.total_size;
    h.ring_offset[1] = GBL_SHM_HEADER_SIZE + acc.ring_size;
    memcpy(page, &h, sizeof h);
    for (size_t i = 0; i < sizeof page && r->n; i++) { /* the input overwrites a prefix */
        uint8_t b = u8(r);
        if (how & 32)
            page[i] = b;
    }
    uint64_t fsize = (how & 64) ? (uint64_t)u32(r) % (4u << 20) : acc.total_size;
    if (fsize > (64u << 20))
        return; /* a real server never hands out more; keep the memfd small */
    int fd = memfd_create("fuzz-gblink", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        abort();
    if (ftruncate(fd, (off_t)fsize) < 0 || pwrite(fd, page, sizeof page, 0) < 0)
        abort();
    if (!(how & 128))
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    uint8_t *base = NULL;
    size_t msize = 0;
    char why[200] = "";
    int rc = gbl_shm_map_peer(fd, &acc, &base, &msize, why, sizeof why);
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "map peer: %d %s\n", rc, why);
    if (rc == 0) {
        gbl_shm_header got;
        memcpy(&got, base, sizeof got);
        if (msize != fsize || (how & 128) || got.magic != GBL_SHM_MAGIC ||
            got.ring_size != acc.ring_size || msize != GBL_SHM_HEADER_SIZE + 2ull * got.ring_size)
            fail("a bad shared memory was accepted");
        base[msize - 1] = 1; /* the whole mapping is usable */
        gbl_shm_unmap(base, msize);
    } else if (!why[0]) {
        fail("a refused shared memory gives no reason");
    }
    close(fd);
}

static void check_delivered(tep *e, const gbl_record *rec)
{
    char why[200];
    (void)e;
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "delivered %s, %u bytes\n", gbl_type_name(rec->type), rec->len);
    if (gbl_record_check(rec, why, sizeof why) < 0)
        fail("the server delivered a record that breaks the rules");
}

static int process_until(tep *e, enum gbl_state want)
{
    for (int i = 0; i < 1000; i++) {
        if (gbl_state(e->l) == want)
            return 1;
        gbl_process(e->l);
    }
    return gbl_state(e->l) == want;
}

static void server(in *r)
{
    static tep srv;
    static char path[108];
    if (!srv.l) {
        char err[256];
        gbl_config cfg = {.ring_size = GBL_RING_MIN, .budget = 64};
        tep_path(path, sizeof path);
        srv.on_record = check_delivered;
        srv.l = gbl_server_new(path, &cfg, &tep_callbacks, &srv, err, sizeof err);
        if (!srv.l) {
            fprintf(stderr, "fuzz_gblink: server: %s\n", err);
            abort();
        }
    }
    fake_peer f;
    char reason[128];
    if (fake_connect(&f, path, GBL_VERSION_MAJOR) < 0)
        abort();
    if (!process_until(&srv, GBL_STATE_UP) || fake_finish(&f, reason, sizeof reason) != 1)
        fail("the handshake with the server did not complete");
    uint32_t size = f.ring_size;
    uint8_t *d = fake_data(&f, GBL_RING_C2S);
    uint32_t *head = fake_ctrl(&f, GBL_RING_C2S, GBL_CTRL_HEAD);
    unsigned nheads = 1 + u8(r) % 4;
    uint32_t heads[4], last = 0;
    for (unsigned i = 0; i < nheads; i++)
        heads[i] = last = index_from(r, last);
    for (uint32_t k = 0; r->n && k < size; k++)
        d[k] = u8(r);
    int downs = srv.downs;
    for (unsigned i = 0; i < nheads && srv.downs == downs; i++) {
        __atomic_store_n(head, heads[i], __ATOMIC_RELEASE);
        fake_kick(&f);
        for (int k = 0; k < 8 && gbl_process(srv.l) > 0; k++)
            ;
    }
    if (getenv("FUZZ_VERBOSE") && srv.downs != downs)
        fprintf(stderr, "link down: %d %s\n", srv.last_err, srv.why);
    if (srv.downs != downs && (srv.last_err != -EPROTO || !srv.why[0]))
        fail("a link dropped for what the peer wrote does not say -EPROTO and why");
    fake_close(&f);
    if (!process_until(&srv, GBL_STATE_LISTENING))
        fail("the server does not listen again after its client went");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in r = {data, size};
    switch (u8(&r) % 4) {
    case 0:
        consumer(&r);
        break;
    case 1:
        producer(&r);
        break;
    case 2:
        map_peer(&r);
        break;
    default:
        server(&r);
        break;
    }
    return 0;
}
