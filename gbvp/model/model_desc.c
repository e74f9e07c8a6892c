// SPDX-License-Identifier: MIT
// A description's lines, parsed again with parameters replaced (model_desc.h).
#include "gbvp/model/model_desc.h"
#include "gbvp/model/model_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct desc_line {
    char *text, *where;
} desc_line;

struct model_desc {
    char label[256];
    desc_line *lines;
    size_t n;
};

/* The statements and the keys each takes, as model_topo.c parses them. */
typedef struct stmt_keys {
    const char *kind;
    unsigned first_option; /* index of the first key=value word */
    const char *keys[12];
} stmt_keys;

static const stmt_keys STATEMENTS[] = {
    { "node", 2, { "dev", "cports", "credits", "segment", NULL } },
    { "switch", 2, { "ports", "latency", "mode", "credits", "series", NULL } },
    { "link", 3, { "gear", "lanes", "ber", "drop", "seed", "down", "up", NULL } },
    { "traffic", 3, { "kind", "size", "rate", "depth", "count", "start", "stop", "tc", "e2efc",
                      "response", NULL } },
};
#define N_STATEMENTS (sizeof STATEMENTS / sizeof STATEMENTS[0])

#define LINE_MAX_WORDS 40
#define LINE_LEN 1024

model_desc *model_desc_new(const char *label)
{
    model_desc *d = calloc(1, sizeof *d);
    if (d)
        snprintf(d->label, sizeof d->label, "%s", label);
    return d;
}

void model_desc_free(model_desc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->lines[i].text);
        free(d->lines[i].where);
    }
    free(d->lines);
    free(d);
}

int model_desc_add(model_desc *d, const char *line, const char *where)
{
    desc_line *nl = realloc(d->lines, (d->n + 1) * sizeof *nl);
    if (!nl)
        return -ENOMEM;
    d->lines = nl;
    desc_line l = { strdup(line), strdup(where) };
    if (!l.text || !l.where) {
        free(l.text);
        free(l.where);
        return -ENOMEM;
    }
    d->lines[d->n++] = l;
    return 0;
}

int model_desc_read_file(model_desc *d, const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, len, "%s: %s", path, strerror(e));
        return -e;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned no = 0;
    int rc = 0;
    while (!rc && getline(&line, &cap, f) >= 0) {
        char where[300];
        snprintf(where, sizeof where, "%s:%u", path, ++no);
        line[strcspn(line, "\n")] = 0;
        if (model_desc_add(d, line, where)) {
            snprintf(err, len, "out of memory");
            rc = -ENOMEM;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

static const stmt_keys *statement(const char *kind)
{
    for (size_t i = 0; i < N_STATEMENTS; i++)
        if (!strcmp(STATEMENTS[i].kind, kind))
            return &STATEMENTS[i];
    return NULL;
}

static bool takes(const stmt_keys *s, const char *key)
{
    for (unsigned i = 0; s->keys[i]; i++)
        if (!strcmp(s->keys[i], key))
            return true;
    return false;
}

static void key_list(const stmt_keys *s, char *buf, size_t len)
{
    buf[0] = 0;
    for (unsigned i = 0; s->keys[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", s->keys[i]);
    }
}

/* Splits a copy of the line into words (the comment dropped). */
static unsigned words(const char *line, char *buf, char **w)
{
    snprintf(buf, LINE_LEN, "%s", line);
    buf[strcspn(buf, "#")] = 0;
    unsigned n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t\r\n", &save); t && n < LINE_MAX_WORDS;
         t = strtok_r(NULL, " \t\r\n", &save))
        w[n++] = t;
    return n;
}

/* What a parameter name selects. */
typedef struct target {
    const stmt_keys *kind; /* NULL: every statement that takes key */
    char name[64];         /* a node's or switch's name, or "" */
    unsigned ordinal;      /* n-th statement of kind from 1, or 0 */
    char key[64];
} target;

/* Whether line w (n words) is selected by t; *seen counts statements per kind so far. */
static bool selects(const target *t, char **w, unsigned n, const unsigned *seen)
{
    const stmt_keys *s = n ? statement(w[0]) : NULL;
    if (!s)
        return false;
    if (!t->kind)
        return takes(s, t->key);
    if (t->kind != s)
        return false;
    if (t->name[0])
        return n > 1 && !strcmp(w[1], t->name);
    return !t->ordinal || seen[s - STATEMENTS] == t->ordinal;
}

static unsigned count_kind(const model_desc *d, const stmt_keys *s, const char *name)
{
    unsigned c = 0;
    for (size_t i = 0; i < d->n; i++) {
        char buf[LINE_LEN], *w[LINE_MAX_WORDS];
        unsigned n = words(d->lines[i].text, buf, w);
        if (n && statement(w[0]) == s && (!name || (n > 1 && !strcmp(w[1], name))))
            c++;
    }
    return c;
}

/* The statement kind NAME names (a node or a switch of d), or NULL. */
static const stmt_keys *named(const model_desc *d, const char *name)
{
    for (size_t k = 0; k < 2; k++)
        if (count_kind(d, &STATEMENTS[k], name))
            return &STATEMENTS[k];
    return NULL;
}

static int resolve(const model_desc *d, const char *name, target *t, char *err, size_t len)
{
    *t = (target){ 0 };
    const char *dot = strrchr(name, '.');
    char keys[160];
    if (!dot) {
        /* `traffic` is the flag --traffic: the flows' kind */
        snprintf(t->key, sizeof t->key, "%s", strcmp(name, "traffic") ? name : "kind");
        bool known = false;
        for (size_t k = 0; k < N_STATEMENTS; k++)
            if (takes(&STATEMENTS[k], t->key)) {
                known = true;
                if (count_kind(d, &STATEMENTS[k], NULL))
                    return 0;
            }
        if (known)
            return model_fail(err, len, "%s has no statement that takes '%s'", d->label, t->key);
        if (statement(name))
            return model_fail(err, len, "'%s' is a statement, not a parameter: name one of its keys "
                        "(%s.KEY)", name, name);
        return model_fail(err, len, "unknown name '%s': not a flag (gear, lanes, size, traffic, rate, "
                    "ber, duration, timing) nor a key of node, switch, link or traffic "
                    "statements (KEY, KIND.KEY, KINDn.KEY or NAME.KEY)", name);
    }
    char sel[64];
    snprintf(sel, sizeof sel, "%.*s", (int)(dot - name), name);
    snprintf(t->key, sizeof t->key, "%s", dot + 1);
    const stmt_keys *s = named(d, sel);
    if (s) {
        snprintf(t->name, sizeof t->name, "%s", sel);
    } else if ((s = statement(sel))) {
        if (!count_kind(d, s, NULL))
            return model_fail(err, len, "%s has no %s statement", d->label, s->kind);
    } else {
        for (size_t k = 0; k < N_STATEMENTS && !s; k++) {
            size_t kl = strlen(STATEMENTS[k].kind);
            char *end;
            if (strncmp(sel, STATEMENTS[k].kind, kl) || sel[kl] < '1' || sel[kl] > '9')
                continue;
            unsigned long o = strtoul(sel + kl, &end, 10);
            if (*end)
                continue;
            s = &STATEMENTS[k];
            unsigned have = count_kind(d, s, NULL);
            if (o > have)
                return model_fail(err, len, "%s has %u %s statement%s: there is no %s", d->label, have,
                            s->kind, have == 1 ? "" : "s", sel);
            t->ordinal = (unsigned)o;
        }
        if (!s)
            return model_fail(err, len, "'%s' in '%s' is no node or switch of %s, nor node, switch, "
                        "link or traffic (with a number: link2)", sel, name, d->label);
    }
    t->kind = s;
    if (!takes(s, t->key)) {
        key_list(s, keys, sizeof keys);
        return model_fail(err, len, "'%s': a %s statement takes %s, not '%s'", name, s->kind, keys,
                    t->key);
    }
    return 0;
}

int model_desc_check_name(const model_desc *d, const char *name, char *err, size_t len)
{
    target t;
    return resolve(d, name, &t, err, len);
}

int model_desc_check_overlap(const model_desc *d, const char *a, const char *b, char *err,
                             size_t len)
{
    target ta, tb;
    if (resolve(d, a, &ta, err, len) || resolve(d, b, &tb, err, len))
        return -EINVAL;
    if (strcmp(ta.key, tb.key))
        return 0;
    /* the same key: do both select one statement? (counted as model_desc_parse counts) */
    unsigned seen[N_STATEMENTS] = { 0 };
    for (size_t i = 0; i < d->n; i++) {
        char buf[LINE_LEN], *w[LINE_MAX_WORDS];
        unsigned n = words(d->lines[i].text, buf, w);
        const stmt_keys *s = n ? statement(w[0]) : NULL;
        if (!s)
            continue;
        seen[s - STATEMENTS]++;
        if (selects(&ta, w, n, seen) && selects(&tb, w, n, seen))
            return model_fail(err, len, "%s and %s both set %s of %s: a row would show a value "
                              "that was not run", a, b, ta.key, d->lines[i].where);
    }
    return 0;
}

/* Line w with every selected key set; the text in out. */
static int rewrite(char **w, unsigned n, const target *t, const char *const *values,
                   unsigned nt, const unsigned *seen, char *out, const char *where, char *err,
                   size_t len)
{
    const char *val[LINE_MAX_WORDS + MODEL_DESC_OVERRIDES];
    char extra[MODEL_DESC_OVERRIDES][LINE_LEN / 4];
    unsigned nw = n, ne = 0;
    if (n >= LINE_MAX_WORDS)
        return model_fail(err, len, "%s: too many words", where);
    for (unsigned i = 0; i < n; i++)
        val[i] = w[i];
    const stmt_keys *s = statement(w[0]);
    for (unsigned o = 0; o < nt; o++) {
        if (!s || !selects(&t[o], w, n, seen))
            continue;
        snprintf(extra[ne], sizeof extra[ne], "%s=%s", t[o].key, values[o]);
        size_t kl = strlen(t[o].key);
        bool replaced = false;
        for (unsigned i = s->first_option; i < nw; i++)
            if (!strncmp(val[i], t[o].key, kl) && val[i][kl] == '=') {
                val[i] = extra[ne];
                replaced = true;
            }
        if (!replaced)
            val[nw++] = extra[ne];
        ne++;
    }
    size_t used = 0;
    for (unsigned i = 0; i < nw; i++) {
        int k = snprintf(out + used, LINE_LEN - used, "%s%s", i ? " " : "", val[i]);
        if (k < 0 || (size_t)k >= LINE_LEN - used)
            return model_fail(err, len, "%s: line longer than %d characters with the sweep's values",
                        where, LINE_LEN - 1);
        used += (size_t)k;
    }
    return 0;
}

int model_desc_parse(const model_desc *d, model *m, const char *const *names,
                     const char *const *values, unsigned nt, char *err, size_t len)
{
    if (nt > MODEL_DESC_OVERRIDES)
        return model_fail(err, len, "at most %d parameters at once", MODEL_DESC_OVERRIDES);
    target t[MODEL_DESC_OVERRIDES];
    for (unsigned i = 0; i < nt; i++)
        if (resolve(d, names[i], &t[i], err, len))
            return -EINVAL;
    unsigned seen[N_STATEMENTS] = { 0 };
    for (size_t i = 0; i < d->n; i++) {
        char buf[LINE_LEN], *w[LINE_MAX_WORDS], out[LINE_LEN];
        unsigned n = words(d->lines[i].text, buf, w);
        const char *text = d->lines[i].text;
        if (n) {
            const stmt_keys *s = statement(w[0]);
            if (s)
                seen[s - STATEMENTS]++;
            if (nt && strlen(text) < LINE_LEN) { /* longer: the parser refuses it */
                if (rewrite(w, n, t, values, nt, seen, out, d->lines[i].where, err, len))
                    return -EINVAL;
                text = out;
            }
        }
        if (model_parse_line(m, text, d->lines[i].where, err, len))
            return -EINVAL;
    }
    return 0;
}
