// SPDX-License-Identifier: MIT
// Report files opened at start, written at the end (gbvp/out_file.h).
#include "gbvp/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_stream(sim_out_file *o)
{
    /* no O_TRUNC: the earlier report stays until this one replaces it */
    int fd = open(o->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return -e;
    }
    return 0;
}

int sim_out_file_open(sim_out_file *o, const char *path)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;

    *o = (sim_out_file){ .path = path, .created = !exists,
                         .fifo = exists && S_ISFIFO(st.st_mode) };
    if (o->fifo)
        return access(path, W_OK) ? -errno : 0;
    int rc = open_stream(o);
    if (rc && o->created)
        unlink(path);
    return rc;
}

int sim_out_file_try(const char *path)
{
    sim_out_file o;
    int rc = sim_out_file_open(&o, path);
    sim_out_file_abandon(&o);
    return rc;
}

int sim_out_file_write(sim_out_file *o, int (*write)(FILE *f, void *ctx), void *ctx)
{
    struct stat st;
    int rc = 0;

    if (o->fifo && !o->f)
        rc = open_stream(o);
    else if (!o->f)
        rc = -EBADF;
    /* a regular file is emptied; /dev/null, a terminal or a pipe cannot be, nor need be */
    else if (fstat(fileno(o->f), &st) == 0 && S_ISREG(st.st_mode) &&
             (ftruncate(fileno(o->f), 0) || fseek(o->f, 0, SEEK_SET)))
        rc = -errno;
    if (rc) {
        sim_out_file_abandon(o);
        return rc;
    }
    rc = write(o->f, ctx);
    if (fflush(o->f) && !rc)
        rc = -errno;
    if (ferror(o->f) && !rc)
        rc = -EIO;
    if (fclose(o->f) && !rc)
        rc = -errno;
    o->f = NULL;
    return rc;
}

void sim_out_file_abandon(sim_out_file *o)
{
    if (!o->f)
        return;
    fclose(o->f);
    o->f = NULL;
    if (o->created)
        unlink(o->path);
}

/* PATH with its folder resolved (symbolic links, "..", "."), into out; false when the
 * folder does not resolve (the open would refuse it then anyway). */
static bool resolved(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return false;
    int n = snprintf(out, size, "%s/%s", real, slash ? slash + 1 : path);
    return n >= 0 && (size_t)n < size;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool exist = stat(a, &sa) == 0 && stat(b, &sb) == 0;
    if (exist && S_ISCHR(sa.st_mode) && S_ISCHR(sb.st_mode))
        return false; /* /dev/null, a terminal: writers do not spoil each other's output */
    if (!strcmp(a, b))
        return true;
    if (exist)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[PATH_MAX], rb[PATH_MAX];
    return resolved(a, ra, sizeof ra) && resolved(b, rb, sizeof rb) && !strcmp(ra, rb);
}

int sim_out_files_distinct(const char *const *names, const char *const *paths, size_t n,
                           char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (!paths[i] || !paths[j] || !strcmp(paths[i], "-") || !strcmp(paths[j], "-"))
                continue;
            if (same_file(paths[i], paths[j])) {
                snprintf(err, errlen, "%s and %s name the same file (%s): give each its own",
                         names[i], names[j], paths[j]);
                return -1;
            }
        }
    return 0;
}
