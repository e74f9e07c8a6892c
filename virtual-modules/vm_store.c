// SPDX-License-Identifier: MIT
// Storage backends' bytes: memory or a locked host file (see vm_store.h).
#include "virtual-modules/vm_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct vm_store {
    uint64_t size;
    uint8_t *mem; /* memory store */
    int fd;       /* file store, else -1 */
    char *path;
};

vm_store *vm_store_memory(uint64_t size, uint8_t fill)
{
    if (size == 0 || size > SIZE_MAX)
        return NULL;
    vm_store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->mem = malloc((size_t)size);
    if (!s->mem) {
        free(s);
        return NULL;
    }
    memset(s->mem, fill, (size_t)size);
    s->size = size;
    s->fd = -1;
    return s;
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
    free(s->mem);
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
    if (s->mem) {
        memcpy(buf, s->mem + off, len);
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
    if (s->mem) {
        memcpy(s->mem + off, buf, len);
        return 0;
    }
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
    if (s->mem) {
        memset(s->mem + off, byte, (size_t)len);
        return 0;
    }
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
