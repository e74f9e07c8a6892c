// SPDX-License-Identifier: MIT
// configparser's reading rules (Python 3, default options, strict mode):
//  - lines end at "\n", "\r\n" or "\r";
//  - a line whose first non-blank character is ';' or '#' is a comment; there are no
//    inline comments;
//  - "[name]": a section; the name runs to the last ']' on the line;
//  - "key = value" or "key: value", split at the first '=' or ':'; keys are lower-cased;
//  - a line indented deeper than its key continues the value (joined with '\n'); blank
//    lines inside a value are kept, trailing ones dropped;
//  - a section or key given twice is an error.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_ini.h"
#include "virtual-modules/manifest_internal.h"

/* The characters Python's str.strip() removes that can appear in a line. */
static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}

typedef struct span {
    const char *p;
    size_t n;
} span;

static span strip(span s)
{
    while (s.n && is_space((unsigned char)s.p[0])) {
        s.p++;
        s.n--;
    }
    while (s.n && is_space((unsigned char)s.p[s.n - 1]))
        s.n--;
    return s;
}

static char *dup_span(span s)
{
    char *out = malloc(s.n + 1);
    if (!out)
        return NULL;
    memcpy(out, s.p, s.n);
    out[s.n] = '\0';
    return out;
}

typedef struct reader {
    const char *name;
    vm_manifest_diags *d;
    size_t *errors;
    vm_ini *ini;
    bool oom;
    bool stop;           /* too much to read: give up */
} reader;

static void syntax_error(reader *r, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void syntax_error(reader *r, size_t line, const char *fmt, ...)
{
    (*r->errors)++;
    va_list ap;
    va_start(ap, fmt);
    vm_mf_vdiag(r->d, VM_MANIFEST_ERROR, r->name, VM_MF_AT_LINE, line, fmt, ap);
    va_end(ap);
}

void vm_ini_free(vm_ini *ini)
{
    if (!ini)
        return;
    for (size_t i = 0; i < ini->nsections; i++) {
        vm_ini_section *s = &ini->sections[i];
        for (size_t k = 0; k < s->nkeys; k++) {
            free(s->keys[k].name);
            free(s->keys[k].value);
        }
        free(s->keys);
        free(s->name);
    }
    free(ini->sections);
    free(ini);
}

vm_ini_key *vm_ini_get(vm_ini_section *s, const char *key)
{
    for (size_t i = 0; i < s->nkeys; i++) {
        if (!strcmp(s->keys[i].name, key)) {
            s->keys[i].used = true;
            return &s->keys[i];
        }
    }
    return NULL;
}

static vm_ini_section *find_section(vm_ini *ini, span name)
{
    for (size_t i = 0; i < ini->nsections; i++)
        if (strlen(ini->sections[i].name) == name.n &&
            !memcmp(ini->sections[i].name, name.p, name.n))
            return &ini->sections[i];
    return NULL;
}

static vm_ini_section *add_section(reader *r, span name, size_t line)
{
    vm_ini *ini = r->ini;
    vm_ini_section *prev = find_section(ini, name);
    if (prev) {
        syntax_error(r, line, "section [%.*s] is given twice (first at line %zu)",
                     (int)name.n, name.p, prev->line);
        return NULL;
    }
    if (memchr(name.p, '\0', name.n)) {
        syntax_error(r, line, "section name holds a NUL byte");
        return NULL;
    }
    if (ini->nsections >= VM_INI_SECTIONS_MAX) {
        syntax_error(r, line, "more than %d sections; a manifest the AP can fetch has at most "
                              "254 descriptors", VM_INI_SECTIONS_MAX);
        r->stop = true;
        return NULL;
    }
    if (ini->nsections == ini->cap) {
        size_t cap = ini->cap ? ini->cap * 2 : 16;
        vm_ini_section *bigger = realloc(ini->sections, cap * sizeof *bigger);
        if (!bigger) {
            r->oom = true;
            return NULL;
        }
        ini->sections = bigger;
        ini->cap = cap;
    }
    vm_ini_section *s = &ini->sections[ini->nsections];
    memset(s, 0, sizeof *s);
    s->name = dup_span(name);
    if (!s->name) {
        r->oom = true;
        return NULL;
    }
    s->line = line;
    ini->nsections++;
    return s;
}

/* Adds a key; returns its index in the section, or -1. */
static long add_key(reader *r, vm_ini_section *s, span key, span value, size_t line)
{
    char *name = dup_span(key);
    if (!name) {
        r->oom = true;
        return -1;
    }
    for (char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    for (size_t i = 0; i < s->nkeys; i++) {
        if (!strcmp(s->keys[i].name, name)) {
            syntax_error(r, line, "key '%s' is given twice in [%s] (first at line %zu)", name,
                         s->name, s->keys[i].line);
            free(name);
            return -1;
        }
    }
    if (s->nkeys >= VM_INI_KEYS_MAX) {
        syntax_error(r, line, "more than %d keys in [%s]", VM_INI_KEYS_MAX, s->name);
        free(name);
        return -1;
    }
    if (s->nkeys == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        vm_ini_key *bigger = realloc(s->keys, cap * sizeof *bigger);
        if (!bigger) {
            free(name);
            r->oom = true;
            return -1;
        }
        s->keys = bigger;
        s->cap = cap;
    }
    vm_ini_key *k = &s->keys[s->nkeys];
    memset(k, 0, sizeof *k);
    k->name = name;
    k->value = dup_span(value);
    if (!k->value) {
        free(name);
        r->oom = true;
        return -1;
    }
    k->value_len = value.n;
    k->value_cap = value.n + 1;
    k->line = line;
    s->nkeys++;
    return (long)(s->nkeys - 1);
}

/* Appends "\n" + piece to a value (piece may be empty: a kept blank line). */
static void append_line(reader *r, vm_ini_key *k, span piece)
{
    size_t need = k->value_len + 1 + piece.n + 1;
    char *bigger = k->value;
    if (need > k->value_cap) {
        size_t cap = k->value_cap * 2 > need ? k->value_cap * 2 : need;
        bigger = realloc(k->value, cap);
        if (!bigger) {
            r->oom = true;
            return;
        }
        k->value_cap = cap;
    }
    bigger[k->value_len] = '\n';
    memcpy(bigger + k->value_len + 1, piece.p, piece.n);
    k->value_len += 1 + piece.n;
    bigger[k->value_len] = '\0';
    k->value = bigger;
}

/* Drops trailing whitespace and newlines that blank lines left at the end of values. */
static void finish_values(vm_ini *ini)
{
    for (size_t i = 0; i < ini->nsections; i++) {
        for (size_t k = 0; k < ini->sections[i].nkeys; k++) {
            vm_ini_key *key = &ini->sections[i].keys[k];
            while (key->value_len && (is_space((unsigned char)key->value[key->value_len - 1]) ||
                                      key->value[key->value_len - 1] == '\n'))
                key->value_len--;
            key->value[key->value_len] = '\0';
        }
    }
}

static void read_line(reader *r, span line, size_t lineno, vm_ini_section **cur,
                      long *key, size_t *indent_level)
{
    span value = strip(line);
    bool comment = value.n && (value.p[0] == ';' || value.p[0] == '#');
    if (comment || value.n == 0) {
        /* Blank lines (not comments) may sit inside a multi-line value. */
        if (!comment && *cur && *key >= 0)
            append_line(r, &(*cur)->keys[*key], (span){ "", 0 });
        return;
    }
    size_t indent = (size_t)(value.p - line.p);
    if (*cur && *key >= 0 && indent > *indent_level) {
        append_line(r, &(*cur)->keys[*key], value);
        return;
    }
    *indent_level = indent;
    if (value.p[0] == '[') {
        const char *close = NULL;
        for (size_t i = value.n; i-- > 1;)
            if (value.p[i] == ']') {
                close = value.p + i;
                break;
            }
        if (close && close > value.p + 1) {
            span name = { value.p + 1, (size_t)(close - value.p - 1) };
            *cur = add_section(r, name, lineno);
            *key = -1;
            if (close != value.p + value.n - 1)
                vm_mf_diag(r->d, VM_MANIFEST_WARNING, r->name, VM_MF_AT_LINE, lineno,
                           "text after ']' is ignored");
            return;
        }
    }
    if (!*cur) {
        *key = -1;
        if (r->ini->nsections == 0)
            syntax_error(r, lineno, "'%.*s' comes before any [section] header",
                         (int)(value.n > 40 ? 40 : value.n), value.p);
        /* else: the section header itself was bad and was reported */
        return;
    }
    size_t delim = 0;
    while (delim < value.n && value.p[delim] != '=' && value.p[delim] != ':')
        delim++;
    if (delim == value.n) {
        syntax_error(r, lineno, "expected 'key = value' or '[section]', got '%.*s'",
                     (int)(value.n > 40 ? 40 : value.n), value.p);
        *key = -1;
        return;
    }
    span name = strip((span){ value.p, delim });
    if (name.n == 0) {
        syntax_error(r, lineno, "a value without a key name");
        *key = -1;
        return;
    }
    if (memchr(name.p, '\0', name.n)) {
        syntax_error(r, lineno, "key name holds a NUL byte");
        *key = -1;
        return;
    }
    span val = strip((span){ value.p + delim + 1, value.n - delim - 1 });
    *key = add_key(r, *cur, name, val, lineno);
}

vm_ini *vm_ini_parse(const char *name, const char *text, size_t len, vm_manifest_diags *d,
                     size_t *errors)
{
    reader r = { .name = name, .d = d, .errors = errors };
    r.ini = calloc(1, sizeof *r.ini);
    if (!r.ini)
        return NULL;
    size_t pos = 0, lineno = 0;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        pos = 3; /* a UTF-8 byte-order mark */
    vm_ini_section *cur = NULL;
    long key = -1;
    size_t indent_level = 0;
    while (pos < len && !r.oom && !r.stop) {
        size_t end = pos;
        while (end < len && text[end] != '\n' && text[end] != '\r')
            end++;
        lineno++;
        read_line(&r, (span){ text + pos, end - pos }, lineno, &cur, &key, &indent_level);
        if (end < len && text[end] == '\r' && end + 1 < len && text[end + 1] == '\n')
            end++;
        pos = end + 1;
    }
    if (r.oom) {
        vm_ini_free(r.ini);
        return NULL;
    }
    finish_values(r.ini);
    return r.ini;
}
