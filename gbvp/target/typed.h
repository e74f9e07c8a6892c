// SPDX-License-Identifier: MIT
// The typed backend commands (gbvp.gpio_set, {"cmd":"gpio_set"} ...): each is a backend
// command line (virtual-modules/backend_cmd.h) built from named arguments and run on the
// first interface of the slot's module that has the class, through the target's one
// command operation; its answer is that command's values. One table serves the scenario
// engine and the control socket, so every typed command is written once.
#ifndef GBVP_GBVP_TARGET_TYPED_H
#define GBVP_GBVP_TARGET_TYPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gbvp/target/target.h"

typedef enum sim_typed_kind {
    SIM_TYPED_INT,      /* an integer in [min, max] */
    SIM_TYPED_LEVEL,    /* a boolean, or the integer 0 or 1 */
    SIM_TYPED_PROPERTY, /* a power supply property: its name or its number */
    SIM_TYPED_BYTES,    /* bytes (a string, or a list of integers 0..255) */
} sim_typed_kind;

typedef struct sim_typed_arg {
    const char *name;
    sim_typed_kind kind;
    bool optional;
    int64_t min, max; /* SIM_TYPED_INT; SIM_TYPED_BYTES: the byte count */
} sim_typed_arg;

#define SIM_TYPED_ARGS_MAX 4

typedef struct sim_typed_value {
    bool present;
    int64_t i;            /* INT, LEVEL; PROPERTY given as a number */
    const char *text;     /* PROPERTY given as a name */
    const uint8_t *bytes; /* BYTES (borrowed) */
    size_t len;
} sim_typed_value;

typedef struct sim_typed_cmd sim_typed_cmd;

struct sim_typed_cmd {
    const char *name;   /* "gpio_set" */
    const char *what;   /* what the slot's module must have, for errors: "GPIO controller" */
    sim_typed_arg args[SIM_TYPED_ARGS_MAX];
    /* The value a script gets back; NULL: the table of every value; "" for nothing. */
    const char *result;
    bool settle;        /* the AP may react: the caller lets it before answering */
    /* The backend command line for these arguments (index: the interface, or
     * SIM_TARGET_ANY_INTERFACE). 0, or -1 with the reason in err. */
    int (*line)(const sim_typed_value *v, char *line, size_t len, int *index, char *err,
                size_t errlen);
};

/* The command called `name`, NULL when there is none. */
const sim_typed_cmd *sim_typed_find(const char *name);
/* Every typed command, NULL-terminated by a zeroed entry (for listings). */
extern const sim_typed_cmd sim_typed_cmds[];

/* Runs `cmd` with its arguments (in the order of cmd->args) on the module in `slot`.
 * 0 with the answer in reply, or a negative errno with the reason in reply->text, worded
 * for a user ("slot 0 is empty: no GPIO controller", "line 99 does not exist ..."). */
int sim_typed_run(const sim_target *t, const sim_typed_cmd *cmd, unsigned slot,
                  const sim_typed_value *args, vm_reply *reply);

#endif
