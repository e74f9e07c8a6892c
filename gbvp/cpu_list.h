// SPDX-License-Identifier: MIT
// Where a process runs: CPU lists as taskset(1) writes them ("1", "0,2", "0-3,6"), checked
// against the CPUs this process may use, and applied to it. `gbvp sim --cpus` and
// `gbvp run --sim-cpus/--qemu-cpus` place the simulator and QEMU on chosen CPUs
// (docs/performance-model.md, "Full system").
#ifndef GBVP_GBVP_CPU_LIST_H
#define GBVP_GBVP_CPU_LIST_H

#include <sched.h>
#include <stddef.h>

/* Parses `text` into `set`. Every CPU named must be in `allowed` (the CPUs the caller may
 * use). 0, or -1 with the reason in err: empty list or item, not a number, a range that
 * runs backwards, a CPU outside `allowed` (named with the allowed list). */
int cpu_list_parse(const char *text, const cpu_set_t *allowed, cpu_set_t *set, char *err,
                   size_t errlen);

/* `set` as a CPU list, "0-1,4" (empty string for an empty set). */
void cpu_list_format(const cpu_set_t *set, char *out, size_t outlen);

/* Whether `text` is a CPU list this process could run on: 0, or -1 with the reason. */
int cpu_list_check(const char *text, char *err, size_t errlen);

/* Runs this process (every thread it starts from now on too) on the CPUs of `text`,
 * checked against those it may use now. 0, or -1 with the reason in err. */
int cpu_list_pin_self(const char *text, char *err, size_t errlen);

#endif
