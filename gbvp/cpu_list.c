// SPDX-License-Identifier: MIT
// CPU lists (gbvp/cpu_list.h).
#include "gbvp/cpu_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One CPU number at *p; advances p. -1 when there is none or it is out of range. */
static long cpu_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (errno || v >= CPU_SETSIZE)
        return -1;
    *p = end;
    return v;
}

int cpu_list_parse(const char *text, const cpu_set_t *allowed, cpu_set_t *set, char *err,
                   size_t errlen)
{
    CPU_ZERO(set);
    if (!text || !*text) {
        snprintf(err, errlen, "an empty CPU list (want e.g. 1, 0,2 or 0-3)");
        return -1;
    }
    const char *p = text;
    for (;;) {
        const char *item = p;
        long lo = cpu_number(&p), hi = lo;
        if (lo >= 0 && *p == '-') {
            p++;
            hi = cpu_number(&p);
        }
        if (lo < 0 || hi < 0 || (*p && *p != ',')) {
            size_t n = strcspn(item, ",");
            if (!n)
                snprintf(err, errlen, "an empty item in CPU list '%s' (want e.g. 1, 0,2 or "
                         "0-3)", text);
            else
                snprintf(err, errlen, "'%.*s' in CPU list '%s' is not a CPU number or a range "
                         "FIRST-LAST (want e.g. 1, 0,2 or 0-3)", (int)n, item, text);
            return -1;
        }
        if (hi < lo) {
            snprintf(err, errlen, "the range %ld-%ld in CPU list '%s' runs backwards", lo, hi,
                     text);
            return -1;
        }
        for (long c = lo; c <= hi; c++) {
            if (!CPU_ISSET((int)c, allowed)) {
                char ok[256];
                cpu_list_format(allowed, ok, sizeof ok);
                snprintf(err, errlen, "CPU %ld of CPU list '%s' is not one this process may "
                         "use (%s)", c, text, ok);
                return -1;
            }
            CPU_SET((int)c, set);
        }
        if (!*p)
            return 0;
        p++; /* the comma; an empty item after it is refused above */
    }
}

void cpu_list_format(const cpu_set_t *set, char *out, size_t outlen)
{
    size_t used = 0;
    if (!outlen)
        return;
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        int n = last > c ? snprintf(out + used, outlen - used, "%s%d-%d", used ? "," : "", c,
                                    last)
                         : snprintf(out + used, outlen - used, "%s%d", used ? "," : "", c);
        if (n < 0 || (size_t)n >= outlen - used) {
            out[used] = 0; /* cut short at the last whole item: a part of one would name
                            * another CPU (",1" of ",10-12") */
            return;
        }
        used += (size_t)n;
        c = last;
    }
}

/* `text` parsed against the CPUs this process may use now. */
static int parse_for_self(const char *text, cpu_set_t *set, char *err, size_t errlen)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) {
        snprintf(err, errlen, "cannot read this process's CPUs: %s", strerror(errno));
        return -1;
    }
    return cpu_list_parse(text, &allowed, set, err, errlen);
}

int cpu_list_check(const char *text, char *err, size_t errlen)
{
    cpu_set_t set;
    return parse_for_self(text, &set, err, errlen);
}

int cpu_list_pin_self(const char *text, char *err, size_t errlen)
{
    cpu_set_t set;
    if (parse_for_self(text, &set, err, errlen))
        return -1;
    if (sched_setaffinity(0, sizeof set, &set)) {
        snprintf(err, errlen, "cannot run on CPUs %s: %s", text, strerror(errno));
        return -1;
    }
    return 0;
}
