// SPDX-License-Identifier: MIT
// The switch's routing table (see route_table.h).
#include "switch-model/route_table.h"

#include <errno.h>
#include <stdlib.h>

#define NO_ROUTE 0xffu
#define MASK_WORDS (SW_DEVICE_ID_COUNT / 64u)

typedef struct sw_port_state {
    uint64_t allowed[MASK_WORDS]; /* destinations reachable from this input port */
    sw_route_deliver_fn sink;
    void *sink_ctx;
    uint64_t forwarded;
} sw_port_state;

struct sw_route_table {
    unsigned num_ports;
    uint8_t lut[SW_DEVICE_ID_COUNT]; /* DeviceID -> output port, NO_ROUTE when unset */
    sw_route_stats stats;
    sw_port_state ports[];
};

sw_route_table *sw_route_table_new(unsigned num_ports)
{
    if (num_ports == 0 || num_ports > SW_PORTS_MAX)
        return NULL;
    sw_route_table *t = calloc(1, sizeof *t + num_ports * sizeof t->ports[0]);
    if (!t)
        return NULL;
    t->num_ports = num_ports;
    for (unsigned i = 0; i < SW_DEVICE_ID_COUNT; i++)
        t->lut[i] = NO_ROUTE;
    return t;
}

void sw_route_table_free(sw_route_table *t)
{
    free(t);
}

unsigned sw_route_table_num_ports(const sw_route_table *t)
{
    return t->num_ports;
}

int sw_route_set(sw_route_table *t, unsigned device_id, unsigned port)
{
    if (device_id >= SW_DEVICE_ID_COUNT || port >= t->num_ports)
        return -EINVAL;
    t->lut[device_id] = (uint8_t)port;
    return 0;
}

int sw_route_clear(sw_route_table *t, unsigned device_id)
{
    if (device_id >= SW_DEVICE_ID_COUNT)
        return -EINVAL;
    t->lut[device_id] = NO_ROUTE;
    return 0;
}

int sw_route_lookup(const sw_route_table *t, unsigned device_id)
{
    if (device_id >= SW_DEVICE_ID_COUNT)
        return -EINVAL;
    return t->lut[device_id] == NO_ROUTE ? -ENOENT : t->lut[device_id];
}

int sw_route_allow(sw_route_table *t, unsigned in_port, unsigned device_id, bool allow)
{
    if (in_port >= t->num_ports || device_id >= SW_DEVICE_ID_COUNT)
        return -EINVAL;
    uint64_t bit = 1ull << (device_id % 64u);
    if (allow)
        t->ports[in_port].allowed[device_id / 64u] |= bit;
    else
        t->ports[in_port].allowed[device_id / 64u] &= ~bit;
    return 0;
}

bool sw_route_allowed(const sw_route_table *t, unsigned in_port, unsigned device_id)
{
    if (in_port >= t->num_ports || device_id >= SW_DEVICE_ID_COUNT)
        return false;
    return (t->ports[in_port].allowed[device_id / 64u] >> (device_id % 64u)) & 1u;
}

static bool pair_args_ok(const sw_route_table *t, unsigned dev0, unsigned port0, unsigned dev1,
                         unsigned port1)
{
    return dev0 < SW_DEVICE_ID_COUNT && dev1 < SW_DEVICE_ID_COUNT && port0 < t->num_ports &&
           port1 < t->num_ports;
}

int sw_route_pair_create(sw_route_table *t, unsigned dev0, unsigned port0, unsigned dev1,
                         unsigned port1)
{
    if (!pair_args_ok(t, dev0, port0, dev1, port1))
        return -EINVAL;
    sw_route_allow(t, port0, dev1, true);
    sw_route_allow(t, port1, dev0, true);
    sw_route_set(t, dev0, port0);
    sw_route_set(t, dev1, port1);
    return 0;
}

int sw_route_pair_destroy(sw_route_table *t, unsigned dev0, unsigned port0, unsigned dev1,
                          unsigned port1)
{
    if (!pair_args_ok(t, dev0, port0, dev1, port1))
        return -EINVAL;
    sw_route_allow(t, port0, dev1, false);
    sw_route_allow(t, port1, dev0, false);
    /* dev0 (typically the AP) may still be routed from other ports: keep its LUT entry
     * while any port is still allowed to reach it. */
    bool dev0_used = false;
    for (unsigned p = 0; p < t->num_ports; p++)
        dev0_used |= sw_route_allowed(t, p, dev0);
    if (!dev0_used)
        sw_route_clear(t, dev0);
    sw_route_clear(t, dev1);
    return 0;
}

sw_route_verdict sw_route_resolve(sw_route_table *t, unsigned in_port, unsigned dest,
                                  unsigned *out_port)
{
    if (in_port >= t->num_ports || dest >= SW_DEVICE_ID_COUNT) {
        t->stats.dropped_bad_input++;
        return SW_ROUTE_DROP_BAD_INPUT;
    }
    if (t->lut[dest] == NO_ROUTE) {
        t->stats.dropped_unrouted++;
        return SW_ROUTE_DROP_UNROUTED;
    }
    if (!sw_route_allowed(t, in_port, dest)) {
        t->stats.dropped_not_allowed++;
        return SW_ROUTE_DROP_NOT_ALLOWED;
    }
    t->stats.forwarded++;
    t->ports[t->lut[dest]].forwarded++;
    if (out_port)
        *out_port = t->lut[dest];
    return SW_ROUTE_FORWARD;
}

void sw_route_set_sink(sw_route_table *t, unsigned port, sw_route_deliver_fn fn, void *ctx)
{
    if (port >= t->num_ports)
        return;
    t->ports[port].sink = fn;
    t->ports[port].sink_ctx = ctx;
}

sw_route_verdict sw_route_forward(sw_route_table *t, unsigned in_port, unsigned dest,
                                  const uint8_t *packet, size_t len)
{
    unsigned out = 0;
    sw_route_verdict v = sw_route_resolve(t, in_port, dest, &out);
    if (v == SW_ROUTE_FORWARD && t->ports[out].sink)
        t->ports[out].sink(t->ports[out].sink_ctx, out, (uint8_t)dest, packet, len);
    return v;
}

sw_route_stats sw_route_table_stats(const sw_route_table *t)
{
    return t->stats;
}

uint64_t sw_route_port_forwarded(const sw_route_table *t, unsigned port)
{
    return port < t->num_ports ? t->ports[port].forwarded : 0;
}

const char *sw_route_verdict_name(sw_route_verdict v)
{
    switch (v) {
    case SW_ROUTE_FORWARD:
        return "forward";
    case SW_ROUTE_DROP_UNROUTED:
        return "unrouted destination";
    case SW_ROUTE_DROP_NOT_ALLOWED:
        return "destination not allowed from this port";
    case SW_ROUTE_DROP_BAD_INPUT:
        return "bad input port or DeviceID";
    }
    return "?";
}
