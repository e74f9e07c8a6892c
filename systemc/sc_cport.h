// SPDX-License-Identifier: MIT
// TLM-2.0 sockets at a CPort: a SystemC platform attaches its own AP or module model to one
// CPort of a node of a gbvp_sc::network, and exchanges whole Greybus messages with it.
//
//   tx  simple_target_socket: the platform sends. b_transport with TLM_WRITE_COMMAND, data =
//       one Greybus message (header + payload, 1..65535 bytes), address ignored. It first
//       waits out the annotated delay (the initiator's local time offset, so the message
//       enters the CPort at the initiator's time), queues the message on the CPort
//       (up_cport_send) and returns once its last segment has left the CPort for the data
//       link: the UniPro back-pressure. Call it from an SC_THREAD. Responses:
//       TLM_OK_RESPONSE; TLM_COMMAND_ERROR_RESPONSE for anything but a write;
//       TLM_BYTE_ENABLE_ERROR_RESPONSE for byte enables; TLM_BURST_ERROR_RESPONSE for a
//       streaming width below the length (one at or above it is no streaming);
//       TLM_GENERIC_ERROR_RESPONSE when the CPort refuses (not connected, empty) or is
//       disconnected with disconnect() before the message left.
//   rx  simple_initiator_socket: the platform receives. When a whole message has arrived at
//       the CPort (the model's delivery time), a thread of this module calls b_transport
//       with TLM_WRITE_COMMAND, address = the CPort number, data = the message; the
//       target may annotate a delay (its processing time), which this module waits out
//       before the next delivery. Messages wait in arrival order meanwhile.
//
// Blocking transport (b_transport) because a Greybus message is one unit with no phases a
// platform needs to see; the timing inside the network is the model's. Both sockets must be
// bound. The module takes over the CPort's recv and sent callbacks (up_cport_set_handler);
// disconnect its CPort with disconnect(), not up_cport_disconnect alone, which drops the
// queued messages without a word to the senders waiting for them.
#ifndef GBVP_SYSTEMC_SC_CPORT_H
#define GBVP_SYSTEMC_SC_CPORT_H

#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

extern "C" {
#include "unipro-model/up_node.h"
}

namespace gbvp_sc {

class cport_socket : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<cport_socket> tx;
    tlm_utils::simple_initiator_socket<cport_socket> rx;

    SC_HAS_PROCESS(cport_socket);
    /* Throws std::invalid_argument for a CPort the node does not have. */
    cport_socket(const sc_core::sc_module_name &name, up_node *node, unsigned cport);

    /* up_cport_disconnect, then the b_transport calls waiting for the messages it dropped
     * return TLM_GENERIC_ERROR_RESPONSE. 0 or its error. */
    int disconnect();

    uint64_t sent() const { return sent_; }           /* messages that left the CPort */
    uint64_t delivered() const { return delivered_; } /* messages handed to rx */

private:
    struct arrival {
        std::vector<uint8_t> bytes;
    };

    void b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay);
    void deliver();
    static void on_recv(void *ctx, up_node *n, unsigned cport, up_msg *m, sim_time latency);
    static void on_sent(void *ctx, up_node *n, unsigned cport, up_msg *m);
    static const up_node_ops ops_;

    up_node *node_;
    unsigned cport_;
    uint64_t next_tag_ = 0, sent_ = 0, delivered_ = 0;
    uint64_t sent_tag_ = 0;    /* the last message that left */
    uint64_t dropped_tag_ = 0; /* up to this one, disconnect() dropped those not sent */
    std::deque<arrival> inbox_;
    sc_core::sc_event sent_ev_, inbox_ev_;
};

}  // namespace gbvp_sc

#endif
