// SPDX-License-Identifier: MIT
// The switch routing table: bounds, the SVC's bidirectional routes, and the functional
// forwarding path that counts and drops packets to unrouted destinations.
#include <errno.h>
#include <string.h>

#include "switch-model/route_table.h"
#include "tests/unit/unit.h"

static void test_route_table_rejects_bad_port_counts(void)
{
    CU_ASSERT_PTR_NULL(sw_route_table_new(0));
    CU_ASSERT_PTR_NULL(sw_route_table_new(SW_PORTS_MAX + 1));
    sw_route_table *t = sw_route_table_new(SW_PORTS_MAX);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(sw_route_table_num_ports(t), SW_PORTS_MAX);
    sw_route_table_free(t);
}

static void test_route_set_lookup_clear_are_bounds_checked(void)
{
    sw_route_table *t = sw_route_table_new(4);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 5), -ENOENT);
    CU_ASSERT_EQUAL(sw_route_set(t, 5, 3), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 5), 3);
    CU_ASSERT_EQUAL(sw_route_set(t, 5, 4), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_set(t, 128, 0), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 128), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_clear(t, 128), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 5), 3);
    CU_ASSERT_EQUAL(sw_route_clear(t, 5), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 5), -ENOENT);
    CU_ASSERT_EQUAL(sw_route_allow(t, 4, 1, true), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_allow(t, 0, 200, true), -EINVAL);
    CU_ASSERT_FALSE(sw_route_allowed(t, 9, 1));
    sw_route_table_free(t);
}

static void test_route_pair_create_is_bidirectional_and_destroy_undoes_it(void)
{
    sw_route_table *t = sw_route_table_new(8);
    /* AP DeviceID 1 on port 1, interface DeviceID 2 on port 2 */
    CU_ASSERT_EQUAL(sw_route_pair_create(t, 1, 1, 2, 2), 0);
    unsigned out = 99;
    CU_ASSERT_EQUAL(sw_route_resolve(t, 1, 2, &out), SW_ROUTE_FORWARD);
    CU_ASSERT_EQUAL(out, 2);
    CU_ASSERT_EQUAL(sw_route_resolve(t, 2, 1, &out), SW_ROUTE_FORWARD);
    CU_ASSERT_EQUAL(out, 1);
    /* a third port has no permission for either */
    CU_ASSERT_EQUAL(sw_route_resolve(t, 3, 2, &out), SW_ROUTE_DROP_NOT_ALLOWED);
    /* a second interface shares the AP's entry */
    CU_ASSERT_EQUAL(sw_route_pair_create(t, 1, 1, 3, 3), 0);
    CU_ASSERT_EQUAL(sw_route_pair_destroy(t, 1, 1, 2, 2), 0);
    CU_ASSERT_EQUAL(sw_route_resolve(t, 1, 2, &out), SW_ROUTE_DROP_UNROUTED);
    CU_ASSERT_EQUAL(sw_route_resolve(t, 3, 1, &out), SW_ROUTE_FORWARD);
    CU_ASSERT_EQUAL(sw_route_resolve(t, 2, 1, &out), SW_ROUTE_DROP_NOT_ALLOWED);
    CU_ASSERT_EQUAL(sw_route_pair_destroy(t, 1, 1, 3, 3), 0);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 1), -ENOENT);
    /* bad arguments change nothing */
    CU_ASSERT_EQUAL(sw_route_pair_create(t, 1, 1, 2, 8), -EINVAL);
    CU_ASSERT_EQUAL(sw_route_lookup(t, 1), -ENOENT);
    CU_ASSERT_EQUAL(sw_route_pair_destroy(t, 130, 1, 2, 2), -EINVAL);
    sw_route_table_free(t);
}

typedef struct delivered {
    unsigned count, port, dest;
    size_t len;
    uint8_t first;
} delivered;

static void record(void *ctx, unsigned out_port, uint8_t dest, const uint8_t *p, size_t len)
{
    delivered *d = ctx;
    d->count++;
    d->port = out_port;
    d->dest = dest;
    d->len = len;
    d->first = len ? p[0] : 0;
}

static void test_route_forward_counts_and_drops_unrouted_packets(void)
{
    sw_route_table *t = sw_route_table_new(4);
    delivered d;
    memset(&d, 0, sizeof d);
    sw_route_set_sink(t, 2, record, &d);
    const uint8_t pkt[3] = { 0xab, 1, 2 };

    CU_ASSERT_EQUAL(sw_route_forward(t, 1, 2, pkt, sizeof pkt), SW_ROUTE_DROP_UNROUTED);
    CU_ASSERT_EQUAL(d.count, 0);
    sw_route_pair_create(t, 1, 1, 2, 2);
    CU_ASSERT_EQUAL(sw_route_forward(t, 1, 2, pkt, sizeof pkt), SW_ROUTE_FORWARD);
    CU_ASSERT_EQUAL(d.count, 1);
    CU_ASSERT_EQUAL(d.port, 2);
    CU_ASSERT_EQUAL(d.dest, 2);
    CU_ASSERT_EQUAL(d.len, 3);
    CU_ASSERT_EQUAL(d.first, 0xab);
    CU_ASSERT_EQUAL(sw_route_forward(t, 0, 2, pkt, sizeof pkt), SW_ROUTE_DROP_NOT_ALLOWED);
    CU_ASSERT_EQUAL(sw_route_forward(t, 7, 2, pkt, sizeof pkt), SW_ROUTE_DROP_BAD_INPUT);
    CU_ASSERT_EQUAL(sw_route_forward(t, 1, 127, pkt, sizeof pkt), SW_ROUTE_DROP_UNROUTED);
    CU_ASSERT_EQUAL(d.count, 1);

    sw_route_stats s = sw_route_table_stats(t);
    CU_ASSERT_EQUAL(s.forwarded, 1);
    CU_ASSERT_EQUAL(s.dropped_unrouted, 2);
    CU_ASSERT_EQUAL(s.dropped_not_allowed, 1);
    CU_ASSERT_EQUAL(s.dropped_bad_input, 1);
    CU_ASSERT_EQUAL(sw_route_port_forwarded(t, 2), 1);
    CU_ASSERT_EQUAL(sw_route_port_forwarded(t, 9), 0);
    CU_ASSERT_STRING_EQUAL(sw_route_verdict_name(SW_ROUTE_DROP_UNROUTED), "unrouted destination");
    sw_route_table_free(t);
}

static const unit_test route_tests[] = {
    UNIT_TEST(test_route_table_rejects_bad_port_counts),
    UNIT_TEST(test_route_set_lookup_clear_are_bounds_checked),
    UNIT_TEST(test_route_pair_create_is_bidirectional_and_destroy_undoes_it),
    UNIT_TEST(test_route_forward_counts_and_drops_unrouted_packets),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "route_table", route_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
