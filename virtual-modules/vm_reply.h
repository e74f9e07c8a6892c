// SPDX-License-Identifier: MIT
// A reply to a backend command: a line of text for a person and the same answer as named
// values for a program (integers, booleans, text, bytes). The scenario engine turns the
// values into a Lua table, the control socket into JSON members, so every front end names
// every value alike. Fixed size, no allocation.
#ifndef GBVP_VIRTUAL_MODULES_VM_REPLY_H
#define GBVP_VIRTUAL_MODULES_VM_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_REPLY_TEXT_MAX 1024u
#define VM_REPLY_VALUES_MAX 32u
#define VM_REPLY_NAME_MAX 24u
#define VM_REPLY_DATA_MAX 2048u /* text and bytes values together */

typedef enum vm_value_kind {
    VM_VALUE_INT,
    VM_VALUE_BOOL,
    VM_VALUE_TEXT,
    VM_VALUE_BYTES,
} vm_value_kind;

typedef struct vm_value {
    char name[VM_REPLY_NAME_MAX];
    vm_value_kind kind;
    int64_t i;           /* INT and BOOL (0 or 1) */
    uint16_t off, len;   /* TEXT and BYTES: in the reply's data */
} vm_value;

typedef struct vm_reply {
    char text[VM_REPLY_TEXT_MAX]; /* the answer, or why the command failed */
    size_t nvalues;
    vm_value values[VM_REPLY_VALUES_MAX];
    size_t data_len;
    uint8_t data[VM_REPLY_DATA_MAX];
} vm_reply;

void vm_reply_clear(vm_reply *r);
/* Sets the text (printf); returns rc, so a command can end with `return vm_reply_say(...)`. */
int vm_reply_say(vm_reply *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Adds a named value. A value that does not fit (too many, data full, name too long) is
 * left out; the text still says everything. */
void vm_reply_int(vm_reply *r, const char *name, int64_t v);
void vm_reply_bool(vm_reply *r, const char *name, bool v);
void vm_reply_text(vm_reply *r, const char *name, const char *s);
void vm_reply_bytes(vm_reply *r, const char *name, const void *p, size_t n);

/* The value called `name`, NULL when there is none. */
const vm_value *vm_reply_get(const vm_reply *r, const char *name);
/* The bytes of a TEXT or BYTES value (len of them; TEXT is not NUL-terminated). */
const uint8_t *vm_reply_data(const vm_reply *r, const vm_value *v);

#endif
