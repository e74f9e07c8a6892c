// SPDX-License-Identifier: MIT
// The field tables both front ends report through (gbvp/fields.h): every field reads its
// own member, whatever its width, under the name the scenario API and control socket use.
#include <stdio.h>
#include <string.h>

#include "gbvp/scenario/scenario.h"
#include "gbvp/fields.h"
#include "tests/unit/unit.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/hid.h"
#include "virtual-modules/uart.h"

typedef struct seen {
    char text[512];
    size_t len;
} seen;

static void note(void *ctx, const char *name, sim_field_kind kind, int64_t v)
{
    seen *s = ctx;
    s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "%s%s=%s%lld",
                               s->len ? " " : "", name, kind == SIM_FIELD_BOOL ? "b" : "",
                               (long long)v);
}

static const char *fields(const sim_fields *set, const void *obj)
{
    static seen s;
    memset(&s, 0, sizeof s);
    sim_fields_each(set, obj, note, &s);
    return s.text;
}

static void test_svc_counters_keep_the_order_and_names_of_the_stats_reply(void)
{
    sim_svc_report r = { .st = { 1, 2, 3, 4, 5, 6, 7, 8 }, .connections = 9,
                         .pending_events = 10, .handshake_done = true };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_svc_counters, &r),
                           "ap_requests=1 ap_bad_requests=2 svc_requests_sent=3 "
                           "ap_timeouts=4 pings=5 forwarded_to_ap=6 forwarded_to_intf=7 "
                           "dropped=8 connections=9");
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_svc_state, &r),
                           "pending_events=10 handshake_done=b1");
    CU_ASSERT_EQUAL(sim_fields_count(&sim_fields_svc_counters), 9);
}

static void test_fields_of_every_width_read_their_own_member(void)
{
    vm_gpio_line line = { .activated = true, .output = false, .out_value = true,
                          .in_level = true, .irq_type = 200, .irq_masked = true };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_gpio_line, &line),
                           "output=b0 activated=b1 irq_type=200 masked=b1");
    vm_uart_state u = { .rate = 4000000000u, .control = 3, .tx_bytes = 1ull << 40,
                        .rx_bytes = 7, .credits_returned = 8, .breaks = 9, .flushes = 10 };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_uart_state, &u),
                           "rate=4000000000 tx_bytes=1099511627776 rx_bytes=7 "
                           "credits_returned=8 control=3 breaks=9");
    vm_hid_state h = { .powered = true, .input_size = 6, .output_size = 1, .input_reports = 2,
                       .set_reports = 3, .get_reports = 4 };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_hid_state, &h),
                           "powered=b1 input_size=6 input_reports=2 set_reports=3 "
                           "get_reports=4");
    sim_scenario_intf in = { .known = true, .enabled = true, .device_id = 5, .bundles = 2,
                             .bound_bundles = 1, .connections = 3 };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_scenario_intf, &in),
                           "known=b1 active=b0 enabled=b1 suspended=b0 device_id=5 bundles=2 "
                           "bound_bundles=1 connections=3");
    sim_scenario_link li = { .frames = 1, .from_intf_delivered = 10 };
    CU_ASSERT_STRING_EQUAL(fields(&sim_fields_link_counters, &li),
                           "frames=1 replays=0 replay_timeouts=0 crc_errors=0 dropped=0 "
                           "duplicates=0 to_intf_sent=0 to_intf_delivered=0 "
                           "from_intf_sent=0 from_intf_delivered=10");
}

static const unit_test tests[] = {
    UNIT_TEST(test_svc_counters_keep_the_order_and_names_of_the_stats_reply),
    UNIT_TEST(test_fields_of_every_width_read_their_own_member),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "sim_fields", tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
