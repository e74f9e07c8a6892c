// SPDX-License-Identifier: MIT
// Output files of captures and timelines (sim/output_file.h).
#include "sim/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int sim_output_file_open(const char *path, bool wait_for_reader)
{
    struct stat st;
    bool fifo = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
    bool at_once = fifo && !wait_for_reader;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (at_once ? O_NONBLOCK : 0),
                  0666);
    if (fd < 0 || !at_once)
        return fd;
    /* the reader is there: from now on writes wait for it */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

bool sim_output_file_is(int fd, const char *path)
{
    struct stat mine, theirs;
    return fstat(fd, &mine) == 0 && stat(path, &theirs) == 0 && mine.st_dev == theirs.st_dev &&
           mine.st_ino == theirs.st_ino;
}
