// SPDX-License-Identifier: MIT
// A UniPro network as a SystemC module: nodes, switches, links and traffic built by the C
// timing model's own constructors (unipro-model/, switch-model/), on a gbvp_sc::scheduler, so
// they run on SystemC's kernel exactly as `gbvp model` runs them on the native one.
//
// `network` holds the objects of one network on any scheduler (the native kernel's too: the
// benchmark and the tests build the same network on both) and frees them in order; it adds no
// behaviour. `unipro_network` is the sc_module: a scheduler child and a network on it.
// Connect a platform's own models to a node's CPort with gbvp_sc::cport_socket (sc_cport.h).
#ifndef GBVP_SYSTEMC_SC_NETWORK_H
#define GBVP_SYSTEMC_SC_NETWORK_H

#include <vector>

#include <systemc>

#include "systemc/sc_scheduler.h"

extern "C" {
#include "switch-model/switch.h"
#include "unipro-model/up_link.h"
#include "unipro-model/up_node.h"
#include "unipro-model/up_traffic.h"
}

namespace gbvp_sc {

class network {
public:
    /* Throws std::bad_alloc when the model's env cannot be created. */
    explicit network(const sim_scheduler *sched);
    ~network();
    network(const network &) = delete;
    network &operator=(const network &) = delete;

    up_env *env() const { return env_; }
    const sim_scheduler *sched() const { return up_env_scheduler(env_); }

    /* Each returns the new object, owned by the network, or throws std::runtime_error
     * naming what the model refused. */
    up_node *add_node(const up_node_cfg &cfg);
    sw_switch *add_switch(const sw_switch_cfg &cfg);
    up_link *add_link(up_port *a, up_port *b, const up_link_cfg &cfg);
    /* Connects a:ca and b:cb to each other with `cfg` (its peer fields are filled in). */
    void connect(up_node *a, unsigned ca, up_node *b, unsigned cb, up_cport_cfg cfg);
    /* A traffic source between two connected CPorts, started (cfg.start from now). */
    up_traffic *add_traffic(const up_traffic_cfg &cfg, up_node *src, unsigned src_cport,
                            up_node *dst, unsigned dst_cport);

private:
    up_env *env_;
    std::vector<up_node *> nodes_;
    std::vector<sw_switch *> switches_;
    std::vector<up_link *> links_;
    std::vector<up_traffic *> flows_;
};

class unipro_network : public sc_core::sc_module {
public:
    explicit unipro_network(const sc_core::sc_module_name &name)
        : sc_core::sc_module(name), sched("sched"), net(sched.handle())
    {
    }
    scheduler sched; /* declared first: net is built on it */
    network net;
};

}  // namespace gbvp_sc

#endif
