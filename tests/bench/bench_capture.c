// SPDX-License-Identifier: MIT
// What a capture and a timeline cost the simulator: the same traffic (GPIO requests from the
// test AP to a sensor module, frame-level timing, 2000 operations) runs without recording,
// with --pcap to a file and with --trace, alternating, several times; the figure is the
// extra CPU time of the simulator's process in percent (median of the runs). This is the
// worst case: a guest run spends most of its wall time in QEMU, which recording does not
// touch.
//
// Prints:
//   bench trace.capture.overhead VALUE %
//   bench trace.timeline.overhead VALUE %
//   bench trace.baseline.ops VALUE ops/s
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ap-model/ap.h"
#include "gbvp/target/target_local.h"

#define OPS 2000
#define RUNS 7

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of one run: set-up, enumeration, OPS GPIO requests, removal. */
static double run(const char *pcap, const char *trace)
{
    char err[320];
    double t0 = cpu_now();
    sim_local_config c = { .sim = { .num_slots = 2, .timing = SW_TIMING_FRAME,
                                    .pcap_path = pcap, .trace_path = trace },
                           .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&c, err, sizeof err);
    if (!l) {
        fprintf(stderr, "bench_capture: %s\n", err);
        exit(1);
    }
    const sim_target *t = sim_local_target(l);
    tap *ap = sim_local_test_ap(l);
    if (t->ops->insert(t->ctx, 0, "sensor", err, sizeof err)) {
        fprintf(stderr, "bench_capture: %s\n", err);
        exit(1);
    }
    tap_run(ap);
    for (int i = 0; i < OPS; i++)
        if (tap_functional(ap, 2, 1)) {
            fprintf(stderr, "bench_capture: GPIO request %d failed\n", i);
            exit(1);
        }
    t->ops->remove(t->ctx, 0, err, sizeof err);
    tap_run(ap);
    sim_local_free(l); /* closes the files: their writing counts */
    return cpu_now() - t0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    char pcap[64], trace[64];
    snprintf(pcap, sizeof pcap, "/tmp/gbvp-bench-capture-%d.pcapng", (int)getpid());
    snprintf(trace, sizeof trace, "/tmp/gbvp-bench-trace-%d.json", (int)getpid());
    double plain[RUNS], cap[RUNS], tr[RUNS];
    run(NULL, NULL); /* warm the caches and the allocator */
    for (int i = 0; i < RUNS; i++) {
        plain[i] = run(NULL, NULL);
        cap[i] = run(pcap, NULL);
        tr[i] = run(NULL, trace);
    }
    unlink(pcap);
    unlink(trace);
    qsort(plain, RUNS, sizeof plain[0], by_value);
    qsort(cap, RUNS, sizeof cap[0], by_value);
    qsort(tr, RUNS, sizeof tr[0], by_value);
    double base = plain[RUNS / 2];
    printf("bench trace.capture.overhead %.1f %%\n", 100.0 * (cap[RUNS / 2] - base) / base);
    printf("bench trace.timeline.overhead %.1f %%\n", 100.0 * (tr[RUNS / 2] - base) / base);
    printf("bench trace.baseline.ops %.3g ops/s\n", OPS / base);
    return 0;
}
