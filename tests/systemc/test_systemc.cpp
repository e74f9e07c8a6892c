// SPDX-License-Identifier: MIT
// The SystemC binding (systemc/): the scheduler contract on SystemC's kernel (order by time
// then by scheduling, cancel, errors, run_until's limit, other SystemC processes scheduling),
// the same event sequence as the native kernel, the TLM-2.0 CPort sockets with an AP model and
// a module model in SystemC, and the saturate example against `gbvp model`'s output.
//
// SystemC elaborates once per process, so every test runs its simulation in a child process
// (fork before any SystemC object exists) and the parent asserts on its exit status; a child
// prints what failed on stderr.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "systemc/sc_cport.h"
#include "systemc/sc_network.h"
#include "systemc/sc_scheduler.h"

extern "C" {
#include "event-kernel/event_kernel.h"
#include "greybus/gb_message.h"
#include "tests/unit/unit.h"
}

using sc_core::sc_time;
using sc_core::SC_PS;
using sc_core::SC_US;

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
            fails++;                                                                        \
        }                                                                                   \
    } while (0)

/* Runs fn in a child process: its return value is the exit status (0 = passed). */
static int in_child(int (*fn)())
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int rc;
        try {
            rc = fn();
        } catch (const std::exception &e) {
            fprintf(stderr, "exception: %s\n", e.what());
            rc = 99;
        }
        fflush(stdout);
        fflush(stderr);
        _exit(rc ? 1 : 0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- the scheduler contract ------------------------------------------------------------ */

struct rec_event;

struct recorder {
    const sim_scheduler *s = nullptr;
    std::vector<std::pair<int, sim_time>> ran;
    std::deque<rec_event> events;
};

struct rec_event {
    recorder *r;
    int id;
    /* what the callback does when it runs: schedule `then` after `then_delay` */
    std::vector<std::pair<int, sim_time>> then;
    sim_event handle = SIM_EVENT_NONE;
};

static void rec_fn(void *ctx)
{
    rec_event *e = static_cast<rec_event *>(ctx);
    recorder *r = e->r;
    r->ran.emplace_back(e->id, sim_now(r->s));
    for (auto &t : e->then) {
        r->events.push_back(rec_event{ r, t.first, {}, SIM_EVENT_NONE });
        rec_event *n = &r->events.back();
        sim_schedule(r->s, t.second, rec_fn, n, &n->handle);
    }
}

static rec_event *add(recorder &r, int id, sim_time delay,
                      std::vector<std::pair<int, sim_time>> then = {})
{
    r.events.push_back(rec_event{ &r, id, then, SIM_EVENT_NONE });
    rec_event *e = &r.events.back();
    if (sim_schedule(r.s, delay, rec_fn, e, &e->handle))
        return nullptr;
    return e;
}

static int order_child()
{
    int fails = 0;
    gbvp_sc::scheduler sched("sched");
    recorder r;
    r.s = sched.handle();
    add(r, 1, 30);
    add(r, 2, 10, { { 6, 0 }, { 7, 20 } }); /* 6 at 10 after 4 and 5; 7 at 30 after 1 */
    add(r, 3, 20);
    add(r, 4, 10);
    add(r, 5, 10);
    CHECK(sched.pending() == 5);
    gbvp_sc::run_until(100);
    std::vector<std::pair<int, sim_time>> want = { { 2, 10 }, { 4, 10 }, { 5, 10 }, { 6, 10 },
                                                   { 3, 20 }, { 1, 30 }, { 7, 30 } };
    CHECK(r.ran == want);
    CHECK(gbvp_sc::now_ps() == 100);
    CHECK(sim_now(sched.handle()) == 100);
    CHECK(sched.pending() == 0);
    CHECK(sched.executed() == 7);
    return fails;
}

static void test_sc_scheduler_runs_by_time_then_scheduling_order(void)
{
    CU_ASSERT_EQUAL(in_child(order_child), 0);
}

struct cancel_ctx {
    const sim_scheduler *s;
    sim_event self, victim;
    bool cancel_self, cancel_victim;
    int runs;
};

static void cancel_fn(void *p)
{
    cancel_ctx *c = static_cast<cancel_ctx *>(p);
    c->runs++;
    c->cancel_self = sim_cancel(c->s, c->self);   /* running: not pending */
    c->cancel_victim = sim_cancel(c->s, c->victim);
}

static int cancel_child()
{
    int fails = 0;
    gbvp_sc::scheduler sched("sched");
    recorder r;
    r.s = sched.handle();
    rec_event *e2 = add(r, 2, 20);
    rec_event *e3 = add(r, 3, 30);
    CHECK(e2 && e3);
    sim_event old2 = e2->handle;
    CHECK(sim_cancel(r.s, old2));
    CHECK(!sim_cancel(r.s, old2));            /* already cancelled */
    CHECK(!sim_cancel(r.s, SIM_EVENT_NONE));
    rec_event *e4 = add(r, 4, 20);            /* takes the freed slot */
    CHECK(e4 && e4->handle.id != old2.id);
    CHECK(!sim_cancel(r.s, old2));            /* stale: must not cancel 4 */
    cancel_ctx c = { r.s, SIM_EVENT_NONE, e3->handle, false, false, 0 };
    CHECK(sim_schedule(r.s, 10, cancel_fn, &c, &c.self) == 0);
    CHECK(sched.pending() == 3);
    gbvp_sc::run_until(1000);
    CHECK(c.runs == 1);
    CHECK(!c.cancel_self);
    CHECK(c.cancel_victim);                   /* 3 was pending at 10 */
    std::vector<std::pair<int, sim_time>> want = { { 4, 20 } };
    CHECK(r.ran == want);
    CHECK(!sim_cancel(r.s, e4->handle));      /* ran */
    CHECK(sched.pending() == 0);
    CHECK(sched.executed() == 2);
    return fails;
}

static void test_sc_scheduler_cancel(void)
{
    CU_ASSERT_EQUAL(in_child(cancel_child), 0);
}

static void nop(void *) {}

static int errors_child()
{
    int fails = 0;
    gbvp_sc::scheduler sched("sched");
    const sim_scheduler *s = sched.handle();
    sim_event ev = { 42 };
    CHECK(sim_schedule(s, 1, nullptr, nullptr, &ev) == -EINVAL);
    CHECK(ev.id == 42); /* nothing scheduled, handle untouched */
    gbvp_sc::run_until(5);
    CHECK(sim_schedule(s, SIM_TIME_MAX, nop, nullptr, nullptr) == -ERANGE);
    CHECK(sim_schedule(s, SIM_TIME_MAX - 5, nop, nullptr, &ev) == 0); /* exactly the end */
    CHECK(ev.id != 0);
    CHECK(sched.pending() == 1);
    CHECK(sim_cancel(s, ev));
    return fails;
}

static void test_sc_scheduler_refuses_null_callback_and_overflow(void)
{
    CU_ASSERT_EQUAL(in_child(errors_child), 0);
}

static int limit_child()
{
    int fails = 0;
    gbvp_sc::scheduler sched("sched");
    recorder r;
    r.s = sched.handle();
    add(r, 1, 50, { { 3, 0 } }); /* 3: delay 0 from the event at the limit */
    add(r, 2, 51);
    gbvp_sc::run_until(50);
    std::vector<std::pair<int, sim_time>> want = { { 1, 50 }, { 3, 50 } };
    CHECK(r.ran == want);
    CHECK(gbvp_sc::now_ps() == 50);
    CHECK(sched.pending() == 1);
    gbvp_sc::run_until(51);
    CHECK(r.ran.size() == 3);
    return fails;
}

static void test_sc_run_until_runs_events_due_at_the_limit(void)
{
    CU_ASSERT_EQUAL(in_child(limit_child), 0);
}

/* A SystemC process outside the dispatcher schedules while the scheduler waits for a later
 * event: the earlier wake-up must win, and equal times keep scheduling order. */
struct poker : sc_core::sc_module {
    SC_HAS_PROCESS(poker);
    recorder *r;
    explicit poker(const sc_core::sc_module_name &n, recorder *rec) : sc_module(n), r(rec)
    {
        SC_THREAD(run);
    }
    void run()
    {
        wait(sc_time(15, SC_PS));
        add(*r, 11, 0);
        add(*r, 12, 5);
        wait(sc_time(5, SC_PS)); /* at 20, with 12 and 13 due */
        add(*r, 14, 0);
    }
};

static int process_child()
{
    int fails = 0;
    gbvp_sc::scheduler sched("sched");
    recorder r;
    r.s = sched.handle();
    add(r, 1, 100);
    add(r, 10, 15);
    add(r, 13, 20);
    poker p("poker", &r);
    gbvp_sc::run_until(200);
    /* at 15: 10 (scheduled at elaboration) before 11; at 20: 13 before 12 (scheduled later)
     * and 14 (later still) */
    std::vector<std::pair<int, sim_time>> want = { { 10, 15 }, { 11, 15 }, { 13, 20 },
                                                   { 12, 20 }, { 14, 20 }, { 1, 100 } };
    CHECK(r.ran == want);
    return fails;
}

static void test_sc_scheduler_woken_earlier_by_another_process(void)
{
    CU_ASSERT_EQUAL(in_child(process_child), 0);
}

/* With a resolution finer than 1 ps another process may run between two picoseconds: the
 * callbacks must still run when sc_time_stamp() is exactly their time (not that fraction of
 * a picosecond later), and run_until must stop exactly at its limit. */
struct stamps {
    const sim_scheduler *s = nullptr;
    std::vector<std::pair<sim_time, uint64_t>> ran; /* sim_now, sc_time_stamp() in fs */
};

static void stamp_fn(void *p)
{
    stamps *st = static_cast<stamps *>(p);
    st->ran.emplace_back(sim_now(st->s), sc_core::sc_time_stamp().value());
}

struct fine_poker : sc_core::sc_module {
    SC_HAS_PROCESS(fine_poker);
    stamps *st;
    explicit fine_poker(const sc_core::sc_module_name &n, stamps *s) : sc_module(n), st(s)
    {
        SC_THREAD(run);
    }
    void run()
    {
        wait(sc_time(1500, sc_core::SC_FS));
        sim_schedule(st->s, 10, stamp_fn, st, nullptr); /* now() is 1: due at 11 ps */
    }
};

static int fine_resolution_child()
{
    int fails = 0;
    sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
    gbvp_sc::scheduler sched("sched");
    stamps st;
    st.s = sched.handle();
    fine_poker p("poker", &st);
    CHECK(sim_schedule(st.s, 12, stamp_fn, &st, nullptr) == 0);
    gbvp_sc::run_until(30);
    std::vector<std::pair<sim_time, uint64_t>> want = { { 11, 11000 }, { 12, 12000 } };
    CHECK(st.ran == want);
    CHECK(sc_core::sc_time_stamp().value() == 30000);
    sc_core::sc_start(sc_time(2500, sc_core::SC_FS)); /* 32.5 ps */
    CHECK(gbvp_sc::now_ps() == 32);
    gbvp_sc::run_until(40);
    CHECK(sc_core::sc_time_stamp().value() == 40000);
    return fails;
}

static void test_sc_scheduler_fine_resolution_runs_callbacks_on_their_picosecond(void)
{
    CU_ASSERT_EQUAL(in_child(fine_resolution_child), 0);
}

/* A random workload with many equal times, delay-0 successors and cancels; the trace must
 * be the native kernel's, event for event. */
struct hold;

struct hold_ev {
    hold *h;
    int id;
};

struct hold {
    const sim_scheduler *s = nullptr;
    uint64_t rng = 88172645463325252ull;
    uint64_t scheduled = 0, limit = 30000;
    std::vector<sim_event> handles;
    std::vector<uint64_t> trace; /* id, time, cancel results */
    std::deque<hold_ev> pool;    /* the callbacks' contexts (stable addresses) */

    uint64_t next()
    {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    }
};

static void hold_fn(void *p);

static void hold_add(hold *h, sim_time delay)
{
    h->pool.push_back(hold_ev{ h, (int)h->scheduled++ });
    sim_event ev;
    if (sim_schedule(h->s, delay, hold_fn, &h->pool.back(), &ev) == 0)
        h->handles.push_back(ev);
}

static void hold_fn(void *p)
{
    hold_ev *e = static_cast<hold_ev *>(p);
    hold *h = e->h;
    h->trace.push_back((uint64_t)e->id);
    h->trace.push_back(sim_now(h->s));
    unsigned n = 1 + (unsigned)(h->next() % 2);
    for (unsigned i = 0; i < n && h->scheduled < h->limit; i++)
        hold_add(h, h->next() % 3 == 0 ? 0 : h->next() % 20);
    if (h->next() % 4 == 0 && !h->handles.empty()) {
        size_t k = (size_t)(h->next() % h->handles.size());
        h->trace.push_back(sim_cancel(h->s, h->handles[k]) ? 1000001 : 1000000);
    }
}

static void hold_start(hold &h, const sim_scheduler *s)
{
    h.s = s;
    for (int i = 0; i < 100; i++)
        hold_add(&h, h.next() % 50);
}

static int native_child()
{
    int fails = 0;
    sim_event_kernel *k = sim_event_kernel_new(0);
    hold native;
    hold_start(native, sim_event_kernel_scheduler(k));
    sim_event_kernel_run_until(k, SIM_US(1));
    uint64_t native_executed = sim_event_kernel_executed(k);

    gbvp_sc::scheduler sched("sched");
    hold sc;
    hold_start(sc, sched.handle());
    gbvp_sc::run_until(SIM_US(1));

    CHECK(native.scheduled == native.limit);
    CHECK(sc.trace.size() > 40000);
    CHECK(sc.trace == native.trace);
    CHECK(sched.executed() == native_executed);
    CHECK(sched.pending() == sim_event_kernel_pending(k));
    sim_event_kernel_free(k);
    return fails;
}

static void test_sc_scheduler_same_sequence_as_native_kernel(void)
{
    CU_ASSERT_EQUAL(in_child(native_child), 0);
}

/* ---- TLM-2.0 at a CPort: an AP model and a module model in SystemC ---------------------- */

/* A - S - B at HS-G3B x2, CPort 1 of A connected to CPort 1 of B (E2EFC on: defaults). */
struct two_nodes {
    up_node *a, *b;
    explicit two_nodes(gbvp_sc::network &net)
    {
        up_node_cfg ca = up_node_cfg_default(2), cb = up_node_cfg_default(3);
        a = net.add_node(ca);
        b = net.add_node(cb);
        sw_switch *sw = net.add_switch(sw_switch_cfg_default());
        up_link_cfg lc = up_link_cfg_default();
        net.add_link(up_node_port(a), sw_switch_port(sw, 0), lc);
        net.add_link(sw_switch_port(sw, 1), up_node_port(b), lc);
        sw_route_set(sw_switch_routes(sw), 2, 0);
        sw_route_set(sw_switch_routes(sw), 3, 1);
        for (unsigned p = 0; p < 2; p++)
            for (unsigned d = 2; d <= 3; d++)
                sw_route_allow(sw_switch_routes(sw), p, d, true);
        net.connect(a, 1, b, 1, up_cport_cfg_default(3, 1));
    }
};

static const sim_time REQUEST_AT = SIM_US(1), MODULE_DELAY = SIM_US(2);
static const unsigned PAYLOAD = 600; /* three segments */

static std::vector<uint8_t> request_bytes()
{
    std::vector<uint8_t> payload(PAYLOAD), msg(GB_MSG_HEADER_SIZE + PAYLOAD);
    for (unsigned i = 0; i < PAYLOAD; i++)
        payload[i] = (uint8_t)(i * 7 + 3);
    gb_msg_build(msg.data(), msg.size(), 1, GB_LOOPBACK_TYPE_TRANSFER, 0, payload.data(),
                 payload.size());
    return msg;
}

static void write_payload(tlm::tlm_generic_payload &p, std::vector<uint8_t> &bytes)
{
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(0);
    p.set_data_ptr(bytes.data());
    p.set_data_length((unsigned)bytes.size());
    p.set_streaming_width((unsigned)bytes.size());
    p.set_byte_enable_ptr(nullptr);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

/* The AP: sends a loopback transfer request at REQUEST_AT, takes the response. */
struct ap_model : sc_core::sc_module {
    SC_HAS_PROCESS(ap_model);
    tlm_utils::simple_initiator_socket<ap_model> out;
    tlm_utils::simple_target_socket<ap_model> in;
    std::vector<uint8_t> response;
    sim_time sent_at = 0, response_at = 0;
    uint64_t responses = 0;
    tlm::tlm_response_status send_status = tlm::TLM_INCOMPLETE_RESPONSE;

    explicit ap_model(const sc_core::sc_module_name &n) : sc_module(n), out("out"), in("in")
    {
        in.register_b_transport(this, &ap_model::receive);
        SC_THREAD(run);
    }
    void run()
    {
        wait(sc_time::from_value(REQUEST_AT * sc_time(1, SC_PS).value()));
        std::vector<uint8_t> req = request_bytes();
        tlm::tlm_generic_payload p;
        write_payload(p, req);
        sc_time d = sc_core::SC_ZERO_TIME;
        sent_at = gbvp_sc::now_ps();
        out->b_transport(p, d);
        send_status = p.get_response_status();
    }
    void receive(tlm::tlm_generic_payload &p, sc_time &)
    {
        response.assign(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length());
        response_at = gbvp_sc::now_ps();
        responses++;
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/* The module: answers a request after MODULE_DELAY with the same payload. */
struct module_model : sc_core::sc_module {
    SC_HAS_PROCESS(module_model);
    tlm_utils::simple_target_socket<module_model> in;
    tlm_utils::simple_initiator_socket<module_model> out;
    std::deque<std::vector<uint8_t>> requests;
    sc_core::sc_event arrived;
    sim_time request_at = 0, response_sent_at = 0;
    uint64_t address = 999;

    explicit module_model(const sc_core::sc_module_name &n) : sc_module(n), in("in"), out("out")
    {
        in.register_b_transport(this, &module_model::receive);
        SC_THREAD(run);
    }
    void receive(tlm::tlm_generic_payload &p, sc_time &)
    {
        requests.emplace_back(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length());
        request_at = gbvp_sc::now_ps();
        address = p.get_address();
        arrived.notify(sc_core::SC_ZERO_TIME);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void run()
    {
        for (;;) {
            while (requests.empty())
                wait(arrived);
            std::vector<uint8_t> req = std::move(requests.front());
            requests.pop_front();
            gb_msg m;
            if (gb_msg_parse(req.data(), req.size(), &m))
                continue;
            std::vector<uint8_t> rsp(req.size());
            size_t n = gb_msg_build_response(rsp.data(), rsp.size(), &m.h, 0, gb_msg_payload(&m),
                                             gb_msg_payload_len(&m));
            rsp.resize(n);
            tlm::tlm_generic_payload p;
            write_payload(p, rsp);
            /* the module's processing time, as a loosely-timed initiator's local offset */
            sc_time d = sc_time::from_value(MODULE_DELAY * sc_time(1, SC_PS).value());
            out->b_transport(p, d);
            response_sent_at = gbvp_sc::now_ps(); /* after the CPort took it */
        }
    }
};

/* The same exchange on the native kernel with plain callbacks: when does the response
 * reach A? */
struct native_loop {
    const sim_scheduler *s;
    up_node *a, *b;
    sim_time response_at = 0;
};

static void native_send_request(void *p)
{
    native_loop *x = static_cast<native_loop *>(p);
    std::vector<uint8_t> req = request_bytes();
    up_cport_send(x->a, 1, req.data(), (uint32_t)req.size(), 1);
}

static void native_module_recv(void *ctx, up_node *, unsigned, up_msg *m, sim_time)
{
    native_loop *x = static_cast<native_loop *>(ctx);
    gb_msg g;
    if (gb_msg_parse(m->data, m->len, &g))
        return;
    static_assert(GB_MSG_HEADER_SIZE + PAYLOAD <= 2048, "fits");
    auto *rsp = new std::vector<uint8_t>(m->len);
    rsp->resize(gb_msg_build_response(rsp->data(), rsp->size(), &g.h, 0, gb_msg_payload(&g),
                                      gb_msg_payload_len(&g)));
    struct later_send {
        native_loop *x;
        std::vector<uint8_t> *rsp;
    };
    auto *ls = new later_send{ x, rsp };
    sim_schedule(x->s, MODULE_DELAY, [](void *q) {
        later_send *l = static_cast<later_send *>(q);
        up_cport_send(l->x->b, 1, l->rsp->data(), (uint32_t)l->rsp->size(), 2);
        delete l->rsp;
        delete l;
    }, ls, nullptr);
}

static void native_ap_recv(void *ctx, up_node *, unsigned, up_msg *, sim_time)
{
    native_loop *x = static_cast<native_loop *>(ctx);
    x->response_at = sim_now(x->s);
}

static sim_time native_round_trip()
{
    sim_event_kernel *k = sim_event_kernel_new(0);
    sim_time at = 0;
    {
        gbvp_sc::network net(sim_event_kernel_scheduler(k));
        two_nodes t(net);
        native_loop x = { sim_event_kernel_scheduler(k), t.a, t.b, 0 };
        static const up_node_ops ap_ops = { native_ap_recv, nullptr };
        static const up_node_ops mod_ops = { native_module_recv, nullptr };
        up_cport_set_handler(t.a, 1, &ap_ops, &x);
        up_cport_set_handler(t.b, 1, &mod_ops, &x);
        sim_schedule(x.s, REQUEST_AT, native_send_request, &x, nullptr);
        sim_event_kernel_run_until(k, SIM_US(100));
        at = x.response_at;
    }
    sim_event_kernel_free(k);
    return at;
}

static int round_trip_child()
{
    int fails = 0;
    sim_time native_at = native_round_trip();
    gbvp_sc::unipro_network top("top");
    two_nodes t(top.net);
    gbvp_sc::cport_socket ca("ca", t.a, 1), cb("cb", t.b, 1);
    ap_model ap("ap");
    module_model mod("mod");
    ap.out.bind(ca.tx);
    ca.rx.bind(ap.in);
    mod.out.bind(cb.tx);
    cb.rx.bind(mod.in);
    gbvp_sc::run_until(SIM_US(100));

    std::vector<uint8_t> req = request_bytes();
    CHECK(ap.send_status == tlm::TLM_OK_RESPONSE);
    CHECK(ap.sent_at == REQUEST_AT);
    CHECK(ap.responses == 1);
    CHECK(ca.sent() == 1 && cb.sent() == 1 && ca.delivered() == 1 && cb.delivered() == 1);
    CHECK(mod.address == 1); /* rx names the CPort */
    gb_msg m;
    CHECK(ap.response.size() == req.size());
    CHECK(gb_msg_parse(ap.response.data(), ap.response.size(), &m) == 0);
    CHECK(m.h.operation_id == 1);
    CHECK(m.h.type == (GB_LOOPBACK_TYPE_TRANSFER | GB_TYPE_RESPONSE_FLAG));
    CHECK(m.h.result == 0);
    CHECK(ap.response.size() == req.size() &&
          !memcmp(gb_msg_payload(&m), req.data() + GB_MSG_HEADER_SIZE, PAYLOAD));
    /* the sockets add no time: each way takes exactly the latency the model measured, and
     * the whole exchange ends when it ends on the native kernel with plain callbacks */
    const up_hist *to_b = &up_cport_stats_get(t.b, 1)->latency;
    const up_hist *to_a = &up_cport_stats_get(t.a, 1)->latency;
    CHECK(to_b->count == 1 && to_a->count == 1);
    CHECK(mod.request_at == ap.sent_at + to_b->max);
    CHECK(ap.response_at == mod.request_at + MODULE_DELAY + to_a->max);
    CHECK(mod.response_sent_at > mod.request_at + MODULE_DELAY);
    CHECK(native_at != 0);
    CHECK(ap.response_at == native_at);
    if (ap.response_at != native_at)
        fprintf(stderr, "systemc %" PRIu64 " ps, native %" PRIu64 " ps\n", ap.response_at,
                native_at);
    return fails;
}

static void test_sc_tlm_round_trip_with_ap_and_module_models(void)
{
    CU_ASSERT_EQUAL(in_child(round_trip_child), 0);
}

/* Sends through a socket what a test asks, records the statuses. */
struct prober : sc_core::sc_module {
    SC_HAS_PROCESS(prober);
    tlm_utils::simple_initiator_socket<prober> out;
    tlm_utils::simple_target_socket<prober> in;
    std::vector<tlm::tlm_response_status> statuses;
    explicit prober(const sc_core::sc_module_name &n) : sc_module(n), out("out"), in("in")
    {
        in.register_b_transport(this, &prober::receive);
        SC_THREAD(run);
    }
    void receive(tlm::tlm_generic_payload &p, sc_time &)
    {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void run()
    {
        std::vector<uint8_t> msg = request_bytes();
        uint8_t be[4] = { 0xff, 0xff, 0xff, 0xff };
        for (int i = 0; i < 4; i++) {
            tlm::tlm_generic_payload p;
            write_payload(p, msg);
            if (i == 0)
                p.set_command(tlm::TLM_READ_COMMAND);
            if (i == 1) {
                p.set_byte_enable_ptr(be);
                p.set_byte_enable_length(4);
            }
            if (i == 2)
                p.set_streaming_width(4); /* streaming: the message is one unit */
            sc_time d = sc_core::SC_ZERO_TIME;
            out->b_transport(p, d);
            statuses.push_back(p.get_response_status());
        }
    }
};

static int refusals_child()
{
    int fails = 0;
    gbvp_sc::unipro_network top("top");
    two_nodes t(top.net);
    gbvp_sc::cport_socket c("c", t.a, 5); /* not connected */
    prober pr("pr");
    pr.out.bind(c.tx);
    c.rx.bind(pr.in);
    bool threw = false;
    try {
        gbvp_sc::cport_socket bad("bad", t.a, 4000);
    } catch (const std::invalid_argument &) {
        threw = true;
    }
    CHECK(threw);
    gbvp_sc::run_until(SIM_US(10));
    /* the base protocol's recommended statuses (IEEE 1666-2011, 14.17) */
    std::vector<tlm::tlm_response_status> want = { tlm::TLM_COMMAND_ERROR_RESPONSE,
                                                   tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
                                                   tlm::TLM_BURST_ERROR_RESPONSE,
                                                   tlm::TLM_GENERIC_ERROR_RESPONSE };
    CHECK(pr.statuses == want);
    CHECK(c.sent() == 0);
    return fails;
}

static void test_sc_tlm_refuses_reads_byte_enables_streaming_and_unconnected_cports(void)
{
    CU_ASSERT_EQUAL(in_child(refusals_child), 0);
}

/* Sends a message with a streaming width above its length (no streaming: accepted), then a
 * long one that disconnect() drops before it has left: that call must return, with an
 * error, when the CPort is disconnected. */
struct disconnecter : sc_core::sc_module {
    SC_HAS_PROCESS(disconnecter);
    tlm_utils::simple_initiator_socket<disconnecter> out;
    tlm_utils::simple_target_socket<disconnecter> in;
    gbvp_sc::cport_socket *sock = nullptr; /* sends when set */
    std::vector<tlm::tlm_response_status> statuses;
    sim_time cut_at = 0, returned_at = 0;
    sc_core::sc_event started;
    explicit disconnecter(const sc_core::sc_module_name &n)
        : sc_module(n), out("out"), in("in")
    {
        in.register_b_transport(this, &disconnecter::receive);
        SC_THREAD(run);
        SC_THREAD(cut);
    }
    void receive(tlm::tlm_generic_payload &p, sc_time &)
    {
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void send(std::vector<uint8_t> &msg, unsigned width)
    {
        tlm::tlm_generic_payload p;
        write_payload(p, msg);
        p.set_streaming_width(width);
        sc_time d = sc_core::SC_ZERO_TIME;
        out->b_transport(p, d);
        statuses.push_back(p.get_response_status());
    }
    void run()
    {
        if (!sock)
            return;
        std::vector<uint8_t> msg = request_bytes(), big(4000, 0x5a);
        send(msg, 2 * (unsigned)msg.size());
        started.notify(sc_core::SC_ZERO_TIME);
        send(big, (unsigned)big.size());
        returned_at = gbvp_sc::now_ps();
    }
    void cut()
    {
        if (!sock)
            return;
        wait(started);
        wait(sc_time(10, sc_core::SC_NS)); /* 4000 bytes take microseconds to leave */
        cut_at = gbvp_sc::now_ps();
        if (sock->disconnect())
            cut_at = 0;
    }
};

static int disconnect_child()
{
    int fails = 0;
    gbvp_sc::unipro_network top("top");
    two_nodes t(top.net);
    gbvp_sc::cport_socket ca("ca", t.a, 1), cb("cb", t.b, 1);
    disconnecter da("da"), db("db");
    da.sock = &ca;
    da.out.bind(ca.tx);
    ca.rx.bind(da.in);
    db.out.bind(cb.tx);
    cb.rx.bind(db.in);
    gbvp_sc::run_until(SIM_MS(1));
    std::vector<tlm::tlm_response_status> want = { tlm::TLM_OK_RESPONSE,
                                                   tlm::TLM_GENERIC_ERROR_RESPONSE };
    CHECK(da.statuses == want);
    CHECK(da.cut_at != 0);
    CHECK(da.returned_at == da.cut_at);
    CHECK(ca.sent() == 1);
    CHECK(!up_cport_connected(t.a, 1));
    return fails;
}

static void test_sc_tlm_disconnect_fails_pending_sends_wide_streaming_width_accepted(void)
{
    CU_ASSERT_EQUAL(in_child(disconnect_child), 0);
}

/* ---- the example against `gbvp model` -------------------------------------------------- */

/* Runs argv with stdout into a string; false when it fails. */
static bool run_output(const std::vector<std::string> &args, std::string *out)
{
    int fd[2];
    if (pipe(fd))
        return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        std::vector<char *> argv;
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1); /* SystemC's banner (on stderr) */
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(fd[1]);
    char buf[4096];
    ssize_t n;
    out->clear();
    while ((n = read(fd[0], buf, sizeof buf)) > 0)
        out->append(buf, (size_t)n);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* "simulated ... N events (...)" and the lines after it. */
static bool split_summary(const std::string &text, uint64_t *events, std::string *rest)
{
    size_t nl = text.find('\n');
    if (nl == std::string::npos || text.compare(0, 10, "simulated "))
        return false;
    std::string first = text.substr(0, nl);
    size_t comma = first.find("), ");
    if (comma == std::string::npos || sscanf(first.c_str() + comma + 3, "%" SCNu64, events) != 1)
        return false;
    *rest = text.substr(nl + 1);
    return true;
}

static void check_same_as_gbvp_model(const std::vector<std::string> &model_args,
                                     const std::vector<std::string> &example_args)
{
    std::string native, sc, native_rest, sc_rest;
    uint64_t native_events = 0, sc_events = 0;
    CU_ASSERT_TRUE_FATAL(run_output(model_args, &native));
    CU_ASSERT_TRUE_FATAL(run_output(example_args, &sc));
    CU_ASSERT_TRUE_FATAL(split_summary(native, &native_events, &native_rest));
    CU_ASSERT_TRUE_FATAL(split_summary(sc, &sc_events, &sc_rest));
    /* every figure but the first line's: wall time differs, and so may the event count
     * (the native kernel lets the model batch frames with sim_advance, which the SystemC
     * scheduler does not offer; the model then schedules every frame, same timing) */
    CU_ASSERT_TRUE(sc_events > 0 && native_events > 0);
    CU_ASSERT_TRUE(native_rest.find("goodput") != std::string::npos);
    CU_ASSERT_TRUE(native_rest.find("received 0,") == std::string::npos);
    CU_ASSERT_TRUE(sc_rest == native_rest);
    if (sc_rest != native_rest)
        fprintf(stderr, "\ngbvp model:\n%s\nexample_saturate:\n%s\n", native.c_str(), sc.c_str());
}

static void test_sc_example_prints_what_gbvp_model_prints(void)
{
    check_same_as_gbvp_model({ GBVP_SC_GBVP, "model", "--gear", "HS-G3B", "--lanes", "2",
                               "--size", "2048", "--switch", "--duration", "10ms" },
                             { GBVP_SC_EXAMPLE, "--duration", "10ms" });
}

static void test_sc_example_without_switch_prints_what_gbvp_model_prints(void)
{
    check_same_as_gbvp_model({ GBVP_SC_GBVP, "model", "--gear", "HS-G3B", "--lanes", "2",
                               "--size", "256", "--duration", "2ms" },
                             { GBVP_SC_EXAMPLE, "--no-switch", "--size", "256", "--duration",
                               "2ms" });
}

/* The exit status of argv (output discarded), 128 + signal when killed; it is killed after
 * 30 s, so that an argument read as "run for good" fails rather than hangs. */
static int run_status(const std::vector<std::string> &args)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        std::vector<char *> argv;
        for (const std::string &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        alarm(30); /* kept across execv */
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_sc_example_refuses_bad_durations(void)
{
    /* 2^64 ps overflows; " -5ps" is what strtoull reads as 2^64 - 5 */
    const char *bad[] = { "18446744073709551616ps", "99999999999999999999ps", " -5ps", "-5ms",
                          "0ms", "5", "5s", "ms" };
    for (const char *d : bad) {
        int rc = run_status({ GBVP_SC_EXAMPLE, "--duration", d });
        CU_ASSERT_EQUAL(rc, 2);
        if (rc != 2)
            fprintf(stderr, "\n--duration '%s': exit status %d\n", d, rc);
    }
    CU_ASSERT_EQUAL(run_status({ GBVP_SC_EXAMPLE, "--duration", "18446744073709551615ps",
                                 "--duration", "1us" }), 0);
}

static const unit_test scheduler_tests[] = {
    UNIT_TEST(test_sc_scheduler_runs_by_time_then_scheduling_order),
    UNIT_TEST(test_sc_scheduler_cancel),
    UNIT_TEST(test_sc_scheduler_refuses_null_callback_and_overflow),
    UNIT_TEST(test_sc_run_until_runs_events_due_at_the_limit),
    UNIT_TEST(test_sc_scheduler_woken_earlier_by_another_process),
    UNIT_TEST(test_sc_scheduler_fine_resolution_runs_callbacks_on_their_picosecond),
    UNIT_TEST(test_sc_scheduler_same_sequence_as_native_kernel),
    UNIT_TESTS_END,
};

static const unit_test tlm_tests[] = {
    UNIT_TEST(test_sc_tlm_round_trip_with_ap_and_module_models),
    UNIT_TEST(test_sc_tlm_refuses_reads_byte_enables_streaming_and_unconnected_cports),
    UNIT_TEST(test_sc_tlm_disconnect_fails_pending_sends_wide_streaming_width_accepted),
    UNIT_TESTS_END,
};

static const unit_test example_tests[] = {
    UNIT_TEST(test_sc_example_prints_what_gbvp_model_prints),
    UNIT_TEST(test_sc_example_without_switch_prints_what_gbvp_model_prints),
    UNIT_TEST(test_sc_example_refuses_bad_durations),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "systemc_scheduler", scheduler_tests, nullptr, nullptr },
    { "systemc_tlm", tlm_tests, nullptr, nullptr },
    { "systemc_example", example_tests, nullptr, nullptr },
    UNIT_SUITES_END,
};

int sc_main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
