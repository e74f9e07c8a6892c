// SPDX-License-Identifier: MIT
// Report files opened at start, written at the end (gbvp/out_file.h).
#include "gbvp/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int sim_out_file_open(sim_out_file *o, const char *path)
{
    struct stat st;

    *o = (sim_out_file){ .path = path, .created = stat(path, &st) != 0 };
    /* no O_TRUNC: the earlier report stays until this one replaces it */
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        if (o->created)
            unlink(path);
        return -e;
    }
    return 0;
}

FILE *sim_out_file_begin(sim_out_file *o)
{
    if (!o->f) {
        errno = EBADF;
        return NULL;
    }
    if (ftruncate(fileno(o->f), 0) || fseek(o->f, 0, SEEK_SET))
        return NULL;
    return o->f;
}

int sim_out_file_finish(sim_out_file *o)
{
    if (!o->f)
        return -EBADF;
    int rc = ferror(o->f) ? -EIO : 0;
    if (fclose(o->f) && !rc)
        rc = errno ? -errno : -EIO;
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
