// SPDX-License-Identifier: MIT
// The simulator object (see simulator.h): the parts assembled, time, modules in slots,
// links, reports.
#include "sim/simulator.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-kernel/event_kernel.h"
#include "sim/bridge_gblink.h"
#include "sim/capture.h"
#include "sim/trace.h"
#include "sim/slots.h"
#include "virtual-modules/backend_cmd.h"
#include "virtual-modules/vm_module.h"

struct sim_simulator {
    sim_config cfg;
    sim_event_kernel *k;
    sw_fabric *fabric;
    gb_svc *svc;
    sim_slots *slots;
    sim_bridge *bridge;
    sim_bridge_gblink *gblink; /* NULL: the AP is in this process */
    bool gblink_quiet;         /* the loop's poll found its descriptor quiet (this pass) */
    sim_capture *capture;      /* NULL when not capturing */
    sim_trace *trace;          /* NULL when not tracing */
    bool trace_failure_told;
    bool capture_failure_told;
    sim_time now;
    sim_lockstep *lockstep;    /* SIM_CLOCK_LOCKSTEP only */
    sim_time hold;             /* lockstep: no time is granted beyond it */
    sim_time (*wall)(void *ctx); /* realtime: the owner's loop's clock (NULL: none given) */
    void *wall_ctx;
    /* lockstep: a granted QEMU that reports nothing for long is told of (peer_watch) */
    uint64_t watched_reports;  /* barriers reported when the watch last looked */
    sim_time quiet_since;      /* wall time since which no report came */
    bool quiet_told;
};

/* How long (wall time) a QEMU that was granted time may stay silent before the log says
 * so: far beyond any span's cost (10 ms of virtual time is a few ms of TCG), so a run that
 * keeps its pace never logs it and the log of a lockstep run repeats exactly. */
#define LOCKSTEP_QUIET_WARN SIM_S(30)

static const char *const clock_names[] = { [SIM_CLOCK_REALTIME] = "realtime",
                                           [SIM_CLOCK_UNPACED] = "unpaced",
                                           [SIM_CLOCK_STEPPED] = "stepped",
                                           [SIM_CLOCK_LOCKSTEP] = "lockstep" };

const char *sim_clock_name(sim_clock c)
{
    return (unsigned)c <= SIM_CLOCK_LOCKSTEP ? clock_names[c] : "?";
}

int sim_clock_parse(const char *name, sim_clock *out)
{
    for (unsigned c = 0; c <= SIM_CLOCK_LOCKSTEP; c++)
        if (!strcmp(name, clock_names[c])) {
            *out = (sim_clock)c;
            return 0;
        }
    return -1;
}

/* ---- the log ---- */

static void print_line(const sim_simulator *s, sw_log_level level, sim_time now,
                       const char *line)
{
    if (level > s->cfg.log_level)
        return;
    FILE *out = s->cfg.log ? s->cfg.log : stderr;
    fprintf(out, "[%11.6f] %s%s%s\n", (double)now / 1e12,
            level <= SW_LOG_WARN ? sw_log_level_name(level) : "", level <= SW_LOG_WARN ? ": " : "",
            line);
}

static void log_sink(void *ctx, sw_log_level level, sim_time now, const char *line)
{
    print_line(ctx, level, now, line);
}

static void logf_(const sim_simulator *s, sw_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void logf_(const sim_simulator *s, sw_log_level level, const char *fmt, ...)
{
    if (level > s->cfg.log_level)
        return;
    char line[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    print_line(s, level, s->now, line);
}

static void advance(sim_simulator *s, sim_time until);
static int capture_start(sim_simulator *s, const char *path, bool wait_for_reader, char *err,
                         size_t errlen);
static int trace_start(sim_simulator *s, const char *path, bool wait_for_reader, char *err,
                       size_t errlen);

/* QEMU's records move the clock: to their stamps (lockstep), to the time they are read
 * (realtime). */
static sim_time advance_to(void *ctx, sim_time to)
{
    sim_simulator *s = ctx;
    advance(s, to);
    return s->now;
}

/* ---- life cycle ---- */

int sim_config_check(const sim_config *cfg, char *err, size_t errlen)
{
    if (cfg->ber > 0 && cfg->timing != SW_TIMING_FRAME) {
        snprintf(err, errlen, "--ber: bit errors need the frame-level timing (--timing frame)");
        return -EINVAL;
    }
    if (cfg->pcap_frames && (!cfg->pcap_path || cfg->timing != SW_TIMING_FRAME)) {
        snprintf(err, errlen, "--pcap-frames: frames in captures need a capture (--pcap FILE) "
                 "and the frame-level model (--timing frame)");
        return -EINVAL;
    }
    return 0;
}

sim_simulator *sim_simulator_new(const sim_config *cfg, char *err, size_t errlen)
{
    if (sim_config_check(cfg, err, errlen))
        return NULL;
    sim_simulator *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (!s->cfg.num_slots)
        s->cfg.num_slots = 4;
    if (!s->cfg.cport_count)
        s->cfg.cport_count = 44;
    if (!s->cfg.link.gear)
        s->cfg.link = up_phy_cfg_startup();
    if (s->cfg.num_slots > GB_SVC_SLOTS_MAX) {
        snprintf(err, errlen, "%u slots requested; the frame holds 1 to %u", s->cfg.num_slots,
                 GB_SVC_SLOTS_MAX);
        free(s);
        return NULL;
    }
    /* ports 0..last interface (the AP bridge on port 1, slot s on 2 + s), the SVC on the
     * next */
    sw_fabric_cfg fc = { .ports = s->cfg.num_slots + 3u, .ap_port = 1, .timing = s->cfg.timing,
                         .phy = s->cfg.link, .ber = s->cfg.ber, .seed = s->cfg.seed,
                         .log = log_sink, .log_ctx = s };
    gb_svc_config sc = { .num_slots = s->cfg.num_slots, .ap_cport_count = s->cfg.cport_count };
    gb_svc_env env = { .log = log_sink, .ctx = s };
    char why[200] = "out of memory";
    s->k = sim_event_kernel_new(0);
    if (s->k)
        s->fabric = sw_fabric_new(sim_event_kernel_scheduler(s->k), &fc, why, sizeof why);
    if (s->fabric)
        s->svc = gb_svc_new(&sc, &env, s->fabric, why, sizeof why);
    if (s->svc) {
        s->slots = sim_slots_new(s->svc, s->fabric);
        s->bridge = sim_bridge_new(sim_event_kernel_scheduler(s->k), s->fabric, s->svc,
                                   s->cfg.cport_count, log_sink, s);
        if (s->bridge)
            sim_bridge_log_messages(s->bridge, s->cfg.log_level >= SW_LOG_DEBUG);
    }
    if (!s->slots || !s->bridge) {
        snprintf(err, errlen, "%s", why);
        sim_simulator_free(s);
        return NULL;
    }
    s->hold = SIM_TIME_MAX;
    sim_bridge_gblink_lockstep lk = { .advance = advance_to, .ctx = s };
    if (cfg->clock == SIM_CLOCK_LOCKSTEP) {
        sim_lockstep_cfg lc = s->cfg.lockstep;
        if (!lc.quantum_ns)
            lc.quantum_ns = SIM_LOCKSTEP_QUANTUM_NS;
        if (!lc.quantum_max_ns)
            lc.quantum_max_ns = lc.quantum_ns > SIM_LOCKSTEP_QUANTUM_MAX_NS
                                    ? lc.quantum_ns : SIM_LOCKSTEP_QUANTUM_MAX_NS;
        s->cfg.lockstep = lc;
        if (!cfg->link_path) {
            snprintf(err, errlen, "the lockstep clock follows QEMU: it needs a gblink socket");
            sim_simulator_free(s);
            return NULL;
        }
        if (!(s->lockstep = sim_lockstep_new(&lc))) {
            snprintf(err, errlen, "lockstep quantum %llu ns and longest grant %llu ns: want "
                     "0 < quantum <= longest", (unsigned long long)lc.quantum_ns,
                     (unsigned long long)lc.quantum_max_ns);
            sim_simulator_free(s);
            return NULL;
        }
        lk.ls = s->lockstep;
    }
    if (cfg->link_path) {
        s->gblink = sim_bridge_gblink_new(s->bridge, cfg->link_path, s->lockstep ? &lk : NULL,
                                          log_sink, s, err, errlen);
        if (!s->gblink) {
            sim_simulator_free(s);
            return NULL;
        }
        logf_(s, SW_LOG_INFO, "gbvp sim: %u slots, APBridgeA with %u CPorts, waiting for QEMU "
              "on %s", s->cfg.num_slots, s->cfg.cport_count, cfg->link_path);
    }
    /* Last: opening them empties the files, which is only right once nothing else can
     * refuse the run (a second simulator started with a running one's arguments finds its
     * socket held, and must not empty its capture on the way out). */
    if ((cfg->pcap_path && capture_start(s, cfg->pcap_path, true, err, errlen)) ||
        (cfg->trace_path && trace_start(s, cfg->trace_path, true, err, errlen))) {
        sim_simulator_free(s);
        return NULL;
    }
    char mode[32];
    up_phy_cfg_name(&s->cfg.link, mode, sizeof mode);
    char faults[96] = "";
    if (s->cfg.timing && s->cfg.ber > 0) /* (the seed, so that a run can be told again) */
        snprintf(faults, sizeof faults, " with bit errors (BER %g, seed %llu)", s->cfg.ber,
                 (unsigned long long)(s->cfg.seed ? s->cfg.seed : 1));
    logf_(s, SW_LOG_INFO, "gbvp sim: clock %s, timing %s%s%s%s", sim_clock_name(s->cfg.clock),
          sw_timing_name(s->cfg.timing), s->cfg.timing ? ", links " : "",
          s->cfg.timing ? mode : "", faults);
    if (s->lockstep)
        logf_(s, SW_LOG_INFO, "gbvp sim: lockstep quantum %llu ns, longest grant %llu ns",
              (unsigned long long)s->cfg.lockstep.quantum_ns,
              (unsigned long long)s->cfg.lockstep.quantum_max_ns);
    return s;
}

void sim_simulator_free(sim_simulator *s)
{
    if (!s)
        return;
    sim_simulator_capture_stop(s);
    sim_simulator_trace_stop(s);
    if (s->slots)
        sim_slots_free(s->slots, s->now);
    if (s->lockstep) {
        sim_lockstep_stats st;
        sim_lockstep_get_stats(s->lockstep, &st);
        /* (not the holds: how many reports found the clock held depends on how fast the
         * front end was, and this log repeats exactly from run to run) */
        logf_(s, SW_LOG_INFO, "gbvp sim: lockstep: %llu barriers, %llu grants (%llu skipped "
              "ahead)", (unsigned long long)st.reports, (unsigned long long)st.grants,
              (unsigned long long)st.skips);
    }
    sim_bridge_gblink_free(s->gblink);
    sim_lockstep_free(s->lockstep);
    sim_bridge_free(s->bridge);
    gb_svc_free(s->svc);
    sw_fabric_free(s->fabric); /* before the kernel: its pending events refer to it */
    sim_event_kernel_free(s->k);
    free(s);
}

const sim_config *sim_simulator_config(const sim_simulator *s)
{
    return &s->cfg;
}

/* ---- time ---- */

sim_time sim_simulator_now(const sim_simulator *s)
{
    return s->now;
}

/* Runs the events due up to `until` and sets the clock there (never backwards). */
static void advance(sim_simulator *s, sim_time until)
{
    if (until > sim_event_kernel_now(s->k))
        sim_event_kernel_run_until(s->k, until);
    s->now = sim_event_kernel_now(s->k);
}

/* Lockstep: simulated time moves only when QEMU reports. A QEMU that was granted time and
 * then says nothing (stopped, in a debugger, wedged) stops the clock, and every client
 * waiting on it, without a word; the log says so once it has lasted LOCKSTEP_QUIET_WARN of
 * the loop's wall time, and again when QEMU reports. */
static void peer_watch(sim_simulator *s)
{
    if (!s->wall)
        return;
    sim_time wall = s->wall(s->wall_ctx);
    sim_lockstep_stats st;
    sim_lockstep_get_stats(s->lockstep, &st);
    bool owed_a_report = sim_bridge_gblink_up(s->gblink) && st.grants &&
                         !sim_lockstep_waiting(s->lockstep);
    if (st.reports != s->watched_reports || !owed_a_report) {
        if (s->quiet_told && st.reports != s->watched_reports)
            logf_(s, SW_LOG_WARN, "lockstep: QEMU reports again, after %.1f s of wall time",
                  (double)(wall - s->quiet_since) / 1e12);
        s->watched_reports = st.reports;
        s->quiet_since = wall;
        s->quiet_told = false;
        return;
    }
    if (!s->quiet_told && wall - s->quiet_since >= LOCKSTEP_QUIET_WARN) {
        logf_(s, SW_LOG_WARN, "lockstep: QEMU has reported nothing for %.0f s of wall time "
              "since it was granted its virtual time up to %.6f s; simulated time, and every "
              "client waiting on it, waits for QEMU (stopped, in a debugger, or wedged?)",
              (double)(wall - s->quiet_since) / 1e12,
              (double)sim_lockstep_granted(s->lockstep) / 1e9);
        s->quiet_told = true;
    }
}

void sim_simulator_process(sim_simulator *s, sim_time until)
{
    advance(s, until);
    if (s->gblink)
        sim_bridge_gblink_process(s->gblink, s->now,
                                  !s->gblink_quiet || sim_bridge_gblink_has_records(s->gblink));
    s->gblink_quiet = false;
    sim_slots_service(s->slots);
    gb_svc_tick(s->svc, s->now);
    if (s->capture)
        sim_capture_tick(s->capture);
    if (s->capture && sim_capture_error(s->capture) && !s->capture_failure_told) {
        logf_(s, SW_LOG_ERROR, "%s", sim_capture_error(s->capture));
        s->capture_failure_told = true;
    }
    if (s->trace && sim_trace_error(s->trace) && !s->trace_failure_told) {
        logf_(s, SW_LOG_ERROR, "%s", sim_trace_error(s->trace));
        s->trace_failure_told = true;
    }
    if (s->lockstep) {
        sim_time next;
        if (!sim_event_kernel_next_time(s->k, &next))
            next = SIM_TIME_MAX;
        sim_bridge_gblink_grant(s->gblink, next, s->hold);
        peer_watch(s);
    }
}

void sim_simulator_hold(sim_simulator *s, sim_time until)
{
    s->hold = until;
}

void sim_simulator_lockstep_stats(const sim_simulator *s, sim_lockstep_stats *out)
{
    if (s->lockstep)
        sim_lockstep_get_stats(s->lockstep, out);
    else
        *out = (sim_lockstep_stats){ 0 };
}

bool sim_simulator_next_event(sim_simulator *s, sim_time *out)
{
    return sim_event_kernel_next_time(s->k, out);
}

sim_time sim_simulator_clock_now(sim_simulator *s, sim_time wall)
{
    sim_time next;
    if (s->cfg.clock == SIM_CLOCK_STEPPED || s->cfg.clock == SIM_CLOCK_LOCKSTEP)
        return s->now;
    if (s->cfg.clock == SIM_CLOCK_UNPACED)
        return sim_event_kernel_next_time(s->k, &next) ? next : s->now;
    return wall > s->now ? wall : s->now;
}

static sim_time realtime_now(void *ctx)
{
    sim_simulator *s = ctx;
    return sim_simulator_clock_now(s, s->wall(s->wall_ctx));
}

void sim_simulator_set_wall_clock(sim_simulator *s, sim_time (*wall)(void *ctx), void *ctx)
{
    s->wall = wall;
    s->wall_ctx = ctx;
    if (s->gblink && s->cfg.clock == SIM_CLOCK_REALTIME)
        sim_bridge_gblink_read_clock(s->gblink, wall ? &(sim_bridge_gblink_clock){
            .now = realtime_now, .advance = advance_to, .ctx = s } : NULL);
}

sim_time sim_simulator_idle_for(sim_simulator *s, sim_time wall)
{
    sim_time next;
    if (s->cfg.clock == SIM_CLOCK_STEPPED || s->cfg.clock == SIM_CLOCK_LOCKSTEP ||
        !sim_event_kernel_next_time(s->k, &next))
        return SIM_TIME_MAX;
    if (s->cfg.clock == SIM_CLOCK_UNPACED || next <= wall)
        return 0;
    return next - wall;
}

size_t sim_simulator_pollfds(const sim_simulator *s, struct pollfd *fds, size_t cap)
{
    size_t n = 0;
    if (s->gblink && cap)
        fds[n++] = (struct pollfd){ .fd = sim_bridge_gblink_fd(s->gblink), .events = POLLIN };
    else if (s->gblink)
        n++;
    int mfds[16];
    size_t m = sim_slots_fds(s->slots, mfds, sizeof mfds / sizeof mfds[0]);
    for (size_t i = 0; i < m && i < sizeof mfds / sizeof mfds[0]; i++, n++)
        if (n < cap)
            fds[n] = (struct pollfd){ .fd = mfds[i], .events = POLLIN };
    return n;
}

/* ---- the frame's slots ---- */

unsigned sim_simulator_num_slots(const sim_simulator *s)
{
    return s->cfg.num_slots;
}

uint8_t sim_simulator_slot_intf_id(const sim_simulator *s, unsigned slot)
{
    return gb_svc_slot_intf_id(s->svc, slot);
}

/* A catalog entry name, or a path to a .mnfs file (its folder is then the catalog). */
static vm_module *load_module(const sim_simulator *s, const char *spec, char *err,
                              size_t errlen)
{
    const char *slash = strrchr(spec, '/');
    size_t sl = strlen(spec);
    bool is_file = slash || (sl > 5 && !strcmp(spec + sl - 5, ".mnfs"));
    if (!is_file)
        return vm_module_load(s->cfg.catalog_dir, spec, err, errlen);
    char dir[512], name[256];
    const char *base = slash ? slash + 1 : spec;
    size_t dl = slash ? (size_t)(slash - spec) : 1;
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, ".mnfs"))
        bl -= 5;
    if (dl >= sizeof dir || bl == 0 || bl >= sizeof name) {
        snprintf(err, errlen, "'%s' is not a usable module path", spec);
        return NULL;
    }
    memcpy(dir, slash ? spec : ".", dl);
    dir[dl] = 0;
    if (slash && dl == 0)
        snprintf(dir, sizeof dir, "/");
    memcpy(name, base, bl);
    name[bl] = 0;
    return vm_module_load(dir, name, err, errlen);
}

int sim_simulator_insert(sim_simulator *s, unsigned slot, const char *module, char *err,
                         size_t errlen)
{
    char own[256];
    if (!err || !errlen) {
        err = own;
        errlen = sizeof own;
    }
    vm_module *m = load_module(s, module, err, errlen);
    if (!m) {
        logf_(s, SW_LOG_ERROR, "%s", err);
        return -ENOENT;
    }
    int rc = sim_slots_insert(s->slots, slot, m, s->now, err, errlen);
    vm_module_free(m);
    if (rc)
        logf_(s, SW_LOG_ERROR, "cannot insert %s in slot %u: %s", module, slot, err);
    return rc;
}

int sim_simulator_remove(sim_simulator *s, unsigned slot, char *err, size_t errlen)
{
    char own[64];
    if (!err || !errlen) {
        err = own;
        errlen = sizeof own;
    }
    int rc = sim_slots_remove(s->slots, slot, s->now);
    if (rc) {
        snprintf(err, errlen, "slot %u is empty", slot);
        logf_(s, SW_LOG_ERROR, "%s", err);
    }
    return rc;
}

const char *sim_simulator_module_name(const sim_simulator *s, unsigned slot)
{
    return slot < s->cfg.num_slots ? sim_slots_module_name(s->slots, slot) : NULL;
}

vm_interface *sim_simulator_interface(sim_simulator *s, unsigned slot, unsigned index)
{
    return slot < s->cfg.num_slots ? sim_slots_interface(s->slots, slot, index) : NULL;
}

vm_interface *sim_simulator_interface_by_id(sim_simulator *s, uint8_t intf_id)
{
    for (unsigned slot = 0; slot < s->cfg.num_slots; slot++)
        if (gb_svc_slot_intf_id(s->svc, slot) == intf_id)
            return sim_slots_interface_in(s->slots, slot);
    return NULL;
}

int sim_simulator_command(sim_simulator *s, unsigned slot, int index, const char *line,
                          vm_reply *reply)
{
    vm_reply_clear(reply);
    if (!sim_simulator_module_name(s, slot))
        return vm_reply_say(reply, -ENOENT, "slot %u is empty", slot);
    for (unsigned i = index < 0 ? 0 : (unsigned)index;; i++) {
        vm_interface *intf = sim_simulator_interface(s, slot, i);
        if (!intf && index < 0)
            return -ENODEV; /* the last interface's answer says which class it lacks */
        if (!intf)
            return vm_reply_say(reply, -ENOENT, "slot %u has no interface %d (the module is "
                                "narrower)", slot, index + 1);
        int rc = vm_backend_command(intf, line, s->now, reply);
        if (rc == 0)
            return 0;
        if (rc != VM_BACKEND_NO_CLASS || index >= 0)
            return rc == VM_BACKEND_NO_CLASS ? -ENODEV : -EINVAL;
    }
}

/* ---- links ---- */

/* The switch port of the interface in slot, or of the AP for GB_SVC_SLOT_AP, or -errno. */
static int slot_port(const sim_simulator *s, unsigned slot, char *err, size_t errlen)
{
    if (s->cfg.timing == SW_TIMING_DIRECT) {
        snprintf(err, errlen, "timing is off: there is no UniPro link model (run the simulator "
                 "with --timing frame)");
        return -ENOTSUP;
    }
    if (slot == GB_SVC_SLOT_AP)
        return gb_svc_ap_intf_id(s->svc);
    if (slot >= s->cfg.num_slots) {
        snprintf(err, errlen, "slot %u outside 0..%u", slot, s->cfg.num_slots - 1);
        return -EINVAL;
    }
    return gb_svc_slot_intf_id(s->svc, slot);
}

/* "slot N" or "the AP" for messages. */
static const char *link_name(unsigned slot, char *buf, size_t len)
{
    if (slot == GB_SVC_SLOT_AP)
        snprintf(buf, len, "the AP");
    else
        snprintf(buf, len, "slot %u", slot);
    return buf;
}

int sim_simulator_link_set(sim_simulator *s, unsigned slot, const char *gear,
                           const char *series, const char *lanes, char *err, size_t errlen)
{
    sw_link_info li;
    int rc = sim_simulator_link_info(s, slot, &li, err, errlen);
    if (rc)
        return rc;
    up_phy_cfg c = li.phy;
    if (sw_link_parse(&c, gear, series, lanes, err, errlen))
        return -EINVAL;
    rc = sw_fabric_link_set(s->fabric, (unsigned)slot_port(s, slot, err, errlen), &c, err,
                            errlen);
    if (!rc && s->trace) {
        char name[24], mode[32], text[80];
        up_phy_cfg_name(&c, mode, sizeof mode);
        snprintf(text, sizeof text, "link of %s to %s", link_name(slot, name, sizeof name),
                 mode);
        sim_trace_mark(s->trace, "links", text, s->now);
    }
    return rc;
}

int sim_simulator_link_fault(sim_simulator *s, unsigned slot, const sw_link_fault *f, char *err,
                             size_t errlen)
{
    int port = slot_port(s, slot, err, errlen);
    if (port < 0)
        return port;
    int rc = sw_fabric_link_fault(s->fabric, (unsigned)port, f, err, errlen);
    char name[24], text[96];
    if (!rc) {
        snprintf(text, sizeof text, "link of %s:%s%s%s", link_name(slot, name, sizeof name),
                 f->set_ber ? " bit errors set" : "", f->set_drop ? " frame drops set" : "",
                 f->set_down ? (f->down ? " down" : " up") : "");
        logf_(s, SW_LOG_INFO, "timing: %s", text);
        if (s->trace)
            sim_trace_mark(s->trace, "links", text, s->now);
    }
    return rc;
}

int sim_simulator_link_info(sim_simulator *s, unsigned slot, sw_link_info *out, char *err,
                            size_t errlen)
{
    int port = slot_port(s, slot, err, errlen);
    if (port < 0)
        return port;
    int rc = sw_fabric_link_info(s->fabric, (unsigned)port, out, err, errlen);
    if (rc == -ENODEV) {
        char name[24];
        snprintf(err, errlen, "the link of %s has no frame-level model yet (it carried no "
                 "traffic)", link_name(slot, name, sizeof name));
    }
    return rc;
}

/* ---- the parts ---- */

gb_svc *sim_simulator_svc(const sim_simulator *s)
{
    return s->svc;
}

sw_fabric *sim_simulator_fabric(const sim_simulator *s)
{
    return s->fabric;
}

sim_bridge *sim_simulator_bridge(const sim_simulator *s)
{
    return s->bridge;
}

void sim_simulator_polled(sim_simulator *s, const struct pollfd *fds, size_t n)
{
    /* (sim_simulator_pollfds puts gblink's descriptor first) */
    s->gblink_quiet = s->gblink && n && !fds[0].revents;
}

bool sim_simulator_input_waiting(const sim_simulator *s)
{
    return s->gblink && sim_bridge_gblink_has_records(s->gblink);
}

uint64_t sim_simulator_events_run(const sim_simulator *s)
{
    return sim_event_kernel_executed(s->k);
}

bool sim_simulator_ap_linked(const sim_simulator *s)
{
    return s->gblink && sim_bridge_gblink_up(s->gblink);
}

void sim_simulator_link_queue(const sim_simulator *s, sim_bridge_gblink_stats *out)
{
    *out = s->gblink ? sim_bridge_gblink_get_stats(s->gblink) : (sim_bridge_gblink_stats){ 0 };
}

/* ---- reports ---- */

static void print_audio_dir(const char *name, const sim_bridge_audio_dir *d, FILE *out)
{
    fprintf(out, "; %s %s", name, d->started ? "started" : d->prepared ? "prepared" : "idle");
    for (unsigned i = 0; i < d->cports; i++)
        fprintf(out, "%s%u", i ? "," : " to hd CPort ", d->cport[i]);
    if (d->messages)
        fprintf(out, ", %llu messages of %u bytes", (unsigned long long)d->messages,
                d->data_size);
}

/* The bridge's I2S port, once the AP has configured it. */
static void print_audio(sim_bridge_audio_state a, FILE *out)
{
    if (!a.configured && !a.tx.cports && !a.rx.cports)
        return;
    fprintf(out, "bridge audio: I2S 0 ");
    if (a.configured)
        fprintf(out, "%u-bit %u Hz", a.format_bits, a.rate_hz);
    else
        fprintf(out, "not configured");
    print_audio_dir("TX", &a.tx, out);
    print_audio_dir("RX", &a.rx, out);
    if (a.restarts)
        fprintf(out, "; started again %llu times while streaming (xrun recovery)",
                (unsigned long long)a.restarts);
    fprintf(out, "\n");
}

/* What happened to records for QEMU: queued for room in the ring, lost, refused. */
static void print_link_queue(sim_bridge_gblink_stats q, FILE *out)
{
    fprintf(out, "records for QEMU: %llu waited for room (at most %llu at once, %llu now); "
            "lost: %llu messages and %llu answers at the full queue, %llu discarded when QEMU "
            "went, %llu with no QEMU, %llu too big, %llu refused by gblink; %llu peers refused\n",
            (unsigned long long)q.queued, (unsigned long long)q.queue_peak,
            (unsigned long long)q.waiting, (unsigned long long)q.messages_dropped,
            (unsigned long long)q.results_dropped, (unsigned long long)q.discarded,
            (unsigned long long)q.no_peer, (unsigned long long)q.oversize,
            (unsigned long long)q.send_failed, (unsigned long long)q.clients_refused);
}

void sim_simulator_status(sim_simulator *s, FILE *out)
{
    if (s->gblink)
        fprintf(out, "link: %s, ", sim_bridge_gblink_up(s->gblink) ? "up" : "waiting for QEMU");
    fprintf(out, "SVC handshake %s\n", gb_svc_handshake_done(s->svc) ? "done" : "not done");
    if (s->gblink)
        print_link_queue(sim_bridge_gblink_get_stats(s->gblink), out);
    print_audio(sim_bridge_audio_get_state(sim_bridge_get_audio(s->bridge)), out);
    for (unsigned i = 0; i < s->cfg.num_slots; i++) {
        gb_svc_intf_info in;
        uint8_t id = gb_svc_slot_intf_id(s->svc, i);
        gb_svc_get_intf(s->svc, id, &in);
        const char *name = sim_slots_module_name(s->slots, i);
        if (!name) {
            fprintf(out, "slot %u (interface %u): empty\n", i, id);
            continue;
        }
        fprintf(out, "slot %u (interface %u): %s%s%s%s", i, id, name,
                in.vsys ? ", powered" : "", in.active ? ", active" : "",
                in.hibernated ? ", hibernated" : "");
        if (in.device_id)
            fprintf(out, ", device id %u", in.device_id);
        fprintf(out, "\n");
    }
    const sw_conn_table *t = sw_fabric_connections(s->fabric);
    for (size_t i = 0; i < sw_conn_count(t); i++) {
        const sw_conn *c = sw_conn_at(t, i);
        fprintf(out, "connection %u:%u <-> %u:%u flags 0x%02x\n", c->port1, c->cport1,
                c->port2, c->cport2, c->flags);
    }
    gb_svc_stats st = gb_svc_get_stats(s->svc);
    sw_fabric_stats fs = sw_fabric_get_stats(s->fabric);
    sw_dir_stats to_ap = sw_fabric_dir_stats(s->fabric, SW_DIR_INTF_TO_AP);
    sw_dir_stats to_intf = sw_fabric_dir_stats(s->fabric, SW_DIR_AP_TO_INTF);
    fprintf(out, "AP requests %llu (bad %llu), pings %llu, to AP %llu, to modules %llu, "
            "dropped %llu\n", (unsigned long long)st.ap_requests,
            (unsigned long long)st.ap_bad_requests, (unsigned long long)st.pings,
            (unsigned long long)to_ap.delivered_msgs, (unsigned long long)to_intf.delivered_msgs,
            (unsigned long long)fs.dropped);
    fprintf(out, "time %.6f s simulated, %llu events\n", (double)s->now / 1e12,
            (unsigned long long)sim_event_kernel_executed(s->k));
    if (s->cfg.timing != SW_TIMING_DIRECT)
        sw_fabric_print(s->fabric, out);
    fflush(out);
}

int sim_simulator_write_stats(sim_simulator *s, FILE *out)
{
    if (s->cfg.timing == SW_TIMING_DIRECT)
        return -ENOTSUP;
    int rc = sw_fabric_write_json(s->fabric, out);
    if (fflush(out) && !rc)
        rc = -errno;
    return rc;
}

/* ---- captures and timelines ---- */

/* Frames feed the capture (with --pcap-frames) and the timeline's bursts. */
static void observe_frame(void *ctx, const sw_frame_event *ev)
{
    sim_simulator *s = ctx;
    if (s->capture && s->cfg.pcap_frames)
        sim_capture_frame(s->capture, ev);
    if (s->trace)
        sim_trace_frame(s->trace, ev, sw_fabric_switch_queued(s->fabric, ev->port));
}

static void frames_observed(sim_simulator *s)
{
    bool want = s->trace || (s->capture && s->cfg.pcap_frames);
    sw_fabric_set_frame_observer(s->fabric, want ? observe_frame : NULL, s);
}

static void observe_link(void *ctx, const sw_link_event *ev)
{
    sim_simulator *s = ctx;
    if (s->trace)
        sim_trace_link(s->trace, ev);
}

/* The fabric's one observer feeds both. */
static void observe(void *ctx, const sw_observed *ev)
{
    sim_simulator *s = ctx;
    if (s->capture)
        sim_capture_observe(s->capture, ev);
    if (s->trace)
        sim_trace_observe(s->trace, ev);
}

/* sim_simulator_capture_start; at start (wait_for_reader) a FIFO's reader is waited for,
 * as docs/tracing.md tells. */
static int capture_start(sim_simulator *s, const char *path, bool wait_for_reader, char *err,
                         size_t errlen)
{
    const sw_fabric_cfg *fc = sw_fabric_get_cfg(s->fabric);
    /* Started over on its own file: the running one ends first, or opening the new one
     * would empty the file under it, and its last records would land past a hole. */
    if (s->capture && sim_capture_writes_to(s->capture, path))
        sim_simulator_capture_stop(s);
    sim_capture *c = sim_capture_open(path, fc->ports, fc->ap_port, wait_for_reader, err,
                                      errlen);
    if (!c) {
        logf_(s, SW_LOG_ERROR, "%s", err);
        return -EINVAL;
    }
    sim_simulator_capture_stop(s);
    s->capture = c;
    s->capture_failure_told = false;
    sw_fabric_set_observer(s->fabric, observe, s);
    frames_observed(s);
    logf_(s, SW_LOG_INFO, "capture: every message to %s (pcapng)", path);
    return 0;
}

int sim_simulator_capture_start(sim_simulator *s, const char *path, char *err, size_t errlen)
{
    /* the simulator runs: waiting for a FIFO's reader would stop it, QEMU's link and the
     * control socket with it, for as long as nobody comes */
    return capture_start(s, path, false, err, errlen);
}

uint64_t sim_simulator_capture_stop(sim_simulator *s)
{
    if (!s->capture)
        return 0;
    uint64_t n = sim_capture_packets(s->capture);
    char path[256];
    snprintf(path, sizeof path, "%s", sim_capture_path(s->capture));
    /* a failure the run has not reported yet (it came with the last records) is told now,
     * with what the file holds */
    sim_capture_flush(s->capture);
    if (sim_capture_error(s->capture) && !s->capture_failure_told)
        logf_(s, SW_LOG_ERROR, "%s", sim_capture_error(s->capture));
    bool failed_before = sim_capture_error(s->capture) != NULL;
    int rc = sim_capture_close(s->capture);
    s->capture = NULL;
    frames_observed(s);
    if (rc && !failed_before)
        logf_(s, SW_LOG_ERROR, "capture %s: %s; the file is incomplete", path, strerror(-rc));
    else if (!rc)
        logf_(s, SW_LOG_INFO, "capture: %llu messages written to %s", (unsigned long long)n,
              path);
    if (!s->trace)
        sw_fabric_set_observer(s->fabric, NULL, NULL);
    return n;
}

bool sim_simulator_capturing(const sim_simulator *s)
{
    return s->capture != NULL;
}

/* sim_simulator_trace_start; at start (wait_for_reader) a FIFO's reader is waited for. */
static int trace_start(sim_simulator *s, const char *path, bool wait_for_reader, char *err,
                       size_t errlen)
{
    const sw_fabric_cfg *fc = sw_fabric_get_cfg(s->fabric);
    /* Started over on its own file: the running one is written out first, then replaced
     * (written after the new one's open, it would mix with the new one's text). */
    if (s->trace && sim_trace_writes_to(s->trace, path))
        sim_simulator_trace_stop(s);
    sim_trace *t = sim_trace_open(path, fc->ports, fc->ap_port, wait_for_reader, err, errlen);
    if (!t) {
        logf_(s, SW_LOG_ERROR, "%s", err);
        return -EINVAL;
    }
    sim_simulator_trace_stop(s);
    s->trace = t;
    s->trace_failure_told = false;
    sw_fabric_set_observer(s->fabric, observe, s);
    sw_fabric_set_link_observer(s->fabric, observe_link, s);
    frames_observed(s);
    logf_(s, SW_LOG_INFO, "trace: a timeline to %s (trace-event JSON)", path);
    return 0;
}

int sim_simulator_trace_start(sim_simulator *s, const char *path, char *err, size_t errlen)
{
    return trace_start(s, path, false, err, errlen); /* the simulator runs: no waiting */
}

int sim_simulator_trace_stop(sim_simulator *s)
{
    if (!s->trace)
        return 0;
    char path[256];
    snprintf(path, sizeof path, "%s", sim_trace_path(s->trace));
    sw_fabric_set_link_observer(s->fabric, NULL, NULL);
    int rc = sim_trace_close(s->trace, s->now);
    s->trace = NULL;
    frames_observed(s);
    if (!s->capture)
        sw_fabric_set_observer(s->fabric, NULL, NULL);
    if (rc)
        logf_(s, SW_LOG_ERROR, "trace %s: %s; the timeline is incomplete", path,
              strerror(-rc));
    else
        logf_(s, SW_LOG_INFO, "trace: %s written", path);
    return rc;
}

void sim_simulator_trace_mark(sim_simulator *s, const char *track, const char *text)
{
    if (s->trace)
        sim_trace_mark(s->trace, track, text, s->now);
}
