// SPDX-License-Identifier: MIT
// Writes a manifest as manifesto text. Unlike manifesto (which sorts descriptors by kind),
// the sections keep the binary's order, so that the text converts back to the same bytes.
#include <stdlib.h>
#include <string.h>

#include "virtual-modules/manifest_internal.h"

typedef struct out_buf {
    char *p;
    size_t n, cap;
    bool oom;
} out_buf;

static void put(out_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out_buf *o, const char *fmt, ...)
{
    if (o->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            o->oom = true;
            return;
        }
        if ((size_t)k < o->cap - o->n) {
            o->n += (size_t)k;
            return;
        }
        size_t cap = o->cap * 2 + (size_t)k;
        char *bigger = realloc(o->p, cap);
        if (!bigger) {
            o->oom = true;
            return;
        }
        o->p = bigger;
        o->cap = cap;
    }
}

/* Why s[start..end) cannot be a line of a text value, or NULL: configparser strips the
 * blanks around every line, and takes an indented line starting with ';' or '#' for a
 * comment rather than a continuation. */
static const char *line_problem(const uint8_t *s, size_t start, size_t end, bool multiline)
{
    if (end > start && (s[start] == ' ' || s[end - 1] == ' '))
        return multiline ? "one of its lines starts or ends with a space, which the text form "
                           "strips"
                         : "it starts or ends with a space, which the text form strips";
    if (start && end > start && (s[start] == ';' || s[start] == '#'))
        return "one of its lines starts with ';' or '#', which the text form reads as a comment";
    return NULL;
}

/* Why this string cannot be written as a text value, or NULL when it can: a line break is
 * written as a continuation line (as configparser joins them), but the value must survive
 * configparser's stripping, trailing empty lines are dropped, and the file must be UTF-8. */
static const char *string_problem(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
            return "it holds a control character";
    if (!vm_mf_valid_utf8(s, n))
        return "it is not valid UTF-8";
    if (n && s[n - 1] == '\n')
        return "it ends with a line break, which the text form drops";
    bool multiline = memchr(s, '\n', n) != NULL;
    for (size_t start = 0; start <= n;) {
        const uint8_t *nl = memchr(s + start, '\n', n - start);
        size_t end = nl ? (size_t)(nl - s) : n;
        const char *why = line_problem(s, start, end, multiline);
        if (why)
            return why;
        start = end + 1;
    }
    return NULL;
}

/* A line break becomes a continuation line, indented so that it joins the value; an empty
 * line inside the value stays empty (configparser keeps it as an empty line). */
static void put_string_value(out_buf *o, const uint8_t *s, size_t n)
{
    put(o, "string = ");
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n')
            put(o, i + 1 < n && s[i + 1] != '\n' ? "\n  " : "\n");
        else
            put(o, s[i] == '%' ? "%%%%" : "%c", s[i]);
    }
    put(o, "\n");
}

static void put_descriptor(out_buf *o, const vm_manifest *m, const vm_mf_desc *d)
{
    const char *name;
    switch (d->type) {
    case VM_MF_INTERFACE:
        put(o, "[interface-descriptor]\nvendor-string-id = %u\nproduct-string-id = %u\n",
            d->u.intf.vendor, d->u.intf.product);
        if (d->u.intf.features)
            put(o, "features = 0x%02x\n", d->u.intf.features);
        break;
    case VM_MF_STRING:
        if (m->intf && d->u.str.id == m->intf->u.intf.vendor)
            put(o, "; Interface vendor string\n");
        else if (m->intf && d->u.str.id == m->intf->u.intf.product)
            put(o, "; Interface product string\n");
        put(o, "[string-descriptor %u]\n", d->u.str.id);
        put_string_value(o, d->u.str.bytes, d->u.str.len);
        break;
    case VM_MF_BUNDLE:
        name = vm_manifest_class_name(d->u.bundle.cls);
        put(o, "; Bundle %u: %s class\n[bundle-descriptor %u]\nclass = 0x%02x\n",
            d->u.bundle.id, name ? name : "reserved", d->u.bundle.id, d->u.bundle.cls);
        break;
    case VM_MF_CPORT:
        name = vm_manifest_protocol_name(d->u.cport.protocol);
        put(o, "; CPort %u: %s protocol\n[cport-descriptor %u]\nbundle = %u\nprotocol = 0x%02x\n",
            d->u.cport.id, name ? name : "reserved", d->u.cport.id, d->u.cport.bundle,
            d->u.cport.protocol);
        break;
    }
}

char *vm_manifest_to_text(const vm_manifest *m, vm_manifest_diags *diags)
{
    size_t problems = 0;
    char label[48];
    for (size_t i = 0; i < m->ndescs; i++) {
        const vm_mf_desc *d = &m->descs[i];
        const char *why = d->quirk;
        if (!why && d->type == VM_MF_STRING)
            why = string_problem(d->u.str.bytes, d->u.str.len);
        if (!why)
            continue;
        vm_mf_desc_label(d, label, sizeof label);
        vm_mf_diag(diags, VM_MANIFEST_ERROR, m->name, m->at, d->where,
                   "%s cannot be written as text: %s", label, why);
        problems++;
    }
    if (problems)
        return NULL;

    out_buf o = { .cap = 1024 };
    o.p = malloc(o.cap);
    if (!o.p)
        return NULL;
    put(&o, "; Greybus interface manifest (manifesto text format)\n\n");
    put(&o, "[manifest-header]\nversion-major = %u\nversion-minor = %u\n", m->major, m->minor);
    for (size_t i = 0; i < m->ndescs; i++) {
        put(&o, "\n");
        put_descriptor(&o, m, &m->descs[i]);
    }
    if (o.oom) {
        free(o.p);
        vm_mf_diag(diags, VM_MANIFEST_ERROR, m->name, VM_MF_AT_FILE, 0, "out of memory");
        return NULL;
    }
    return o.p;
}
