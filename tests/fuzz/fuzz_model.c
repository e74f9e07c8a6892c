// SPDX-License-Identifier: MIT
// libFuzzer target: `gbvp model` topology/traffic files (gbvp/model/model_topo.h).
//
// Byte 0 chooses how the rest is read: as a file through model_parse_file (via a memfd, so
// line splitting and long lines are covered) or line by line through model_parse_line,
// going on after errors; bit 1 of byte 0 picks the frame-level run (model_run) or the
// message-level one (model_run_message). A model that parses is built and run for at most 3 us
// of simulated time, and its summary, JSON and CSV reports are written (to /dev/null).
// Checked besides "no crash, no sanitizer report, no hang": every refusal gives a message
// naming where ("fuzz:LINE: ..." or the file), and a model refused at build time says why.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_net.h"
#include "gbvp/model/model_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_model: invariant broken: %s (message: '%s')\n", what, err);
    abort();
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

static int parse_lines(model *m, const char *text, size_t len)
{
    int errors = 0, lineno = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        char *line = strndup(p, n);
        char where[32], err[512] = "";
        if (!line)
            abort();
        snprintf(where, sizeof where, "fuzz:%d", ++lineno);
        if (model_parse_line(m, line, where, err, sizeof err)) {
            errors++;
            if (strncmp(err, where, strlen(where)))
                fail("a refused line does not name where it is", err);
        }
        free(line);
        p += n + 1;
    }
    return errors;
}

static int parse_file(model *m, const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-model", MFD_CLOEXEC);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
        abort();
    char path[64], err[512] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int rc = model_parse_file(m, path, err, sizeof err);
    close(fd);
    if (rc && !strstr(err, path))
        fail("a refused file does not name the file", err);
    return rc != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    model *m = model_new();
    if (!m)
        abort();
    int errors;
    if (data[0] & 1) {
        errors = parse_file(m, data + 1, size - 1);
    } else {
        char *text = malloc(size); /* exactly sized: ASan sees overreads */
        if (!text)
            abort();
        memcpy(text, data + 1, size - 1);
        errors = parse_lines(m, text, size - 1);
        free(text);
    }
    if (!errors) {
        sim_time d = model_duration(m);
        if (d > SIM_US(3) || d == 0)
            d = SIM_US(3);
        char err[512] = "";
        int rc = data[0] & 2 ? model_run_message(m, d, err, sizeof err)
                             : model_run(m, d, err, sizeof err);
        if (rc == 0) {
            model_print_summary(m, devnull());
            model_write_json(m, devnull());
            model_write_csv(m, devnull());
            model_write_series_csv(m, devnull());
        } else if (!err[0]) {
            fail("a model that cannot run gives no reason", err);
        }
    }
    model_free(m);
    return 0;
}
