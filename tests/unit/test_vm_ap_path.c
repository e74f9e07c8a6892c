// SPDX-License-Identifier: MIT
// Module-originated traffic end to end: catalog modules in the simulator's slots,
// enumerated by the test AP (ap-model/, the 6.1 AP's behaviour), then backend events
// travel module -> switch fabric -> AP, and the AP's answers travel back to the handler.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ap-model/ap.h"
#include "gbvp/target/target_local.h"
#include "tests/unit/unit.h"
#include "virtual-modules/backend_cmd.h"
#include "greybus/gb_message.h"
#include "virtual-modules/gpio.h"
#include "virtual-modules/power_supply.h"
#include "virtual-modules/uart.h"

static sim_local *RIG;

/* The simulator with the test AP, `module` in slot 0 and enumerated. */
static tap *up(const char *module)
{
    char err[320];
    sim_local_config c = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    RIG = sim_local_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(RIG);
    const sim_target *t = sim_local_target(RIG);
    CU_ASSERT_EQUAL_FATAL(t->ops->insert(t->ctx, 0, module, err, sizeof err), 0);
    tap *ap = sim_local_test_ap(RIG);
    tap_run(ap);
    return ap;
}

static void down(void)
{
    sim_local_free(RIG);
    RIG = NULL;
}

static vm_interface *intf0(tap *ap)
{
    (void)ap;
    vm_interface *i = sim_simulator_interface(sim_local_simulator(RIG), 0, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(i);
    return i;
}

static void test_gpio_irq_event_reaches_the_ap_and_its_answer_comes_back(void)
{
    tap *ap = up("sensor");
    tap_intf_state st = tap_interface(ap, 2);
    CU_ASSERT_TRUE_FATAL(st.enabled);
    uint16_t hd = tap_hd_cport(ap, 2, 1);
    CU_ASSERT_NOT_EQUAL_FATAL(hd, 0);
    const uint8_t type[2] = {3, GB_GPIO_IRQ_TYPE_EDGE_RISING}, line = 3;
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_GPIO_TYPE_IRQ_TYPE, type, 2, NULL, 0), 0);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_GPIO_TYPE_IRQ_UNMASK, &line, 1, NULL, 0), 0);
    vm_gpio *g = vm_interface_gpio(intf0(ap), 1);
    size_t from = tap_trace_count(ap);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 3, true), 1);
    tap_run(ap);
    char needle[64];
    snprintf(needle, sizeof needle, "cport %u: incoming request 0x0e", hd);
    CU_ASSERT_TRUE(tap_trace_find(ap, from, needle) >= 0);
    vm_gpio_stats gs;
    vm_gpio_get_stats(g, &gs);
    CU_ASSERT_EQUAL(gs.irq_events, 1);
    CU_ASSERT_EQUAL(gs.irq_rejected, 0);
    vm_interface_stats is;
    vm_interface_get_stats(intf0(ap), &is);
    CU_ASSERT_EQUAL(is.rx_responses, 1); /* the AP's answer came back to the module */
    CU_ASSERT_EQUAL(tap_incoming_dropped(ap), 0);
    down();
}

static void test_battery_event_and_uart_data_reach_the_ap(void)
{
    tap *ap = up("battery");
    size_t from = tap_trace_count(ap);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(intf0(ap), "battery set capacity 9", 0, &reply), 0);
    tap_run(ap);
    char needle[64];
    snprintf(needle, sizeof needle, "cport %u: incoming request 0x07", tap_hd_cport(ap, 2, 1));
    CU_ASSERT_TRUE(tap_trace_find(ap, from, needle) >= 0);
    down();

    ap = up("uart");
    from = tap_trace_count(ap);
    vm_uart *u = vm_interface_uart(intf0(ap), 1);
    CU_ASSERT_EQUAL(vm_uart_inject_rx(u, (const uint8_t *)"x", 1, 0), 0);
    tap_run(ap);
    snprintf(needle, sizeof needle, "cport %u: incoming request 0x03", tap_hd_cport(ap, 2, 1));
    CU_ASSERT_TRUE(tap_trace_find(ap, from, needle) >= 0);
    down();
}

static void test_events_of_a_suspended_bundle_are_lost_not_queued(void)
{
    tap *ap = up("sensor");
    uint16_t hd = tap_hd_cport(ap, 2, 1);
    const uint8_t type[2] = {3, GB_GPIO_IRQ_TYPE_EDGE_BOTH}, line = 3;
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_GPIO_TYPE_IRQ_TYPE, type, 2, NULL, 0), 0);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_GPIO_TYPE_IRQ_UNMASK, &line, 1, NULL, 0), 0);
    CU_ASSERT_EQUAL_FATAL(tap_bundle_suspend(ap, 2, 1), 0);
    vm_gpio *g = vm_interface_gpio(intf0(ap), 1);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(intf0(ap), 1), VM_BUNDLE_SUSPENDED);
    CU_ASSERT_FALSE(vm_interface_cport_connected(intf0(ap), 1));
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 3, true), -ENOTCONN);
    CU_ASSERT_EQUAL(tap_bundle_resume(ap, 2, 1), 0);
    CU_ASSERT_EQUAL(vm_interface_bundle_state(intf0(ap), 1), VM_BUNDLE_ACTIVE);
    CU_ASSERT_TRUE(vm_interface_cport_connected(intf0(ap), 1));
    /* the IRQ configuration survived the suspend; the next edge is delivered */
    size_t from = tap_trace_count(ap);
    CU_ASSERT_EQUAL(vm_gpio_set_input(g, 3, false), 1);
    tap_run(ap);
    char needle[64];
    snprintf(needle, sizeof needle, "cport %u: incoming request 0x0e", tap_hd_cport(ap, 2, 1));
    CU_ASSERT_TRUE(tap_trace_find(ap, from, needle) >= 0);
    vm_gpio_stats gs;
    vm_gpio_get_stats(g, &gs);
    CU_ASSERT_EQUAL(gs.irq_lost, 1);
    CU_ASSERT_EQUAL(gs.irq_events, 1);
    CU_ASSERT_EQUAL(tap_functional(ap, 2, 1), 0);
    down();
}

int main(int argc, char **argv)
{
    static const unit_test tests[] = {
        UNIT_TEST(test_gpio_irq_event_reaches_the_ap_and_its_answer_comes_back),
        UNIT_TEST(test_battery_event_and_uart_data_reach_the_ap),
        UNIT_TEST(test_events_of_a_suspended_bundle_are_lost_not_queued),
        UNIT_TESTS_END,
    };
    const unit_suite suites[] = {{"vm_ap_path", tests, 0, 0}, UNIT_SUITES_END};
    return unit_run(suites, argc, argv);
}
