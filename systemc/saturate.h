// SPDX-License-Identifier: MIT
// The HS-G3B x2 saturate example of `gbvp model` (docs/performance-model.md):
//   gbvp model --gear HS-G3B --lanes 2 --size 2048 --switch --duration 10ms
// node A (DeviceID 2) -> switch S (15 ports) -> node B (DeviceID 3), both links HS-G3B x2,
// A's CPort 0 saturating B's CPort 0 with 2048-byte Greybus payloads, no E2EFC; without the
// switch (`with_switch` false) one link A - B, as `gbvp model` without --switch.
// Built in the order `gbvp model` builds it, so that on any scheduler honouring the contract
// the run is event for event the same, and printed in the same form as `gbvp model`.
#ifndef GBVP_SYSTEMC_SATURATE_H
#define GBVP_SYSTEMC_SATURATE_H

#include <cstdint>
#include <cstdio>

#include "systemc/sc_network.h"

namespace gbvp_sc {

struct saturate_cfg {
    bool with_switch = true;
    const char *gear = "HS-G3B";
    unsigned lanes = 2;
    unsigned size = 2048; /* Greybus payload bytes per message */
};

struct saturate_net {
    up_node *a = nullptr, *b = nullptr;
    sw_switch *sw = nullptr;
    up_link *links[2] = { nullptr, nullptr };
    unsigned n_links = 0;
    up_traffic *flow = nullptr;
    saturate_cfg cfg;
};

/* Builds the example on `net` (throws std::runtime_error as network does). */
saturate_net saturate_build(network &net, const saturate_cfg &cfg);

/* Goodput of the flow over `ran` ps, bits per second. */
double saturate_goodput(const saturate_net &s, sim_time ran);

/* What `gbvp model` prints: a first line with simulated and wall time and events, then the
 * links, the switch's input queues and the flow, in the same format. */
void saturate_print(const saturate_net &s, sim_time ran, double wall, uint64_t events,
                    FILE *out);

}  // namespace gbvp_sc

#endif
