// SPDX-License-Identifier: MIT
// The same UniPro network on the native event kernel and on SystemC's (systemc/), side by
// side in one process: one saturated HS-G3B x2 link, 2 KiB messages (as bench_unipro's
// link.hs-g3b-x2.2048B, built by systemc/saturate.h without the switch). Prints
//   bench systemc.link.hs-g3b-x2.2048B.speed         simulated s per CPU s on SystemC
//   bench systemc.link.hs-g3b-x2.2048B.native.speed  the same on the native kernel
//   bench systemc.link.hs-g3b-x2.2048B.ratio         SystemC / native
//   bench systemc.link.hs-g3b-x2.2048B.events        events per CPU s on SystemC
// Speeds are medians over five parts of each run, in process CPU time (the machine is
// shared), after a warm-up. Exits 1 if the two kernels simulate different goodput (the event
// counts may differ: the native kernel offers the model frame batching, SystemC does not).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>

#include "systemc/saturate.h"

extern "C" {
#include "event-kernel/event_kernel.h"
}

namespace {

constexpr unsigned CHUNKS = 5;
constexpr sim_time WARM = SIM_MS(1), PART = SIM_MS(20);

double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct result {
    double speed = 0, events = 0, goodput = 0;
    uint64_t executed = 0;
};

/* run_to(t) runs the kernel until t; executed() counts its events. */
template <class RunTo, class Executed>
result measure(const gbvp_sc::saturate_net &s, RunTo run_to, Executed executed)
{
    result r;
    run_to(WARM);
    double speed[CHUNKS], events[CHUNKS];
    sim_time at = WARM;
    for (unsigned c = 0; c < CHUNKS; c++) {
        uint64_t ev0 = executed();
        double t0 = cpu_seconds();
        at += PART;
        run_to(at);
        double wall = cpu_seconds() - t0;
        speed[c] = (double)PART * 1e-12 / wall;
        events[c] = (double)(executed() - ev0) / wall;
    }
    std::sort(speed, speed + CHUNKS);
    std::sort(events, events + CHUNKS);
    r.speed = speed[CHUNKS / 2];
    r.events = events[CHUNKS / 2];
    r.goodput = gbvp_sc::saturate_goodput(s, at);
    r.executed = executed();
    return r;
}

}  // namespace

int sc_main(int, char **)
{
    const char *name = "systemc.link.hs-g3b-x2.2048B";
    gbvp_sc::saturate_cfg cfg;
    cfg.with_switch = false;
    result native, sc;
    try {
        sim_event_kernel *k = sim_event_kernel_new(1024);
        if (!k)
            throw std::bad_alloc();
        {
            gbvp_sc::network net(sim_event_kernel_scheduler(k));
            gbvp_sc::saturate_net s = gbvp_sc::saturate_build(net, cfg);
            native = measure(s, [k](sim_time t) { sim_event_kernel_run_until(k, t); },
                             [k] { return sim_event_kernel_executed(k); });
        }
        sim_event_kernel_free(k);

        gbvp_sc::unipro_network top("top");
        gbvp_sc::saturate_net s = gbvp_sc::saturate_build(top.net, cfg);
        sc = measure(s, [](sim_time t) { gbvp_sc::run_until(t); },
                     [&top] { return top.sched.executed(); });
    } catch (const std::exception &e) {
        fprintf(stderr, "bench_systemc: %s\n", e.what());
        return 1;
    }
    printf("bench %s.speed %.3g x-realtime\n", name, sc.speed);
    printf("bench %s.native.speed %.3g x-realtime\n", name, native.speed);
    printf("bench %s.ratio %.3g x\n", name, sc.speed / native.speed);
    printf("bench %s.events %.3g events/s\n", name, sc.events);
    if (sc.goodput != native.goodput) {
        fprintf(stderr, "bench_systemc: the kernels disagree: goodput %.6g / %.6g b/s, "
                "events %llu / %llu\n", sc.goodput, native.goodput,
                (unsigned long long)sc.executed, (unsigned long long)native.executed);
        return 1;
    }
    return 0;
}
