// SPDX-License-Identifier: MIT
// The `gbvp model` description: parsing statements into nodes, switches, links and flows.
// Building and running them is in model_net.c.
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gbvp/model/model_internal.h"

model *model_new(void)
{
    return calloc(1, sizeof(model));
}

void model_free(model *m)
{
    if (!m)
        return;
    model_teardown(m);
    free(m);
}

sim_time model_duration(const model *m)
{
    return m->duration;
}

static int fail(char *err, size_t len, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, const char *where, const char *fmt, ...)
{
    if (err && len) {
        int n = snprintf(err, len, "%s: ", where);
        if (n < 0 || (size_t)n >= len)
            n = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

typedef struct unit_scale {
    const char *suffix;
    double scale;
} unit_scale;

/* A number followed by one of the units' suffixes (compared without case: rates are
 * written Gb/s or gb/s alike); *out = number x scale. -EINVAL when there is no number,
 * it is negative, or the suffix is unknown. */
static int parse_scaled(const char *s, const unit_scale *units, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0))
        return -EINVAL;
    for (const unit_scale *u = units; u->suffix; u++)
        if (!strcasecmp(end, u->suffix)) {
            *out = v * u->scale;
            return 0;
        }
    return -EINVAL;
}

int model_parse_time(const char *s, sim_time *out)
{
    static const unit_scale units[] = { { "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 },
                                        { "ms", 1e9 }, { "s", 1e12 }, { NULL, 0 } };
    double ps;
    if (parse_scaled(s, units, &ps) || ps > 1.8e19)
        return -EINVAL;
    *out = (sim_time)(ps + 0.5);
    return 0;
}

#define MODEL_RATE_MAX 1e12 /* b/s */

int model_parse_rate(const char *s, double *bps)
{
    static const unit_scale units[] = { { "b/s", 1 }, { "", 1 }, { "kb/s", 1e3 },
                                        { "Mb/s", 1e6 }, { "Gb/s", 1e9 }, { "Tb/s", 1e12 },
                                        { NULL, 0 } };
    double v;
    /* far above any UniPro link (HS-G3 x2 ~ 11.6 Gb/s); beyond it a cbr or poisson
     * flow's gap rounds to 0 ps and the run never advances */
    if (parse_scaled(s, units, &v) || !(v > 0) || v > MODEL_RATE_MAX)
        return -EINVAL;
    *bps = v;
    return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || !*s)
        return -EINVAL;
    /* decimal, or hex with 0x (a seed); never octal: size=010 is ten bytes, not eight */
    int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
    unsigned long long v = strtoull(s, &end, base);
    if (errno || *end || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

static int parse_prob(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0 && v < 1))
        return -EINVAL;
    *out = v;
    return 0;
}

static bool valid_name(const char *s)
{
    if (!*s || strlen(s) >= MODEL_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return false;
    return true;
}

static int find_node(const model *m, const char *name)
{
    for (unsigned i = 0; i < m->n_nodes; i++)
        if (!strcmp(m->nodes[i].name, name))
            return (int)i;
    return -1;
}

static int find_switch(const model *m, const char *name)
{
    for (unsigned i = 0; i < m->n_switches; i++)
        if (!strcmp(m->switches[i].name, name))
            return (int)i;
    return -1;
}

/* Splits a line into whitespace-separated words in place. */
static unsigned split(char *line, char **w, unsigned max)
{
    unsigned n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == max)
            return max + 1;
        w[n++] = t;
    }
    return n;
}

typedef struct kv {
    const char *key;
    const char *val;
} kv;

#define MAX_OPTIONS 16

/* key=value words from index `from` on, at most MAX_OPTIONS of them. */
static int options(char **w, unsigned n, unsigned from, kv *out, unsigned *count,
                   const char *where, char *err, size_t len)
{
    *count = 0;
    for (unsigned i = from; i < n; i++) {
        if (*count == MAX_OPTIONS)
            return fail(err, len, where, "too many options (at most %d)", MAX_OPTIONS);
        char *eq = strchr(w[i], '=');
        if (!eq || eq == w[i] || !eq[1])
            return fail(err, len, where, "expected key=value, got '%s'", w[i]);
        *eq = 0;
        for (unsigned j = 0; j < *count; j++)
            if (!strcmp(out[j].key, w[i])) /* which would count? refused, not guessed */
                return fail(err, len, where, "%s is given twice", w[i]);
        out[(*count)++] = (kv){ w[i], eq + 1 };
    }
    return 0;
}

#define BAD(what) return fail(err, len, where, "%s: bad value '%s' (%s)", o[i].key, o[i].val, what)
#define UNKNOWN() return fail(err, len, where, "unknown option '%s'", o[i].key)

/* The name a `node` or `switch` statement gives (w[1]): present, well formed, new, and
 * room for one more of the `count` such things (`many`) there are. */
static int check_new_name(const model *m, char **w, unsigned n, const char *kind,
                          const char *usage, unsigned count, const char *many,
                          const char *where, char *err, size_t len)
{
    if (n < 2)
        return fail(err, len, where, "%s needs a name: %s", kind, usage);
    if (!valid_name(w[1]))
        return fail(err, len, where, "bad %s name '%s'", kind, w[1]);
    if (find_node(m, w[1]) >= 0 || find_switch(m, w[1]) >= 0)
        return fail(err, len, where, "'%s' is already defined", w[1]);
    if (count == MODEL_MAX)
        return fail(err, len, where, "too many %s (at most %d)", many, MODEL_MAX);
    return 0;
}

static int parse_node(model *m, char **w, unsigned n, const char *where, char *err, size_t len)
{
    if (check_new_name(m, w, n, "node", "node NAME dev=N", m->n_nodes, "nodes", where, err,
                       len))
        return -EINVAL;
    model_node nd = { .dev = -1, .cports = 32, .credits = 64, .segment = UP_SEGMENT_MAX };
    snprintf(nd.name, sizeof nd.name, "%s", w[1]);
    kv o[MAX_OPTIONS];
    unsigned c;
    if (options(w, n, 2, o, &c, where, err, len))
        return -EINVAL;
    for (unsigned i = 0; i < c; i++) {
        unsigned long long v;
        if (!strcmp(o[i].key, "dev")) {
            if (parse_uint(o[i].val, UP_DEVICE_ID_MAX, &v))
                BAD("a DeviceID 0..127");
            nd.dev = (int)v;
        } else if (!strcmp(o[i].key, "cports")) {
            if (parse_uint(o[i].val, 1024, &v) || !v)
                BAD("1..1024");
            nd.cports = (unsigned)v;
        } else if (!strcmp(o[i].key, "credits")) {
            if (parse_uint(o[i].val, 1u << 20, &v) || v < 9)
                BAD("at least 9 credits of 32 bytes");
            nd.credits = (unsigned)v;
        } else if (!strcmp(o[i].key, "segment")) {
            if (parse_uint(o[i].val, UP_SEGMENT_MAX, &v) || !v)
                BAD("1..286");
            nd.segment = (unsigned)v;
        } else {
            UNKNOWN();
        }
    }
    if (nd.dev < 0)
        return fail(err, len, where, "node %s needs dev=N (its DeviceID)", nd.name);
    for (unsigned i = 0; i < m->n_nodes; i++)
        if (m->nodes[i].dev == nd.dev)
            return fail(err, len, where, "DeviceID %d is already used by node %s", nd.dev,
                        m->nodes[i].name);
    snprintf(nd.where, sizeof nd.where, "%s", where);
    m->nodes[m->n_nodes++] = nd;
    return 0;
}

static int parse_switch(model *m, char **w, unsigned n, const char *where, char *err, size_t len)
{
    if (check_new_name(m, w, n, "switch", "switch NAME ports=N", m->n_switches, "switches",
                       where, err, len))
        return -EINVAL;
    model_switch s = { .cfg = sw_switch_cfg_default() };
    snprintf(s.name, sizeof s.name, "%s", w[1]);
    kv o[MAX_OPTIONS];
    unsigned c;
    if (options(w, n, 2, o, &c, where, err, len))
        return -EINVAL;
    for (unsigned i = 0; i < c; i++) {
        unsigned long long v;
        if (!strcmp(o[i].key, "ports")) {
            if (parse_uint(o[i].val, SW_PORTS_MAX, &v) || !v)
                BAD("1..64");
            s.cfg.ports = (unsigned)v;
        } else if (!strcmp(o[i].key, "latency")) {
            if (model_parse_time(o[i].val, &s.cfg.fwd_latency))
                BAD("a time such as 100ns");
        } else if (!strcmp(o[i].key, "mode")) {
            if (!strcmp(o[i].val, "saf"))
                s.cfg.cut_through = false;
            else if (!strcmp(o[i].val, "ct"))
                s.cfg.cut_through = true;
            else
                BAD("saf or ct");
        } else if (!strcmp(o[i].key, "credits")) {
            if (parse_uint(o[i].val, 1u << 20, &v) || v < 9)
                BAD("at least 9 credits of 32 bytes");
            s.cfg.dl.rx_credits[0] = s.cfg.dl.rx_credits[1] = (unsigned)v;
        } else if (!strcmp(o[i].key, "series")) {
            if (model_parse_time(o[i].val, &s.cfg.depth_interval))
                BAD("a time such as 1us");
        } else {
            UNKNOWN();
        }
    }
    snprintf(s.where, sizeof s.where, "%s", where);
    m->switches[m->n_switches++] = s;
    return 0;
}

static int parse_end(model *m, const char *text, model_end *e, const char *where, char *err,
                     size_t len)
{
    char name[MODEL_NAME_MAX + 8];
    snprintf(name, sizeof name, "%s", text);
    char *colon = strchr(name, ':');
    if (colon) {
        *colon = 0;
        int s = find_switch(m, name);
        if (s < 0)
            return fail(err, len, where, "no switch named '%s'", name);
        unsigned long long p;
        if (parse_uint(colon + 1, 1000, &p) || p >= m->switches[s].cfg.ports)
            return fail(err, len, where, "switch %s has no port '%s' (ports 0..%u)", name,
                        colon + 1, m->switches[s].cfg.ports - 1);
        *e = (model_end){ .is_switch = true, .idx = (unsigned)s, .port = (unsigned)p };
        return 0;
    }
    int nd = find_node(m, name);
    if (nd < 0)
        return fail(err, len, where, "no node named '%s'%s", name,
                    find_switch(m, name) >= 0 ? " (a switch end needs SWITCH:PORT)" : "");
    *e = (model_end){ .is_switch = false, .idx = (unsigned)nd, .port = 0 };
    return 0;
}

static bool same_end(model_end a, model_end b)
{
    return a.is_switch == b.is_switch && a.idx == b.idx && a.port == b.port;
}

static int parse_link(model *m, char **w, unsigned n, const char *where, char *err, size_t len)
{
    if (n < 3)
        return fail(err, len, where, "link needs two ends: link A B or link A SWITCH:PORT");
    if (m->n_links == MODEL_MAX)
        return fail(err, len, where, "too many links (at most %d)", MODEL_MAX);
    model_link l = { .cfg = up_link_cfg_default() };
    if (parse_end(m, w[1], &l.a, where, err, len) || parse_end(m, w[2], &l.b, where, err, len))
        return -EINVAL;
    if (same_end(l.a, l.b))
        return fail(err, len, where, "a link cannot join '%s' to itself", w[1]);
    for (unsigned i = 0; i < m->n_links; i++) {
        const model_link *x = &m->links[i];
        if (same_end(x->a, l.a) || same_end(x->b, l.a) || same_end(x->a, l.b) || same_end(x->b, l.b))
            return fail(err, len, where, "an end of this link is already linked (%s)", x->where);
    }
    kv o[MAX_OPTIONS];
    unsigned c;
    if (options(w, n, 3, o, &c, where, err, len))
        return -EINVAL;
    l.cfg.faults.seed = m->n_links + 1;
    for (unsigned i = 0; i < c; i++) {
        unsigned long long v;
        if (!strcmp(o[i].key, "gear")) {
            if (up_phy_cfg_parse_gear(&l.cfg.phy, o[i].val))
                BAD("HS-G1A..HS-G4B or PWM-G1..PWM-G7");
        } else if (!strcmp(o[i].key, "lanes")) {
            if (parse_uint(o[i].val, UP_MAX_LANES, &v) || !v)
                BAD("1..4");
            l.cfg.phy.lanes = (uint8_t)v;
        } else if (!strcmp(o[i].key, "ber")) {
            if (parse_prob(o[i].val, &l.cfg.faults.ber))
                BAD("a probability in [0, 1)");
        } else if (!strcmp(o[i].key, "drop")) {
            if (parse_prob(o[i].val, &l.cfg.faults.drop))
                BAD("a probability in [0, 1)");
        } else if (!strcmp(o[i].key, "seed")) {
            if (parse_uint(o[i].val, UINT64_MAX, &v))
                BAD("an unsigned number");
            l.cfg.faults.seed = v;
        } else if (!strcmp(o[i].key, "down")) {
            if (model_parse_time(o[i].val, &l.down_at))
                BAD("a time such as 1ms");
            l.has_down = true;
        } else if (!strcmp(o[i].key, "up")) {
            if (model_parse_time(o[i].val, &l.up_at))
                BAD("a time such as 2ms");
            l.has_up = true;
        } else {
            UNKNOWN();
        }
    }
    if (l.has_up && (!l.has_down || l.up_at <= l.down_at))
        return fail(err, len, where, "up= needs an earlier down=");
    snprintf(l.where, sizeof l.where, "%s", where);
    m->links[m->n_links++] = l;
    return 0;
}

static int parse_traffic(model *m, char **w, unsigned n, const char *where, char *err, size_t len)
{
    if (n < 3)
        return fail(err, len, where, "traffic needs a source and a destination node");
    if (m->n_flows == MODEL_MAX)
        return fail(err, len, where, "too many flows (at most %d)", MODEL_MAX);
    int a = find_node(m, w[1]), b = find_node(m, w[2]);
    if (a < 0)
        return fail(err, len, where, "no node named '%s'", w[1]);
    if (b < 0)
        return fail(err, len, where, "no node named '%s'", w[2]);
    if (a == b)
        return fail(err, len, where, "traffic from %s to itself", w[1]);
    model_flow f = { .src = (unsigned)a, .dst = (unsigned)b, .e2efc = true };
    f.cfg = (up_traffic_cfg){ .kind = UP_TRAFFIC_SATURATE, .size = 2048, .header = UP_GREYBUS_HDR,
                              .response_size = 0, .depth = 2, .seed = m->n_flows + 1 };
    kv o[MAX_OPTIONS];
    unsigned c;
    if (options(w, n, 3, o, &c, where, err, len))
        return -EINVAL;
    bool rate = false, response = false;
    for (unsigned i = 0; i < c; i++) {
        unsigned long long v;
        if (!strcmp(o[i].key, "kind")) {
            if (up_traffic_kind_parse(o[i].val, &f.cfg.kind))
                BAD("saturate, cbr, poisson or rr");
        } else if (!strcmp(o[i].key, "size")) {
            if (parse_uint(o[i].val, 65535 - UP_GREYBUS_HDR, &v))
                BAD("0..65527 bytes");
            f.cfg.size = (uint32_t)v;
        } else if (!strcmp(o[i].key, "response")) {
            if (parse_uint(o[i].val, 65535 - UP_GREYBUS_HDR, &v))
                BAD("0..65527 bytes");
            f.cfg.response_size = (uint32_t)v;
            response = true;
        } else if (!strcmp(o[i].key, "rate")) {
            if (model_parse_rate(o[i].val, &f.cfg.rate_bps))
                BAD("a rate such as 1Gb/s, at most 1Tb/s");
            rate = true;
        } else if (!strcmp(o[i].key, "depth")) {
            if (parse_uint(o[i].val, 1u << 16, &v) || !v)
                BAD("1..65536");
            f.cfg.depth = (unsigned)v;
        } else if (!strcmp(o[i].key, "count")) {
            if (parse_uint(o[i].val, UINT64_MAX, &v))
                BAD("a number of messages");
            f.cfg.count = v;
        } else if (!strcmp(o[i].key, "start")) {
            if (model_parse_time(o[i].val, &f.cfg.start))
                BAD("a time");
        } else if (!strcmp(o[i].key, "stop")) {
            if (model_parse_time(o[i].val, &f.cfg.stop))
                BAD("a time");
        } else if (!strcmp(o[i].key, "tc")) {
            if (parse_uint(o[i].val, 1, &v))
                BAD("0 or 1");
            f.tc = (uint8_t)v;
        } else if (!strcmp(o[i].key, "e2efc")) {
            if (!strcmp(o[i].val, "on"))
                f.e2efc = true;
            else if (!strcmp(o[i].val, "off"))
                f.e2efc = false;
            else
                BAD("on or off");
        } else {
            UNKNOWN();
        }
    }
    if ((f.cfg.kind == UP_TRAFFIC_CBR || f.cfg.kind == UP_TRAFFIC_POISSON) && !rate)
        return fail(err, len, where, "%s traffic needs rate=", up_traffic_kind_name(f.cfg.kind));
    if (f.cfg.kind == UP_TRAFFIC_RR && !response)
        f.cfg.response_size = f.cfg.size;
    if (f.cfg.stop && f.cfg.stop <= f.cfg.start)
        return fail(err, len, where, "stop= must come after start=");
    snprintf(f.where, sizeof f.where, "%s", where);
    m->flows[m->n_flows++] = f;
    return 0;
}

int model_parse_line(model *m, const char *line, const char *where, char *err, size_t errlen)
{
    char buf[1024];
    if (strlen(line) >= sizeof buf)
        return fail(err, errlen, where, "line longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = 0;
    char *w[40];
    unsigned n = split(buf, w, 39);
    if (n > 39)
        return fail(err, errlen, where, "too many words");
    if (!n)
        return 0;
    if (m->built)
        return fail(err, errlen, where, "the model has already run");
    if (!strcmp(w[0], "node"))
        return parse_node(m, w, n, where, err, errlen);
    if (!strcmp(w[0], "switch"))
        return parse_switch(m, w, n, where, err, errlen);
    if (!strcmp(w[0], "link"))
        return parse_link(m, w, n, where, err, errlen);
    if (!strcmp(w[0], "traffic"))
        return parse_traffic(m, w, n, where, err, errlen);
    if (!strcmp(w[0], "run")) {
        if (m->duration) /* a second run would silently replace the first */
            return fail(err, errlen, where, "a second run statement (one duration per file)");
        if (n != 2 || model_parse_time(w[1], &m->duration) || !m->duration)
            return fail(err, errlen, where, "run needs one duration such as 10ms");
        return 0;
    }
    return fail(err, errlen, where, "unknown statement '%s' (node, switch, link, traffic, run)",
                w[0]);
}

int model_parse_file(model *m, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -errno;
    }
    char line[1100];
    unsigned no = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        char where[300];
        snprintf(where, sizeof where, "%s:%u", path, no);
        if (!strchr(line, '\n') && !feof(f)) {
            rc = fail(err, errlen, where, "line too long");
            break;
        }
        if ((rc = model_parse_line(m, line, where, err, errlen)))
            break;
    }
    fclose(f);
    return rc;
}
