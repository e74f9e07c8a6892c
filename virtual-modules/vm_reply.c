// SPDX-License-Identifier: MIT
// Replies with named values (see vm_reply.h).
#include "virtual-modules/vm_reply.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void vm_reply_clear(vm_reply *r)
{
    r->text[0] = '\0';
    r->nvalues = 0;
    r->data_len = 0;
}

int vm_reply_say(vm_reply *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text, sizeof r->text, fmt, ap);
    va_end(ap);
    return rc;
}

static vm_value *add(vm_reply *r, const char *name, vm_value_kind kind)
{
    if (r->nvalues == VM_REPLY_VALUES_MAX || strlen(name) >= VM_REPLY_NAME_MAX)
        return NULL;
    vm_value *v = &r->values[r->nvalues++];
    memset(v, 0, sizeof *v);
    strcpy(v->name, name);
    v->kind = kind;
    return v;
}

void vm_reply_int(vm_reply *r, const char *name, int64_t i)
{
    vm_value *v = add(r, name, VM_VALUE_INT);
    if (v)
        v->i = i;
}

void vm_reply_bool(vm_reply *r, const char *name, bool b)
{
    vm_value *v = add(r, name, VM_VALUE_BOOL);
    if (v)
        v->i = b;
}

static void add_data(vm_reply *r, const char *name, vm_value_kind kind, const void *p, size_t n)
{
    if (n > VM_REPLY_DATA_MAX - r->data_len)
        return;
    vm_value *v = add(r, name, kind);
    if (!v)
        return;
    v->off = (uint16_t)r->data_len;
    v->len = (uint16_t)n;
    if (n)
        memcpy(r->data + r->data_len, p, n);
    r->data_len += n;
}

void vm_reply_text(vm_reply *r, const char *name, const char *s)
{
    add_data(r, name, VM_VALUE_TEXT, s, strlen(s));
}

void vm_reply_bytes(vm_reply *r, const char *name, const void *p, size_t n)
{
    add_data(r, name, VM_VALUE_BYTES, p, n);
}

const vm_value *vm_reply_get(const vm_reply *r, const char *name)
{
    for (size_t i = 0; i < r->nvalues; i++)
        if (!strcmp(r->values[i].name, name))
            return &r->values[i];
    return NULL;
}

const uint8_t *vm_reply_data(const vm_reply *r, const vm_value *v)
{
    return r->data + v->off;
}
