// SPDX-License-Identifier: MIT
// The description the flags of `gbvp model` make (model_flags.h).
#include "gbvp/model/model_flags.h"

#include <stdarg.h>
#include <stdio.h>

model_flags model_flags_default(void)
{
    return (model_flags){ .gear = "HS-G3B", .lanes = "2", .kind = "saturate", .size = "2048",
                          .rate = NULL, .ber = "0", .with_switch = false };
}

static int add(model_desc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the formatted line; -1 when it does not fit or on no memory. */
static int add(model_desc *d, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= sizeof line || model_desc_add(d, line, "flags") ? -1 : 0;
}

model_desc *model_flags_desc(const model_flags *f)
{
    model_desc *d = model_desc_new("the flags");
    if (!d)
        return NULL;
    const char *link = "link %s %s gear=%s lanes=%s ber=%s";
    int rc = add(d, "node A dev=2") | add(d, "node B dev=3");
    if (f->with_switch)
        rc |= add(d, "switch S ports=15") | add(d, link, "A", "S:0", f->gear, f->lanes, f->ber) |
              add(d, link, "S:1", "B", f->gear, f->lanes, f->ber);
    else
        rc |= add(d, link, "A", "B", f->gear, f->lanes, f->ber);
    rc |= add(d, "traffic A B kind=%s size=%s%s%s e2efc=off", f->kind, f->size,
              f->rate ? " rate=" : "", f->rate ? f->rate : "");
    if (rc) {
        model_desc_free(d);
        return NULL;
    }
    return d;
}
