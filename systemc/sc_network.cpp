// SPDX-License-Identifier: MIT
#include "systemc/sc_network.h"

#include <new>
#include <stdexcept>
#include <string>

namespace gbvp_sc {

network::network(const sim_scheduler *sched) : env_(up_env_new(sched))
{
    if (!env_)
        throw std::bad_alloc();
}

network::~network()
{
    /* users before what they use: flows, links, then nodes and switches, the env last */
    for (up_traffic *t : flows_)
        up_traffic_free(t);
    for (up_link *l : links_)
        up_link_free(l);
    for (up_node *n : nodes_)
        up_node_free(n);
    for (sw_switch *s : switches_)
        sw_switch_free(s);
    up_env_free(env_);
}

up_node *network::add_node(const up_node_cfg &cfg)
{
    nodes_.reserve(nodes_.size() + 1);
    up_node *n = up_node_new(env_, &cfg, nullptr, nullptr);
    if (!n)
        throw std::runtime_error("cannot create node with DeviceID " +
                                 std::to_string(cfg.device_id));
    nodes_.push_back(n);
    return n;
}

sw_switch *network::add_switch(const sw_switch_cfg &cfg)
{
    switches_.reserve(switches_.size() + 1);
    sw_switch *s = sw_switch_new(env_, &cfg, nullptr);
    if (!s)
        throw std::runtime_error("cannot create a switch of " + std::to_string(cfg.ports) +
                                 " ports");
    switches_.push_back(s);
    return s;
}

up_link *network::add_link(up_port *a, up_port *b, const up_link_cfg &cfg)
{
    char err[160] = "";
    links_.reserve(links_.size() + 1);
    up_link *l = up_link_new(env_, a, b, &cfg, err, sizeof err);
    if (!l)
        throw std::runtime_error(std::string("cannot create link: ") + err);
    links_.push_back(l);
    return l;
}

void network::connect(up_node *a, unsigned ca, up_node *b, unsigned cb, up_cport_cfg cfg)
{
    cfg.peer_dev = up_node_device_id(b);
    cfg.peer_cport = (uint16_t)cb;
    if (up_cport_connect(a, ca, &cfg))
        throw std::runtime_error("cannot connect CPort " + std::to_string(ca));
    cfg.peer_dev = up_node_device_id(a);
    cfg.peer_cport = (uint16_t)ca;
    if (up_cport_connect(b, cb, &cfg))
        throw std::runtime_error("cannot connect CPort " + std::to_string(cb));
}

up_traffic *network::add_traffic(const up_traffic_cfg &cfg, up_node *src, unsigned src_cport,
                                 up_node *dst, unsigned dst_cport)
{
    flows_.reserve(flows_.size() + 1);
    up_traffic *t = up_traffic_new(env_, &cfg, src, src_cport, dst, dst_cport);
    if (!t)
        throw std::runtime_error("bad traffic parameters");
    flows_.push_back(t);
    if (up_traffic_start(t))
        throw std::runtime_error("cannot start traffic");
    return t;
}

}  // namespace gbvp_sc
