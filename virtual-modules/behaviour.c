// SPDX-License-Identifier: MIT
// Behaviour file parser (see behaviour.h): a small INI reader keeping line numbers.
#include "virtual-modules/behaviour.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/vm_error.h"

#define VM_BEHAVIOUR_MAX_FILE (1u << 20)

typedef struct vm_bkey {
    char *key;
    char *value;
    int line;
} vm_bkey;

struct vm_bsection {
    const vm_behaviour *owner;
    char *kind;
    long id;
    int line;
    unsigned scope;
    vm_bkey *keys;
    size_t nkeys;
};

struct vm_behaviour {
    char *name;
    unsigned scope; /* while parsing: the scope new sections go to */
    vm_bsection *sections;
    size_t nsections;
};

static char *dup_range(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

void vm_behaviour_free(vm_behaviour *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nsections; i++) {
        vm_bsection *s = &b->sections[i];
        for (size_t k = 0; k < s->nkeys; k++) {
            free(s->keys[k].key);
            free(s->keys[k].value);
        }
        free(s->keys);
        free(s->kind);
    }
    free(b->sections);
    free(b->name);
    free(b);
}

static bool valid_word(const char *s, const char *e)
{
    if (s == e)
        return false;
    for (; s < e; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' ||
              *s == '_'))
            return false;
    return true;
}

static int parse_header(vm_behaviour *b, const char *s, const char *e, int line, char *err,
                        size_t errlen)
{
    /* s points after '[', e at ']' */
    trim(&s, &e);
    const char *sp = s;
    while (sp < e && !isspace((unsigned char)*sp))
        sp++;
    if (!valid_word(s, sp)) {
        vm_error(err, errlen, "%s:%d: section name must be lower-case letters, digits or '-'",
                 b->name, line);
        return -1;
    }
    long id = -1;
    const char *rest = sp, *rend = e;
    trim(&rest, &rend);
    if (rest < rend) {
        char buf[32];
        size_t n = (size_t)(rend - rest);
        if (n >= sizeof buf) {
            vm_error(err, errlen, "%s:%d: section id is too long", b->name, line);
            return -1;
        }
        memcpy(buf, rest, n);
        buf[n] = '\0';
        char *end;
        errno = 0;
        id = strtol(buf, &end, vm_int_base(buf));
        if (errno || *end || id < 0 || id > 65535) {
            vm_error(err, errlen, "%s:%d: section id '%s' is not an integer 0..65535", b->name,
                     line, buf);
            return -1;
        }
    }
    char *kind = dup_range(s, (size_t)(sp - s));
    if (!kind) {
        vm_error(err, errlen, "%s: out of memory", b->name);
        return -1;
    }
    bool opens_scope = !strcmp(kind, "interface") && id >= 0;
    if (opens_scope && id == 0) {
        vm_error(err, errlen, "%s:%d: interfaces are numbered from 1: [interface 1], ...",
                 b->name, line);
        free(kind);
        return -1;
    }
    unsigned scope = opens_scope ? (unsigned)id : b->scope;
    const vm_bsection *o = vm_behaviour_find_scoped(b, scope, kind, id);
    if (o) {
        if (id >= 0)
            vm_error(err, errlen, "%s:%d: section [%s %ld] repeats the one at line %d", b->name,
                     line, kind, id, o->line);
        else
            vm_error(err, errlen, "%s:%d: section [%s] repeats the one at line %d", b->name,
                     line, kind, o->line);
        free(kind);
        return -1;
    }
    vm_bsection *ns = realloc(b->sections, (b->nsections + 1) * sizeof *ns);
    if (!ns) {
        free(kind);
        vm_error(err, errlen, "%s: out of memory", b->name);
        return -1;
    }
    b->sections = ns;
    ns[b->nsections++] =
        (vm_bsection){.owner = b, .kind = kind, .id = id, .line = line, .scope = scope};
    b->scope = scope;
    return 0;
}

static int parse_pair(vm_behaviour *b, const char *s, const char *e, int line, char *err,
                      size_t errlen)
{
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq) {
        vm_error(err, errlen, "%s:%d: expected 'key = value' or '[section]'", b->name, line);
        return -1;
    }
    if (b->nsections == 0) {
        vm_error(err, errlen, "%s:%d: setting before the first [section]", b->name, line);
        return -1;
    }
    const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
    trim(&ks, &ke);
    trim(&vs, &ve);
    if (!valid_word(ks, ke)) {
        vm_error(err, errlen, "%s:%d: key must be lower-case letters, digits or '-'", b->name,
                 line);
        return -1;
    }
    vm_bsection *sec = &b->sections[b->nsections - 1];
    for (size_t i = 0; i < sec->nkeys; i++) {
        if (strlen(sec->keys[i].key) == (size_t)(ke - ks) &&
            !memcmp(sec->keys[i].key, ks, (size_t)(ke - ks))) {
            vm_error(err, errlen, "%s:%d: key '%s' repeats the one at line %d", b->name, line,
                     sec->keys[i].key, sec->keys[i].line);
            return -1;
        }
    }
    vm_bkey *nk = realloc(sec->keys, (sec->nkeys + 1) * sizeof *nk);
    if (!nk) {
        vm_error(err, errlen, "%s: out of memory", b->name);
        return -1;
    }
    sec->keys = nk;
    vm_bkey *k = &nk[sec->nkeys];
    k->key = dup_range(ks, (size_t)(ke - ks));
    k->value = dup_range(vs, (size_t)(ve - vs));
    k->line = line;
    if (!k->key || !k->value) {
        free(k->key);
        free(k->value);
        vm_error(err, errlen, "%s: out of memory", b->name);
        return -1;
    }
    sec->nkeys++;
    return 0;
}

vm_behaviour *vm_behaviour_parse(const char *name, const char *text, size_t len, char *err,
                                 size_t errlen)
{
    vm_behaviour *b = calloc(1, sizeof *b);
    if (!b || !(b->name = strdup(name ? name : "behaviour"))) {
        free(b);
        vm_error(err, errlen, "out of memory");
        return NULL;
    }
    const char *p = text, *end = text + len;
    int line = 0;
    while (p < end) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *s = p, *e = le;
        p = nl ? nl + 1 : end;
        if (memchr(s, '\0', (size_t)(e - s))) {
            vm_error(err, errlen, "%s:%d: NUL byte in text", b->name, line);
            goto bad;
        }
        trim(&s, &e);
        if (s == e || *s == '#' || *s == ';')
            continue;
        int rc;
        if (*s == '[') {
            if (e[-1] != ']') {
                vm_error(err, errlen, "%s:%d: section header lacks its closing ']'", b->name,
                         line);
                goto bad;
            }
            rc = parse_header(b, s + 1, e - 1, line, err, errlen);
        } else {
            rc = parse_pair(b, s, e, line, err, errlen);
        }
        if (rc)
            goto bad;
    }
    return b;
bad:
    vm_behaviour_free(b);
    return NULL;
}

vm_behaviour *vm_behaviour_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        vm_error(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(VM_BEHAVIOUR_MAX_FILE + 1);
    if (!buf) {
        fclose(f);
        vm_error(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    size_t n = fread(buf, 1, VM_BEHAVIOUR_MAX_FILE + 1, f);
    int rerr = ferror(f);
    fclose(f);
    vm_behaviour *b = NULL;
    if (rerr)
        vm_error(err, errlen, "%s: read error", path);
    else if (n > VM_BEHAVIOUR_MAX_FILE)
        vm_error(err, errlen, "%s: larger than %u bytes", path, VM_BEHAVIOUR_MAX_FILE);
    else
        b = vm_behaviour_parse(path, buf, n, err, errlen);
    free(buf);
    return b;
}

const char *vm_behaviour_name(const vm_behaviour *b)
{
    return b->name;
}

size_t vm_behaviour_section_count(const vm_behaviour *b)
{
    return b ? b->nsections : 0;
}

const vm_bsection *vm_behaviour_section_at(const vm_behaviour *b, size_t i)
{
    return b && i < b->nsections ? &b->sections[i] : NULL;
}

const vm_bsection *vm_behaviour_find_scoped(const vm_behaviour *b, unsigned scope,
                                            const char *kind, long id)
{
    if (!b)
        return NULL;
    for (size_t i = 0; i < b->nsections; i++)
        if (b->sections[i].scope == scope && b->sections[i].id == (id < 0 ? -1 : id) &&
            !strcmp(b->sections[i].kind, kind))
            return &b->sections[i];
    return NULL;
}

const vm_bsection *vm_behaviour_find(const vm_behaviour *b, const char *kind, long id)
{
    return vm_behaviour_find_scoped(b, 0, kind, id);
}

unsigned vm_bsection_scope(const vm_bsection *s)
{
    return s->scope;
}

const char *vm_bsection_kind(const vm_bsection *s)
{
    return s->kind;
}

long vm_bsection_id(const vm_bsection *s)
{
    return s->id;
}

int vm_bsection_line(const vm_bsection *s)
{
    return s->line;
}

static const vm_bkey *find_key(const vm_bsection *s, const char *key)
{
    if (!s)
        return NULL;
    for (size_t k = 0; k < s->nkeys; k++)
        if (!strcmp(s->keys[k].key, key))
            return &s->keys[k];
    return NULL;
}

const char *vm_bsection_file(const vm_bsection *s)
{
    return s->owner->name;
}

int vm_bsection_error(const vm_bsection *s, const char *key, char *err, size_t errlen,
                      const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const vm_bkey *k = find_key(s, key);
    if (!s)
        vm_error(err, errlen, "behaviour: %s: %s", key, msg);
    else
        vm_error(err, errlen, "%s:%d: %s: %s", s->owner->name, k ? k->line : s->line, key, msg);
    return -1;
}

int vm_bsection_check_keys(const vm_bsection *s, const char *const *allowed, char *err,
                           size_t errlen)
{
    for (size_t k = 0; k < s->nkeys; k++) {
        bool ok = false;
        for (size_t a = 0; allowed && allowed[a]; a++)
            ok = ok || !strcmp(allowed[a], s->keys[k].key);
        if (ok)
            continue;
        char list[256] = "";
        size_t used = 0;
        for (size_t a = 0; allowed && allowed[a] && used < sizeof list; a++) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", a ? ", " : "",
                             allowed[a]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        vm_error(err, errlen, "%s:%d: unknown key '%s' in [%s]; known keys: %s", s->owner->name,
                 s->keys[k].line, s->keys[k].key, s->kind, list[0] ? list : "(none)");
        return -1;
    }
    return 0;
}


const char *vm_bsection_get(const vm_bsection *s, const char *key, int *line)
{
    const vm_bkey *k = find_key(s, key);
    if (k && line)
        *line = k->line;
    return k ? k->value : NULL;
}

int vm_int_base(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

static int parse_int64(const char *v, long long *out)
{
    char *end;
    errno = 0;
    if (!*v)
        return -1;
    long long x = strtoll(v, &end, vm_int_base(v));
    if (errno || *end)
        return -1;
    *out = x;
    return 0;
}

int vm_bsection_u32(const vm_bsection *s, const char *key, uint32_t def, uint32_t min,
                    uint32_t max, uint32_t *out, char *err, size_t errlen)
{
    const vm_bkey *k = find_key(s, key);
    if (!k) {
        *out = def;
        return 0;
    }
    long long x;
    if (parse_int64(k->value, &x) || x < (long long)min || x > (long long)max) {
        vm_error(err, errlen, "%s:%d: %s: expected an integer %u..%u, got '%s'", s->owner->name,
                 k->line, key, min, max, k->value);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

int vm_bsection_i32(const vm_bsection *s, const char *key, int32_t def, int32_t min,
                    int32_t max, int32_t *out, char *err, size_t errlen)
{
    const vm_bkey *k = find_key(s, key);
    if (!k) {
        *out = def;
        return 0;
    }
    long long x;
    if (parse_int64(k->value, &x) || x < min || x > max) {
        vm_error(err, errlen, "%s:%d: %s: expected an integer %d..%d, got '%s'", s->owner->name,
                 k->line, key, min, max, k->value);
        return -1;
    }
    *out = (int32_t)x;
    return 0;
}

int vm_bsection_u64(const vm_bsection *s, const char *key, uint64_t def, uint64_t *out,
                    char *err, size_t errlen)
{
    const vm_bkey *k = find_key(s, key);
    if (!k) {
        *out = def;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(k->value, &end, vm_int_base(k->value));
    if (!k->value[0] || errno || *end || k->value[0] == '-') {
        vm_error(err, errlen, "%s:%d: %s: expected an unsigned 64-bit integer, got '%s'",
                 s->owner->name, k->line, key, k->value);
        return -1;
    }
    *out = x;
    return 0;
}

int vm_bsection_enum(const vm_bsection *s, const char *key, const char *const *names, int def,
                     int *out, char *err, size_t errlen)
{
    const vm_bkey *k = find_key(s, key);
    if (!k) {
        *out = def;
        return 0;
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; names[i]; i++) {
        if (!strcmp(names[i], k->value)) {
            *out = i;
            return 0;
        }
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
    }
    vm_error(err, errlen, "%s:%d: %s: '%s' is not one of: %s", s->owner->name, k->line, key,
             k->value, list);
    return -1;
}

int vm_bsection_str(const vm_bsection *s, const char *key, const char *def, char *out,
                    size_t max_len, char *err, size_t errlen)
{
    const vm_bkey *k = find_key(s, key);
    const char *v = k ? k->value : def;
    size_t n = strlen(v);
    /* one pair of surrounding double quotes is a delimiter, as in manifests */
    if (k && n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v++;
        n -= 2;
    }
    if (n > max_len) {
        vm_error(err, errlen, "%s:%d: %s: longer than %zu characters", s->owner->name,
                 k ? k->line : 0, key, max_len);
        return -1;
    }
    memcpy(out, v, n);
    out[n] = '\0';
    return 0;
}

int vm_bsection_u32_list(const vm_bsection *s, const char *key, uint32_t min, uint32_t max,
                         uint32_t *out, size_t cap, size_t *count, char *err, size_t errlen)
{
    *count = 0;
    const vm_bkey *k = find_key(s, key);
    if (!k)
        return 0;
    const char *p = k->value;
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ',' && !isspace((unsigned char)*q))
            q++;
        char buf[32];
        long long x;
        size_t n = (size_t)(q - p);
        /* a value cut to fit buf would be read as another number: refuse it whole */
        bool fits = n < sizeof buf;
        memcpy(buf, p, fits ? n : 0);
        buf[fits ? n : 0] = '\0';
        if (!fits || parse_int64(buf, &x) || x < (long long)min || x > (long long)max) {
            vm_error(err, errlen, "%s:%d: %s: '%.*s' is not an integer %u..%u", s->owner->name,
                     k->line, key, (int)n, p, min, max);
            return -1;
        }
        if (*count == cap) {
            vm_error(err, errlen, "%s:%d: %s: more than %zu values", s->owner->name, k->line, key,
                     cap);
            return -1;
        }
        out[(*count)++] = (uint32_t)x;
        p = q;
    }
    return 0;
}

int vm_bsection_path(const vm_bsection *s, const char *key, char *out, size_t cap, char *err,
                     size_t errlen)
{
    out[0] = '\0';
    const vm_bkey *k = find_key(s, key);
    if (!k)
        return 0;
    if (!k->value[0]) {
        vm_error(err, errlen, "%s:%d: %s: expected a file path", s->owner->name, k->line, key);
        return -1;
    }
    const char *dir = s->owner->name;
    const char *slash = strrchr(dir, '/');
    int n;
    if (k->value[0] == '/' || !slash)
        n = snprintf(out, cap, "%s", k->value);
    else
        n = snprintf(out, cap, "%.*s/%s", (int)(slash - dir), dir, k->value);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        vm_error(err, errlen, "%s:%d: %s: the path is longer than %zu bytes", s->owner->name,
                 k->line, key, cap - 1);
        return -1;
    }
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int vm_bsection_hex(const vm_bsection *s, const char *key, uint8_t *out, size_t cap,
                    size_t *count, char *err, size_t errlen)
{
    *count = 0;
    const vm_bkey *k = find_key(s, key);
    if (!k)
        return 0;
    const char *p = k->value;
    int hi = -1;
    for (; *p; p++) {
        if (isspace((unsigned char)*p) || *p == ',' || *p == ':') {
            if (hi >= 0)
                goto odd;
            continue;
        }
        int v = hexval((unsigned char)*p);
        if (v < 0) {
            vm_error(err, errlen, "%s:%d: %s: '%c' is not a hex digit", s->owner->name, k->line,
                     key, *p);
            return -1;
        }
        if (hi < 0) {
            hi = v;
            continue;
        }
        if (*count == cap) {
            vm_error(err, errlen, "%s:%d: %s: more than %zu bytes", s->owner->name, k->line, key,
                     cap);
            return -1;
        }
        out[(*count)++] = (uint8_t)(hi << 4 | v);
        hi = -1;
    }
    if (hi < 0)
        return 0;
odd:
    vm_error(err, errlen, "%s:%d: %s: odd number of hex digits", s->owner->name, k->line, key);
    return -1;
}
