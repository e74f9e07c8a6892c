// SPDX-License-Identifier: MIT
// The target's reports as named values (virtual-modules/vm_reply.h): one table a
// structure, each field a name, a kind and where it lies. The scenario engine and the
// control socket turn values into Lua tables and JSON members, and a remote target turns
// JSON members back into the structure, all through these tables, so every front end
// names every value alike.
#ifndef GBVP_GBVP_TARGET_FIELDS_H
#define GBVP_GBVP_TARGET_FIELDS_H

#include "gbvp/target/target.h"
#include "virtual-modules/vm_reply.h"

typedef struct sim_fields sim_fields; /* one table; the tables are listed below */

/* Adds every field of `obj` (a structure of the table's type) to `out`, in table order. */
void sim_fields_put(const sim_fields *set, const void *obj, vm_reply *out);
/* Sets every field of `obj` that `in` has a value for (INT or BOOL); the others stay. */
void sim_fields_get(const sim_fields *set, const vm_reply *in, void *obj);

extern const sim_fields sim_fields_intf;  /* sim_target_intf (the AP's view) */
extern const sim_fields sim_fields_stats; /* sim_target_stats */
extern const sim_fields sim_fields_link;  /* sim_target_link's counters (not mode, state,
                                           * ber, drop) */

#endif
