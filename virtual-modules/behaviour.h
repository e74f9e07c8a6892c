// SPDX-License-Identifier: MIT
// Behaviour files (`catalog/<name>.behaviour`): which backends a module's CPorts use and
// their initial state. INI form, one setting a line:
//
//   # comment (whole line; ';' works too)
//   [interface]
//   vendor-id = 0x0001
//   [cport 1]
//   lines = 8
//
// Sections are `[name]` or `[name ID]` (ID an integer). A module spanning several
// interfaces gives each its block: `[interface N]` (N = 1, 2, ... in slot order) and the
// sections after it, up to the next `[interface N]`, form the scope N; sections before
// any `[interface N]` are in scope 0. Keys are `[a-z0-9-]`, values run to
// the end of the line with surrounding blanks removed. Each value keeps its line number so
// that every error names the line at fault (docs/modules.md lists the keys).
#ifndef GBVP_VIRTUAL_MODULES_BEHAVIOUR_H
#define GBVP_VIRTUAL_MODULES_BEHAVIOUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct vm_behaviour vm_behaviour;
typedef struct vm_bsection vm_bsection;

/* Parses text; `name` is used in messages. NULL with "name:line: ..." in err on error. */
vm_behaviour *vm_behaviour_parse(const char *name, const char *text, size_t len, char *err,
                                 size_t errlen);
/* Reads and parses a file. */
vm_behaviour *vm_behaviour_load(const char *path, char *err, size_t errlen);
void vm_behaviour_free(vm_behaviour *b);
const char *vm_behaviour_name(const vm_behaviour *b);

size_t vm_behaviour_section_count(const vm_behaviour *b);
const vm_bsection *vm_behaviour_section_at(const vm_behaviour *b, size_t i);
/* The section `[kind]` (id < 0) or `[kind id]` of scope 0; NULL when absent. b may be
 * NULL. vm_behaviour_find_scoped looks in the given scope. */
const vm_bsection *vm_behaviour_find(const vm_behaviour *b, const char *kind, long id);
const vm_bsection *vm_behaviour_find_scoped(const vm_behaviour *b, unsigned scope,
                                            const char *kind, long id);

const char *vm_bsection_kind(const vm_bsection *s);
long vm_bsection_id(const vm_bsection *s); /* -1 when the section has no id */
int vm_bsection_line(const vm_bsection *s);
unsigned vm_bsection_scope(const vm_bsection *s);

/* The file name the section came from. */
const char *vm_bsection_file(const vm_bsection *s);
/* Formats "file:line: key: message" into err, naming the key's line (or the section's when
 * the key is absent). Always returns -1. s may be NULL (then "behaviour: key: message"). */
int vm_bsection_error(const vm_bsection *s, const char *key, char *err, size_t errlen,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Checks that every key of s is in `allowed` (NULL-terminated). -1 and an error naming the
 * line and the allowed keys otherwise. */
int vm_bsection_check_keys(const vm_bsection *s, const char *const *allowed, char *err,
                           size_t errlen);

/* Raw value of key, or NULL. s may be NULL. *line (optional) gets its line. */
const char *vm_bsection_get(const vm_bsection *s, const char *key, int *line);

/* The base an integer of gbvp's text inputs (behaviour files, backend commands) is written
 * in: 16 after an optional sign and "0x" or "0X", otherwise 10. Never octal: a leading
 * zero is only a zero, so "010" is ten, as a person writing it means. */
int vm_int_base(const char *s);

/* Typed getters. When the key is absent *out = def and they return 0; a malformed or
 * out-of-range value returns -1 with "name:line: key: ..." in err. s may be NULL. */
int vm_bsection_u32(const vm_bsection *s, const char *key, uint32_t def, uint32_t min,
                    uint32_t max, uint32_t *out, char *err, size_t errlen);
int vm_bsection_i32(const vm_bsection *s, const char *key, int32_t def, int32_t min,
                    int32_t max, int32_t *out, char *err, size_t errlen);
int vm_bsection_u64(const vm_bsection *s, const char *key, uint64_t def, uint64_t *out,
                    char *err, size_t errlen);
/* One of `names` (NULL-terminated); *out is its index. */
int vm_bsection_enum(const vm_bsection *s, const char *key, const char *const *names, int def,
                     int *out, char *err, size_t errlen);
/* A string of at most max_len bytes, copied NUL-terminated into out[max_len + 1]. */
int vm_bsection_str(const vm_bsection *s, const char *key, const char *def, char *out,
                    size_t max_len, char *err, size_t errlen);
/* A host file path of at most cap - 1 bytes into out; a relative path is taken relative to
 * the directory of the behaviour file (so a module's files can sit beside it). Absent:
 * out[0] = '\0' and 0. */
int vm_bsection_path(const vm_bsection *s, const char *key, char *out, size_t cap, char *err,
                     size_t errlen);
/* A list of integers separated by blanks or commas, each in [min, max]; at most cap. */
int vm_bsection_u32_list(const vm_bsection *s, const char *key, uint32_t min, uint32_t max,
                         uint32_t *out, size_t cap, size_t *count, char *err, size_t errlen);
/* Hex bytes ("05 01 09 02" or "05010902"); at most cap. */
int vm_bsection_hex(const vm_bsection *s, const char *key, uint8_t *out, size_t cap,
                    size_t *count, char *err, size_t errlen);

#endif
