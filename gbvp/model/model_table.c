// SPDX-License-Identifier: MIT
// A sweep run as a table (model_table.h).
#include "gbvp/model/model_table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gbvp/model/model_internal.h"
#include "gbvp/model/model_msg.h"
#include "gbvp/model/model_parallel.h"
#include "gbvp/model/model_summary.h"

#define SERIES_POINTS 500 /* queue depth points over a run when no series= is given */

struct model_table {
    const model_sweep *sweep;
    size_t n;
    model_job_result *r; /* per configuration: a model_summary, then the JSON */
};

static bool duration_name(const char *name)
{
    return !strcmp(name, "duration") || !strcmp(name, "run");
}

/* A name of the run rather than of the file: the duration or the timing level. */
static bool run_name(const char *name)
{
    return duration_name(name) || !strcmp(name, "timing");
}

/* "configuration 3 (gear=HS-G1A, size=64): " into buf, or "" without a sweep. */
static void config_label(const model_sweep *s, size_t config, char *buf, size_t len)
{
    buf[0] = 0;
    if (!model_sweep_axes(s))
        return;
    size_t used = (size_t)snprintf(buf, len, "configuration %zu (", config);
    for (unsigned a = 0; a < model_sweep_axes(s) && used < len; a++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", a ? ", " : "",
                                 model_sweep_name(s, a), model_sweep_config_value(s, config, a));
    if (used < len)
        snprintf(buf + used, len - used, "): ");
}

/* Parses configuration `config` into m, with its duration and timing level. */
static int build(const model_table_cfg *c, size_t config, model *m, sim_time *duration,
                 model_timing *timing, char *err, size_t len)
{
    const char *names[MODEL_SWEEP_AXES_MAX], *values[MODEL_SWEEP_AXES_MAX];
    unsigned n = 0;
    *duration = c->duration;
    *timing = c->timing;
    bool duration_set = false;
    for (unsigned a = 0; a < model_sweep_axes(c->sweep); a++) {
        const char *name = model_sweep_name(c->sweep, a);
        const char *v = model_sweep_config_value(c->sweep, config, a);
        if (!strcmp(name, "timing")) {
            if (!model_timing_parse(v, timing))
                return model_fail(err, len, "timing: bad value '%s' (frame, message or "
                                  "per-frame)", v);
        } else if (duration_name(name)) {
            if (model_parse_time(v, duration) || !*duration)
                return model_fail(err, len, "%s: bad value '%s' (a time such as 10ms)", name, v);
            duration_set = true;
        } else {
            names[n] = name;
            values[n++] = v;
        }
    }
    if (model_desc_parse(c->desc, m, names, values, n, err, len))
        return -EINVAL;
    if (!duration_set && !*duration)
        *duration = model_duration(m);
    if (!*duration)
        return model_fail(err, len, "no duration: give 'run TIME' in the file or --duration");
    if (*timing == MODEL_TIMING_MESSAGE && model_check_message(m, err, len))
        return -EINVAL;
    return 0;
}

/* err = label + err */
static void prefix(const model_sweep *s, size_t config, char *err, size_t len)
{
    char label[512], tail[1024];
    config_label(s, config, label, sizeof label);
    snprintf(tail, sizeof tail, "%s", err);
    snprintf(err, len, "%s%s", label, tail);
}

/* Two axes that set one thing: the later replaces the earlier's value in every row, which
 * would then be labelled with a value that was never run. */
static int check_overlap(const model_table_cfg *c, unsigned a, unsigned b, char *err,
                         size_t len)
{
    const char *na = model_sweep_name(c->sweep, a), *nb = model_sweep_name(c->sweep, b);
    char tail[1024];
    if (duration_name(na) && duration_name(nb))
        return model_fail(err, len, "--sweep %s and --sweep %s both set the duration", na, nb);
    if (run_name(na) || run_name(nb))
        return 0; /* (two timing axes are one name twice, refused when the sweep is read) */
    if (!model_desc_check_overlap(c->desc, na, nb, err, len))
        return 0;
    snprintf(tail, sizeof tail, "%s", err);
    return model_fail(err, len, "--sweep: %s", tail);
}

int model_table_check(const model_table_cfg *c, char *err, size_t len)
{
    for (unsigned a = 0; a < model_sweep_axes(c->sweep); a++) {
        const char *name = model_sweep_name(c->sweep, a);
        if (!run_name(name) && model_desc_check_name(c->desc, name, err, len)) {
            char tail[1024];
            snprintf(tail, sizeof tail, "%s", err);
            snprintf(err, len, "--sweep %s: %s", name, tail);
            return -EINVAL;
        }
    }
    for (unsigned a = 0; a < model_sweep_axes(c->sweep); a++)
        for (unsigned b = a + 1; b < model_sweep_axes(c->sweep); b++)
            if (check_overlap(c, a, b, err, len))
                return -EINVAL;
    for (size_t i = 0; i < model_sweep_configs(c->sweep); i++) {
        model *m = model_new();
        if (!m)
            return model_fail(err, len, "out of memory");
        sim_time d;
        model_timing t;
        int rc = build(c, i, m, &d, &t, err, len);
        model_free(m);
        if (rc) {
            prefix(c->sweep, i, err, len);
            return rc;
        }
    }
    return 0;
}

static void default_series(model *m, sim_time duration)
{
    sim_time interval = duration / SERIES_POINTS;
    for (unsigned i = 0; i < m->n_switches; i++)
        if (!m->switches[i].cfg.depth_interval)
            m->switches[i].cfg.depth_interval = interval > 1000 ? interval : 1000;
}

/* One configuration: a model_summary and the model's JSON, or the message. */
static int job(void *ctx, size_t config, char **data, size_t *len)
{
    const model_table_cfg *c = ctx;
    char err[1024] = "";
    model *m = model_new();
    sim_time duration;
    model_timing timing;
    int rc = m ? build(c, config, m, &duration, &timing, err, sizeof err)
               : model_fail(err, sizeof err, "out of memory");
    if (!rc) {
        default_series(m, duration);
        rc = model_run_at(m, timing, duration, err, sizeof err);
    }
    FILE *f = NULL;
    if (!rc && !(f = open_memstream(data, len)))
        rc = model_fail(err, sizeof err, "out of memory");
    if (!rc) {
        model_summary *s = malloc(sizeof *s);
        if (s) {
            model_summarise(m, s);
            fwrite(s, sizeof *s, 1, f);
            free(s);
            model_write_json(m, f);
        }
        if (fclose(f) || !s) {
            free(*data);
            rc = model_fail(err, sizeof err, "out of memory");
        }
    }
    model_free(m);
    if (rc) {
        prefix(c->sweep, config, err, sizeof err);
        *data = strdup(err);
    }
    return rc;
}

model_table *model_table_run(const model_table_cfg *c, char *err, size_t len)
{
    model_table *t = calloc(1, sizeof *t);
    size_t n = model_sweep_configs(c->sweep);
    if (t)
        t->r = calloc(n, sizeof *t->r);
    if (!t || !t->r) {
        free(t);
        model_fail(err, len, "out of memory");
        return NULL;
    }
    t->sweep = c->sweep;
    t->n = n;
    if (model_parallel_run(n, c->workers, job, (void *)c, t->r, err, len)) {
        model_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (t->r[i].failed || t->r[i].len < sizeof(model_summary)) {
            model_fail(err, len, "%s", t->r[i].failed ? t->r[i].data : "a short result");
            model_table_free(t);
            return NULL;
        }
    return t;
}

void model_table_free(model_table *t)
{
    if (!t)
        return;
    model_parallel_results_free(t->r, t->n);
    free(t->r);
    free(t);
}

static const model_summary *summary(const model_table *t, size_t i)
{
    return (const model_summary *)(const void *)t->r[i].data;
}

static const char *result_json(const model_table *t, size_t i)
{
    return t->r[i].data + sizeof(model_summary);
}

void model_table_csv(const model_table *t, FILE *out)
{
    fprintf(out, "config");
    for (unsigned a = 0; a < model_sweep_axes(t->sweep); a++)
        fprintf(out, ",%s", model_sweep_name(t->sweep, a));
    model_summary_csv_header(out);
    fprintf(out, "\n");
    for (size_t i = 0; i < t->n; i++) {
        fprintf(out, "%zu", i);
        for (unsigned a = 0; a < model_sweep_axes(t->sweep); a++)
            fprintf(out, ",%s", model_sweep_config_value(t->sweep, i, a));
        model_summary_csv(summary(t, i), out);
        fprintf(out, "\n");
    }
}

void model_table_json(const model_table *t, FILE *out)
{
    fprintf(out, "{\n  \"sweep\": [");
    for (unsigned a = 0; a < model_sweep_axes(t->sweep); a++) {
        fprintf(out, "%s\n    {\"name\": \"%s\", \"values\": [", a ? "," : "",
                model_sweep_name(t->sweep, a));
        for (size_t v = 0; v < model_sweep_count(t->sweep, a); v++)
            fprintf(out, "%s\"%s\"", v ? ", " : "", model_sweep_value(t->sweep, a, v));
        fprintf(out, "]}");
    }
    fprintf(out, "\n  ],\n  \"configurations\": %zu,\n  \"rows\": [", t->n);
    for (size_t i = 0; i < t->n; i++) {
        fprintf(out, "%s\n    {\"config\": %zu, \"values\": {", i ? "," : "", i);
        for (unsigned a = 0; a < model_sweep_axes(t->sweep); a++)
            fprintf(out, "%s\"%s\": \"%s\"", a ? ", " : "", model_sweep_name(t->sweep, a),
                    model_sweep_config_value(t->sweep, i, a));
        fprintf(out, "},\n     \"summary\": ");
        model_summary_json(summary(t, i), out);
        fprintf(out, ",\n     \"result\": %s    }", result_json(t, i));
    }
    fprintf(out, "\n  ]\n}\n");
}

void model_table_text(const model_table *t, FILE *out)
{
    for (size_t i = 0; i < t->n; i++) {
        fprintf(out, "%zu", i);
        for (unsigned a = 0; a < model_sweep_axes(t->sweep); a++)
            fprintf(out, " %s=%s", model_sweep_name(t->sweep, a),
                    model_sweep_config_value(t->sweep, i, a));
        fprintf(out, ": ");
        model_summary_text(summary(t, i), out);
    }
}
