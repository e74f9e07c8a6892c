// SPDX-License-Identifier: MIT
// The scheduler interface (event-kernel/scheduler.h) on SystemC's kernel: models that see time
// only through a `const sim_scheduler *` run inside a SystemC simulation, unchanged.
//
// SystemC keeps the time and wakes the binding; the binding keeps the pending callbacks. One
// sc_event and one SC_METHOD per scheduler: the method runs when SystemC's time reaches the
// earliest pending callback, runs every callback due then in the order they were scheduled
// (those scheduled with delay 0 meanwhile too), and notifies the event for the next one.
// SystemC does not order processes woken at the same time, so one sc_event per callback
// could not keep the contract's "equal times run in scheduling order"; one dispatcher can.
//
// now() is sc_time_stamp() in picoseconds. The time resolution must be 1 ps or finer (the
// default is 1 ps); with a finer one, times past (2^64 - 1) resolution units are -ERANGE,
// now() rounds down, and callbacks still run when sc_time_stamp() is exactly their time.
// Callbacks may be scheduled from anywhere: elaboration, the models' callbacks, or other
// SystemC processes (an earlier wake-up replaces a later one, which SystemC guarantees).
#ifndef GBVP_SYSTEMC_SC_SCHEDULER_H
#define GBVP_SYSTEMC_SC_SCHEDULER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

extern "C" {
#include "event-kernel/scheduler.h"
}

namespace gbvp_sc {

class scheduler : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(scheduler);
    explicit scheduler(const sc_core::sc_module_name &name);
    scheduler(const scheduler &) = delete;
    scheduler &operator=(const scheduler &) = delete;

    /* Hand this to the models (up_env_new, ...); valid for the scheduler's lifetime. */
    const sim_scheduler *handle() const { return &handle_; }

    sim_time now() const;
    uint64_t executed() const { return executed_; }
    size_t pending() const { return live_; }

private:
    struct entry {
        sim_time time;
        uint64_t seq;
        uint32_t slot, gen;
    };
    struct slot_state {
        sim_event_fn fn;
        void *ctx;
        uint32_t gen;      /* a handle is gen << 32 | slot; gen never 0 */
        uint32_t next_free;
    };

    void dispatch();
    void arm();
    sc_core::sc_time until(sim_time t) const;
    bool dead(const entry &e) const { return slots_[e.slot].gen != e.gen; }
    void pop();
    void free_slot(uint32_t slot);
    void drop_dead();
    int schedule(sim_time delay, sim_event_fn fn, void *ctx, sim_event *out);
    bool cancel(sim_event ev);

    static sim_time op_now(void *self);
    static int op_schedule(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                           sim_event *out);
    static bool op_cancel(void *self, sim_event ev);
    static const sim_scheduler_ops ops_;

    std::vector<entry> heap_;          /* min-heap by (time, seq) via std::push_heap */
    std::vector<slot_state> slots_;
    uint32_t free_ = UINT32_MAX;
    uint64_t seq_ = 0, executed_ = 0;
    size_t live_ = 0, dead_ = 0;
    bool dispatching_ = false;
    uint64_t units_per_ps_;            /* resolution units per picosecond */
    sc_core::sc_event wake_;
    sim_scheduler handle_;
};

/* Runs the SystemC simulation until absolute time t (ps), including everything due at t
 * (sc_start(d) alone stops before the activity at its end time), as the native kernel's
 * sim_event_kernel_run_until does. Time then stays at t (sc_time_stamp() exactly t ps, even
 * when it was between two picoseconds). No effect when t is in the past. */
void run_until(sim_time t);

/* sc_time_stamp() in picoseconds (resolution 1 ps or finer). */
sim_time now_ps();

}  // namespace gbvp_sc

#endif
