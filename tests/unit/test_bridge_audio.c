// SPDX-License-Identifier: MIT
// Unit tests of sim/bridge_audio.c: the APBridgeA's audio side as gb-audio-codec drives it
// (the request sequence of audio_codec.c: set_config at hw_params, the TX data size at
// prepare, register_cport when the module's AIF widget powers up, prepare_tx + start_tx at
// unmute, and the reverse), and the stream it sends while TX runs.
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "gblink/gblink.h"
#include "sim/bridge_audio.h"
#include "tests/unit/unit.h"

#define SENT_MAX 64

typedef struct sent {
    uint16_t hd_cport;
    sim_time at;
    uint8_t type;
    uint16_t operation_id;
    size_t payload_len;
    uint64_t timestamp;
    int silent;
} sent;

typedef struct world {
    sim_event_kernel *k;
    sim_bridge_audio *a;
    sent out[SENT_MAX];
    unsigned n;
} world;

static void record_send(void *ctx, uint16_t hd_cport, const gb_msg *m)
{
    world *w = ctx;
    if (w->n == SENT_MAX)
        return;
    sent *s = &w->out[w->n++];
    const uint8_t *p = gb_msg_payload(m);
    s->hd_cport = hd_cport;
    s->at = sim_event_kernel_now(w->k);
    s->type = m->h.type;
    s->operation_id = m->h.operation_id;
    s->payload_len = gb_msg_payload_len(m);
    s->timestamp = 0;
    for (unsigned i = 0; i < 8 && i < s->payload_len; i++)
        s->timestamp |= (uint64_t)p[i] << (8 * i);
    s->silent = 1;
    for (size_t i = 8; i < s->payload_len; i++)
        s->silent &= p[i] == 0;
}

static void world_init(world *w)
{
    memset(w, 0, sizeof *w);
    w->k = sim_event_kernel_new(0);
    w->a = sim_bridge_audio_new(sim_event_kernel_scheduler(w->k), 44, record_send, w, NULL,
                                NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w->a);
}

static void world_free(world *w)
{
    sim_bridge_audio_free(w->a);
    sim_event_kernel_free(w->k);
}

static uint8_t req(world *w, const uint8_t *b, size_t len)
{
    return sim_bridge_audio_request(w->a, b, len);
}

/* The requests, as audio_apbridgea.c lays them out. */
static uint8_t set_config(world *w, uint32_t format, uint32_t rate)
{
    uint8_t b[15] = { 0x01, 0, 0 };
    for (int i = 0; i < 4; i++) {
        b[3 + i] = (uint8_t)(format >> (8 * i));
        b[7 + i] = (uint8_t)(rate >> (8 * i));
        b[11 + i] = (uint8_t)(6144000u >> (8 * i));
    }
    return req(w, b, sizeof b);
}

static uint8_t cport_req(world *w, uint8_t type, uint16_t cport, uint8_t direction)
{
    uint8_t b[6] = { type, 0, 0, (uint8_t)cport, (uint8_t)(cport >> 8), direction };
    return req(w, b, sizeof b);
}

static uint8_t data_size(world *w, uint8_t type, uint16_t size)
{
    uint8_t b[5] = { type, 0, 0, (uint8_t)size, (uint8_t)(size >> 8) };
    return req(w, b, sizeof b);
}

static uint8_t step(world *w, uint8_t type)
{
    uint8_t b[11] = { type, 0, 0 };
    return req(w, b, type == 0x07 ? 11 : 3);
}

/* What gb-audio-codec does for playback at 48 kHz, 16-bit: up to start_tx. */
static void start_playback(world *w, uint16_t cport)
{
    CU_ASSERT_EQUAL(set_config(w, 0x2, 0x80), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(data_size(w, 0x04, 192), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(w, 0x02, cport, 0x1), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(w, 0x06), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(w, 0x07), GBL_STATUS_OK);
}

static void test_playback_streams_one_message_per_millisecond(void)
{
    world w;
    world_init(&w);
    start_playback(&w, 5);
    sim_bridge_audio_state st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_TRUE(st.configured);
    CU_ASSERT_EQUAL(st.format_bits, 16);
    CU_ASSERT_EQUAL(st.rate_hz, 48000);
    CU_ASSERT_EQUAL(st.mclk_hz, 6144000);
    CU_ASSERT_TRUE(st.tx.started);
    sim_event_kernel_run_until(w.k, SIM_US(9500));
    /* 192 bytes of 16-bit stereo at 48 kHz = 48 frames = 1 ms: messages at 0, 1, ... 9 ms */
    CU_ASSERT_EQUAL_FATAL(w.n, 10);
    for (unsigned i = 0; i < w.n; i++) {
        CU_ASSERT_EQUAL(w.out[i].hd_cport, 5);
        CU_ASSERT_EQUAL(w.out[i].at, SIM_MS(i));
        CU_ASSERT_EQUAL(w.out[i].type, 0x15); /* SEND_DATA */
        CU_ASSERT_EQUAL(w.out[i].operation_id, 0); /* unidirectional */
        CU_ASSERT_EQUAL(w.out[i].payload_len, 8 + 192);
        CU_ASSERT_EQUAL(w.out[i].timestamp, (uint64_t)i * 1000000u);
        CU_ASSERT_TRUE(w.out[i].silent);
    }
    st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_EQUAL(st.tx.messages, 10);
    CU_ASSERT_EQUAL(st.tx.bytes, 1920);
    /* stop: nothing more is sent */
    CU_ASSERT_EQUAL(step(&w, 0x08), GBL_STATUS_OK);
    sim_event_kernel_run_until(w.k, SIM_MS(50));
    CU_ASSERT_EQUAL(w.n, 10);
    CU_ASSERT_EQUAL(step(&w, 0x09), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x03, 5, 0x1), GBL_STATUS_OK);
    st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_FALSE(st.tx.prepared);
    CU_ASSERT_EQUAL(st.tx.cports, 0);
    world_free(&w);
}

static void test_the_period_follows_rate_format_and_data_size(void)
{
    world w;
    world_init(&w);
    /* 8 kHz, 32-bit, 256 bytes: 256 / (8000 * 4 * 2) s = 4 ms */
    CU_ASSERT_EQUAL(set_config(&w, 0x8, 0x2), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 256), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 7, 0x1), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 9, 0x1), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x06), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x07), GBL_STATUS_OK);
    sim_event_kernel_run_until(w.k, SIM_MS(10));
    /* at 0, 4 and 8 ms, to both CPorts */
    CU_ASSERT_EQUAL_FATAL(w.n, 6);
    CU_ASSERT_EQUAL(w.out[2].at, SIM_MS(4));
    CU_ASSERT_EQUAL(w.out[2].hd_cport, 7);
    CU_ASSERT_EQUAL(w.out[3].hd_cport, 9);
    CU_ASSERT_EQUAL(w.out[5].payload_len, 8 + 256);
    world_free(&w);
}

static void test_out_of_order_and_malformed_requests_change_nothing(void)
{
    world w;
    world_init(&w);
    uint8_t b[16] = { 0 };
    /* the sequence's preconditions */
    CU_ASSERT_EQUAL(step(&w, 0x06), GBL_STATUS_INVALID);      /* prepare unconfigured */
    CU_ASSERT_EQUAL(set_config(&w, 0x2, 0x80), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x06), GBL_STATUS_INVALID);      /* no data size */
    CU_ASSERT_EQUAL(step(&w, 0x07), GBL_STATUS_INVALID);      /* start unprepared */
    CU_ASSERT_EQUAL(step(&w, 0x08), GBL_STATUS_INVALID);      /* stop not started */
    CU_ASSERT_EQUAL(step(&w, 0x0e), GBL_STATUS_INVALID);      /* stop RX not started */
    /* fields */
    CU_ASSERT_EQUAL(set_config(&w, 0x6, 0x80), GBL_STATUS_INVALID);  /* two formats */
    CU_ASSERT_EQUAL(set_config(&w, 0x2, 0x2000), GBL_STATUS_INVALID); /* no such rate */
    CU_ASSERT_EQUAL(set_config(&w, 0, 0x80), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 0), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 2033), GBL_STATUS_INVALID);  /* past a message */
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 2032), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 0, 0x1), GBL_STATUS_INVALID); /* the SVC's */
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 44, 0x1), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 5, 0x3), GBL_STATUS_INVALID); /* both directions */
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 5, 0x0), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(cport_req(&w, 0x03, 5, 0x1), GBL_STATUS_INVALID); /* not registered */
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 5, 0x1), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 5, 0x1), GBL_STATUS_INVALID); /* twice */
    for (uint16_t c = 6; c < 9; c++)
        CU_ASSERT_EQUAL(cport_req(&w, 0x02, c, 0x1), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 9, 0x1), GBL_STATUS_INVALID); /* a fifth */
    /* framing: short, long, another I2S port, unknown types */
    CU_ASSERT_EQUAL(req(&w, b, 2), GBL_STATUS_INVALID);
    b[0] = 0x06;
    CU_ASSERT_EQUAL(req(&w, b, 4), GBL_STATUS_INVALID);
    b[1] = 1;
    CU_ASSERT_EQUAL(req(&w, b, 3), GBL_STATUS_INVALID);
    b[1] = 0;
    b[0] = 0x05;
    CU_ASSERT_EQUAL(req(&w, b, 3), GBL_STATUS_INVALID);
    b[0] = 0x10;
    CU_ASSERT_EQUAL(req(&w, b, 3), GBL_STATUS_INVALID);
    sim_bridge_audio_state st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_EQUAL(st.refused, 22);
    CU_ASSERT_EQUAL(st.tx.cports, 4);
    CU_ASSERT_EQUAL(st.tx.data_size, 2032);
    CU_ASSERT_FALSE(st.tx.prepared);
    /* while streaming, the configuration and the data size stay */
    CU_ASSERT_EQUAL(step(&w, 0x06), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x07), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(set_config(&w, 0x2, 0x40), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 192), GBL_STATUS_INVALID);
    CU_ASSERT_EQUAL(step(&w, 0x09), GBL_STATUS_INVALID);     /* shutdown while streaming */
    /* 6.1's xrun recovery: the same data size, PREPARE and START again, no STOP first */
    uint64_t refused = sim_bridge_audio_get_state(w.a).refused;
    CU_ASSERT_EQUAL(data_size(&w, 0x04, 2032), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x06), GBL_STATUS_OK);
    CU_ASSERT_EQUAL(step(&w, 0x07), GBL_STATUS_OK);
    st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_EQUAL(st.refused, refused);
    CU_ASSERT_EQUAL(st.restarts, 1);
    CU_ASSERT_EQUAL(st.tx.data_size, 2032);
    CU_ASSERT_EQUAL(st.rate_hz, 48000);
    CU_ASSERT_TRUE(st.tx.started);
    world_free(&w);
}

static void test_random_requests_never_break_the_state(void)
{
    world w;
    world_init(&w);
    srand(7);
    for (int i = 0; i < 20000; i++) {
        uint8_t b[20];
        size_t len = (size_t)(rand() % 17);
        for (size_t j = 0; j < sizeof b; j++)
            b[j] = (uint8_t)(rand() % 4 ? rand() % 16 : rand());
        b[1] = (uint8_t)(rand() % 8 ? 0 : rand());
        b[2] = 0;
        uint8_t status = req(&w, b, len);
        CU_ASSERT_TRUE(status == GBL_STATUS_OK || status == GBL_STATUS_INVALID);
        sim_bridge_audio_state st = sim_bridge_audio_get_state(w.a);
        CU_ASSERT_TRUE(st.tx.cports <= SIM_BRIDGE_AUDIO_CPORTS);
        CU_ASSERT_TRUE(st.rx.cports <= SIM_BRIDGE_AUDIO_CPORTS);
        CU_ASSERT_TRUE(!st.tx.started || st.tx.prepared);
        CU_ASSERT_TRUE(st.tx.data_size <= 2032);
        if (i % 64 == 0)
            sim_event_kernel_run_until(w.k, sim_event_kernel_now(w.k) + SIM_MS(3));
        for (unsigned j = 0; j < w.n; j++)
            CU_ASSERT_TRUE(w.out[j].hd_cport > 0 && w.out[j].hd_cport < 44);
        w.n = 0;
    }
    world_free(&w);
}

static void test_receive_cports_take_module_data_and_reset_forgets(void)
{
    world w;
    world_init(&w);
    uint8_t buf[64];
    uint8_t payload[8 + 16] = { 0 };
    gb_msg m;
    size_t n = gb_msg_build(buf, sizeof buf, 0, 0x15, 0, payload, sizeof payload);
    CU_ASSERT_EQUAL_FATAL(gb_msg_parse(buf, n, &m), 0);
    CU_ASSERT_FALSE(sim_bridge_audio_take(w.a, 6, &m));
    CU_ASSERT_EQUAL(cport_req(&w, 0x02, 6, 0x2), GBL_STATUS_OK);
    CU_ASSERT_TRUE(sim_bridge_audio_take(w.a, 6, &m));
    CU_ASSERT_FALSE(sim_bridge_audio_take(w.a, 7, &m));
    sim_bridge_audio_state st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_EQUAL(st.rx.messages, 1);
    CU_ASSERT_EQUAL(st.rx.bytes, 16);
    start_playback(&w, 5);
    sim_event_kernel_run_until(w.k, SIM_US(2500));
    CU_ASSERT_EQUAL(w.n, 3);
    /* the AP goes away: the stream stops and everything is forgotten */
    sim_bridge_audio_reset(w.a);
    sim_event_kernel_run_until(w.k, SIM_MS(20));
    CU_ASSERT_EQUAL(w.n, 3);
    st = sim_bridge_audio_get_state(w.a);
    CU_ASSERT_FALSE(st.configured);
    CU_ASSERT_FALSE(st.tx.started);
    CU_ASSERT_EQUAL(st.rx.cports, 0);
    CU_ASSERT_FALSE(sim_bridge_audio_take(w.a, 6, &m));
    world_free(&w);
}

static const unit_test audio_tests[] = {
    UNIT_TEST(test_playback_streams_one_message_per_millisecond),
    UNIT_TEST(test_the_period_follows_rate_format_and_data_size),
    UNIT_TEST(test_out_of_order_and_malformed_requests_change_nothing),
    UNIT_TEST(test_random_requests_never_break_the_state),
    UNIT_TEST(test_receive_cports_take_module_data_and_reset_forgets),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "bridge_audio", audio_tests, NULL, NULL },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
