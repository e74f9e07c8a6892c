// SPDX-License-Identifier: MIT
// sc_main running `gbvp model`'s HS-G3B x2 saturate example on SystemC's kernel:
//   example_saturate [--duration TIME] [--no-switch] [--size BYTES]
// prints what `gbvp model --gear HS-G3B --lanes 2 --size 2048 --switch --duration 10ms`
// prints (the same figures; only the wall time differs). TIME: a number with ps, ns, us or ms.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "systemc/saturate.h"

namespace {

bool parse_time(const char *s, sim_time *out)
{
    static const struct { const char *unit; sim_time scale; } units[] = {
        { "ps", 1 }, { "ns", SIM_NS(1) }, { "us", SIM_US(1) }, { "ms", SIM_MS(1) },
    };
    /* strtoull negates a "-", even after blanks, and saturates an overflow to 2^64 - 1:
     * either would be a run for good rather than an error */
    if (strchr(s, '-'))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno == ERANGE)
        return false;
    for (const auto &u : units)
        if (!strcmp(end, u.unit)) {
            if (!v || v > SIM_TIME_MAX / u.scale)
                return false;
            *out = (sim_time)v * u.scale;
            return true;
        }
    return false;
}

int usage()
{
    fprintf(stderr, "usage: example_saturate [--duration TIME] [--no-switch] [--size BYTES]\n");
    return 2;
}

}  // namespace

int sc_main(int argc, char **argv)
{
    sim_time duration = SIM_MS(10);
    gbvp_sc::saturate_cfg cfg;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--duration") && i + 1 < argc) {
            if (!parse_time(argv[++i], &duration))
                return usage();
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || end == argv[i] || v > 65527)
                return usage();
            cfg.size = (unsigned)v;
        } else if (!strcmp(argv[i], "--no-switch")) {
            cfg.with_switch = false;
        } else {
            return usage();
        }
    }
    try {
        gbvp_sc::unipro_network top("top");
        gbvp_sc::saturate_net s = gbvp_sc::saturate_build(top.net, cfg);
        auto t0 = std::chrono::steady_clock::now();
        gbvp_sc::run_until(duration);
        std::chrono::duration<double> wall = std::chrono::steady_clock::now() - t0;
        gbvp_sc::saturate_print(s, duration, wall.count(), top.sched.executed(), stdout);
    } catch (const std::exception &e) {
        fprintf(stderr, "example_saturate: %s\n", e.what());
        return 1;
    }
    return 0;
}
