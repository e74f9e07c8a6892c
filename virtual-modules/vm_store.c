// SPDX-License-Identifier: MIT
// Storage backends' bytes: memory or a locked host file (see vm_store.h).
#include "virtual-modules/vm_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A memory store is sparse: chunks are allocated on their first write, and a chunk never
 * written reads as `fill`. An 8 MiB card or an erased flash costs memory (and time, at
 * every insertion) only for what the guest wrote. */
#define CHUNK_SHIFT 16
#define CHUNK_SIZE ((size_t)1 << CHUNK_SHIFT)

struct vm_store {
    uint64_t size;
    uint8_t **chunks; /* memory store: size / CHUNK_SIZE (rounded up) chunks, NULL if unwritten */
    size_t nchunks;
    uint8_t fill;
    int fd;           /* file store, else -1 */
    char *path;
};

vm_store *vm_store_memory(uint64_t size, uint8_t fill)
{
    if (size == 0 || size > SIZE_MAX - CHUNK_SIZE)
        return NULL;
    vm_store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nchunks = (size_t)((size + CHUNK_SIZE - 1) >> CHUNK_SHIFT);
    s->chunks = calloc(s->nchunks, sizeof *s->chunks);
    if (!s->chunks) {
        free(s);
        return NULL;
    }
    s->fill = fill;
    s->size = size;
    s->fd = -1;
    return s;
}

/* The chunk holding byte `off`, allocated (and filled) when `create`; NULL when it was
 * never written and !create, or out of memory. */
static uint8_t *chunk_at(vm_store *s, uint64_t off, bool create)
{
    uint8_t **c = &s->chunks[off >> CHUNK_SHIFT];
    if (!*c && create && (*c = malloc(CHUNK_SIZE)))
        memset(*c, s->fill, CHUNK_SIZE);
    return *c;
}

/* How much of [at, at + left) lies in at's chunk. */
static size_t piece(uint64_t at, size_t left)
{
    size_t in_chunk = CHUNK_SIZE - (size_t)(at & (CHUNK_SIZE - 1));
    return left < in_chunk ? left : in_chunk;
}

static void memory_read(vm_store *s, uint64_t off, uint8_t *out, size_t len)
{
    for (size_t done = 0, n; done < len; done += n) {
        uint64_t at = off + done;
        const uint8_t *c = chunk_at(s, at, false);
        n = piece(at, len - done);
        if (c)
            memcpy(out + done, c + (at & (CHUNK_SIZE - 1)), n);
        else
            memset(out + done, s->fill, n);
    }
}

static int memory_write(vm_store *s, uint64_t off, const uint8_t *in, size_t len)
{
    for (size_t done = 0, n; done < len; done += n) {
        uint64_t at = off + done;
        uint8_t *c = chunk_at(s, at, true);
        if (!c)
            return -ENOMEM;
        n = piece(at, len - done);
        memcpy(c + (at & (CHUNK_SIZE - 1)), in + done, n);
    }
    return 0;
}

/* Filling with the fill value leaves unwritten chunks unallocated. */
static int memory_fill(vm_store *s, uint64_t off, uint8_t byte, size_t len)
{
    for (size_t done = 0, n; done < len; done += n) {
        uint64_t at = off + done;
        uint8_t *c = chunk_at(s, at, byte != s->fill);
        n = piece(at, len - done);
        if (c)
            memset(c + (at & (CHUNK_SIZE - 1)), byte, n);
        else if (byte != s->fill)
            return -ENOMEM;
    }
    return 0;
}

vm_store *vm_store_file(const char *path, uint64_t size, char *err, size_t errlen)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        goto bad;
    }
    /* Whole-file write lock on the open file description: refused while any other store
     * (here or in another program using the same kind of lock) holds the file. */
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_OFD_SETLK, &lk)) {
        if (errno == EAGAIN || errno == EACCES)
            snprintf(err, errlen, "%s is in use: another module or program holds its lock",
                     path);
        else
            snprintf(err, errlen, "cannot lock %s: %s", path, strerror(errno));
        goto bad;
    }
    if (st.st_size <= 0) {
        snprintf(err, errlen, "%s is empty", path);
        goto bad;
    }
    if (size && (uint64_t)st.st_size != size) {
        snprintf(err, errlen, "%s has %lld bytes; this device needs exactly %llu", path,
                 (long long)st.st_size, (unsigned long long)size);
        goto bad;
    }
    vm_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        snprintf(err, errlen, "%s: out of memory", path);
        goto bad;
    }
    s->fd = fd;
    s->size = (uint64_t)st.st_size;
    return s;
bad:
    close(fd);
    return NULL;
}

void vm_store_free(vm_store *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    for (size_t i = 0; i < s->nchunks; i++)
        free(s->chunks[i]);
    free(s->chunks);
    free(s->path);
    free(s);
}

uint64_t vm_store_size(const vm_store *s)
{
    return s->size;
}

const char *vm_store_path(const vm_store *s)
{
    return s->path;
}

static int in_range(const vm_store *s, uint64_t off, uint64_t len)
{
    return off <= s->size && len <= s->size - off;
}

int vm_store_read(vm_store *s, uint64_t off, void *buf, size_t len)
{
    if (!in_range(s, off, len))
        return -ERANGE;
    if (s->chunks) {
        memory_read(s, off, buf, len);
        return 0;
    }
    for (size_t done = 0; done < len;) {
        ssize_t n = pread(s->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) /* the file shrank after it was opened: no bytes to give */
            return -EIO;
        done += (size_t)n;
    }
    return 0;
}

int vm_store_write(vm_store *s, uint64_t off, const void *buf, size_t len)
{
    if (!in_range(s, off, len))
        return -ERANGE;
    if (s->chunks)
        return memory_write(s, off, buf, len);
    for (size_t done = 0; done < len;) {
        ssize_t n = pwrite(s->fd, (const uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    return 0;
}

int vm_store_fill(vm_store *s, uint64_t off, uint8_t byte, uint64_t len)
{
    if (!in_range(s, off, len))
        return -ERANGE;
    if (s->chunks) {
        if (len > SIZE_MAX)
            return -ERANGE;
        return memory_fill(s, off, byte, (size_t)len);
    }
    /* Zeros (an SD erase or discard) are punched out of the file as a hole where its file
     * system can: a guest erasing a large card then neither fills the host's disk with
     * zeros nor holds the simulator for as long as writing them would take. They read back
     * as zeros either way; otherwise, or for another byte, they are written. */
    if (byte == 0 && len && len <= (uint64_t)INT64_MAX - off &&
        fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
                  (off_t)len) == 0)
        return 0;
    uint8_t chunk[4096];
    memset(chunk, byte, sizeof chunk);
    while (len) {
        size_t n = len < sizeof chunk ? (size_t)len : sizeof chunk;
        int rc = vm_store_write(s, off, chunk, n);
        if (rc)
            return rc;
        off += n;
        len -= n;
    }
    return 0;
}
