// SPDX-License-Identifier: MIT
// Opening a file a capture or a timeline is written to as the simulator runs (capture.h,
// trace.h): created or emptied; a FIFO is opened for its reader.
#ifndef GBVP_SIM_OUTPUT_FILE_H
#define GBVP_SIM_OUTPUT_FILE_H

#include <stdbool.h>

/* Opens `path` for writing: a file is created or emptied; a FIFO without a reader is
 * waited for when `wait_for_reader` (a file named at start), else refused at once with
 * errno ENXIO (a running simulator cannot stop for one). Writes to the descriptor block,
 * as a live reader wants. The descriptor, or -1 with errno. */
int sim_output_file_open(const char *path, bool wait_for_reader);
/* Whether `fd` is the file at `path` (the same file, however named): a capture or timeline
 * started again on the file it writes must end the running one first. */
bool sim_output_file_is(int fd, const char *path);

#endif
