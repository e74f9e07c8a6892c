// SPDX-License-Identifier: MIT
// Paths for a test's sockets and files in a folder of its own process.
#ifndef GBVP_TESTS_UNIT_TMP_PATH_H
#define GBVP_TESTS_UNIT_TMP_PATH_H

#include <stddef.h>

/* Writes to buf the path NAME inside this test process's own directory, made under /tmp
 * on first use and removed with what is in it when the process exits. Paths that only
 * carry a pid would meet files a killed run left behind once the pid comes round again.
 * Returns buf; aborts if the directory cannot be made. */
const char *unit_tmp_path(char *buf, size_t len, const char *name);

#endif
