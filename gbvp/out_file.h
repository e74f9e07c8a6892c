// SPDX-License-Identifier: MIT
// A report file named on the command line (--stats, --junit): opened when the command
// starts, so that a path that cannot be written is refused before a run whose results
// would then be lost, and written when the run ends. Until then an existing file keeps
// its content, and one the open created is removed again if the run never happens. A
// FIFO is opened only at the end (its open waits for a reader), and a file that is not a
// regular one (/dev/null, a terminal) is written without being emptied.
#ifndef GBVP_GBVP_OUT_FILE_H
#define GBVP_GBVP_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct sim_out_file {
    const char *path; /* borrowed; NULL: no report asked for */
    FILE *f;          /* NULL: not open (yet) */
    bool created;     /* the open made the file */
    bool fifo;        /* opened only when the report is written */
} sim_out_file;

/* Opens `path` for writing without emptying it (a FIFO: only checks that it is one). 0,
 * or -errno (nothing open). */
int sim_out_file_open(sim_out_file *o, const char *path);
/* Whether `path` could be opened as above, trying it and leaving it as it was (a file the
 * try made is removed): for a file written as the run goes, emptied only once every other
 * check passed, or one written only at the end by a command that keeps no handle. 0 or
 * -errno. */
int sim_out_file_try(const char *path);
/* Writes the report through write(f, ctx), which returns 0 or -errno, into the emptied
 * file and closes it. 0, or the first -errno of emptying, writing, flushing and closing;
 * a file that could not be emptied is left as sim_out_file_abandon leaves it. */
int sim_out_file_write(sim_out_file *o, int (*write)(FILE *f, void *ctx), void *ctx);
/* Closes the file without a report: removed if the open created it, else left as it was.
 * Does nothing when it is not open. */
void sim_out_file_abandon(sim_out_file *o);

/* The output files a command was given (`names[i]` is the option, `paths[i]` its file or
 * NULL when not given; "-", standard output, is left to the command): 0 when they are n
 * different files, else -1 with "--a and --b name the same file (path)" in err. Two
 * writers of one file would leave a mix of both, and the run's results lost with it. The
 * same file is the same path after resolving the folder (the file itself may not exist
 * yet), or one existing file under two names. */
int sim_out_files_distinct(const char *const *names, const char *const *paths, size_t n,
                           char *err, size_t errlen);

#endif
