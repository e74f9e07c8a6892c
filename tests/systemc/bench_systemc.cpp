// SPDX-License-Identifier: MIT
// The same UniPro network on the native event kernel and on SystemC's (systemc/), side by
// side in one process: one saturated HS-G3B x2 link, 2 KiB messages (as bench_unipro's
// link.hs-g3b-x2.2048B, built by systemc/saturate.h without the switch). Prints
//   bench systemc.link.hs-g3b-x2.2048B.speed         simulated s per CPU s on SystemC
//   bench systemc.link.hs-g3b-x2.2048B.native.speed  the same on the native kernel, as
//                                                    gbvp model runs it
//   bench systemc.link.hs-g3b-x2.2048B.native.per-frame.speed  the native kernel on the
//                                                    per-frame path (one event per frame)
//   bench systemc.link.hs-g3b-x2.2048B.ratio         SystemC / native per-frame
//   bench systemc.link.hs-g3b-x2.2048B.events        events per CPU s on SystemC
// Speeds are medians over five parts of each run, in process CPU time (the machine is
// shared), after a warm-up. Exits 1 if the kernels simulate different goodput (the event
// counts may differ). SystemC's kernel offers the model no batch operations, so the model
// runs there one event per frame with no batching and no period skipping
// (docs/performance-model.md): the ratio compares the two kernels on that same work, the
// native per-frame path, rather than against the skips a saturated link allows natively.
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
    result native, per_frame, sc;
    try {
        for (bool reference : { false, true }) {
            sim_event_kernel *k = sim_event_kernel_new(1024);
            if (!k)
                throw std::bad_alloc();
            {
                gbvp_sc::network net(sim_event_kernel_scheduler(k));
                up_env_set_per_frame(net.env(), reference);
                gbvp_sc::saturate_net s = gbvp_sc::saturate_build(net, cfg);
                (reference ? per_frame : native) =
                    measure(s, [k](sim_time t) { sim_event_kernel_run_until(k, t); },
                            [k] { return sim_event_kernel_executed(k); });
            }
            sim_event_kernel_free(k);
        }

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
    printf("bench %s.native.per-frame.speed %.3g x-realtime\n", name, per_frame.speed);
    printf("bench %s.ratio %.3g x\n", name, sc.speed / per_frame.speed);
    printf("bench %s.events %.3g events/s\n", name, sc.events);
    if (sc.goodput != native.goodput || per_frame.goodput != native.goodput) {
        fprintf(stderr, "bench_systemc: the runs disagree: goodput %.6g (SystemC) / %.6g "
                "(native) / %.6g (native per frame) b/s\n", sc.goodput, native.goodput,
                per_frame.goodput);
        return 1;
    }
    return 0;
}
