// SPDX-License-Identifier: MIT
// The record types: names and the payload-length rules every sent and received record must
// satisfy (docs/gblink.md, "Record types").
#include <errno.h>
#include <stdio.h>

#include "gblink.h"

typedef struct type_rule {
    uint16_t type;
    const char *name;
    uint32_t min_len;
    uint32_t max_len;
    int needs_cport;               /* cport must be a real hd CPort id, not GBL_CPORT_NONE */
} type_rule;

static const type_rule rules[] = {
    { GBL_T_HELLO, "hello", sizeof(gbl_hello), sizeof(gbl_hello), 0 },
    { GBL_T_LINK_UP, "link-up", sizeof(gbl_link_state), sizeof(gbl_link_state), 0 },
    { GBL_T_LINK_DOWN, "link-down", sizeof(gbl_link_state), sizeof(gbl_link_state), 0 },
    { GBL_T_TIME_GRANT, "time-grant", sizeof(gbl_time_grant), sizeof(gbl_time_grant), 0 },
    { GBL_T_GB_MESSAGE, "gb-message", 8, GBL_MAX_PAYLOAD, 1 },
    { GBL_T_CPORT_RESET, "cport-reset", 0, 0, 1 },
    { GBL_T_CPORT_CONNECTED, "cport-connected", 0, 0, 1 },
    { GBL_T_CPORT_QUIESCE, "cport-quiesce", sizeof(gbl_cport_quiesce),
      sizeof(gbl_cport_quiesce), 1 },
    { GBL_T_CPORT_CLEAR, "cport-clear", 0, 0, 1 },
    { GBL_T_CPORT_FLUSH, "cport-flush", 0, 0, 1 },
    { GBL_T_CPORT_SHUTDOWN, "cport-shutdown", sizeof(gbl_cport_shutdown),
      sizeof(gbl_cport_shutdown), 1 },
    { GBL_T_CPORT_FLAGS, "cport-flags", sizeof(gbl_cport_flags), sizeof(gbl_cport_flags), 1 },
    { GBL_T_LATENCY_TAG_ENABLE, "latency-tag-enable", 0, 0, 1 },
    { GBL_T_LATENCY_TAG_DISABLE, "latency-tag-disable", 0, 0, 1 },
    { GBL_T_TIMESYNC_ENABLE, "timesync-enable", sizeof(gbl_timesync_enable),
      sizeof(gbl_timesync_enable), 0 },
    { GBL_T_TIMESYNC_DISABLE, "timesync-disable", 0, 0, 0 },
    { GBL_T_TIMESYNC_AUTHORITATIVE, "timesync-authoritative",
      sizeof(gbl_timesync_authoritative), sizeof(gbl_timesync_authoritative), 0 },
    { GBL_T_TIMESYNC_GET_LAST_EVENT, "timesync-get-last-event", 0, 0, 0 },
    { GBL_T_LOG_REQUEST, "log-request", 0, 0, 0 },
    { GBL_T_AUDIO_CONTROL, "audio-control", 3, GBL_AUDIO_CONTROL_MAX, 0 },
    { GBL_T_RESULT, "result", sizeof(gbl_result), GBL_MAX_PAYLOAD, 0 },
};

static const type_rule *find_rule(uint16_t type)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (rules[i].type == type)
            return &rules[i];
    return NULL;
}

const char *gbl_type_name(uint16_t type)
{
    const type_rule *r = find_rule(type);

    if (type == GBL_T_PAD)
        return "pad";
    return r ? r->name : "unknown";
}

int gbl_record_check(const gbl_record *rec, char *err, size_t errlen)
{
    const type_rule *r = find_rule(rec->type);

    if (!r) {
        if (err)
            snprintf(err, errlen, "unknown record type 0x%02x", rec->type);
        return -EINVAL;
    }
    if (rec->len < r->min_len || rec->len > r->max_len) {
        if (err) {
            if (r->min_len == r->max_len)
                snprintf(err, errlen, "%s record with %u payload bytes: must have %u",
                         r->name, rec->len, r->min_len);
            else
                snprintf(err, errlen, "%s record with %u payload bytes: must have %u..%u",
                         r->name, rec->len, r->min_len, r->max_len);
        }
        return -EINVAL;
    }
    if (rec->len && !rec->payload) {
        if (err)
            snprintf(err, errlen, "%s record of %u bytes without a payload pointer",
                     r->name, rec->len);
        return -EINVAL;
    }
    if (r->needs_cport && rec->cport == GBL_CPORT_NONE) {
        if (err)
            snprintf(err, errlen, "%s record without an hd CPort id", r->name);
        return -EINVAL;
    }
    return 0;
}
