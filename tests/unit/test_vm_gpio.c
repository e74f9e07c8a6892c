// SPDX-License-Identifier: MIT
// GPIO handler, driven as drivers/staging/greybus/gpio.c drives it.
#include <errno.h>
#include <string.h>

#include "tests/unit/test_vm_harness.h"
#include "tests/unit/test_vm_suites.h"
#include "virtual-modules/gpio.h"

static const uint16_t cport1[] = {1};

static void up(vmt *t, const char *behaviour)
{
    CU_ASSERT_FATAL(vmt_up(t, vmt_manifest_one(0x0a, 0x02), behaviour, cport1, 1));
}

static void test_gpio_line_count_is_lines_minus_one(void)
{
    vmt t;
    up(&t, "[cport 1]\nlines = 6\n");
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 2, GB_GPIO_TYPE_LINE_COUNT, NULL, 0), 1);
    const uint8_t want[] = {0x09, 0x00, 0x02, 0x00, 0x82, 0x00, 0x00, 0x00, 0x05};
    vmt_expect(&t, 0, 1, want, sizeof want);
    vmt_down(&t);
}

static void test_gpio_probe_reads_every_direction_as_input(void)
{
    vmt t;
    up(&t, NULL);
    for (uint8_t i = 0; i < 8; i++) {
        vmt_request(&t, 1, (uint16_t)(3 + i), GB_GPIO_TYPE_GET_DIRECTION, &i, 1);
        const uint8_t in = 1;
        vmt_expect_response(&t, i, 1, (uint16_t)(3 + i), GB_GPIO_TYPE_GET_DIRECTION,
                            GB_OP_SUCCESS, &in, 1);
    }
    uint8_t bad = 8;
    vmt_request(&t, 1, 20, GB_GPIO_TYPE_GET_DIRECTION, &bad, 1);
    vmt_expect_response(&t, 8, 1, 20, GB_GPIO_TYPE_GET_DIRECTION, GB_OP_INVALID, NULL, 0);
    vmt_down(&t);
}

static void test_gpio_output_value_is_visible_to_scripts(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t act = 3, out[2] = {3, 1}, set0[2] = {3, 0};
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_ACTIVATE, &act, 1);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_DIRECTION_OUT, out, 2);
    vmt_expect_response(&t, 1, 1, 3, GB_GPIO_TYPE_DIRECTION_OUT, GB_OP_SUCCESS, NULL, 0);
    CU_ASSERT_EQUAL(vm_gpio_get_value(vm_interface_gpio(t.intf, 1), 3), 1);
    vmt_request(&t, 1, 4, GB_GPIO_TYPE_GET_DIRECTION, &act, 1);
    const uint8_t dir_out = 0;
    vmt_expect_response(&t, 2, 1, 4, GB_GPIO_TYPE_GET_DIRECTION, GB_OP_SUCCESS, &dir_out, 1);
    vmt_request(&t, 1, 5, GB_GPIO_TYPE_SET_VALUE, set0, 2);
    CU_ASSERT_EQUAL(vm_gpio_get_value(vm_interface_gpio(t.intf, VM_ANY_CPORT), 3), 0);
    vmt_request(&t, 1, 6, GB_GPIO_TYPE_GET_VALUE, &act, 1);
    vmt_expect_response(&t, 4, 1, 6, GB_GPIO_TYPE_GET_VALUE, GB_OP_SUCCESS, &dir_out, 1);
    vm_gpio_line l;
    CU_ASSERT_EQUAL(vm_gpio_get_line(vm_interface_gpio(t.intf, 1), 3, &l), 0);
    CU_ASSERT_TRUE(l.activated);
    CU_ASSERT_TRUE(l.output);
    vmt_down(&t);
}

static void test_gpio_input_level_driven_by_script_is_read_by_ap(void)
{
    vmt t;
    up(&t, "[cport 1]\nhigh = 2\n");
    vm_gpio *g = vm_interface_gpio(t.intf, 1);
    const uint8_t l2 = 2, l4 = 4, one = 1, zero = 0;
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_GET_VALUE, &l2, 1);
    vmt_expect_response(&t, 0, 1, 2, GB_GPIO_TYPE_GET_VALUE, GB_OP_SUCCESS, &one, 1);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_GET_VALUE, &l4, 1);
    vmt_expect_response(&t, 1, 1, 3, GB_GPIO_TYPE_GET_VALUE, GB_OP_SUCCESS, &zero, 1);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 4, true), 0); /* masked: no event */
    vmt_request(&t, 1, 4, GB_GPIO_TYPE_GET_VALUE, &l4, 1);
    vmt_expect_response(&t, 2, 1, 4, GB_GPIO_TYPE_GET_VALUE, GB_OP_SUCCESS, &one, 1);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 99, true), -EINVAL);
    vmt_down(&t);
}

static void test_gpio_rising_edge_irq_sends_irq_event_request(void)
{
    vmt t;
    up(&t, NULL);
    vm_gpio *g = vm_interface_gpio(t.intf, 1);
    const uint8_t type[2] = {5, GB_GPIO_IRQ_TYPE_EDGE_RISING}, l5 = 5;
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_IRQ_TYPE, type, 2);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_IRQ_UNMASK, &l5, 1);
    CU_ASSERT_EQUAL(t.sink.n, 2);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 5, true), 1);
    /* module-originated: operation id 1, type 0x0e, which = 5 */
    const uint8_t want[] = {0x09, 0x00, 0x01, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x05};
    vmt_expect(&t, 2, 1, want, sizeof want);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 5, false), 0); /* falling: not our trigger */
    /* the AP answers; an error answer is counted */
    uint8_t resp[8] = {0x08, 0x00, 0x01, 0x00, 0x8e, GB_OP_INVALID, 0, 0};
    CU_ASSERT_EQUAL(vmt_receive(&t, 1, resp, 8, 0), 0);
    vm_gpio_stats st;
    vm_gpio_get_stats(g, &st);
    CU_ASSERT_EQUAL(st.irq_events, 1);
    CU_ASSERT_EQUAL(st.irq_rejected, 1);
    /* masked again: nothing */
    vmt_request(&t, 1, 4, GB_GPIO_TYPE_IRQ_MASK, &l5, 1);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 5, true), 0);
    vmt_down(&t);
}

static void test_gpio_level_irq_fires_again_on_unmask_while_asserted(void)
{
    vmt t;
    up(&t, NULL);
    vm_gpio *g = vm_interface_gpio(t.intf, 1);
    const uint8_t type[2] = {1, GB_GPIO_IRQ_TYPE_LEVEL_HIGH}, l1 = 1;
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_IRQ_TYPE, type, 2);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_IRQ_UNMASK, &l1, 1);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 1, true), 1);
    size_t before = t.sink.n;
    /* the response to UNMASK comes first, then the event */
    CU_ASSERT_EQUAL(vmt_request(&t, 1, 4, GB_GPIO_TYPE_IRQ_UNMASK, &l1, 1), 2);
    vmt_expect_response(&t, before, 1, 4, GB_GPIO_TYPE_IRQ_UNMASK, GB_OP_SUCCESS, NULL, 0);
    const uint8_t ev[] = {0x09, 0x00, 0x02, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x01};
    vmt_expect(&t, before + 1, 1, ev, sizeof ev);
    vmt_down(&t);
}

static void test_gpio_irq_event_lost_while_cport_down(void)
{
    vmt t;
    up(&t, NULL);
    vm_gpio *g = vm_interface_gpio(t.intf, 1);
    const uint8_t type[2] = {0, GB_GPIO_IRQ_TYPE_EDGE_BOTH}, l0 = 0;
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_IRQ_TYPE, type, 2);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_IRQ_UNMASK, &l0, 1);
    vm_interface_cport_disconnect(t.intf, 1);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 0, true), -ENOTCONN);
    vm_gpio_stats st;
    vm_gpio_get_stats(g, &st);
    CU_ASSERT_EQUAL(st.irq_lost, 1);
    vmt_down(&t);
}

static void test_gpio_malformed_requests_get_invalid(void)
{
    vmt t;
    up(&t, NULL);
    const uint8_t bad_type[2] = {1, 0x05}, bad_val[2] = {1, 2}, one = 1, deb[2] = {1, 0};
    vmt_request(&t, 1, 2, GB_GPIO_TYPE_IRQ_TYPE, bad_type, 2);
    vmt_expect_response(&t, 0, 1, 2, GB_GPIO_TYPE_IRQ_TYPE, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 3, GB_GPIO_TYPE_SET_VALUE, bad_val, 2);
    vmt_expect_response(&t, 1, 1, 3, GB_GPIO_TYPE_SET_VALUE, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 4, GB_GPIO_TYPE_DIRECTION_OUT, &one, 1);
    vmt_expect_response(&t, 2, 1, 4, GB_GPIO_TYPE_DIRECTION_OUT, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 5, GB_GPIO_TYPE_SET_DEBOUNCE, deb, 2);
    vmt_expect_response(&t, 3, 1, 5, GB_GPIO_TYPE_SET_DEBOUNCE, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 6, GB_GPIO_TYPE_LINE_COUNT, &one, 1);
    vmt_expect_response(&t, 4, 1, 6, GB_GPIO_TYPE_LINE_COUNT, GB_OP_INVALID, NULL, 0);
    vmt_request(&t, 1, 7, GB_GPIO_TYPE_IRQ_EVENT, &one, 1);
    vmt_expect_response(&t, 5, 1, 7, GB_GPIO_TYPE_IRQ_EVENT, GB_OP_PROTOCOL_BAD, NULL, 0);
    vmt_request(&t, 1, 8, GB_GPIO_TYPE_ACTIVATE, NULL, 0);
    vmt_expect_response(&t, 6, 1, 8, GB_GPIO_TYPE_ACTIVATE, GB_OP_INVALID, NULL, 0);
    const uint8_t debounce[3] = {1, 0xe8, 0x03};
    vmt_request(&t, 1, 9, GB_GPIO_TYPE_SET_DEBOUNCE, debounce, 3);
    vm_gpio_line l;
    vm_gpio_get_line(vm_interface_gpio(t.intf, 1), 1, &l);
    CU_ASSERT_EQUAL(l.debounce_us, 1000);
    vmt_down(&t);
}

static void test_gpio_behaviour_errors_name_the_line(void)
{
    vmt t;
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x02), "[cport 1]\nlines = 300\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: lines"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x02),
                           "[cport 1]\nlines = 4\nhigh = 4\n", cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:3: high"));
    CU_ASSERT_FALSE(vmt_up(&t, vmt_manifest_one(0x0a, 0x02), "[cport 1]\ncolour = red\n",
                           cport1, 1));
    CU_ASSERT_PTR_NOT_NULL(strstr(t.err, "test.behaviour:2: unknown key 'colour'"));
}

const unit_test vmt_gpio_tests[] = {
    UNIT_TEST(test_gpio_line_count_is_lines_minus_one),
    UNIT_TEST(test_gpio_probe_reads_every_direction_as_input),
    UNIT_TEST(test_gpio_output_value_is_visible_to_scripts),
    UNIT_TEST(test_gpio_input_level_driven_by_script_is_read_by_ap),
    UNIT_TEST(test_gpio_rising_edge_irq_sends_irq_event_request),
    UNIT_TEST(test_gpio_level_irq_fires_again_on_unmask_while_asserted),
    UNIT_TEST(test_gpio_irq_event_lost_while_cport_down),
    UNIT_TEST(test_gpio_malformed_requests_get_invalid),
    UNIT_TEST(test_gpio_behaviour_errors_name_the_line),
    UNIT_TESTS_END,
};
