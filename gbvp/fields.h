// SPDX-License-Identifier: MIT
// The named values the simulator reports about its parts (SVC counters, GPIO lines, backend
// statistics): one table a structure, each field a name, a kind and where it lies. The
// scenario API (gbvp/scenario/scenario_api.c) turns a table into a Lua table, the control socket
// (gbvp/ctl/ctl_commands.c) into JSON members, so both front ends name every value alike.
#ifndef GBVP_SIM_SIM_FIELDS_H
#define GBVP_SIM_SIM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "switch-model/svc.h"

typedef struct sim_fields sim_fields; /* one table; the tables are listed below */

typedef enum sim_field_kind {
    SIM_FIELD_INT,  /* an unsigned counter or number */
    SIM_FIELD_BOOL, /* value 0 or 1 */
} sim_field_kind;

typedef void (*sim_field_fn)(void *ctx, const char *name, sim_field_kind kind, int64_t value);

/* Calls fn for every field of `set`, in table order, read from `obj`: a structure of the
 * type the table is declared for below. */
void sim_fields_each(const sim_fields *set, const void *obj, sim_field_fn fn, void *ctx);
/* How many fields `set` has. */
size_t sim_fields_count(const sim_fields *set);

/* The SVC as the front ends report it (gbvp.stats, {"cmd":"stats"}). */
typedef struct sim_svc_report {
    gb_svc_stats st;
    uint64_t connections, pending_events;
    bool handshake_done;
} sim_svc_report;
void sim_svc_report_take(const gb_svc *svc, sim_svc_report *out);

/* The tables, each with the structure it reads. */
extern const sim_fields sim_fields_svc_counters;     /* sim_svc_report: counters, connections */
extern const sim_fields sim_fields_svc_state;        /* sim_svc_report: pending_events, handshake_done */
extern const sim_fields sim_fields_gpio_line;        /* vm_gpio_line: output, activated, irq_type, masked */
extern const sim_fields sim_fields_gpio_stats;       /* vm_gpio_stats */
extern const sim_fields sim_fields_power_supply_stats; /* vm_power_supply_stats */
extern const sim_fields sim_fields_hid_state;        /* vm_hid_state, without the report bytes */
extern const sim_fields sim_fields_uart_state;       /* vm_uart_state */
extern const sim_fields sim_fields_interface_stats;  /* vm_interface_stats */
extern const sim_fields sim_fields_scenario_intf;    /* sim_scenario_intf (the AP's view) */
extern const sim_fields sim_fields_link_counters;    /* sim_scenario_link: the counters */

#endif
