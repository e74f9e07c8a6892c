// SPDX-License-Identifier: MIT
// Single-producer single-consumer rings of variable-length records in shared memory.
//
// Indices are free-running uint32_t byte counters (position = index & mask). A record is a
// 24-byte header and its payload, starting on an 8-byte boundary and never split: when it
// does not fit before the end of the ring, the producer first writes a padding record that
// fills the ring up to its end. The producer publishes `head` with release ordering after the
// record bytes; the consumer loads it with acquire ordering, copies the record out, then
// publishes `tail` with release ordering.
//
// The peer is untrusted: its index is loaded once into a local, checked against our own
// index (distance at most the ring size, 8-byte aligned), and every length read from the
// ring is bounded by that distance and by the end of the ring before any byte is touched.
// Our own index is never read back from shared memory.
//
// Doorbells: a side that may sleep sets a *_waiting flag, issues a full fence and
// re-checks; the other side, after publishing its index, issues a full fence and reads the
// flag. One of the two always sees the other's store (Dekker), so no wake-up is lost, and
// no eventfd write is made while the reader is busy.
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"

#define A(p) ((_Atomic uint32_t *)(p))

static uint32_t align_up(uint32_t n)
{
    return (n + GBL_REC_ALIGN - 1u) & ~(GBL_REC_ALIGN - 1u);
}

void gbl_ring_attach(gbl_ring *r, uint8_t *base, uint32_t ring_size, int which)
{
    uint8_t *ctrl = base + GBL_RING_CTRL_OFFSET(which);

    memset(r, 0, sizeof(*r));
    r->data = base + GBL_SHM_HEADER_SIZE + (uint32_t)which * ring_size;
    r->size = ring_size;
    r->mask = ring_size - 1u;
    r->head = ctrl + GBL_CTRL_HEAD;
    r->tail = ctrl + GBL_CTRL_TAIL;
    r->data_waiting = ctrl + GBL_CTRL_DATA_WAITING;
    r->space_waiting = ctrl + GBL_CTRL_SPACE_WAITING;
    r->local = 0;
    r->max_record = GBL_REC_MAX;
}

void gbl_shm_init(uint8_t *base, uint32_t ring_size, uint32_t features, uint16_t minor)
{
    gbl_shm_header h;

    memset(base, 0, GBL_SHM_HEADER_SIZE);
    memset(&h, 0, sizeof(h));
    h.magic = GBL_SHM_MAGIC;
    h.version_major = GBL_VERSION_MAJOR;
    h.version_minor = minor;
    h.header_size = GBL_SHM_HEADER_SIZE;
    h.ring_size = ring_size;
    h.max_payload = GBL_MAX_PAYLOAD;
    h.features = features;
    h.ring_offset[0] = GBL_SHM_HEADER_SIZE;
    h.ring_offset[1] = GBL_SHM_HEADER_SIZE + ring_size;
    h.total_size = (uint64_t)GBL_SHM_HEADER_SIZE + 2u * (uint64_t)ring_size;
    memcpy(base, &h, sizeof(h));
    for (int i = 0; i < 2; i++) {
        uint8_t *ctrl = base + GBL_RING_CTRL_OFFSET(i);
        atomic_init(A(ctrl + GBL_CTRL_HEAD), 0);
        atomic_init(A(ctrl + GBL_CTRL_TAIL), 0);
        /* Both consumers start "asleep" so the very first record rings the doorbell. */
        atomic_init(A(ctrl + GBL_CTRL_DATA_WAITING), 1);
        atomic_init(A(ctrl + GBL_CTRL_SPACE_WAITING), 0);
    }
    atomic_thread_fence(memory_order_release);
}

/* Producer's view of the consumer index: checked distance from our head, or -EPROTO.
 * A valid tail lies in [head - size, head] and moves forward only; as our head only moves
 * forward past it, the cached copy stays valid until reloaded. */
static int load_tail(gbl_ring *r, uint32_t *used, char *err, size_t errlen)
{
    uint32_t tail = atomic_load_explicit(A(r->tail), memory_order_acquire);
    uint32_t dist = r->local - tail;

    if (dist > r->size || (tail & (GBL_REC_ALIGN - 1u)) != 0
        || dist > r->local - r->peer) {
        snprintf(err, errlen,
                 "peer's consumer index is corrupt: tail %u with head %u, previous tail %u "
                 "(ring %u bytes)", tail, r->local, r->peer, r->size);
        return -EPROTO;
    }
    r->peer = tail;
    *used = dist;
    return 0;
}

/* Bytes needed at the current head for a record of `need` aligned bytes (pad included). */
static uint32_t needed(const gbl_ring *r, uint32_t need)
{
    uint32_t to_end = r->size - (r->local & r->mask);
    return need <= to_end ? need : to_end + need;
}

int gbl_ring_fits(gbl_ring *r, uint32_t payload, char *err, size_t errlen)
{
    uint32_t total = needed(r, align_up(GBL_REC_HEADER + payload));
    uint32_t used = r->local - r->peer;
    int rc;

    if (total <= r->size - used)
        return 1;
    rc = load_tail(r, &used, err, errlen);
    if (rc < 0)
        return rc;
    if (total <= r->size - used)
        return 1;
    atomic_store_explicit(A(r->space_waiting), 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    rc = load_tail(r, &used, err, errlen);
    if (rc < 0)
        return rc;
    return total <= r->size - used;
}

int gbl_ring_write(gbl_ring *r, const gbl_record *rec, char *err, size_t errlen)
{
    uint32_t len = GBL_REC_HEADER + rec->len;
    uint32_t need = align_up(len);
    uint32_t pos = r->local & r->mask;
    uint32_t to_end = r->size - pos;
    int fits = gbl_ring_fits(r, rec->len, err, errlen);
    gbl_wire_record w;

    if (fits < 0)
        return fits;
    if (!fits)
        return -EAGAIN;
    if (need > to_end) {
        gbl_wire_record pad = { .len = to_end, .type = GBL_T_PAD };
        memcpy(r->data + pos, &pad, GBL_PAD_MIN);
        r->local += to_end;
        pos = 0;
    }
    w.len = len;
    w.type = rec->type;
    w.cport = rec->cport;
    w.id = rec->id;
    w.flags = 0;
    w.time_ns = rec->time_ns;
    memcpy(r->data + pos, &w, sizeof(w));
    if (rec->len)
        memcpy(r->data + pos + GBL_REC_HEADER, rec->payload, rec->len);
    r->local += need;
    atomic_store_explicit(A(r->head), r->local, memory_order_release);
    return 0;
}

bool gbl_ring_producer_kick(gbl_ring *r)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(A(r->data_waiting), memory_order_relaxed))
        return false;
    return atomic_exchange_explicit(A(r->data_waiting), 0, memory_order_acq_rel) != 0;
}

/* Consumer's view of the producer index: a valid head lies in [tail, tail + size] and never
 * moves backwards. Returns the bytes available or -EPROTO. */
static long load_head(gbl_ring *r, char *err, size_t errlen)
{
    uint32_t head = atomic_load_explicit(A(r->head), memory_order_acquire);
    uint32_t avail = head - r->local;

    if (avail > r->size || (head & (GBL_REC_ALIGN - 1u)) != 0
        || avail < r->peer - r->local) {
        snprintf(err, errlen,
                 "peer's producer index is corrupt: head %u with tail %u, previous head %u "
                 "(ring %u bytes)", head, r->local, r->peer, r->size);
        return -EPROTO;
    }
    r->peer = head;
    return avail;
}

int gbl_ring_read(gbl_ring *r, uint8_t *buf, uint32_t *len, char *err, size_t errlen)
{
    for (;;) {
        uint32_t avail = r->peer - r->local;
        uint32_t pos = r->local & r->mask;
        uint32_t to_end = r->size - pos;
        uint32_t n, alen;
        uint16_t type;

        if (avail == 0) {
            long got = load_head(r, err, errlen);
            if (got <= 0)
                return (int)got;
            avail = (uint32_t)got;
        }
        if (avail < GBL_PAD_MIN) {
            snprintf(err, errlen, "peer published a partial record: %u bytes at offset %u",
                     avail, pos);
            return -EPROTO;
        }
        memcpy(&n, r->data + pos, sizeof(n));
        memcpy(&type, r->data + pos + 4, sizeof(type));
        if (type == GBL_T_PAD) {
            /* A pad is written only when a record does not fit before the end, so one at
             * offset 0 pads nothing; refusing it also means one read skips at most one pad,
             * and a peer publishing pads alone cannot keep the consumer looping here. */
            if (pos == 0) {
                snprintf(err, errlen, "bad padding record at offset 0 (length %u): a pad only "
                         "comes before the end of the ring", n);
                return -EPROTO;
            }
            if (n != to_end || n > avail) {
                snprintf(err, errlen,
                         "bad padding record at offset %u: length %u, %u bytes to the end "
                         "of the ring, %u published", pos, n, to_end, avail);
                return -EPROTO;
            }
            r->local += n;
            atomic_store_explicit(A(r->tail), r->local, memory_order_release);
            continue;
        }
        if (n < GBL_REC_HEADER || n > r->max_record) {
            snprintf(err, errlen, "bad record length %u at offset %u (type 0x%02x): must be "
                     "%u..%u", n, pos, type, GBL_REC_HEADER, r->max_record);
            return -EPROTO;
        }
        alen = align_up(n);
        if (alen > to_end || alen > avail) {
            snprintf(err, errlen, "record at offset %u (type 0x%02x, length %u) runs past %s",
                     pos, type, n, alen > to_end ? "the end of the ring"
                                                 : "the published data");
            return -EPROTO;
        }
        memcpy(buf, r->data + pos, n);
        memcpy(buf, &n, sizeof(n)); /* the validated length, whatever the peer did since */
        *len = n;
        r->local += alen;
        atomic_store_explicit(A(r->tail), r->local, memory_order_release);
        return 1;
    }
}

bool gbl_ring_consumer_arm(gbl_ring *r)
{
    uint32_t head;

    atomic_store_explicit(A(r->data_waiting), 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    head = atomic_load_explicit(A(r->head), memory_order_acquire);
    return head != r->local;
}

bool gbl_ring_has_data(const gbl_ring *r)
{
    /* (only compared: gbl_ring_read checks the index when it takes the data) */
    return atomic_load_explicit(A(r->head), memory_order_acquire) != r->local;
}

bool gbl_ring_consumer_kick(gbl_ring *r)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(A(r->space_waiting), memory_order_relaxed))
        return false;
    return atomic_exchange_explicit(A(r->space_waiting), 0, memory_order_acq_rel) != 0;
}
