// SPDX-License-Identifier: MIT
// `gbvp sim`: the simulator for the QEMU path. sim/gbvp_sim.c holds the simulator object (a
// gblink server, the APBridgeA side, the SVC, slots and catalog modules); sim/sim_cli.c the
// command line and the poll loop.
#ifndef GBVP_SIM_SIM_CLI_H
#define GBVP_SIM_SIM_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "sim/scheduler.h"
#include "switch-model/svc.h"

int sim_cli_main(int argc, char **argv);

typedef struct sim_gbvp sim_gbvp;

typedef struct sim_gbvp_config {
    const char *link_path;   /* gblink Unix socket */
    unsigned num_slots;
    const char *catalog_dir; /* NULL = virtual-modules/catalog */
    gb_svc_log_level log_level;
    uint16_t cport_count;    /* APBridgeA hd CPorts; 0 = 44 */
} sim_gbvp_config;

/* NULL with a reason in err. The caller owns the result. */
sim_gbvp *sim_gbvp_new(const sim_gbvp_config *cfg, char *err, size_t errlen);
void sim_gbvp_free(sim_gbvp *s);
/* The descriptor to poll for readability. */
int sim_gbvp_fd(const sim_gbvp *s);
/* Does all pending link work and lets the SVC see the time. now in picoseconds. */
void sim_gbvp_process(sim_gbvp *s, sim_time now);
/* Inserts catalog module `name` into `slot` / removes the module in `slot`. 0 or -errno
 * with the reason logged. */
int sim_gbvp_insert(sim_gbvp *s, unsigned slot, const char *name, sim_time now);
int sim_gbvp_remove(sim_gbvp *s, unsigned slot, sim_time now);
/* Runs a backend command line (virtual-modules/backend_cmd.h, e.g. "gpio set 3 1") on
 * interface `index` (0-based) of the module in `slot`, at the time of the last process or
 * insert call. 0 with the answer in reply, or -1 with the reason. */
int sim_gbvp_command(sim_gbvp *s, unsigned slot, unsigned index, const char *line,
                     char *reply, size_t len);
/* Prints the slots, interfaces and connections. */
void sim_gbvp_status(sim_gbvp *s);
gb_svc *sim_gbvp_svc(sim_gbvp *s);

#endif
