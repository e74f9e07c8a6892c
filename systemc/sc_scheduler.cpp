// SPDX-License-Identifier: MIT
#include "systemc/sc_scheduler.h"

#include <algorithm>
#include <cerrno>
#include <new>

namespace gbvp_sc {

namespace {

/* std::push_heap keeps the largest first: "a after b" makes the earliest the front. */
struct later {
    template <class E> bool operator()(const E &a, const E &b) const
    {
        return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
};

uint64_t units_per_ps()
{
    const sc_core::sc_time res = sc_core::sc_get_time_resolution();
    const sc_core::sc_time ps(1, sc_core::SC_PS);
    if (res > ps || ps.value() == 0)
        SC_REPORT_FATAL("gbvp_sc/scheduler", "SystemC time resolution must be 1 ps or finer");
    return ps.value();
}

}  // namespace

const sim_scheduler_ops scheduler::ops_ = { op_now, op_schedule, op_cancel };

scheduler::scheduler(const sc_core::sc_module_name &name)
    : sc_core::sc_module(name), units_per_ps_(units_per_ps()), wake_("wake")
{
    handle_.ops = &ops_;
    handle_.self = this;
    SC_METHOD(dispatch);
    sensitive << wake_;
    dont_initialize();
}

sim_time now_ps()
{
    static_assert(sizeof(sc_core::sc_time::value_type) == sizeof(sim_time), "64-bit time");
    const sc_core::sc_time ps(1, sc_core::SC_PS);
    return sc_core::sc_time_stamp().value() / ps.value();
}

sim_time scheduler::now() const
{
    return sc_core::sc_time_stamp().value() / units_per_ps_;
}

/* The SystemC delay from now to absolute time t (ps), 0 when t has passed. Measured from
 * sc_time_stamp(), not from now(): with a resolution finer than 1 ps another process may run
 * between two picoseconds, and a wake-up relative to the truncated now() would then run the
 * callbacks that much after their time. */
sc_core::sc_time scheduler::until(sim_time t) const
{
    const uint64_t at = t * units_per_ps_, cur = sc_core::sc_time_stamp().value();
    return sc_core::sc_time::from_value(at > cur ? at - cur : 0);
}

void scheduler::free_slot(uint32_t slot)
{
    slot_state &s = slots_[slot];
    s.fn = nullptr;
    s.ctx = nullptr;
    if (++s.gen == 0)
        s.gen = 1;
    s.next_free = free_;
    free_ = slot;
}

void scheduler::pop()
{
    std::pop_heap(heap_.begin(), heap_.end(), later());
    heap_.pop_back();
}

/* Cancelled entries stay in the heap until they reach the front; when they outnumber the
 * live ones (and exceed 64) the heap is filtered and rebuilt, as the native kernel does. */
void scheduler::drop_dead()
{
    heap_.erase(std::remove_if(heap_.begin(), heap_.end(),
                               [this](const entry &e) { return dead(e); }),
                heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), later());
    dead_ = 0;
}

int scheduler::schedule(sim_time delay, sim_event_fn fn, void *ctx, sim_event *out)
{
    if (!fn)
        return -EINVAL;
    const sim_time now_t = now();
    if (delay > SIM_TIME_MAX - now_t)
        return -ERANGE;
    const sim_time when = now_t + delay;
    if (units_per_ps_ > 1 && when > SIM_TIME_MAX / units_per_ps_)
        return -ERANGE;
    try {
        uint32_t slot = free_;
        if (slot == UINT32_MAX) {
            if (slots_.size() >= UINT32_MAX - 1)
                return -ENOMEM;
            slots_.push_back(slot_state{ nullptr, nullptr, 1, UINT32_MAX });
            slot = (uint32_t)(slots_.size() - 1);
        } else {
            free_ = slots_[slot].next_free;
        }
        slot_state &s = slots_[slot];
        s.fn = fn;
        s.ctx = ctx;
        try {
            heap_.push_back(entry{ when, seq_++, slot, s.gen });
        } catch (const std::bad_alloc &) {
            free_slot(slot);
            return -ENOMEM;
        }
        std::push_heap(heap_.begin(), heap_.end(), later());
        live_++;
        if (out)
            out->id = (uint64_t)s.gen << 32 | slot;
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    }
    /* Inside the dispatcher the next wake-up is set when it returns. Elsewhere notify now:
     * SystemC keeps the earlier of two pending notifications of one event. */
    if (!dispatching_)
        wake_.notify(until(when));
    return 0;
}

bool scheduler::cancel(sim_event ev)
{
    const uint32_t slot = (uint32_t)ev.id, gen = (uint32_t)(ev.id >> 32);
    if (!ev.id || slot >= slots_.size() || slots_[slot].gen != gen || !slots_[slot].fn)
        return false;
    free_slot(slot);
    live_--;
    if (++dead_ > 64 && dead_ > live_)
        drop_dead();
    return true;
}

void scheduler::arm()
{
    while (!heap_.empty() && dead(heap_.front())) {
        pop();
        dead_--;
    }
    if (!heap_.empty())
        wake_.notify(until(heap_.front().time));
}

void scheduler::dispatch()
{
    const sim_time t = now();
    dispatching_ = true;
    while (!heap_.empty()) {
        const entry e = heap_.front();
        if (dead(e)) {
            pop();
            dead_--;
            continue;
        }
        if (e.time > t)
            break;
        pop();
        slot_state &s = slots_[e.slot];
        sim_event_fn fn = s.fn;
        void *ctx = s.ctx;
        free_slot(e.slot); /* running: no longer cancellable */
        live_--;
        executed_++;
        fn(ctx);
    }
    dispatching_ = false;
    arm();
}

sim_time scheduler::op_now(void *self)
{
    return static_cast<scheduler *>(self)->now();
}

int scheduler::op_schedule(void *self, sim_time delay, sim_event_fn fn, void *ctx,
                           sim_event *out)
{
    return static_cast<scheduler *>(self)->schedule(delay, fn, ctx, out);
}

bool scheduler::op_cancel(void *self, sim_event ev)
{
    return static_cast<scheduler *>(self)->cancel(ev);
}

void run_until(sim_time t)
{
    /* in resolution units from sc_time_stamp(), which need not be a whole picosecond; past
     * the end of SystemC's time, to its end */
    const uint64_t units = sc_core::sc_time(1, sc_core::SC_PS).value();
    const uint64_t at = t > UINT64_MAX / units ? UINT64_MAX : t * units;
    const uint64_t cur = sc_core::sc_time_stamp().value();
    if (at > cur)
        sc_core::sc_start(sc_core::sc_time::from_value(at - cur));
    while (sc_core::sc_pending_activity_at_current_time())
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

}  // namespace gbvp_sc
