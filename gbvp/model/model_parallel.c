// SPDX-License-Identifier: MIT
// Jobs on fork()ed workers, results in job order (model_parallel.h).
#include "gbvp/model/model_parallel.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* A record in a worker's file: the job, whether it failed, the length, then the bytes. */
typedef struct record_head {
    uint64_t job;
    uint32_t failed;
    uint64_t len;
} record_head;

static void run_one(model_job_fn fn, void *ctx, size_t job, model_job_result *r)
{
    char *data = NULL;
    size_t len = 0;
    int rc = fn(ctx, job, &data, &len);
    if (rc && data)
        len = strlen(data);
    if (!data) { /* a result always has data: a message, or an empty string */
        data = rc ? strdup("the job failed") : calloc(1, 1);
        len = data && rc ? strlen(data) : 0;
    }
    *r = (model_job_result){ .failed = rc != 0, .data = data, .len = len };
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t k = read(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* In the child: dies with the parent. A parent killed on its own (kill PID, a harness's
 * timeout) can collect nothing, so its workers would only burn CPU on jobs nobody reads. */
static void follow_parent(pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
        _exit(4); /* the parent is gone already (or we cannot tell when it goes) */
}

/* In the child: runs every job of worker w, appending a record per job to fd. */
static void worker(unsigned w, unsigned workers, size_t n, model_job_fn fn, void *ctx, int fd)
{
    int status = 0;
    for (size_t job = w; job < n; job += workers) {
        model_job_result r;
        run_one(fn, ctx, job, &r);
        record_head h;
        memset(&h, 0, sizeof h); /* the padding too: the bytes go to a file */
        h.job = job;
        h.failed = r.failed;
        h.len = r.len;
        if (write_all(fd, &h, sizeof h) || write_all(fd, r.data, r.len))
            status = 3;
        free(r.data);
        if (status)
            break;
    }
    _exit(status);
}

/* Reads a finished worker's records into out. */
static int collect(int fd, size_t n, model_job_result *out)
{
    if (lseek(fd, 0, SEEK_SET) < 0)
        return -1;
    record_head h;
    while (read_all(fd, &h, sizeof h) == 0) {
        if (h.job >= n || out[h.job].data || h.len > SIZE_MAX - 1)
            return -1;
        char *data = malloc(h.len + 1);
        if (!data)
            return -1;
        if (read_all(fd, data, h.len)) {
            free(data);
            return -1;
        }
        data[h.len] = 0;
        out[h.job] = (model_job_result){ .failed = h.failed != 0, .data = data, .len = h.len };
    }
    return 0;
}

int model_parallel_run(size_t n, unsigned workers, model_job_fn fn, void *ctx,
                       model_job_result *out, char *err, size_t len)
{
    memset(out, 0, n * sizeof *out);
    if (workers > n)
        workers = (unsigned)n;
    if (workers <= 1) {
        for (size_t i = 0; i < n; i++)
            run_one(fn, ctx, i, &out[i]);
        return 0;
    }
    pid_t pid[MODEL_PARALLEL_MAX];
    FILE *file[MODEL_PARALLEL_MAX];
    unsigned started = 0;
    int rc = 0;
    if (workers > MODEL_PARALLEL_MAX)
        workers = MODEL_PARALLEL_MAX;
    fflush(NULL); /* what is buffered is printed once, not once per worker */
    pid_t parent = getpid();
    for (; started < workers; started++) {
        if (!(file[started] = tmpfile())) {
            snprintf(err, len, "cannot create a worker's file: %s", strerror(errno));
            rc = -1;
            break;
        }
        pid[started] = fork();
        if (pid[started] == 0)
            follow_parent(parent);
        if (pid[started] == 0)
            worker(started, workers, n, fn, ctx, fileno(file[started]));
        if (pid[started] < 0) {
            snprintf(err, len, "cannot start worker %u: %s", started + 1, strerror(errno));
            fclose(file[started]);
            rc = -1;
            break;
        }
    }
    for (unsigned w = 0; rc && w < started; w++)
        kill(pid[w], SIGTERM); /* not every worker started: the run is off */
    for (unsigned w = 0; w < started; w++) {
        int st = 0;
        pid_t got;
        while ((got = waitpid(pid[w], &st, 0)) < 0 && errno == EINTR)
            ;
        if (rc) {
            /* already failing: only reap */
        } else if (got != pid[w]) {
            snprintf(err, len, "worker %u was lost: %s", w + 1, strerror(errno));
            rc = -1;
        } else if (WIFSIGNALED(st)) {
            snprintf(err, len, "worker %u died of signal %d (%s) in one of its jobs (%u, %u, ...)",
                     w + 1, WTERMSIG(st), strsignal(WTERMSIG(st)), w, w + workers);
            rc = -1;
        } else if (WEXITSTATUS(st) || collect(fileno(file[w]), n, out)) {
            snprintf(err, len, "worker %u could not pass its results back", w + 1);
            rc = -1;
        }
        fclose(file[w]);
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (!out[i].data) {
            snprintf(err, len, "job %zu came back with nothing", i);
            rc = -1;
        }
    if (rc)
        model_parallel_results_free(out, n);
    return rc;
}

void model_parallel_results_free(model_job_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].data);
        r[i].data = NULL;
    }
}
