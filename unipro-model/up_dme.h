// SPDX-License-Identifier: MIT
// The DME of a node: its attribute table (standard PA, DL, N, T and DDBL1 attributes plus
// vendor attributes the SVC may define), DME_GET/DME_SET with the UniPro result codes, and
// the attributes that act: N_DeviceID, the T_* CPort attributes with T_ConnectionState
// connecting the CPort, and PA_PWRMode starting a power mode change of the node's link
// from PA_TxGear, PA_ActiveTxDataLanes and PA_HSSeries. Peer accesses (DME_PEER_GET/SET)
// are the same calls on the peer's DME; up_dme_peer_access_time() says what they cost.
#ifndef GBVP_UNIPRO_MODEL_UP_DME_H
#define GBVP_UNIPRO_MODEL_UP_DME_H

#include <stdint.h>

#include "unipro-model/up_node.h"

typedef struct up_dme up_dme;

/* The DME of `node` (borrowed; must outlive the DME). NULL on no memory. */
up_dme *up_dme_new(up_node *node);
void up_dme_free(up_dme *d);

/* UP_DME_SUCCESS or a UniPro result code (UP_DME_INVALID_ATTR, _READ_ONLY, _BAD_INDEX,
 * _INVALID_VALUE, _LOCKED, _BUSY). The selector is the CPort for T_* attributes and the
 * lane for M-PHY ones; 0 otherwise. */
int up_dme_get(up_dme *d, uint16_t attr, uint16_t selector, uint32_t *value);
int up_dme_set(up_dme *d, uint16_t attr, uint16_t selector, uint32_t value);
/* Defines (or overwrites) an attribute the node itself owns, read-only to DME_SET when
 * read_only (DDBL1 identifiers, vendor attributes). UP_DME_SUCCESS or UP_DME_BUSY (table
 * full). */
int up_dme_define(up_dme *d, uint16_t attr, uint16_t selector, uint32_t value, bool read_only);

/* Modelled duration of one DME_PEER_GET/SET over link l: a request and a confirm PACP frame
 * at the link's current rate, each opening a burst, plus processing in the peer. */
sim_time up_dme_peer_access_time(const up_link *l, sim_time processing);

#endif
