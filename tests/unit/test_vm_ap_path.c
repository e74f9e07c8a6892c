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
#include "virtual-modules/usb.h"
#include "virtual-modules/camera.h"
#include "virtual-modules/audio.h"
#include "virtual-modules/audio_stream.h"
#include "gblink/gblink.h"
#include "sim/bridge.h"

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

/* The usb and camera modules are exercised here, against the AP model, and not in the guest,
 * because no 6.1 kernel ever sends their requests:
 * - drivers/staging/greybus/usb.c:197-201, gb_usb_probe: `if (1) { dev_warn(dev, "USB
 *   protocol disabled\n"); retval = -EPROTONOSUPPORT; goto exit_connection_disable; }`: the
 *   CPort is connected and disconnected again, no HCD is added, and the hub driver never
 *   issues a HUB_CONTROL;
 * - drivers/staging/greybus/Kconfig:37, GREYBUS_CAMERA `depends on MEDIA_SUPPORT &&
 *   LEDS_CLASS_FLASH && BROKEN`: camera.c is never built and class 0x0d bundles stay unbound.
 * So the test AP sends what those drivers would send, over the real path (the simulator's SVC
 * created the connection, messages cross the switch fabric). The AP model binds the USB
 * CPort's bridged-PHY bundle as it does every gbphy bundle and keeps its connection (6.1
 * would drop it); the camera bundle it binds only when told to, standing in for camera.c's
 * probe. */
static void hub_req(uint8_t *p, uint16_t req, uint16_t value, uint16_t index, uint16_t length)
{
    gb_put_le16(p, req);
    gb_put_le16(p + 2, value);
    gb_put_le16(p + 4, index);
    gb_put_le16(p + 6, length);
}

static void test_usb_root_hub_answers_the_ap_through_the_switch(void)
{
    tap *ap = up("usb");
    CU_ASSERT_TRUE_FATAL(tap_interface(ap, 2).enabled);
    uint16_t hd = tap_hd_cport(ap, 2, 1);
    CU_ASSERT_NOT_EQUAL_FATAL(hd, 0);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_USB_TYPE_HCD_START, NULL, 0, NULL, 0), 0);
    /* hub_configure's descriptor read: wLength 15, the response exactly 15 bytes */
    uint8_t req[GB_USB_HUB_CONTROL_SIZE], desc[15];
    hub_req(req, USB_HUB_GET_HUB_DESCRIPTOR, USB_DT_HUB << 8, 0, sizeof desc);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_USB_TYPE_HUB_CONTROL, req, sizeof req, desc,
                                sizeof desc), 0);
    const uint8_t want[15] = {9, USB_DT_HUB, 2, 0x09, 0x00, 10, 0, 0x00, 0xff};
    CU_ASSERT_EQUAL(memcmp(desc, want, sizeof want), 0);
    for (uint16_t port = 1; port <= 2; port++) {
        hub_req(req, USB_HUB_SET_PORT_FEATURE, USB_PORT_FEAT_POWER, port, 0);
        CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_USB_TYPE_HUB_CONTROL, req, sizeof req, NULL, 0),
                        0);
    }
    /* a device plugged into port 2 shows in its status, with the change bit */
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(intf0(ap), "usb connect 2 full", 0, &reply), 0);
    uint8_t st[4];
    hub_req(req, USB_HUB_GET_PORT_STATUS, 0, 2, sizeof st);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_USB_TYPE_HUB_CONTROL, req, sizeof req, st, sizeof st),
                    0);
    CU_ASSERT_EQUAL(gb_get_le16(st), USB_PORT_STAT_POWER | USB_PORT_STAT_CONNECTION);
    CU_ASSERT_EQUAL(gb_get_le16(st + 2), USB_PORT_STAT_C_CONNECTION);
    /* what a hub stalls reaches the driver as -EINVAL (6.1 maps no status to -EPIPE) */
    hub_req(req, USB_HUB_GET_PORT_STATUS, 0, 3, sizeof st);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_USB_TYPE_HUB_CONTROL, req, sizeof req, st, sizeof st),
                    -EINVAL);
    CU_ASSERT_EQUAL(vm_backend_command(intf0(ap), "usb status", 0, &reply), 0);
    const vm_value *v = vm_reply_get(&reply, "port2_change");
    CU_ASSERT_TRUE(v && v->i == USB_PORT_STAT_C_CONNECTION);
    v = vm_reply_get(&reply, "running");
    CU_ASSERT_TRUE(v && v->i == 1);
    CU_ASSERT_EQUAL(tap_incoming_dropped(ap), 0);
    down();
}

static void test_camera_configure_capture_flush_through_the_switch(void)
{
    tap *ap = up("camera");
    /* as in 6.1: no driver for class 0x0d, the bundle unbound, its CPorts unconnected */
    CU_ASSERT_EQUAL(tap_interface(ap, 2).bound_bundles, 0);
    CU_ASSERT_EQUAL(tap_hd_cport(ap, 2, 1), 0);
    /* camera.c's probe: the management connection, with a handler for METADATA */
    CU_ASSERT_EQUAL_FATAL(tap_bundle_bind(ap, 2, 1, GB_PROTOCOL_CAMERA_MGMT), 0);
    uint16_t hd = tap_hd_cport(ap, 2, 1);
    CU_ASSERT_NOT_EQUAL_FATAL(hd, 0);
    CU_ASSERT_EQUAL(tap_hd_cport(ap, 2, 2), 0); /* data: only for configured streams */
    CU_ASSERT_TRUE(vm_interface_cport_connected(intf0(ap), 1));
    /* CONFIGURE_STREAMS: 1280x720 UYVY and 640x480 NV12, both as asked */
    uint8_t req[4 + 2 * 8] = {2, 0, 0, 0}, resp[8 + 2 * 16];
    gb_put_le16(req + 4, 1280);
    gb_put_le16(req + 6, 720);
    gb_put_le16(req + 8, GB_CAMERA_FORMAT_UYVY);
    gb_put_le16(req + 12, 640);
    gb_put_le16(req + 14, 480);
    gb_put_le16(req + 16, GB_CAMERA_FORMAT_NV12);
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_CAMERA_TYPE_CONFIGURE_STREAMS, req, sizeof req, resp,
                                sizeof resp), 0);
    CU_ASSERT_EQUAL(resp[0], 2);
    CU_ASSERT_EQUAL(resp[1], 0);
    CU_ASSERT_EQUAL(gb_get_le16(resp + 8 + 16 + 9), 640 * 12 / 8); /* NV12 line bytes */
    /* CAPTURE request 42 of both streams until flushed; a frame's METADATA reaches the AP */
    uint8_t cap[8] = {42, 0, 0, 0, 0x3, 0, 0, 0};
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_CAMERA_TYPE_CAPTURE, cap, sizeof cap, NULL, 0), 0);
    size_t from = tap_trace_count(ap);
    vm_reply reply;
    CU_ASSERT_EQUAL(vm_backend_command(intf0(ap), "camera frame", 0, &reply), 0);
    tap_run(ap);
    char needle[64];
    snprintf(needle, sizeof needle, "cport %u: incoming request 0x06", hd);
    CU_ASSERT_TRUE(tap_trace_find(ap, from, needle) >= 0);
    /* FLUSH answers the last request id; a capture of a stream not configured is refused */
    uint8_t id[4];
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_CAMERA_TYPE_FLUSH, NULL, 0, id, sizeof id), 0);
    CU_ASSERT_EQUAL(gb_get_le32(id), 42);
    cap[4] = 0x4;
    CU_ASSERT_EQUAL(tap_conn_op(ap, hd, GB_CAMERA_TYPE_CAPTURE, cap, sizeof cap, NULL, 0),
                    -EINVAL);
    CU_ASSERT_EQUAL(vm_backend_command(intf0(ap), "camera status", 0, &reply), 0);
    const vm_value *v = vm_reply_get(&reply, "captures");
    CU_ASSERT_TRUE(v && v->i == 1);
    v = vm_reply_get(&reply, "frames");
    CU_ASSERT_TRUE(v && v->i == 1);
    CU_ASSERT_EQUAL(tap_bundle_bind(ap, 2, 1, GB_PROTOCOL_CAMERA_MGMT), -EBUSY);
    CU_ASSERT_EQUAL(tap_incoming_dropped(ap), 0);
    down();
}

/* An APBridgeA audio request to the simulator's bridge, as greybus-es2 forwards it. */
static uint8_t apba(const uint8_t *req, size_t len)
{
    return sim_bridge_audio_control(sim_simulator_bridge(sim_local_simulator(RIG)), req, len);
}

/* Playback as 6.1 would run it if its AIF widget powered up (gbaudio_module_enable_tx and
 * the codec DAI's ops): the bridge's stream crosses the switch to the speaker's data CPort
 * once a millisecond, and the module takes every message. */
static void test_audio_stream_from_the_bridge_reaches_the_speaker(void)
{
    tap *ap = up("speaker");
    CU_ASSERT_TRUE_FATAL(tap_interface(ap, 2).enabled);
    /* (the test AP has no gb-audio: the test binds the bundle as it does) */
    CU_ASSERT_EQUAL_FATAL(tap_bundle_bind(ap, 2, 1, GB_PROTOCOL_AUDIO_MGMT), 0);
    CU_ASSERT_EQUAL_FATAL(tap_bundle_bind(ap, 2, 1, GB_PROTOCOL_AUDIO_DATA), 0);
    CU_ASSERT_EQUAL(tap_bundle_bind(ap, 2, 1, GB_PROTOCOL_AUDIO_DATA), -EBUSY);
    uint16_t mgmt = tap_hd_cport(ap, 2, 1), data = tap_hd_cport(ap, 2, 2);
    CU_ASSERT_NOT_EQUAL_FATAL(mgmt, 0);
    CU_ASSERT_NOT_EQUAL_FATAL(data, 0);
    static const uint8_t set_config[15] = { 0x01, 0, 0, 0x02, 0, 0, 0, 0x80, 0, 0, 0,
                                            0x00, 0xc0, 0x5d, 0x00 };
    static const uint8_t tx_size[5] = { 0x04, 0, 0, 192, 0 };
    const uint8_t reg[6] = { 0x02, 0, 0, (uint8_t)data, (uint8_t)(data >> 8), 0x01 };
    static const uint8_t prepare[3] = { 0x06, 0, 0 }, start[11] = { 0x07, 0, 0 };
    static const uint8_t stop[3] = { 0x08, 0, 0 };
    CU_ASSERT_EQUAL(apba(set_config, sizeof set_config), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(apba(tx_size, sizeof tx_size), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(apba(reg, sizeof reg), GBL_STATUS_OK);
    /* SET_PCM {data_cport 2, S16_LE, 48000 Hz, 2 channels, 16 bits}, SET_TX_DATA_SIZE 192,
     * ACTIVATE_TX, on the management connection */
    const uint8_t pcm[12] = { 2, 0, 0x04, 0, 0, 0, 0x80, 0, 0, 0, 2, 16 };
    const uint8_t size[4] = { 2, 0, 192, 0 }, cport[2] = { 2, 0 };
    CU_ASSERT_EQUAL(tap_conn_op(ap, mgmt, GB_AUDIO_TYPE_SET_PCM, pcm, sizeof pcm, NULL, 0), 0);
    CU_ASSERT_EQUAL(tap_conn_op(ap, mgmt, GB_AUDIO_TYPE_SET_TX_DATA_SIZE, size, sizeof size,
                                NULL, 0), 0);
    CU_ASSERT_EQUAL(tap_conn_op(ap, mgmt, GB_AUDIO_TYPE_ACTIVATE_TX, cport, sizeof cport, NULL,
                                0), 0);
    CU_ASSERT_EQUAL(apba(prepare, sizeof prepare), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(apba(start, sizeof start), GBL_STATUS_OK);
    sim_simulator *sim = sim_local_simulator(RIG);
    sim_simulator_process(sim, sim_simulator_now(sim) + SIM_US(9500));
    CU_ASSERT_EQUAL(apba(stop, sizeof stop), GBL_STATUS_OK);
    sim_simulator_process(sim, sim_simulator_now(sim) + SIM_MS(5));
    vm_audio *a = vm_interface_audio(intf0(ap), 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    const vm_audio_stream *st = vm_audio_get_stream(a, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    sim_bridge_audio_state b = sim_bridge_audio_get_state(
        sim_bridge_get_audio(sim_simulator_bridge(sim)));
    /* messages at 0..9 ms; each crossed the switch and was taken whole */
    CU_ASSERT_EQUAL(b.tx.messages, 10);
    CU_ASSERT_EQUAL(st->messages, 10);
    CU_ASSERT_EQUAL(st->bytes, 1920);
    CU_ASSERT_EQUAL(st->frames, 480);
    CU_ASSERT_EQUAL(st->dropped_inactive + st->dropped_size, 0);
    CU_ASSERT_EQUAL(st->last_timestamp, 9000000u); /* ns of stream time */
    CU_ASSERT_EQUAL(st->session_peak, 0); /* the bridge's I2S input is silent */
    /* nothing arrived at the AP: the bridge's stream does not go there */
    CU_ASSERT_EQUAL(tap_incoming_dropped(ap), 0);
    down();
}

int main(int argc, char **argv)
{
static const unit_test tests[] = {
        UNIT_TEST(test_gpio_irq_event_reaches_the_ap_and_its_answer_comes_back),
        UNIT_TEST(test_battery_event_and_uart_data_reach_the_ap),
        UNIT_TEST(test_events_of_a_suspended_bundle_are_lost_not_queued),
        UNIT_TEST(test_usb_root_hub_answers_the_ap_through_the_switch),
        UNIT_TEST(test_camera_configure_capture_flush_through_the_switch),
        UNIT_TEST(test_audio_stream_from_the_bridge_reaches_the_speaker),
        UNIT_TESTS_END,
    };
    const unit_suite suites[] = {{"vm_ap_path", tests, 0, 0}, UNIT_SUITES_END};
    return unit_run(suites, argc, argv);
}
