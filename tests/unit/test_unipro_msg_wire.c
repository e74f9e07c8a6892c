// SPDX-License-Identifier: MIT
// The message-level wire (up_msg_wire): a message's frames back to back with the PHY's
// arithmetic, burst opening after idle, the AFCs the receiver owes on the other direction,
// the acknowledgement when a burst pauses, pauses for power mode changes, and the floor a
// switch puts on a relayed message's last frame. Expected values are computed here from
// the PHY functions, not read back from the wire.
#include "tests/unit/unit.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_env.h"
#include "unipro-model/up_msg_wire.h"
#include "unipro-model/up_port.h"

static up_phy_cfg hs_g3b_x2(void)
{
    return (up_phy_cfg){ UP_PHY_HS, 3, UP_SERIES_B, 2 };
}

/* An idle direction in mode c with the default PHY parameters (pair it after the copy). */
static up_msg_wire idle_wire(const up_phy_cfg *c)
{
    up_phy_params pp = up_phy_params_default();
    up_msg_wire w;
    up_msg_wire_init(&w, c, &pp);
    return w;
}

static sim_time syms(const up_phy_cfg *c, uint64_t n)
{
    return up_phy_symbols_time(up_phy_symbol_ps_fp16(c), n);
}

static void test_shape_cuts_messages_into_frames(void)
{
    up_msg_shape m = up_msg_shape_of(0, UP_SEGMENT_MAX);
    CU_ASSERT_EQUAL(m.frames, 1);
    CU_ASSERT_EQUAL(m.syms, up_frame_symbols(0));
    m = up_msg_shape_of(UP_SEGMENT_MAX, UP_SEGMENT_MAX);
    CU_ASSERT_EQUAL(m.frames, 1);
    m = up_msg_shape_of(UP_SEGMENT_MAX + 1, UP_SEGMENT_MAX);
    CU_ASSERT_EQUAL(m.frames, 2);
    CU_ASSERT_EQUAL(m.first_syms, up_frame_symbols(UP_SEGMENT_MAX));
    CU_ASSERT_EQUAL(m.last_syms, up_frame_symbols(1));
    CU_ASSERT_EQUAL(m.syms, m.first_syms + m.last_syms);
    m = up_msg_shape_of(2048, 256);
    CU_ASSERT_EQUAL(m.frames, 8);
    CU_ASSERT_EQUAL(m.syms, 8 * up_frame_symbols(256));
    /* a segment size out of range means the largest */
    CU_ASSERT_EQUAL(up_msg_shape_of(1000, 0).frames, 4);
}

static void test_idle_wire_opens_a_burst_and_back_to_back_messages_do_not(void)
{
    up_phy_cfg c = hs_g3b_x2();
    up_phy_params pp = up_phy_params_default();
    up_msg_wire w = idle_wire(&c);
    up_msg_shape m = up_msg_shape_of(1000, UP_SEGMENT_MAX);
    sim_time open = up_phy_burst_open_time(&c, &pp), lat = pp.tx_latency + pp.rx_latency;
    up_msg_times t = up_msg_wire_send(&w, &m, 1000, 0, 0);
    CU_ASSERT_EQUAL(t.first_in, 1000 + open + syms(&c, m.first_syms) + lat);
    CU_ASSERT_EQUAL(t.end, 1000 + open + syms(&c, m.syms));
    CU_ASSERT_EQUAL(t.delivered, t.end + lat);
    /* sent while the wire is busy: it follows without a new burst */
    up_msg_times t2 = up_msg_wire_send(&w, &m, 1000, 0, 0);
    CU_ASSERT_EQUAL(t2.end, t.end + syms(&c, m.syms));
    /* within the burst hold after the wire went idle: no opening either */
    sim_time later = t2.end + pp.burst_hold;
    up_msg_times t3 = up_msg_wire_send(&w, &m, later, 0, 0);
    CU_ASSERT_EQUAL(t3.end, later + syms(&c, m.syms));
    /* after it: a new burst */
    later = t3.end + pp.burst_hold + 1;
    up_msg_times t4 = up_msg_wire_send(&w, &m, later, 0, 0);
    CU_ASSERT_EQUAL(t4.end, later + open + syms(&c, m.syms));
    /* not before `not_before` */
    up_msg_times t5 = up_msg_wire_send(&w, &m, t4.end, t4.end + SIM_US(50), 0);
    CU_ASSERT_EQUAL(t5.end, t4.end + SIM_US(50) + open + syms(&c, m.syms));
}

static void test_afcs_owed_stretch_the_next_message_on_the_other_direction(void)
{
    up_phy_cfg c = hs_g3b_x2();
    up_msg_wire a = idle_wire(&c), b = idle_wire(&c);
    up_msg_wire_pair(&a, &b);
    up_msg_shape big = up_msg_shape_of(20 * UP_SEGMENT_MAX, UP_SEGMENT_MAX); /* 20 frames */
    up_msg_shape one = up_msg_shape_of(8, UP_SEGMENT_MAX);
    /* b is busy with a long message while a sends 20 frames: 20 / 4 = 5 AFCs are owed */
    up_msg_times tb = up_msg_wire_send(&b, &big, 0, 0, 0);
    up_msg_wire_send(&a, &big, 0, 0, 0);
    up_msg_times tb2 = up_msg_wire_send(&b, &one, 0, 0, 0);
    unsigned afcs = 20 / (up_dl_params_default().out_ack_threshold + 1);
    CU_ASSERT_EQUAL(tb2.end, tb.end + syms(&c, one.syms + afcs * UP_AFC_SYMS));
    /* paid once */
    up_msg_times tb3 = up_msg_wire_send(&b, &one, 0, 0, 0);
    CU_ASSERT_EQUAL(tb3.end, tb2.end + syms(&c, one.syms));
}

static void test_a_paused_burst_is_acknowledged_before_the_reply(void)
{
    /* at PWM-G1 an AFC takes microseconds: a reply sent when the request is in waits for
     * the acknowledgement of the request, which opened the burst */
    up_phy_cfg c = { UP_PHY_PWM, 1, 0, 1 };
    up_phy_params pp = up_phy_params_default();
    up_msg_wire a = idle_wire(&c), b = idle_wire(&c);
    up_msg_wire_pair(&a, &b);
    up_msg_shape req = up_msg_shape_of(8, UP_SEGMENT_MAX), resp = up_msg_shape_of(10, UP_SEGMENT_MAX);
    sim_time open = up_phy_burst_open_time(&c, &pp), lat = pp.tx_latency + pp.rx_latency;
    sim_time afc = syms(&c, UP_AFC_SYMS);
    up_msg_times tr = up_msg_wire_send(&a, &req, 0, 0, 0);
    up_msg_times tp = up_msg_wire_send(&b, &resp, tr.delivered, 0, 0);
    sim_time afc_end = tr.delivered + open + afc;
    CU_ASSERT_EQUAL(tp.first_in, afc_end + syms(&c, resp.first_syms) + lat);
    CU_ASSERT_EQUAL(tp.end, afc_end + syms(&c, resp.syms));
    /* the response's frame is acknowledged in turn before the next request */
    up_msg_times tr2 = up_msg_wire_send(&a, &req, tp.delivered, 0, 0);
    CU_ASSERT_EQUAL(tr2.end, tp.delivered + open + afc + syms(&c, req.syms));
    /* a reply long after: the AFC went out on its own, the reply opens a new burst */
    sim_time late = tr2.delivered + SIM_MS(1);
    up_msg_times tp2 = up_msg_wire_send(&b, &resp, late, 0, 0);
    CU_ASSERT_EQUAL(tp2.end, late + open + syms(&c, resp.syms));
    /* nothing owed any more */
    sim_time later = tp2.delivered + SIM_MS(1);
    CU_ASSERT_EQUAL(up_msg_wire_send(&b, &resp, later, 0, 0).end,
                    later + open + syms(&c, resp.syms));
}

static void test_a_relayed_message_waits_for_its_last_frame(void)
{
    up_phy_cfg c = hs_g3b_x2();
    up_phy_params pp = up_phy_params_default();
    up_msg_wire w = idle_wire(&c);
    up_msg_shape m = up_msg_shape_of(2048, UP_SEGMENT_MAX);
    sim_time floor = SIM_US(40);
    up_msg_times t = up_msg_wire_send(&w, &m, 0, 0, floor);
    CU_ASSERT_EQUAL(t.end, floor + syms(&c, m.last_syms));
    /* a floor the wire would meet anyway changes nothing */
    w = idle_wire(&c);
    t = up_msg_wire_send(&w, &m, 0, 0, 1);
    CU_ASSERT_EQUAL(t.end, up_phy_burst_open_time(&c, &pp) + syms(&c, m.syms));
}

static void test_a_pause_delays_the_wire_and_a_new_mode_changes_its_rate(void)
{
    up_phy_cfg c = hs_g3b_x2(), slow = { UP_PHY_HS, 1, UP_SERIES_A, 1 };
    up_phy_params pp = up_phy_params_default();
    up_msg_wire w = idle_wire(&c);
    up_msg_shape m = up_msg_shape_of(256, UP_SEGMENT_MAX);
    up_msg_times t = up_msg_wire_send(&w, &m, 0, 0, 0);
    /* paused while still sending: the pause counts from the end of the message */
    up_msg_wire_pause(&w, 0, SIM_US(100));
    up_msg_wire_set_phy(&w, &slow, &pp);
    up_msg_times t2 = up_msg_wire_send(&w, &m, 0, 0, 0);
    CU_ASSERT_EQUAL(t2.end, t.end + SIM_US(100) + up_phy_burst_open_time(&slow, &pp) +
                                syms(&slow, m.syms));
    CU_ASSERT(syms(&slow, m.syms) > syms(&c, m.syms));
}

static const unit_test wire_tests[] = {
    UNIT_TEST(test_shape_cuts_messages_into_frames),
    UNIT_TEST(test_idle_wire_opens_a_burst_and_back_to_back_messages_do_not),
    UNIT_TEST(test_afcs_owed_stretch_the_next_message_on_the_other_direction),
    UNIT_TEST(test_a_paused_burst_is_acknowledged_before_the_reply),
    UNIT_TEST(test_a_relayed_message_waits_for_its_last_frame),
    UNIT_TEST(test_a_pause_delays_the_wire_and_a_new_mode_changes_its_rate),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "unipro_msg_wire", wire_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
