// SPDX-License-Identifier: MIT
// A report file named on the command line (--stats, --junit): opened when the command
// starts, so that a path that cannot be written is refused before a run whose results
// would then be lost, and written when the run ends. Until then an existing file keeps
// its content, and one the open created is removed again if the run never happens.
#ifndef GBVP_GBVP_OUT_FILE_H
#define GBVP_GBVP_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct sim_out_file {
    const char *path; /* borrowed */
    FILE *f;          /* NULL: not open */
    bool created;     /* the open made the file */
} sim_out_file;

/* Opens `path` for writing without emptying it. 0, or -errno (nothing open). */
int sim_out_file_open(sim_out_file *o, const char *path);
/* Empties the file for the report and returns its stream; NULL with errno set when it
 * cannot be emptied. */
FILE *sim_out_file_begin(sim_out_file *o);
/* Closes the file after the report: 0, or -errno when a write or the close failed. */
int sim_out_file_finish(sim_out_file *o);
/* Closes the file without a report: removed if the open created it, else left as it was.
 * Does nothing when it is not open. */
void sim_out_file_abandon(sim_out_file *o);

#endif
