// SPDX-License-Identifier: MIT
// A test process's own folder for sockets and files (tests/unit/tmp_path.h). Apart from
// unit.c so that the fuzz targets that share test helpers link it without CUnit.
#include "tests/unit/tmp_path.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The process's own directory for sockets and files (unit_tmp_path); test-only state. */
static char tmp_dir[32];
static pid_t tmp_owner;

static void remove_tmp_dir(void)
{
    /* a forked child that exits must not take its parent's directory away */
    if (!tmp_dir[0] || getpid() != tmp_owner)
        return;
    DIR *d = opendir(tmp_dir);
    if (d) {
        struct dirent *e;
        char path[sizeof tmp_dir + 256];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(tmp_dir);
}

const char *unit_tmp_path(char *buf, size_t len, const char *name)
{
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gbvp-unit-XXXXXX");
        if (!mkdtemp(tmp_dir)) {
            perror("unit: cannot make a directory under /tmp");
            abort();
        }
        tmp_owner = getpid();
        atexit(remove_tmp_dir);
    }
    snprintf(buf, len, "%s/%s", tmp_dir, name);
    return buf;
}
