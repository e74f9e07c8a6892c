// SPDX-License-Identifier: MIT
#include "unipro-model/up_dme.h"

#include <errno.h>
#include <stdlib.h>

#include "unipro-model/up_consts.h"
#include "unipro-model/up_link.h"

#define DME_MAX 256

typedef struct dme_attr {
    uint16_t attr, sel;
    uint32_t value;
    bool read_only;
} dme_attr;

/* Pending T_* values of a CPort while it is not connected. */
typedef struct dme_cport {
    uint32_t peer_dev, peer_cport, tc, protocol, flags, tx_token, rx_token, local_space,
        peer_space, mode;
} dme_cport;

struct up_dme {
    up_node *node;
    dme_attr attrs[DME_MAX];
    unsigned n;
    dme_cport *cports;
    /* power mode request being assembled */
    uint32_t tx_gear, rx_gear, tx_lanes, rx_lanes, series, pwr_mode;
};

static dme_attr *find(up_dme *d, uint16_t attr, uint16_t sel)
{
    for (unsigned i = 0; i < d->n; i++)
        if (d->attrs[i].attr == attr && d->attrs[i].sel == sel)
            return &d->attrs[i];
    return NULL;
}

int up_dme_define(up_dme *d, uint16_t attr, uint16_t sel, uint32_t value, bool ro)
{
    dme_attr *a = find(d, attr, sel);
    if (!a) {
        if (d->n == DME_MAX)
            return UP_DME_BUSY;
        a = &d->attrs[d->n++];
        a->attr = attr;
        a->sel = sel;
    }
    a->value = value;
    a->read_only = ro;
    return UP_DME_SUCCESS;
}

up_dme *up_dme_new(up_node *node)
{
    up_dme *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->node = node;
    d->cports = calloc(up_node_cport_count(node), sizeof *d->cports);
    if (!d->cports) {
        free(d);
        return NULL;
    }
    for (unsigned i = 0; i < up_node_cport_count(node); i++) {
        dme_cport *c = &d->cports[i];
        c->flags = UP_CPORT_E2EFC | UP_CPORT_CSD_N | UP_CPORT_CSV_N;
        c->tx_token = c->rx_token = 32;
        c->local_space = c->peer_space = 4096;
        c->mode = 1;
    }
    const up_dl_params *dl = up_port_dl_params(up_node_port(node));
    up_dme_define(d, UP_T_NumCPorts, 0, up_node_cport_count(node), true);
    up_dme_define(d, UP_T_NumTestFeatures, 0, 0, true);
    up_dme_define(d, UP_PA_AvailTxDataLanes, 0, UP_MAX_LANES, true);
    up_dme_define(d, UP_PA_AvailRxDataLanes, 0, UP_MAX_LANES, true);
    up_dme_define(d, UP_PA_MaxRxHSGear, 0, UP_HS_GEARS, true);
    up_dme_define(d, UP_PA_MaxRxPWMGear, 0, UP_PWM_GEARS, true);
    up_dme_define(d, UP_DL_TxPreemptionCap, 0, dl->preemption, true);
    up_dme_define(d, UP_DL_TC0RxInitCreditVal, 0, dl->rx_credits[0], true);
    up_dme_define(d, UP_DL_TC1RxInitCreditVal, 0, dl->rx_credits[1], true);
    up_dme_define(d, UP_DL_TC0TxBufferSize, 0, dl->tx_window, true);
    up_dme_define(d, UP_DL_TC0OutAckThreshold, 0, dl->out_ack_threshold, true);
    up_dme_define(d, UP_DL_TC0ReplayTimeOutVal, 0, (uint32_t)(dl->replay_timeout / SIM_US(1)), true);
    up_dme_define(d, UP_DL_TC0TxMaxSDUSize, 0, UP_DL_MTU, true);
    up_dme_define(d, UP_DME_DDBL1_Revision, 0, 0x10, true);
    up_dme_define(d, UP_DME_DDBL1_Level, 0, 1, true);
    up_dme_define(d, UP_DME_DDBL1_ManufacturerID, 0, 0, true);
    up_dme_define(d, UP_DME_DDBL1_ProductID, 0, 0, true);
    for (uint16_t i = 0; i < 6; i++)
        up_dme_define(d, (uint16_t)(UP_PA_PWRModeUserData0 + i), 0, 0, false);
    return d;
}

void up_dme_free(up_dme *d)
{
    if (!d)
        return;
    free(d->cports);
    free(d);
}

static bool is_cport_attr(uint16_t a)
{
    return a >= UP_T_ConnectionState && a <= UP_T_CPortMode;
}

static const up_phy_cfg *link_phy(up_dme *d)
{
    up_link *l = up_port_link(up_node_port(d->node));
    return l ? &up_link_get_cfg(l)->phy : NULL;
}

static int get_cport(up_dme *d, uint16_t a, unsigned id, uint32_t *v)
{
    const dme_cport *c = &d->cports[id];
    const up_cport_cfg *cc = up_cport_get_cfg(d->node, id);
    switch (a) {
    case UP_T_ConnectionState: *v = cc != NULL; break;
    case UP_T_PeerDeviceID: *v = cc ? cc->peer_dev : c->peer_dev; break;
    case UP_T_PeerCPortID: *v = cc ? cc->peer_cport : c->peer_cport; break;
    case UP_T_TrafficClass: *v = cc ? cc->tc : c->tc; break;
    case UP_T_ProtocolID: *v = c->protocol; break;
    case UP_T_CPortFlags: *v = cc ? cc->flags : c->flags; break;
    case UP_T_TxTokenValue: *v = cc ? cc->token : c->tx_token; break;
    case UP_T_RxTokenValue: *v = cc ? cc->token : c->rx_token; break;
    case UP_T_LocalBufferSpace: *v = cc ? cc->local_buffer : c->local_space; break;
    case UP_T_PeerBufferSpace: *v = cc ? cc->peer_buffer : c->peer_space; break;
    case UP_T_CreditsToSend: *v = 0; break;
    case UP_T_CPortMode: *v = c->mode; break;
    default: return UP_DME_INVALID_ATTR;
    }
    return UP_DME_SUCCESS;
}

int up_dme_get(up_dme *d, uint16_t a, uint16_t sel, uint32_t *v)
{
    if (is_cport_attr(a)) {
        if (sel >= up_node_cport_count(d->node))
            return UP_DME_BAD_INDEX;
        return get_cport(d, a, sel, v);
    }
    const up_phy_cfg *phy = link_phy(d);
    switch (a) {
    case UP_N_DeviceID: *v = up_node_device_id(d->node); return UP_DME_SUCCESS;
    case UP_N_DeviceID_valid: *v = 1; return UP_DME_SUCCESS;
    case UP_PA_TxGear: case UP_PA_RxGear:
        *v = phy ? phy->gear : 0; return UP_DME_SUCCESS;
    case UP_PA_ActiveTxDataLanes: case UP_PA_ActiveRxDataLanes:
    case UP_PA_ConnectedTxDataLanes: case UP_PA_ConnectedRxDataLanes:
        *v = phy ? phy->lanes : 0; return UP_DME_SUCCESS;
    case UP_PA_HSSeries: *v = phy ? phy->series : 0; return UP_DME_SUCCESS;
    case UP_PA_PWRMode: {
        uint32_t m = phy && phy->mode == UP_PHY_HS ? UP_PWRMODE_FAST : UP_PWRMODE_SLOW;
        *v = m << 4 | m;
        return UP_DME_SUCCESS;
    }
    default: break;
    }
    dme_attr *x = find(d, a, sel);
    if (!x)
        return UP_DME_INVALID_ATTR;
    *v = x->value;
    return UP_DME_SUCCESS;
}

static int set_cport(up_dme *d, uint16_t a, unsigned id, uint32_t v)
{
    dme_cport *c = &d->cports[id];
    bool connected = up_cport_connected(d->node, id);
    if (a == UP_T_ConnectionState) {
        if (v > 1)
            return UP_DME_INVALID_VALUE;
        if (!v)
            return up_cport_disconnect(d->node, id) ? UP_DME_INVALID_VALUE : UP_DME_SUCCESS;
        if (connected)
            return UP_DME_SUCCESS;
        if ((c->flags & UP_CPORT_E2EFC) && c->tx_token != c->rx_token)
            return UP_DME_INVALID_VALUE; /* must match when E2EFC is on */
        up_cport_cfg cc = {
            .peer_dev = (uint8_t)c->peer_dev, .peer_cport = (uint16_t)c->peer_cport,
            .tc = (uint8_t)c->tc, .flags = (uint8_t)c->flags, .token = c->tx_token,
            .local_buffer = c->local_space, .peer_buffer = c->peer_space,
        };
        return up_cport_connect(d->node, id, &cc) ? UP_DME_INVALID_VALUE : UP_DME_SUCCESS;
    }
    if (connected)
        return UP_DME_LOCKED;
    switch (a) {
    case UP_T_PeerDeviceID:
        if (v > UP_DEVICE_ID_MAX) return UP_DME_INVALID_VALUE;
        c->peer_dev = v; break;
    case UP_T_PeerCPortID: c->peer_cport = v; break;
    case UP_T_TrafficClass:
        if (v > 1) return UP_DME_INVALID_VALUE;
        c->tc = v; break;
    case UP_T_ProtocolID: c->protocol = v; break;
    case UP_T_CPortFlags:
        if (v > 7) return UP_DME_INVALID_VALUE;
        c->flags = v; break;
    case UP_T_TxTokenValue: c->tx_token = v; break;
    case UP_T_RxTokenValue: c->rx_token = v; break;
    case UP_T_LocalBufferSpace: c->local_space = v; break;
    case UP_T_PeerBufferSpace: c->peer_space = v; break;
    case UP_T_CreditsToSend: break;
    case UP_T_CPortMode:
        if (v < 1 || v > 2) return UP_DME_INVALID_VALUE;
        c->mode = v; break;
    default: return UP_DME_INVALID_ATTR;
    }
    return UP_DME_SUCCESS;
}

/* PA_PWRMode = rx_mode << 4 | tx_mode: FAST/FASTAUTO -> HS, SLOW/SLOWAUTO -> PWM. */
static int power_mode(up_dme *d, uint32_t v)
{
    uint32_t tx = v & 0xf, rx = v >> 4;
    bool valid = (tx == UP_PWRMODE_FAST || tx == UP_PWRMODE_SLOW || tx == UP_PWRMODE_FASTAUTO ||
                  tx == UP_PWRMODE_SLOWAUTO || tx == UP_PWRMODE_UNCHANGED) && rx <= 7;
    if (!valid)
        return UP_DME_INVALID_VALUE;
    up_link *l = up_port_link(up_node_port(d->node));
    if (!l)
        return UP_DME_PEER_FAILURE;
    if (tx == UP_PWRMODE_UNCHANGED)
        return UP_DME_SUCCESS;
    up_phy_cfg c = up_link_get_cfg(l)->phy;
    bool hs = tx == UP_PWRMODE_FAST || tx == UP_PWRMODE_FASTAUTO;
    c.mode = hs ? UP_PHY_HS : UP_PHY_PWM;
    if (d->tx_gear)
        c.gear = (uint8_t)d->tx_gear;
    if (d->tx_lanes)
        c.lanes = (uint8_t)d->tx_lanes;
    if (hs && d->series)
        c.series = (uint8_t)d->series;
    int rc = up_link_set_power_mode(l, &c, NULL, 0);
    if (rc == -EBUSY)
        return UP_DME_BUSY;
    return rc ? UP_DME_INVALID_VALUE : UP_DME_SUCCESS;
}

int up_dme_set(up_dme *d, uint16_t a, uint16_t sel, uint32_t v)
{
    if (is_cport_attr(a)) {
        if (sel >= up_node_cport_count(d->node))
            return UP_DME_BAD_INDEX;
        return set_cport(d, a, sel, v);
    }
    switch (a) {
    case UP_N_DeviceID:
        if (v > UP_DEVICE_ID_MAX)
            return UP_DME_INVALID_VALUE;
        up_node_set_device_id(d->node, (uint8_t)v);
        return UP_DME_SUCCESS;
    case UP_N_DeviceID_valid:
        return v <= 1 ? UP_DME_SUCCESS : UP_DME_INVALID_VALUE;
    case UP_PA_TxGear: case UP_PA_RxGear:
        if (v < 1 || v > UP_PWM_GEARS)
            return UP_DME_INVALID_VALUE;
        if (a == UP_PA_TxGear) d->tx_gear = v; else d->rx_gear = v;
        return UP_DME_SUCCESS;
    case UP_PA_ActiveTxDataLanes: case UP_PA_ActiveRxDataLanes:
        if (v < 1 || v > UP_MAX_LANES)
            return UP_DME_INVALID_VALUE;
        if (a == UP_PA_ActiveTxDataLanes) d->tx_lanes = v; else d->rx_lanes = v;
        return UP_DME_SUCCESS;
    case UP_PA_HSSeries:
        if (v != UP_SERIES_A && v != UP_SERIES_B)
            return UP_DME_INVALID_VALUE;
        d->series = v;
        return UP_DME_SUCCESS;
    case UP_PA_TxTermination: case UP_PA_RxTermination:
        return v <= 1 ? UP_DME_SUCCESS : UP_DME_INVALID_VALUE;
    case UP_PA_PWRMode:
        return power_mode(d, v);
    default: break;
    }
    dme_attr *x = find(d, a, sel);
    if (!x)
        return UP_DME_INVALID_ATTR;
    if (x->read_only)
        return UP_DME_READ_ONLY;
    x->value = v;
    return UP_DME_SUCCESS;
}

sim_time up_dme_peer_access_time(const up_link *l, sim_time processing)
{
    const up_link_cfg *c = up_link_get_cfg(l);
    sim_time pacp = up_phy_burst_open_time(&c->phy, &c->params) +
                    up_phy_symbols_time(up_phy_symbol_ps_fp16(&c->phy), c->params.pacp_symbols);
    return 2 * (pacp + c->params.tx_latency + c->params.rx_latency) + processing;
}
