// SPDX-License-Identifier: MIT
// The list of problems found in a manifest, each a ready-to-print line.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_internal.h"

/* A hostile file must not produce megabytes of messages. */
#define DIAGS_MAX 200

typedef struct diag {
    vm_manifest_severity sev;
    char *text;
} diag;

struct vm_manifest_diags {
    diag *items;
    size_t count, cap;
    size_t errors, warnings;
    bool truncated;
};

vm_manifest_diags *vm_manifest_diags_new(void)
{
    return calloc(1, sizeof(vm_manifest_diags));
}

void vm_manifest_diags_clear(vm_manifest_diags *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->items[i].text);
    d->count = 0;
    d->errors = d->warnings = 0;
    d->truncated = false;
}

void vm_manifest_diags_free(vm_manifest_diags *d)
{
    if (!d)
        return;
    vm_manifest_diags_clear(d);
    free(d->items);
    free(d);
}

size_t vm_manifest_diags_count(const vm_manifest_diags *d) { return d ? d->count : 0; }
size_t vm_manifest_diags_errors(const vm_manifest_diags *d) { return d ? d->errors : 0; }
size_t vm_manifest_diags_warnings(const vm_manifest_diags *d) { return d ? d->warnings : 0; }

vm_manifest_severity vm_manifest_diags_severity(const vm_manifest_diags *d, size_t i)
{
    return (d && i < d->count) ? d->items[i].sev : VM_MANIFEST_ERROR;
}

const char *vm_manifest_diags_message(const vm_manifest_diags *d, size_t i)
{
    return (d && i < d->count) ? d->items[i].text : "";
}

bool vm_manifest_diags_contain(const vm_manifest_diags *d, const char *needle)
{
    for (size_t i = 0; d && i < d->count; i++)
        if (strstr(d->items[i].text, needle))
            return true;
    return false;
}

void vm_manifest_diags_print(const vm_manifest_diags *d, FILE *out,
                             vm_manifest_severity min_severity)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].sev >= min_severity)
            fprintf(out, "%s\n", d->items[i].text);
    if (d->truncated)
        fprintf(out, "(more problems not shown; fix these first)\n");
}

static char *format_entry(vm_manifest_severity sev, const char *name, vm_mf_where_kind at,
                          size_t where, const char *fmt, va_list ap)
{
    char head[64];
    switch (at) {
    case VM_MF_AT_LINE:
        snprintf(head, sizeof head, ":%zu", where);
        break;
    case VM_MF_AT_OFFSET:
        snprintf(head, sizeof head, ":0x%04zx", where);
        break;
    default:
        head[0] = '\0';
        break;
    }
    const char *label = sev == VM_MANIFEST_ERROR ? "error" : "warning";
    va_list ap2;
    va_copy(ap2, ap);
    int body = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (body < 0)
        body = 0;
    size_t len = strlen(name) + strlen(head) + strlen(label) + 4 + (size_t)body + 1;
    char *text = malloc(len);
    if (!text)
        return NULL;
    int n = snprintf(text, len, "%s%s: %s: ", name, head, label);
    vsnprintf(text + n, len - (size_t)n, fmt, ap);
    return text;
}

void vm_mf_vdiag(vm_manifest_diags *d, vm_manifest_severity sev, const char *name,
                 vm_mf_where_kind at, size_t where, const char *fmt, va_list ap)
{
    if (!d)
        return;
    if (sev == VM_MANIFEST_ERROR)
        d->errors++;
    else
        d->warnings++;
    if (d->count >= DIAGS_MAX) {
        d->truncated = true;
        return;
    }
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        diag *items = realloc(d->items, cap * sizeof *items);
        if (!items)
            return;
        d->items = items;
        d->cap = cap;
    }
    char *text = format_entry(sev, name ? name : "manifest", at, where, fmt, ap);
    if (!text)
        return;
    d->items[d->count].sev = sev;
    d->items[d->count].text = text;
    d->count++;
}

void vm_mf_diag(vm_manifest_diags *d, vm_manifest_severity sev, const char *name,
                vm_mf_where_kind at, size_t where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vm_mf_vdiag(d, sev, name, at, where, fmt, ap);
    va_end(ap);
}
