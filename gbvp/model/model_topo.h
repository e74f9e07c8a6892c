// SPDX-License-Identifier: MIT
// `gbvp model`: a UniPro network described in a small text file (nodes, switches, links
// with their power mode and faults, traffic flows), built on the timing model, run for a
// simulated duration without QEMU, with its statistics printed and exported. This header:
// the model and its file format (model_topo.c); running it: model_net.h (frame level) and
// model_msg.h (message level).
//
// The file, one statement per line, '#' starts a comment:
//   node NAME dev=N [cports=N] [credits=N] [segment=N]
//   switch NAME [ports=N] [latency=TIME] [mode=saf|ct] [credits=N] [series=TIME]
//   link END END [gear=HS-G3B|PWM-G1..] [lanes=N] [ber=X] [drop=X] [seed=N] [down=TIME]
//        [up=TIME]                         END is a node NAME or SWITCH:PORT
//   traffic SRC DST [kind=saturate|cbr|poisson|rr] [size=BYTES] [rate=RATE] [depth=N]
//        [count=N] [start=TIME] [stop=TIME] [tc=0|1] [e2efc=on|off] [response=BYTES]
//   run TIME
// TIME: a number with ps, ns, us, ms or s. RATE: a number with b/s, kb/s, Mb/s or Gb/s.
#ifndef GBVP_GBVP_MODEL_MODEL_TOPO_H
#define GBVP_GBVP_MODEL_MODEL_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "event-kernel/scheduler.h"

typedef struct model model;

/* An empty model (add statements with model_parse_line / model_parse_file). NULL on no
 * memory. */
model *model_new(void);
void model_free(model *m);

/* Parses one statement; `where` names the source for messages ("file:12"). 0 or -EINVAL
 * with a message "where: what is wrong" in err. */
int model_parse_line(model *m, const char *line, const char *where, char *err, size_t errlen);
/* Parses a whole file; errors name the file and line. */
int model_parse_file(model *m, const char *path, char *err, size_t errlen);

/* The duration set by `run` (0 when none). */
sim_time model_duration(const model *m);

/* Helpers shared with the command line. 0 or -EINVAL. */
int model_parse_time(const char *s, sim_time *out);
int model_parse_rate(const char *s, double *bps);

#endif
