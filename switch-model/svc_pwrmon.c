// SPDX-License-Identifier: MIT
// The SVC's power monitor: a few rails named after the Ara frame's switch and AP-bridge
// supplies, and per-interface V_SYS samples. Values are in microvolts, microamps and
// microwatts (what Ara's SVC reported), steady with a small ripple derived from the time so
// that successive reads differ plausibly.
#include "switch-model/svc_internal.h"

#include <string.h>

typedef struct svc_rail {
    const char *name;
    uint32_t microvolts;
    uint32_t microamps; /* nominal load */
} svc_rail;

static const svc_rail rails[] = {
    { "VSW_1P1_PLL", 1100000, 12000 },    { "VSW_1P1_CORE", 1100000, 85000 },
    { "VSW_1P8_UNIPRO", 1800000, 21000 }, { "VSW_1P8_IO", 1800000, 4000 },
    { "VAPB1_1P1_CORE", 1100000, 64000 }, { "VAPB1_1P8_UNIPRO", 1800000, 18000 },
    { "VAPB1_1P2_HSIC", 1200000, 9000 },  { "VAPB1_1P8_IO", 1800000, 3000 },
};
#define RAIL_COUNT (sizeof rails / sizeof rails[0])
#define VSYS_MICROVOLTS 3800000u
#define IDLE_MICROWATTS 2000u /* interface powered, link hibernated or idle */

/* +-1.5 % ripple, a deterministic function of time and a seed. */
static uint32_t ripple(sim_time now, uint32_t value, unsigned seed)
{
    uint64_t x = (now / SIM_MS(100)) * 0x9e3779b97f4a7c15ull + seed * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    int64_t pm = (int64_t)(x % 301u) - 150; /* -150..150 = -1.5 %..+1.5 % */
    return (uint32_t)((int64_t)value + (int64_t)value * pm / 10000);
}

static void sample_reply(gb_svc *svc, const gb_msg_header *h, uint8_t result, uint32_t v)
{
    uint8_t r[GB_SVC_PWRMON_SAMPLE_RESP_SIZE];
    r[0] = result;
    gb_put_le32(r + 1, result ? 0 : v);
    svc_send_response(svc, h, GB_OP_SUCCESS, r, sizeof r);
}

static uint32_t measure(uint8_t type, uint32_t uv, uint32_t ua)
{
    switch (type) {
    case GB_SVC_PWRMON_TYPE_VOL:
        return uv;
    case GB_SVC_PWRMON_TYPE_CURR:
        return ua;
    default:
        return (uint32_t)((uint64_t)uv * ua / 1000000u);
    }
}

static bool type_ok(uint8_t t)
{
    return t == GB_SVC_PWRMON_TYPE_CURR || t == GB_SVC_PWRMON_TYPE_VOL ||
           t == GB_SVC_PWRMON_TYPE_PWR;
}

static void intf_sample(gb_svc *svc, const gb_msg_header *h, uint8_t intf_id, uint8_t type)
{
    const svc_intf *in = svc_intf_at(svc, intf_id);
    if (!in || !in->present || !type_ok(type)) {
        sample_reply(svc, h, GB_SVC_PWRMON_GET_SAMPLE_INVAL, 0);
        return;
    }
    uint32_t uv = 0, ua = 0;
    if (in->vsys) {
        uint32_t uw = IDLE_MICROWATTS;
        if (svc_intf_linked(in) && in->ops->power_uw)
            uw = in->ops->power_uw(in->self);
        else if (svc_intf_linked(in))
            uw = 150000u; /* an awake bridge with its link up */
        uv = ripple(svc->now, VSYS_MICROVOLTS, intf_id);
        ua = ripple(svc->now, (uint32_t)((uint64_t)uw * 1000000u / VSYS_MICROVOLTS),
                    intf_id + 100u);
    }
    sample_reply(svc, h, GB_SVC_PWRMON_GET_SAMPLE_OK, measure(type, uv, ua));
}

void svc_pwrmon_request(gb_svc *svc, const gb_msg_header *h, const uint8_t *payload,
                        size_t plen)
{
    size_t count = svc->cfg.no_pwrmon_rails ? 0 : RAIL_COUNT;
    switch (h->type) {
    case GB_SVC_TYPE_PWRMON_RAIL_COUNT_GET: {
        uint8_t n = (uint8_t)count;
        svc_log(svc, SW_LOG_DEBUG, "svc: <- PWRMON_RAIL_COUNT_GET: %u rails", n);
        svc_send_response(svc, h, GB_OP_SUCCESS, &n, 1);
        return;
    }
    case GB_SVC_TYPE_PWRMON_RAIL_NAMES_GET: {
        if (count == 0) {
            svc_send_response(svc, h, GB_OP_INVALID, NULL, 0);
            return;
        }
        uint8_t r[1 + RAIL_COUNT * GB_SVC_PWRMON_RAIL_NAME_BUFSIZE];
        memset(r, 0, sizeof r);
        r[0] = GB_SVC_OP_SUCCESS;
        for (size_t i = 0; i < count; i++)
            memcpy(r + 1 + i * GB_SVC_PWRMON_RAIL_NAME_BUFSIZE, rails[i].name,
                   strlen(rails[i].name));
        svc_send_response(svc, h, GB_OP_SUCCESS, r, 1 + count * GB_SVC_PWRMON_RAIL_NAME_BUFSIZE);
        return;
    }
    case GB_SVC_TYPE_PWRMON_SAMPLE_GET:
        if (plen < GB_SVC_PWRMON_SAMPLE_GET_SIZE) {
            svc->stats.ap_bad_requests++;
            svc_send_response(svc, h, GB_OP_INVALID, NULL, 0);
            return;
        }
        if (payload[0] >= count || !type_ok(payload[1])) {
            sample_reply(svc, h, GB_SVC_PWRMON_GET_SAMPLE_INVAL, 0);
            return;
        }
        {
            const svc_rail *r = &rails[payload[0]];
            uint32_t uv = ripple(svc->now, r->microvolts, payload[0]);
            uint32_t ua = ripple(svc->now, r->microamps, payload[0] + 50u);
            sample_reply(svc, h, GB_SVC_PWRMON_GET_SAMPLE_OK, measure(payload[1], uv, ua));
        }
        return;
    default: /* PWRMON_INTF_SAMPLE_GET */
        if (plen < GB_SVC_PWRMON_SAMPLE_GET_SIZE) {
            svc->stats.ap_bad_requests++;
            svc_send_response(svc, h, GB_OP_INVALID, NULL, 0);
            return;
        }
        intf_sample(svc, h, payload[0], payload[1]);
        return;
    }
}
