// SPDX-License-Identifier: MIT
// Running independent jobs (the configurations of a sweep) in worker processes: job i goes
// to worker i mod W, each worker writes what its jobs made to a file of its own, and the
// results come back in job order, so the output does not depend on W. A worker is a
// fork()ed copy of the caller: jobs share no mutable state, whatever the code they run.
#ifndef GBVP_GBVP_MODEL_MODEL_PARALLEL_H
#define GBVP_GBVP_MODEL_MODEL_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#define MODEL_PARALLEL_MAX 256 /* workers */

/* One job's outcome: the bytes it made (malloc'd, owned by the result), or when it failed
 * its message (a string). */
typedef struct model_job_result {
    bool failed;
    char *data;
    size_t len;
} model_job_result;

/* A job: 0 with *data (malloc'd) and *len, or non-zero with *data a malloc'd message. */
typedef int (*model_job_fn)(void *ctx, size_t job, char **data, size_t *len);

/* Runs jobs 0..n-1 on `workers` processes (1: in this process, no fork) and fills
 * out[0..n-1]. 0, or -1 with err when a worker could not start or died (a crash in a job:
 * its signal); a job's own failure is in its result, not an error here. */
int model_parallel_run(size_t n, unsigned workers, model_job_fn fn, void *ctx,
                       model_job_result *out, char *err, size_t errlen);

/* Frees the data of n results. */
void model_parallel_results_free(model_job_result *r, size_t n);

#endif
