// SPDX-License-Identifier: MIT
#include "sim/network.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "switch-model/switch_transit.h"
#include "switch-model/switch_transit_msg.h"
#include "unipro-model/up_consts.h"
#include "unipro-model/up_env.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_stats.h"

typedef struct dir_acc {
    sim_net_dir_stats s;
    up_hist latency;
} dir_acc;

/* A fault of sim_net_link_fault waiting for its time. */
typedef struct timed_fault {
    struct sim_net *n;
    unsigned port;
    sim_link_fault f;  /* applied at once when due */
    sim_event ev;     /* .id 0: the entry is free */
} timed_fault;

struct sim_net {
    sim_net_cfg cfg;
    timed_fault timed[SIM_NET_TIMED_FAULTS];
    const sim_scheduler *sched;
    up_env *env;
    sw_transit *tr;         /* frame level, or: */
    sw_msg_transit *mt;     /* message level */
    sim_net_deliver_fn deliver;
    void *ctx;
    uint64_t untimed;
    dir_acc dir[SIM_NET_DIRS];
};

static const char *const dir_names[SIM_NET_DIRS] = {
    "ap_to_intf", "intf_to_ap", "ap_to_svc", "svc_to_ap", "intf_to_intf",
};

const char *sim_net_dir_name(sim_net_dir dir)
{
    return dir < SIM_NET_DIRS ? dir_names[dir] : "?";
}

static sim_net_dir dir_of(const sim_net *n, const gb_svc_path *p)
{
    if (p->dst_intf == SIM_NET_SVC_INTF)
        return SIM_NET_AP_TO_SVC;
    if (p->src_intf == SIM_NET_SVC_INTF)
        return SIM_NET_SVC_TO_AP;
    if (p->src_intf == n->cfg.ap_intf)
        return SIM_NET_AP_TO_INTF;
    if (p->dst_intf == n->cfg.ap_intf)
        return SIM_NET_INTF_TO_AP;
    return SIM_NET_INTF_TO_INTF;
}

static void arrived(void *ctx, const gb_svc_path *p, const uint8_t *msg, size_t len,
                    sim_time sent, sim_time now)
{
    sim_net *n = ctx;
    dir_acc *d = &n->dir[dir_of(n, p)];
    d->s.last_latency = now - sent;
    up_hist_add(&d->latency, now - sent);
    d->s.delivered_msgs++;
    d->s.delivered_bytes += len;
    n->deliver(n->ctx, p, msg, len, now);
}

sim_net *sim_net_new(const sim_scheduler *sched, const sim_net_cfg *cfg, sim_net_deliver_fn fn,
                     void *ctx, char *err, size_t errlen)
{
    if (up_phy_cfg_check(&cfg->phy, err, errlen))
        return NULL;
    if (!(cfg->ber >= 0 && cfg->ber < 1e-2)) {
        snprintf(err, errlen, "bit error rate %g outside [0, 0.01)", cfg->ber);
        return NULL;
    }
    if (cfg->message_level && cfg->ber > 0) {
        snprintf(err, errlen, "the message-level timing does not model bit errors (use "
                 "--timing frame)");
        return NULL;
    }
    if (cfg->ports < 3 || cfg->ports > SW_PORTS_MAX || cfg->ap_intf >= cfg->ports - 1) {
        snprintf(err, errlen, "switch of %u ports cannot hold the AP and the SVC", cfg->ports);
        return NULL;
    }
    sim_net *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->cfg = *cfg;
    n->sched = sched;
    n->deliver = fn;
    n->ctx = ctx;
    for (int i = 0; i < SIM_NET_DIRS; i++)
        up_hist_init(&n->dir[i].latency);
    n->env = up_env_new(sched);
    sw_transit_cfg tc = sw_transit_cfg_default();
    tc.sw.ports = cfg->ports;
    tc.link.phy = cfg->phy;
    tc.link.faults.ber = cfg->ber;
    tc.link.faults.seed = cfg->seed ? cfg->seed : 1;
    if (cfg->message_level)
        n->mt = n->env ? sw_msg_transit_new(sched, cfg->ports, &cfg->phy, arrived, n) : NULL;
    else
        n->tr = n->env ? sw_transit_new(n->env, &tc, arrived, n) : NULL;
    if (!n->tr && !n->mt) {
        snprintf(err, errlen, "cannot build the timed network (out of memory)");
        sim_net_free(n);
        return NULL;
    }
    return n;
}

void sim_net_free(sim_net *n)
{
    if (!n)
        return;
    for (unsigned i = 0; i < SIM_NET_TIMED_FAULTS; i++)
        if (n->timed[i].ev.id)
            sim_cancel(n->sched, n->timed[i].ev);
    sw_transit_free(n->tr);
    sw_msg_transit_free(n->mt);
    up_env_free(n->env);
    free(n);
}

gb_svc_path sim_net_svc_path(const sim_net *n, bool to_svc)
{
    gb_svc_path ap = { .src_intf = n->cfg.ap_intf, .src_device_id = 1, .in_port = n->cfg.ap_intf };
    gb_svc_path svc = { .src_intf = SIM_NET_SVC_INTF, .src_device_id = 0,
                        .in_port = n->cfg.ports - 1 };
    gb_svc_path from = to_svc ? ap : svc, to = to_svc ? svc : ap;
    return (gb_svc_path){ .src_intf = from.src_intf, .dst_intf = to.src_intf,
                          .src_cport = 0, .dst_cport = 0,
                          .src_device_id = from.src_device_id, .dst_device_id = to.src_device_id,
                          .in_port = from.in_port, .out_port = to.in_port };
}

int sim_net_send(sim_net *n, const gb_svc_path *p, const uint8_t *msg, size_t len)
{
    dir_acc *d = &n->dir[dir_of(n, p)];
    int rc = n->mt ? sw_msg_transit_message(n->mt, p, msg, len)
                   : sw_transit_message(n->tr, p, msg, len);
    if (rc) {
        n->untimed++;
        return rc;
    }
    d->s.sent_msgs++;
    d->s.sent_bytes += len;
    return 0;
}

int sim_net_power_mode(sim_net *n, uint8_t intf_id, const uint8_t *req, size_t len)
{
    return n->mt ? sw_msg_transit_power_mode(n->mt, intf_id, req, len)
                 : sw_transit_power_mode(n->tr, intf_id, req, len);
}

void sim_net_sync(sim_net *n, const gb_svc *svc)
{
    for (unsigned i = 0; i < gb_svc_num_slots(svc); i++) {
        uint8_t id = gb_svc_slot_intf_id(svc, i);
        gb_svc_intf_info in;
        if (n->mt) {
            if (gb_svc_get_intf(svc, id, &in) && in.present && in.unipro && in.active &&
                !in.hibernated)
                sw_msg_transit_wake(n->mt, id);
            continue;
        }
        up_link *l = sw_transit_link(n->tr, id); /* port of interface i is i */
        if (!l || !gb_svc_get_intf(svc, id, &in) || !in.present || !in.unipro || !in.active ||
            in.hibernated)
            continue;
        up_link_state st = up_link_get_state(l);
        if (st == UP_LINK_HIBERN8)
            up_link_hibernate(l, false);
        else if (st == UP_LINK_DOWN)
            up_link_set_down(l, false);
    }
}

sim_net_dir_stats sim_net_get_dir_stats(const sim_net *n, sim_net_dir dir)
{
    return dir < SIM_NET_DIRS ? n->dir[dir].s : (sim_net_dir_stats){ 0 };
}

bool sim_net_link_cfg(const sim_net *n, unsigned port, up_phy_cfg *out)
{
    if (n->mt) {
        bool parked;
        if (port >= n->cfg.ports)
            return false;
        sw_msg_transit_link(n->mt, port, out, &parked);
        return true;
    }
    up_link *l = sw_transit_link(n->tr, port);
    if (!l)
        return false;
    *out = up_link_get_cfg(l)->phy;
    return true;
}

size_t sim_net_in_flight(const sim_net *n)
{
    uint64_t sent = 0, delivered = 0;
    for (int i = 0; i < SIM_NET_DIRS; i++) {
        sent += n->dir[i].s.sent_msgs;
        delivered += n->dir[i].s.delivered_msgs;
    }
    return (size_t)(sent - delivered);
}

uint64_t sim_net_replays(const sim_net *n)
{
    uint64_t r = 0;
    for (unsigned p = 0; n->tr && p < n->cfg.ports; p++) {
        up_link *l = sw_transit_link(n->tr, p);
        if (l)
            r += up_port_stats_get(up_link_port(l, 0))->tx_replays +
                 up_port_stats_get(up_link_port(l, 1))->tx_replays;
    }
    return r;
}

static up_link *control_link(sim_net *n, unsigned port, char *err, size_t errlen)
{
    if (n->mt) {
        snprintf(err, errlen, "the message-level timing has no link faults or runtime power "
                 "modes (use --timing frame)");
        return NULL;
    }
    up_link *l = port < n->cfg.ports ? sw_transit_link(n->tr, port) : NULL;
    if (!l)
        snprintf(err, errlen, "the link of switch port %u has carried no traffic yet (insert "
                 "the module and let the AP enumerate it first)", port);
    return l;
}

int sim_net_link_set(sim_net *n, unsigned port, const up_phy_cfg *phy, char *err,
                     size_t errlen)
{
    up_link *l = control_link(n, port, err, errlen);
    if (!l)
        return -ENODEV;
    int rc = up_link_set_power_mode(l, phy, err, errlen);
    if (rc == -EBUSY)
        snprintf(err, errlen, "the link of switch port %u is %s, not up: no power mode change "
                 "now", port, up_link_state_name(up_link_get_state(l)));
    return rc;
}

static int check_fault(const sim_link_fault *f, char *err, size_t errlen)
{
    if (f->set_ber && !(f->ber >= 0 && f->ber < 1e-2)) {
        snprintf(err, errlen, "bit error rate %g outside [0, 0.01)", f->ber);
        return -EINVAL;
    }
    if (f->set_drop && !(f->drop >= 0 && f->drop < 1)) {
        snprintf(err, errlen, "drop probability %g outside [0, 1)", f->drop);
        return -EINVAL;
    }
    if (f->down_for && !(f->set_down && f->down)) {
        snprintf(err, errlen, "down_for goes with down = true");
        return -EINVAL;
    }
    return 0;
}

static void apply_fault(up_link *l, const sim_link_fault *f)
{
    up_fault_cfg fc = up_link_get_cfg(l)->faults;
    if (f->set_ber)
        fc.ber = f->ber;
    if (f->set_drop)
        fc.drop = f->drop;
    if (f->set_ber || f->set_drop)
        up_link_set_faults(l, &fc); /* checked: cannot fail */
    if (f->set_down)
        up_link_set_down(l, f->down);
}

static void timed_fault_due(void *ctx)
{
    timed_fault *t = ctx;
    t->ev = SIM_EVENT_NONE;
    up_link *l = sw_transit_link(t->n->tr, t->port);
    if (l) /* links, once made, last as long as the network */
        apply_fault(l, &t->f);
}

static int schedule_fault(sim_net *n, unsigned port, const sim_link_fault *f, sim_time delay)
{
    for (unsigned i = 0; i < SIM_NET_TIMED_FAULTS; i++) {
        timed_fault *t = &n->timed[i];
        if (t->ev.id)
            continue;
        *t = (timed_fault){ .n = n, .port = port, .f = *f };
        return sim_schedule(n->sched, delay, timed_fault_due, t, &t->ev) ? -ENOMEM : 0;
    }
    return -ENOSPC;
}

int sim_net_link_fault(sim_net *n, unsigned port, const sim_link_fault *f, char *err,
                       size_t errlen)
{
    up_link *l = control_link(n, port, err, errlen);
    if (!l)
        return -ENODEV;
    int rc = check_fault(f, err, errlen);
    if (rc)
        return rc;
    unsigned free_slots = 0, need = (f->delay ? 1u : 0u) + (f->down_for ? 1u : 0u);
    for (unsigned i = 0; i < SIM_NET_TIMED_FAULTS; i++)
        free_slots += !n->timed[i].ev.id;
    if (need > free_slots) {
        snprintf(err, errlen, "more than %u timed faults pending", SIM_NET_TIMED_FAULTS);
        return -ENOSPC;
    }
    if (!f->delay)
        apply_fault(l, f);
    else if (schedule_fault(n, port, f, f->delay))
        return -ENOMEM;
    if (f->down_for) {
        sim_link_fault up = { .set_down = true, .down = false };
        if (schedule_fault(n, port, &up, f->delay + f->down_for))
            return -ENOMEM;
    }
    return 0;
}

bool sim_net_link_info_get(const sim_net *n, unsigned port, sim_net_link_info *out)
{
    up_link *l = n->tr && port < n->cfg.ports ? sw_transit_link(n->tr, port) : NULL;
    if (!l)
        return false;
    const up_link_cfg *c = up_link_get_cfg(l);
    *out = (sim_net_link_info){ .phy = c->phy, .ber = c->faults.ber, .drop = c->faults.drop,
                                .state = up_link_state_name(up_link_get_state(l)) };
    for (unsigned side = 0; side < 2; side++) {
        const up_port_stats *st = up_port_stats_get(up_link_port(l, side));
        out->frames += st->tx_frames;
        out->replays += st->tx_replays;
        out->replay_timeouts += st->tx_replay_timeouts;
        out->crc_errors += st->rx_crc_errors;
        out->dropped += st->rx_dropped;
        out->duplicates += st->rx_duplicates;
    }
    return true;
}

static const char *port_name(const sim_net *n, unsigned port, char *buf, size_t len)
{
    if (port == n->cfg.ports - 1)
        snprintf(buf, len, "svc");
    else if (port == n->cfg.ap_intf)
        snprintf(buf, len, "ap");
    else
        snprintf(buf, len, "intf%u", port);
    return buf;
}

void sim_net_print(const sim_net *n, FILE *out)
{
    for (int i = 0; i < SIM_NET_DIRS; i++) {
        const dir_acc *d = &n->dir[i];
        if (!d->s.sent_msgs && !d->s.delivered_msgs)
            continue;
        fprintf(out, "timing %-12s sent %llu msgs %llu B, delivered %llu msgs %llu B, latency "
                "mean %.2f us p99 %.2f us max %.2f us\n", dir_names[i],
                (unsigned long long)d->s.sent_msgs, (unsigned long long)d->s.sent_bytes,
                (unsigned long long)d->s.delivered_msgs,
                (unsigned long long)d->s.delivered_bytes, up_hist_mean(&d->latency) / 1e6,
                (double)up_hist_quantile(&d->latency, 0.99) / 1e6,
                (double)d->latency.max / 1e6);
    }
    for (unsigned p = 0; n->mt && p < n->cfg.ports; p++) {
        char name[16], mode[32];
        up_phy_cfg c;
        bool parked;
        sw_msg_transit_link(n->mt, p, &c, &parked);
        up_phy_cfg_name(&c, mode, sizeof mode);
        fprintf(out, "timing link %-6s %s%s (message level)\n", port_name(n, p, name, sizeof name),
                mode, parked ? " hibern8" : "");
    }
    for (unsigned p = 0; n->tr && p < n->cfg.ports; p++) {
        up_link *l = sw_transit_link(n->tr, p);
        if (!l)
            continue;
        char name[16], mode[32];
        up_phy_cfg_name(&up_link_get_cfg(l)->phy, mode, sizeof mode);
        const up_port_stats *up = up_port_stats_get(up_link_port(l, 0));
        const up_port_stats *dn = up_port_stats_get(up_link_port(l, 1));
        fprintf(out, "timing link %-6s %s %s: to switch %llu frames %llu B, from switch %llu "
                "frames %llu B, replays %llu, CRC errors %llu\n", port_name(n, p, name, sizeof name),
                mode, up_link_state_name(up_link_get_state(l)),
                (unsigned long long)up->tx_frames, (unsigned long long)up->tx_payload_bytes,
                (unsigned long long)dn->tx_frames, (unsigned long long)dn->tx_payload_bytes,
                (unsigned long long)(up->tx_replays + dn->tx_replays),
                (unsigned long long)(up->rx_crc_errors + dn->rx_crc_errors));
    }
    if (n->untimed)
        fprintf(out, "timing: %llu messages the model refused were delivered untimed\n",
                (unsigned long long)n->untimed);
}

static void json_port(FILE *out, const up_port_stats *s)
{
    fprintf(out, "{\"frames\": %llu, \"payload_bytes\": %llu, \"wire_bytes\": %llu, "
            "\"afc\": %llu, \"nac\": %llu, \"replays\": %llu, \"busy_ps\": %llu, "
            "\"rx_crc_errors\": %llu, \"rx_dropped\": %llu}",
            (unsigned long long)s->tx_frames, (unsigned long long)s->tx_payload_bytes,
            (unsigned long long)s->tx_wire_bytes, (unsigned long long)s->tx_afc,
            (unsigned long long)s->tx_nac, (unsigned long long)s->tx_replays,
            (unsigned long long)s->tx_busy, (unsigned long long)s->rx_crc_errors,
            (unsigned long long)s->rx_dropped);
}

int sim_net_write_json(const sim_net *n, FILE *out)
{
    char mode[32];
    up_phy_cfg_name(&n->cfg.phy, mode, sizeof mode);
    fprintf(out, "{\n  \"time_ps\": %llu,\n  \"initial_link\": \"%s\",\n  \"ber\": %g,\n"
            "  \"untimed_messages\": %llu,\n  \"directions\": {",
            (unsigned long long)sim_now(n->sched), mode, n->cfg.ber,
            (unsigned long long)n->untimed);
    for (int i = 0; i < SIM_NET_DIRS; i++) {
        const dir_acc *d = &n->dir[i];
        fprintf(out, "%s\n    \"%s\": {\"sent_msgs\": %llu, \"sent_bytes\": %llu, "
                "\"delivered_msgs\": %llu, \"delivered_bytes\": %llu, \"latency_ps\": "
                "{\"count\": %llu, \"mean\": %.0f, \"p50\": %llu, \"p99\": %llu, \"min\": %llu, "
                "\"max\": %llu}}", i ? "," : "", dir_names[i],
                (unsigned long long)d->s.sent_msgs, (unsigned long long)d->s.sent_bytes,
                (unsigned long long)d->s.delivered_msgs, (unsigned long long)d->s.delivered_bytes,
                (unsigned long long)d->latency.count, up_hist_mean(&d->latency),
                (unsigned long long)up_hist_quantile(&d->latency, 0.5),
                (unsigned long long)up_hist_quantile(&d->latency, 0.99),
                (unsigned long long)(d->latency.count ? d->latency.min : 0),
                (unsigned long long)d->latency.max);
    }
    fprintf(out, "\n  },\n  \"level\": \"%s\",\n  \"links\": [", n->mt ? "message" : "frame");
    bool first = true;
    for (unsigned p = 0; n->mt && p < n->cfg.ports; p++) {
        char name[16];
        up_phy_cfg c;
        bool parked;
        sw_msg_transit_link(n->mt, p, &c, &parked);
        up_phy_cfg_name(&c, mode, sizeof mode);
        fprintf(out, "%s\n    {\"port\": %u, \"end\": \"%s\", \"mode\": \"%s\", \"state\": "
                "\"%s\"}", first ? "" : ",", p, port_name(n, p, name, sizeof name), mode,
                parked ? "hibern8" : "up");
        first = false;
    }
    for (unsigned p = 0; n->tr && p < n->cfg.ports; p++) {
        up_link *l = sw_transit_link(n->tr, p);
        if (!l)
            continue;
        char name[16];
        up_phy_cfg_name(&up_link_get_cfg(l)->phy, mode, sizeof mode);
        fprintf(out, "%s\n    {\"port\": %u, \"end\": \"%s\", \"mode\": \"%s\", \"state\": "
                "\"%s\", \"to_switch\": ", first ? "" : ",", p, port_name(n, p, name, sizeof name),
                mode, up_link_state_name(up_link_get_state(l)));
        json_port(out, up_port_stats_get(up_link_port(l, 0)));
        fprintf(out, ", \"from_switch\": ");
        json_port(out, up_port_stats_get(up_link_port(l, 1)));
        const sw_port_stats *sp = sw_switch_port_stats(sw_transit_switch(n->tr), p);
        fprintf(out, ", \"switch_in\": {\"frames\": %llu, \"forwarded\": %llu, "
                "\"dropped_unrouted\": %llu, \"hol_blocked_ps\": %llu, \"max_depth\": %u}}",
                (unsigned long long)sp->rx_frames, (unsigned long long)sp->forwarded,
                (unsigned long long)sp->dropped_unrouted, (unsigned long long)sp->hol_blocked,
                sp->depth.max);
        first = false;
    }
    fprintf(out, "\n  ]\n}\n");
    return ferror(out) ? -EIO : 0;
}

int sim_net_parse_link(up_phy_cfg *c, const char *gear, const char *series, const char *lanes,
                       char *err, size_t errlen)
{
    up_phy_cfg n = *c;
    if (series && strcasecmp(series, "A") && strcasecmp(series, "B")) {
        snprintf(err, errlen, "--series %s: want A or B", series);
        return -EINVAL;
    }
    if (gear) {
        char g[16];
        snprintf(g, sizeof g, "%s", gear);
        size_t len = strlen(g);
        /* "HS-G2" takes its series from --series (default A) */
        if (len == 5 && !strncasecmp(g, "HS-G", 4) && len + 1 < sizeof g) {
            g[5] = series ? series[0] : 'A';
            g[6] = 0;
        }
        if (strlen(gear) >= sizeof g || up_phy_cfg_parse_gear(&n, g)) {
            snprintf(err, errlen, "--gear %s: want HS-G1..HS-G3 with series A or B (HS-G1B) "
                     "or PWM-G1..PWM-G7", gear);
            return -EINVAL;
        }
    }
    if (series && (!gear || strlen(gear) != 5)) {
        n.series = (series[0] == 'A' || series[0] == 'a') ? UP_SERIES_A : UP_SERIES_B;
    }
    if (lanes) {
        if (strcmp(lanes, "1") && strcmp(lanes, "2")) {
            snprintf(err, errlen, "--lanes %s: want 1 or 2 (the Ara switch has at most 2)",
                     lanes);
            return -EINVAL;
        }
        n.lanes = (uint8_t)(lanes[0] - '0');
    }
    if (n.mode == UP_PHY_HS && n.gear > 3) {
        snprintf(err, errlen, "--gear %s: the Ara switch and bridges stop at HS-G3", gear);
        return -EINVAL;
    }
    if (up_phy_cfg_check(&n, err, errlen))
        return -EINVAL;
    *c = n;
    return 0;
}
