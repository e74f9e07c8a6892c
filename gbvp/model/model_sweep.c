// SPDX-License-Identifier: MIT
// Sweep axes and their cross product (model_sweep.h).
#include "gbvp/model/model_sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unipro-model/up_consts.h"
#include "unipro-model/up_phy.h"
#include "gbvp/model/model_internal.h"

typedef struct sweep_axis {
    char *name;
    char **values;
    size_t n;
} sweep_axis;

struct model_sweep {
    sweep_axis axes[MODEL_SWEEP_AXES_MAX];
    unsigned n_axes;
};

model_sweep *model_sweep_new(void)
{
    return calloc(1, sizeof(model_sweep));
}

static void axis_free(sweep_axis *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->values[i]);
    free(a->values);
    free(a->name);
    *a = (sweep_axis){ 0 };
}

void model_sweep_free(model_sweep *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->n_axes; i++)
        axis_free(&s->axes[i]);
    free(s);
}

static int push(sweep_axis *a, const char *v, char *err, size_t len)
{
    if (a->n == MODEL_SWEEP_VALUES_MAX)
        return model_fail(err, len, "--sweep %s: more than %d values", a->name, MODEL_SWEEP_VALUES_MAX);
    char **nv = realloc(a->values, (a->n + 1) * sizeof *nv);
    if (!nv)
        return model_fail(err, len, "out of memory");
    a->values = nv;
    if (!(a->values[a->n] = strdup(v)))
        return model_fail(err, len, "out of memory");
    a->n++;
    return 0;
}

/* A whole number made of digits only; false for anything else or beyond 2^53. */
static bool whole(const char *s, const char *end, uint64_t *out)
{
    if (s == end)
        return false;
    uint64_t v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9' || v > (1ull << 53) / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = v;
    return true;
}

/* A gear's place in rate order: HS 0..7 (G1A G1B ... G4B), PWM 100..106. */
static bool gear_rank(const char *s, int *rank)
{
    up_phy_cfg c = up_phy_cfg_default();
    if (up_phy_cfg_parse_gear(&c, s))
        return false;
    *rank = c.mode == UP_PHY_HS ? (c.gear - 1) * 2 + (c.series == UP_SERIES_B) : 100 + c.gear - 1;
    return true;
}

static int expand_gears(sweep_axis *a, const char *item, int lo, int hi, char *err, size_t len)
{
    if ((lo >= 100) != (hi >= 100))
        return model_fail(err, len, "--sweep %s: range '%s' mixes HS and PWM gears", a->name, item);
    if (lo > hi)
        return model_fail(err, len, "--sweep %s: empty range '%s' (the first gear is faster than the "
                    "last)", a->name, item);
    for (int r = lo; r <= hi; r++) {
        char g[32];
        if (r >= 100)
            snprintf(g, sizeof g, "PWM-G%d", r - 99);
        else
            snprintf(g, sizeof g, "HS-G%d%c", r / 2 + 1, r % 2 ? 'B' : 'A');
        if (push(a, g, err, len))
            return -EINVAL;
    }
    return 0;
}

/* LO..HI, LO..HI+S, LO..HIxF (whole numbers) or G1..G2 (gears). */
static int expand_range(sweep_axis *a, const char *item, const char *dots, char *err, size_t len)
{
    char lo_text[64];
    snprintf(lo_text, sizeof lo_text, "%.*s", (int)(dots - item), item);
    const char *hi_text = dots + 2;
    int glo, ghi;
    if (gear_rank(lo_text, &glo) && gear_rank(hi_text, &ghi))
        return expand_gears(a, item, glo, ghi, err, len);
    const char *hi_end = hi_text + strcspn(hi_text, "+x");
    uint64_t lo, hi, step = 1;
    bool times = *hi_end == 'x';
    if (!whole(item, dots, &lo) || !whole(hi_text, hi_end, &hi) ||
        (*hi_end && !whole(hi_end + 1, hi_end + strlen(hi_end), &step)))
        return model_fail(err, len, "--sweep %s: bad range '%s' (ranges are LO..HI, LO..HI+STEP, "
                    "LO..HIxFACTOR of whole numbers, or two gears such as HS-G1A..HS-G4B)",
                    a->name, item);
    if (lo > hi)
        return model_fail(err, len, "--sweep %s: empty range '%s' (%" PRIu64 " > %" PRIu64 ")", a->name,
                    item, lo, hi);
    if (times ? step < 2 : step < 1)
        return model_fail(err, len, "--sweep %s: range '%s' needs a %s", a->name, item,
                    times ? "factor of at least 2" : "step of at least 1");
    if (times && !lo)
        return model_fail(err, len, "--sweep %s: range '%s' multiplies 0", a->name, item);
    for (uint64_t v = lo; v <= hi; v = times ? v * step : v + step) {
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, v);
        if (push(a, num, err, len))
            return -EINVAL;
        if (times ? v > hi / step : step > hi - v)
            break; /* the next value would pass HI (checked without overflow) */
    }
    return 0;
}

/* The first control character of s (a CR from a CRLF file, a newline), or NULL: the
 * value would go unescaped into the JSON and CSV rows and break them. */
static const char *control_char(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return s;
    return NULL;
}

static bool good_name(const char *s, size_t n)
{
    if (!n || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-", s[i]))
            return false;
    return true;
}

size_t model_sweep_configs(const model_sweep *s)
{
    size_t n = 1;
    for (unsigned i = 0; i < s->n_axes; i++)
        n *= s->axes[i].n;
    return n;
}

int model_sweep_add(model_sweep *s, const char *spec, char *err, size_t len)
{
    const char *eq = strchr(spec, '=');
    if (!eq)
        return model_fail(err, len, "--sweep needs NAME=V1,V2,... (got '%s')", spec);
    if (!good_name(spec, (size_t)(eq - spec)))
        return model_fail(err, len, "--sweep: bad name '%.*s' (letters, digits and _ . : -)",
                    (int)(eq - spec), spec);
    for (unsigned i = 0; i < s->n_axes; i++)
        if (strlen(s->axes[i].name) == (size_t)(eq - spec) &&
            !strncmp(s->axes[i].name, spec, (size_t)(eq - spec)))
            return model_fail(err, len, "--sweep %s is given twice", s->axes[i].name);
    if (s->n_axes == MODEL_SWEEP_AXES_MAX)
        return model_fail(err, len, "--sweep: at most %d axes", MODEL_SWEEP_AXES_MAX);
    sweep_axis a = { .name = strndup(spec, (size_t)(eq - spec)) };
    char *list = strdup(eq + 1);
    int rc = a.name && list ? 0 : model_fail(err, len, "out of memory");
    if (!rc && !*list)
        rc = model_fail(err, len, "--sweep %s: no values (NAME=V1,V2,...)", a.name);
    unsigned pos = 0;
    for (char *item = list, *next; !rc && item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        pos++;
        const char *bad = item + strcspn(item, " \t\"\\#=");
        const char *dots = strstr(item, "..");
        const char *ctl = control_char(item);
        if (!*item)
            rc = model_fail(err, len, "--sweep %s: value %u is empty", a.name, pos);
        else if (ctl)
            rc = model_fail(err, len, "--sweep %s: value %u holds a control character (0x%02x)",
                            a.name, pos, (unsigned)(unsigned char)*ctl);
        else if (*bad)
            rc = model_fail(err, len, "--sweep %s: value '%s' holds '%c'", a.name, item, *bad);
        else if (dots)
            rc = expand_range(&a, item, dots, err, len);
        else
            rc = push(&a, item, err, len);
    }
    free(list);
    if (!rc) {
        for (size_t i = 0; i < a.n && !rc; i++)
            for (size_t j = 0; j < i && !rc; j++)
                if (!strcmp(a.values[i], a.values[j]))
                    rc = model_fail(err, len, "--sweep %s: value '%s' appears twice", a.name,
                              a.values[i]);
    }
    if (!rc && model_sweep_configs(s) * a.n > MODEL_SWEEP_CONFIGS_MAX)
        rc = model_fail(err, len, "--sweep %s: %zu configurations, at most %d", a.name,
                  model_sweep_configs(s) * a.n, MODEL_SWEEP_CONFIGS_MAX);
    if (rc) {
        axis_free(&a);
        return rc;
    }
    s->axes[s->n_axes++] = a;
    return 0;
}

unsigned model_sweep_axes(const model_sweep *s)
{
    return s->n_axes;
}

const char *model_sweep_name(const model_sweep *s, unsigned axis)
{
    return axis < s->n_axes ? s->axes[axis].name : NULL;
}

size_t model_sweep_count(const model_sweep *s, unsigned axis)
{
    return axis < s->n_axes ? s->axes[axis].n : 0;
}

const char *model_sweep_value(const model_sweep *s, unsigned axis, size_t i)
{
    return axis < s->n_axes && i < s->axes[axis].n ? s->axes[axis].values[i] : NULL;
}

const char *model_sweep_config_value(const model_sweep *s, size_t config, unsigned axis)
{
    if (axis >= s->n_axes)
        return NULL;
    size_t inner = 1; /* configurations per step of this axis: the product of later axes */
    for (unsigned i = axis + 1; i < s->n_axes; i++)
        inner *= s->axes[i].n;
    return s->axes[axis].values[(config / inner) % s->axes[axis].n];
}
