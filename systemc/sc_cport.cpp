// SPDX-License-Identifier: MIT
#include "systemc/sc_cport.h"

#include <stdexcept>

namespace gbvp_sc {

const up_node_ops cport_socket::ops_ = { on_recv, on_sent };

cport_socket::cport_socket(const sc_core::sc_module_name &name, up_node *node, unsigned cport)
    : sc_core::sc_module(name), tx("tx"), rx("rx"), node_(node), cport_(cport),
      sent_ev_("sent_ev"), inbox_ev_("inbox_ev")
{
    if (!node || up_cport_set_handler(node, cport, &ops_, this))
        throw std::invalid_argument("cport_socket: no such CPort");
    tx.register_b_transport(this, &cport_socket::b_transport);
    SC_THREAD(deliver);
}

void cport_socket::b_transport(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    if (p.get_command() != tlm::TLM_WRITE_COMMAND) {
        p.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    /* the base protocol's recommended statuses: byte enables are the byte-enable error; a
     * streaming width at or above the length is no streaming at all, only one below it is */
    const unsigned len = p.get_data_length();
    if (p.get_byte_enable_ptr()) {
        p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (p.get_streaming_width() < len) {
        p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    if (!len || len > 65535 || !p.get_data_ptr()) {
        p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    if (delay > sc_core::SC_ZERO_TIME) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
    const uint64_t tag = ++next_tag_;
    if (up_cport_send(node_, cport_, p.get_data_ptr(), len, tag)) {
        next_tag_--;
        p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    while (sent_tag_ < tag && dropped_tag_ < tag)
        sc_core::wait(sent_ev_);
    p.set_response_status(sent_tag_ >= tag ? tlm::TLM_OK_RESPONSE
                                           : tlm::TLM_GENERIC_ERROR_RESPONSE);
}

int cport_socket::disconnect()
{
    const int err = up_cport_disconnect(node_, cport_);
    if (err)
        return err;
    /* the CPort dropped every message not yet sent: their senders wait for nothing now */
    dropped_tag_ = next_tag_;
    sent_ev_.notify(sc_core::SC_ZERO_TIME);
    return 0;
}

void cport_socket::on_sent(void *ctx, up_node *, unsigned, up_msg *m)
{
    cport_socket *c = static_cast<cport_socket *>(ctx);
    c->sent_tag_ = m->tag; /* a CPort's messages leave in order */
    c->sent_++;
    c->sent_ev_.notify(sc_core::SC_ZERO_TIME);
}

void cport_socket::on_recv(void *ctx, up_node *, unsigned, up_msg *m, sim_time)
{
    cport_socket *c = static_cast<cport_socket *>(ctx);
    arrival a;
    if (m->data)
        a.bytes.assign(m->data, m->data + m->len);
    else
        a.bytes.assign(m->len, 0); /* a size-only message of the performance sources */
    c->inbox_.push_back(std::move(a));
    c->inbox_ev_.notify(sc_core::SC_ZERO_TIME);
}

void cport_socket::deliver()
{
    tlm::tlm_generic_payload p;
    for (;;) {
        while (inbox_.empty())
            sc_core::wait(inbox_ev_);
        arrival a = std::move(inbox_.front());
        inbox_.pop_front();
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        p.set_command(tlm::TLM_WRITE_COMMAND);
        p.set_address(cport_);
        p.set_data_ptr(a.bytes.data());
        p.set_data_length((unsigned)a.bytes.size());
        p.set_streaming_width((unsigned)a.bytes.size());
        p.set_byte_enable_ptr(nullptr);
        p.set_byte_enable_length(0);
        p.set_dmi_allowed(false);
        p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        rx->b_transport(p, delay);
        delivered_++;
        if (p.is_response_error())
            SC_REPORT_WARNING("gbvp_sc/cport_socket", p.get_response_string().c_str());
        if (delay > sc_core::SC_ZERO_TIME)
            wait(delay);
    }
}

}  // namespace gbvp_sc
