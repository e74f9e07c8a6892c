// SPDX-License-Identifier: MIT
// The shared-memory file: a memfd created by the server, sealed so that neither side can
// change its size afterwards (a shrunk file would turn the other side's accesses into
// SIGBUS), and checked by the client before it maps anything.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout.h"

#define REQUIRED_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

int gbl_shm_create(uint32_t ring_size, uint32_t features, uint16_t minor, int *fd,
                   uint8_t **base, size_t *size, char *err, size_t errlen)
{
    size_t total = (size_t)GBL_SHM_HEADER_SIZE + 2u * (size_t)ring_size;
    int mfd = memfd_create("gblink", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    void *p;
    int rc;

    if (mfd < 0) {
        rc = -errno;
        snprintf(err, errlen, "memfd_create: %s", strerror(errno));
        return rc;
    }
    if (ftruncate(mfd, (off_t)total) < 0 || fcntl(mfd, F_ADD_SEALS, REQUIRED_SEALS) < 0) {
        rc = -errno;
        snprintf(err, errlen, "sizing and sealing the shared memory: %s", strerror(errno));
        close(mfd);
        return rc;
    }
    p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (p == MAP_FAILED) {
        rc = -errno;
        snprintf(err, errlen, "mmap of %zu bytes: %s", total, strerror(errno));
        close(mfd);
        return rc;
    }
    gbl_shm_init(p, ring_size, features, minor);
    *fd = mfd;
    *base = p;
    *size = total;
    return 0;
}

static int ring_size_ok(uint32_t n)
{
    return n >= GBL_RING_MIN && n <= GBL_RING_MAX && (n & (n - 1u)) == 0;
}

int gbl_shm_map_peer(int fd, const gbl_hs_accept *acc, uint8_t **base, size_t *size,
                     char *err, size_t errlen)
{
    uint64_t total = (uint64_t)GBL_SHM_HEADER_SIZE + 2u * (uint64_t)acc->ring_size;
    gbl_shm_header h;
    struct stat st;
    int seals;
    void *p;

    if (!ring_size_ok(acc->ring_size) || acc->header_size != GBL_SHM_HEADER_SIZE
        || acc->total_size != total || acc->max_payload != GBL_MAX_PAYLOAD) {
        snprintf(err, errlen, "server announced an invalid layout: ring %u bytes, header %u, "
                 "total %llu, max payload %u", acc->ring_size, acc->header_size,
                 (unsigned long long)acc->total_size, acc->max_payload);
        return -EPROTO;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != total) {
        snprintf(err, errlen, "server's shared memory is not a %llu-byte file",
                 (unsigned long long)total);
        return -EPROTO;
    }
    seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)) {
        snprintf(err, errlen, "server's shared memory is not sealed against resizing");
        return -EPROTO;
    }
    p = mmap(NULL, (size_t)total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int rc = -errno;
        snprintf(err, errlen, "mmap of the shared memory: %s", strerror(errno));
        return rc;
    }
    memcpy(&h, p, sizeof(h));
    if (h.magic != GBL_SHM_MAGIC || h.version_major != acc->version_major
        || h.header_size != acc->header_size || h.ring_size != acc->ring_size
        || h.total_size != total || h.max_payload != acc->max_payload
        || h.ring_offset[0] != GBL_SHM_HEADER_SIZE
        || h.ring_offset[1] != GBL_SHM_HEADER_SIZE + acc->ring_size) {
        snprintf(err, errlen, "shared memory header (magic 0x%08x, version %u, ring %u) "
                 "does not match the handshake", h.magic, h.version_major, h.ring_size);
        munmap(p, (size_t)total);
        return -EPROTO;
    }
    *base = p;
    *size = (size_t)total;
    return 0;
}

void gbl_shm_unmap(uint8_t *base, size_t size)
{
    if (base)
        munmap(base, size);
}
