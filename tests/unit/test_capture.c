// SPDX-License-Identifier: MIT
// Captures (sim/capture.h, docs/tracing.md): the simulator with the test AP records a
// hot-plug as pcapng; this test reads the file back with its own reader and checks every
// block against the documented format, the record headers against the messages, and the
// refusals: bad paths, a FIFO whose reader left.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ap-model/ap.h"
#include "gbvp/target/target_local.h"
#include "greybus/gb_message.h"
#include "greybus/svc_protocol.h"
#include "sim/capture.h"
#include "tests/unit/unit.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

typedef struct packet {
    unsigned iface;
    uint64_t ns;
    const uint8_t *rec; /* record header, then the Greybus message */
    uint32_t len;       /* captured */
    uint32_t orig;      /* as it was: more than len when the record was cut short */
} packet;

typedef struct capture_file {
    uint8_t *data;
    size_t size;
    unsigned interfaces;
    char names[64][16];
    packet *pkts;
    size_t npkts;
} capture_file;

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *size = n;
    return buf;
}

/* Reads and checks the blocks: every one well formed, the section header first, interfaces
 * before packets. */
static void read_capture(const char *path, capture_file *c)
{
    memset(c, 0, sizeof *c);
    c->data = slurp(path, &c->size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->data);
    size_t off = 0;
    bool first = true;
    while (off + 12 <= c->size) {
        const uint8_t *b = c->data + off;
        uint32_t type = le32(b), total = le32(b + 4);
        CU_ASSERT_FATAL(total >= 12 && total % 4 == 0 && off + total <= c->size);
        CU_ASSERT_EQUAL_FATAL(le32(b + total - 4), total);
        if (first) {
            CU_ASSERT_EQUAL_FATAL(type, 0x0a0d0d0au);
            CU_ASSERT_EQUAL(le32(b + 8), 0x1a2b3c4du);
            first = false;
        } else if (type == 1) {
            CU_ASSERT_EQUAL(c->npkts, 0); /* interfaces before packets */
            CU_ASSERT_EQUAL(le16(b + 8), SIM_CAPTURE_LINKTYPE);
            bool tsresol = false;
            for (size_t o = 16; o + 4 <= total - 4;) {
                uint16_t code = le16(b + o), len = le16(b + o + 2);
                if (code == 0)
                    break;
                if (code == 2 && len < sizeof c->names[0])
                    memcpy(c->names[c->interfaces], b + o + 4, len);
                if (code == 9)
                    tsresol = len == 1 && b[o + 4] == 9;
                o += 4 + ((len + 3u) & ~3u);
            }
            CU_ASSERT_TRUE(tsresol);
            c->interfaces++;
        } else if (type == 6) {
            c->pkts = realloc(c->pkts, (c->npkts + 1) * sizeof *c->pkts);
            packet *p = &c->pkts[c->npkts++];
            p->iface = le32(b + 8);
            p->ns = (uint64_t)le32(b + 12) << 32 | le32(b + 16);
            p->len = le32(b + 20);
            p->orig = le32(b + 24);
            CU_ASSERT(p->orig >= p->len);
            CU_ASSERT_FATAL(28 + p->len + 4 <= total);
            p->rec = b + 28;
        } else {
            CU_FAIL("unexpected block type");
        }
        off += total;
    }
    CU_ASSERT_EQUAL(off, c->size);
}

static void free_capture(capture_file *c)
{
    free(c->pkts);
    free(c->data);
}

static sim_local *up(const char *pcap)
{
    char err[320];
    sim_local_config c = { .sim = { .num_slots = 4, .pcap_path = pcap }, .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&c, err, sizeof err);
    if (!l)
        fprintf(stderr, "\n    %s\n", err);
    return l;
}

static void test_capture_records_every_message_as_documented(void)
{
    char path[64];
    unit_tmp_path(path, sizeof path, "capture.pcapng");
    sim_local *l = up(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    char err[320];
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 1, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    /* bytes on an hd CPort that no connection uses: refused, recorded as dropped */
    uint8_t stray[GB_MSG_HEADER_SIZE];
    gb_msg_build(stray, sizeof stray, 0x1234, 0x02, 0, NULL, 0);
    tap_send_raw(sim_local_test_ap(l), 40, stray, sizeof stray);
    CU_ASSERT_EQUAL(t->ops->remove(t->ctx, 1, err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    {
        sw_fabric_stats st = sw_fabric_get_stats(sim_simulator_fabric(sim_local_simulator(l)));
        sim_local_free(l);
        capture_file c;
        read_capture(path, &c);
        unlink(path);
        /* the AP, the SVC, then one interface per switch port of an interface: 4 slots on a
         * 7-port switch (ports 0..6: AP 1, interfaces 2..5, SVC 6), and no interface for a
         * slot the frame does not have */
        CU_ASSERT_EQUAL(c.interfaces, 6);
        CU_ASSERT_STRING_EQUAL(c.names[0], "ap");
        CU_ASSERT_STRING_EQUAL(c.names[1], "svc");
        CU_ASSERT_STRING_EQUAL(c.names[3], "slot 1");
        CU_ASSERT_STRING_EQUAL(c.names[5], "slot 3");
        CU_ASSERT_EQUAL(c.npkts, st.to_ap + st.to_intf + st.to_svc + st.dropped);
        unsigned dropped = 0, to_intf = 0, from_intf = 0;
        uint64_t last_ns = 0;
        for (size_t i = 0; i < c.npkts; i++) {
            const packet *p = &c.pkts[i];
            const uint8_t *r = p->rec;
            CU_ASSERT_FATAL(p->len >= SIM_CAPTURE_HEADER + GB_MSG_HEADER_SIZE);
            CU_ASSERT_EQUAL(p->orig, p->len); /* nothing cut short */
            CU_ASSERT_EQUAL(r[0], 1);
            CU_ASSERT_EQUAL(r[1], 0);
            CU_ASSERT(r[2] <= 4);
            CU_ASSERT(p->ns >= last_ns); /* simulated time never goes back */
            last_ns = p->ns;
            CU_ASSERT(p->iface < c.interfaces);
            const uint8_t *msg = r + SIM_CAPTURE_HEADER;
            CU_ASSERT_EQUAL(le16(msg), p->len - SIM_CAPTURE_HEADER); /* the Greybus size */
            CU_ASSERT_EQUAL(msg[6] | msg[7], 0);                    /* pad cleared */
            unsigned src = r[4], dst = r[5];
            uint16_t src_cport = le16(r + 8), dst_cport = le16(r + 10), hd = le16(r + 12);
            if (r[3] & 1) {
                dropped++;
                CU_ASSERT_EQUAL(src, 1);
                CU_ASSERT_EQUAL(src_cport, 40);
                CU_ASSERT_EQUAL(hd, 40);
                CU_ASSERT_EQUAL(r[15], SW_VERDICT_NO_CONNECTION);
                CU_ASSERT_EQUAL(dst, 0xff);
                CU_ASSERT_EQUAL(p->iface, 0); /* the sender's, the AP */
                continue;
            }
            CU_ASSERT_EQUAL(r[15], 0);
            /* recorded where it arrived; the hd CPort is the AP's end */
            CU_ASSERT_EQUAL(p->iface, dst == 1 ? 0u : dst == 6 ? 1u : dst);
            if (src == 1)
                CU_ASSERT_EQUAL(hd, src_cport);
            if (dst == 1)
                CU_ASSERT_EQUAL(hd, dst_cport);
            if (src != 1 && dst != 1)
                CU_ASSERT_EQUAL(hd, 0xffff);
            if (dst == 3) {
                to_intf++;
                CU_ASSERT_EQUAL(r[2], 0); /* AP -> interface */
                CU_ASSERT(r[7] != 0);     /* it had a DeviceID */
            }
            if (src == 3) {
                from_intf++;
                CU_ASSERT_EQUAL(r[2], 1);
            }
        }
        CU_ASSERT_EQUAL(dropped, 1);
        CU_ASSERT(to_intf > 5 && from_intf > 5); /* control, GPIO and I2C both ways */
        free_capture(&c);
    }
}

static void test_capture_refuses_bad_paths_and_survives_a_reader_leaving(void)
{
    char err[320] = "";
    sim_local_config c = { .sim = { .num_slots = 2, .pcap_path = "/nonexistent/dir/x.pcapng" },
                           .ap = SIM_LOCAL_TEST_AP };
    CU_ASSERT_PTR_NULL(sim_local_new(&c, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/dir/x.pcapng"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file or directory"));
    CU_ASSERT_PTR_NULL(sim_capture_open("", 7, 1, false, err, sizeof err));
    CU_ASSERT_PTR_NULL(sim_capture_open("/tmp/x", 2, 1, false, err, sizeof err));

    /* a FIFO: the reader takes the header and leaves; the run goes on, the capture stops
     * and says why */
    char fifo[64];
    unit_tmp_path(fifo, sizeof fifo, "capture.fifo");
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    signal(SIGPIPE, SIG_IGN);
    /* the reader leaves only once the capture is open (its header written): leaving sooner
     * fails the open itself, which is another case (a loaded host made it one) */
    int leave[2];
    CU_ASSERT_EQUAL_FATAL(pipe(leave), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(leave[1]);
        int fd = open(fifo, O_RDONLY);
        char buf[64];
        bool got = fd >= 0 && read(fd, buf, sizeof buf) > 0;
        (void)!read(leave[0], buf, 1); /* returns when the parent closes its end */
        _exit(got ? 0 : 1);
    }
    close(leave[0]);
    sim_local *l = up(fifo);
    close(leave[1]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    int st;
    waitpid(pid, &st, 0);
    CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    CU_ASSERT_TRUE(tap_interface(sim_local_test_ap(l), 2).enabled); /* the run went on */
    CU_ASSERT_EQUAL(t->ops->capture(t->ctx, NULL, err, sizeof err), 0);
    sim_local_free(l);
    unlink(fifo);
}

static void test_capture_starts_and_stops_through_the_target(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "capture2.pcapng");
    sim_local *l = up(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->capture(t->ctx, path, err, sizeof err), 0);
    CU_ASSERT_TRUE(sim_simulator_capturing(sim_local_simulator(l)));
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "battery", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    CU_ASSERT_EQUAL(t->ops->capture(t->ctx, NULL, err, sizeof err), 0);
    CU_ASSERT_FALSE(sim_simulator_capturing(sim_local_simulator(l)));
    CU_ASSERT_EQUAL(t->ops->remove(t->ctx, 0, err, sizeof err), 0);
    tap_run(sim_local_test_ap(l)); /* not captured any more */
    sim_local_free(l);
    capture_file c;
    read_capture(path, &c);
    unlink(path);
    CU_ASSERT(c.npkts > 10);
    for (size_t i = 0; i < c.npkts; i++) /* nothing of the removal */
        CU_ASSERT_FALSE((c.pkts[i].rec[SIM_CAPTURE_HEADER + 4] & 0x7f) ==
                        GB_SVC_TYPE_MODULE_REMOVED && c.pkts[i].iface == 0);
    free_capture(&c);
}

/* --pcap-frames: every data-link frame, AFC and NAC as a record of kind 1 */
static void test_capture_with_frames_records_the_data_link(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "capture3.pcapng");
    sim_local_config c = { .sim = { .num_slots = 2, .pcap_path = path, .pcap_frames = true,
                                    .timing = SW_TIMING_FRAME, .ber = 1e-4, .seed = 3 },
                           .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&c, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0);
    sim_local_free(l);
    capture_file f;
    read_capture(path, &f);
    unlink(path);
    unsigned messages = 0, data = 0, afc = 0, nac = 0, crc = 0, replays = 0, to_switch = 0;
    for (size_t i = 0; i < f.npkts; i++) {
        const uint8_t *r = f.pkts[i].rec;
        if (r[1] == 0) {
            messages++;
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(r[1], 1);
        CU_ASSERT_EQUAL(f.pkts[i].len, SIM_CAPTURE_HEADER); /* a header, nothing after */
        CU_ASSERT(r[2] <= 1);
        /* 2 slots on a 5-port switch: the AP on 1, interfaces on 2 and 3, the SVC on 4 */
        CU_ASSERT(r[4] >= 1 && r[4] <= 4);
        CU_ASSERT_EQUAL(f.pkts[i].iface, r[4] == 1 ? 0u : r[4] == 4 ? 1u : r[4]);
        CU_ASSERT(r[5] <= 2);
        data += r[5] == 0;
        afc += r[5] == 1;
        nac += r[5] == 2;
        crc += (r[3] & 0x02) != 0;
        replays += (r[3] & 0x04) != 0;
        to_switch += r[2] == 0;
        if (r[5] == 0)
            CU_ASSERT(le32(r + 12) <= 286); /* a segment's payload */
        CU_ASSERT(le32(r + 20) > 0);        /* it took time on the wire */
    }
    CU_ASSERT(messages > 100);
    CU_ASSERT(data >= messages); /* each message crossed two links, some in several frames */
    CU_ASSERT(afc > 0);
    CU_ASSERT(to_switch > 0 && to_switch < data + afc + nac);
    /* bit errors: frames hit, NACked and replayed */
    CU_ASSERT(crc > 0);
    CU_ASSERT(nac > 0);
    CU_ASSERT(replays > 0);
    free_capture(&f);

    /* frames need the frame-level model and a capture */
    sim_local_config bad = { .sim = { .num_slots = 2, .pcap_path = path, .pcap_frames = true },
                             .ap = SIM_LOCAL_TEST_AP };
    CU_ASSERT_PTR_NULL(sim_local_new(&bad, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--timing frame"));
}

/* A message longer than the ES2 bridge's 2048 bytes (gblink carries up to 4096, and the
 * peer is untrusted): the bridge refuses it before the network, and the capture holds
 * nothing beyond the block it builds; the run and the file go on intact. */
static void test_capture_survives_an_oversize_message_from_the_ap(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "capture_big.pcapng");
    sim_local *l = up(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    static uint8_t big[4096];
    memset(big, 0xa5, sizeof big);
    size_t n = gb_msg_build(big, sizeof big, 0x77, 0x02, 0, NULL, 0);
    CU_ASSERT_EQUAL_FATAL(n, GB_MSG_HEADER_SIZE);
    big[0] = (uint8_t)(sizeof big & 0xff); /* the size field says 4096, as the bytes are */
    big[1] = (uint8_t)(sizeof big >> 8);
    sim_bridge_stats before = sim_bridge_get_stats(sim_simulator_bridge(sim_local_simulator(l)));
    tap_send_raw(sim_local_test_ap(l), 40, big, sizeof big); /* no connection: dropped */
    tap_send_raw(sim_local_test_ap(l), 0, big, sizeof big);  /* to the SVC */
    tap_run(sim_local_test_ap(l));
    sim_bridge_stats after = sim_bridge_get_stats(sim_simulator_bridge(sim_local_simulator(l)));
    CU_ASSERT_EQUAL(after.refused, before.refused + 2);
    CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0); /* the run goes on */
    sim_local_free(l);
    capture_file c;
    read_capture(path, &c);
    unlink(path);
    CU_ASSERT(c.npkts > 10);
    for (size_t i = 0; i < c.npkts; i++)
        CU_ASSERT(c.pkts[i].len <= SIM_CAPTURE_HEADER + GB_MSG_MAX_SIZE);
    free_capture(&c);
}

/* The writer's block holds the largest message gbvp carries (GB_MSG_MAX_SIZE); handed a
 * longer one anyway, it records the first GB_MSG_MAX_SIZE bytes with the real length as
 * the packet's original length (pcapng's way to say "cut short"), and goes on. */
static void test_capture_cuts_a_message_beyond_its_block_short(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "capture_cut.pcapng");
    sim_capture *cap = sim_capture_open(path, 7, 1, false, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cap);
    static uint8_t bytes[3000];
    memset(bytes, 0x5a, sizeof bytes);
    gb_msg m = { .h = { .size = sizeof bytes, .operation_id = 9, .type = 0x02 },
                 .bytes = bytes };
    sw_observed ev = { .dir = SW_DIR_AP_TO_INTF, .from = 1, .to = 2, .src_cport = 3,
                       .dst_cport = 1, .verdict = SW_VERDICT_OK, .sent = SIM_US(1),
                       .at = SIM_US(2), .m = &m };
    sim_capture_observe(cap, &ev);
    m.h.size = GB_MSG_HEADER_SIZE; /* and one of the usual size after it */
    sim_capture_observe(cap, &ev);
    CU_ASSERT_PTR_NULL(sim_capture_error(cap));
    CU_ASSERT_EQUAL(sim_capture_packets(cap), 2);
    CU_ASSERT_EQUAL(sim_capture_close(cap), 0);
    capture_file c;
    read_capture(path, &c);
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(c.npkts, 2);
    CU_ASSERT_EQUAL(c.pkts[0].len, SIM_CAPTURE_HEADER + GB_MSG_MAX_SIZE);
    CU_ASSERT_EQUAL(c.pkts[0].orig, SIM_CAPTURE_HEADER + sizeof bytes);
    CU_ASSERT_EQUAL(c.pkts[0].rec[SIM_CAPTURE_HEADER + 6], 0); /* pad cleared */
    CU_ASSERT_EQUAL(c.pkts[0].rec[SIM_CAPTURE_HEADER + 8], 0x5a);
    CU_ASSERT_EQUAL(c.pkts[1].len, SIM_CAPTURE_HEADER + GB_MSG_HEADER_SIZE);
    CU_ASSERT_EQUAL(c.pkts[1].orig, c.pkts[1].len);
    CU_ASSERT_EQUAL(c.pkts[1].iface, 2);
    free_capture(&c);
}

/* A second simulator started with the first one's arguments (the same --link and --pcap):
 * the socket is held, so it is refused, and it must leave the first one's capture and
 * timeline alone, not empty them on the way out. */
static void test_capture_of_a_running_simulator_survives_a_second_one(void)
{
    char path[64], trace[64], sock[64], err[320];
    unit_tmp_path(path, sizeof path, "capture_held.pcapng");
    unit_tmp_path(trace, sizeof trace, "capture_held.json");
    unit_tmp_path(sock, sizeof sock, "capture_held.sock");
    FILE *f = fopen(trace, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("an earlier timeline\n", f);
    fclose(f);
    sim_local_config first = { .sim = { .num_slots = 2, .pcap_path = path,
                                        .log_level = SW_LOG_ERROR },
                               .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&first, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    sim_config holder_cfg = { .link_path = sock, .num_slots = 2, .log_level = SW_LOG_ERROR };
    sim_simulator *holder = sim_simulator_new(&holder_cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(holder);
    for (int i = 0; i < 20; i++)
        CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0);
    /* what the first has written so far reaches the file (flushed every 50 ms) */
    usleep(60000);
    sim_simulator *s1 = sim_local_simulator(l);
    sim_simulator_process(s1, sim_simulator_now(s1));
    struct stat before;
    CU_ASSERT_EQUAL(stat(path, &before), 0);

    sim_config second = { .link_path = sock, .num_slots = 2, .pcap_path = path,
                          .trace_path = trace, .log_level = SW_LOG_ERROR };
    CU_ASSERT_PTR_NULL(sim_simulator_new(&second, err, sizeof err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, sock));
    struct stat after;
    CU_ASSERT_EQUAL(stat(path, &after), 0);
    CU_ASSERT_EQUAL(after.st_size, before.st_size);
    CU_ASSERT_EQUAL(stat(trace, &after), 0);
    CU_ASSERT_EQUAL(after.st_size, (off_t)strlen("an earlier timeline\n"));

    sim_simulator_free(holder);
    sim_local_free(l);
    capture_file c;
    read_capture(path, &c); /* every block whole, none overwritten */
    CU_ASSERT(c.npkts >= 40);
    free_capture(&c);
    unlink(path);
    unlink(trace);
}

/* The disk fills mid-run (here: a file size limit, which fails a write the same way, with
 * part of it written): the run goes on, the capture stops and says so with the reason, and
 * the file holds whole blocks only, each record before the failure readable. */
static void test_capture_that_fills_the_disk_keeps_whole_blocks(void)
{
    char path[64], err[320], logpath[64];
    unit_tmp_path(path, sizeof path, "capture_full.pcapng");
    unit_tmp_path(logpath, sizeof logpath, "capture_full.log");
    FILE *log = fopen(logpath, "w+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    sim_local_config cfg = { .sim = { .num_slots = 2, .pcap_path = path, .log = log,
                                      .log_level = SW_LOG_ERROR },
                             .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    struct rlimit old, lim;
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 6002; /* blocks are multiples of 4 bytes: a write is cut inside one */
    void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0); /* the run goes on */
    sim_local_free(l);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_xfsz);
    char text[2048] = "";
    rewind(log);
    size_t n = fread(text, 1, sizeof text - 1, log);
    text[n] = 0;
    fclose(log);
    unlink(logpath);
    /* the reason itself, and what the file holds */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "File too large; no more records are written"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the file holds the first"));
    capture_file c;
    read_capture(path, &c); /* every block whole, to the end of the file */
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT(st.st_size < 6002 && st.st_size > 3000);
    CU_ASSERT(c.npkts > 10);
    char said[64];
    snprintf(said, sizeof said, "the file holds the first %zu messages)", c.npkts);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, said));
    free_capture(&c);
    unlink(path);
}

/* {"cmd":"capture","file":P} while a capture to P runs (starting it over): the new one
 * replaces the old one in the same file. Opening the new one first emptied the file under
 * the old one, whose last records then landed at its old offset, after a hole of zeros. */
static void test_capture_started_again_on_its_own_file_starts_it_over(void)
{
    char path[64], err[320];
    unit_tmp_path(path, sizeof path, "capture_again.pcapng");
    sim_local *l = up(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    sim_simulator *s = sim_local_simulator(l);
    const sim_target *t = sim_local_target(l);
    CU_ASSERT_EQUAL(t->ops->insert(t->ctx, 0, "sensor", err, sizeof err), 0);
    tap_run(sim_local_test_ap(l));
    usleep(60000); /* some of it on disk, some still gathered */
    sim_simulator_process(s, sim_simulator_now(s));
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0);
    CU_ASSERT_EQUAL(t->ops->capture(t->ctx, path, err, sizeof err), 0);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(tap_functional(sim_local_test_ap(l), 2, 1), 0);
    sim_local_free(l);
    capture_file c;
    read_capture(path, &c); /* whole blocks to the end: no hole, no old tail */
    CU_ASSERT(c.npkts >= 6 && c.npkts <= 12); /* the three operations after the restart */
    free_capture(&c);
    unlink(path);
}

/* {"cmd":"capture","file":FIFO} while the simulator runs, before anyone reads the FIFO:
 * refused at once with the reason. Waiting for a reader (as at start) stopped the whole
 * simulator, QEMU's link and the control socket with it, for as long as nobody came. In a
 * child, so that a wait that never ends fails the test instead of hanging it. */
static void test_capture_to_a_fifo_nobody_reads_is_refused_while_running(void)
{
    char fifo[64];
    unit_tmp_path(fifo, sizeof fifo, "capture_noreader.fifo");
    unlink(fifo);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        alarm(5);
        char err[320] = "";
        sim_local *l = up(NULL);
        if (!l)
            _exit(90);
        const sim_target *t = sim_local_target(l);
        int rc = t->ops->capture(t->ctx, fifo, err, sizeof err);
        bool said = strstr(err, "nobody reads") != NULL;
        bool running = sim_simulator_capturing(sim_local_simulator(l));
        sim_local_free(l);
        _exit(rc != 0 && said && !running ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CU_ASSERT_TRUE(WIFEXITED(st)); /* not killed by the alarm: it did not wait */
    CU_ASSERT_EQUAL(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
    unlink(fifo);
}

static const unit_test capture_tests[] = {
    UNIT_TEST(test_capture_records_every_message_as_documented),
    UNIT_TEST(test_capture_refuses_bad_paths_and_survives_a_reader_leaving),
    UNIT_TEST(test_capture_starts_and_stops_through_the_target),
    UNIT_TEST(test_capture_with_frames_records_the_data_link),
    UNIT_TEST(test_capture_survives_an_oversize_message_from_the_ap),
    UNIT_TEST(test_capture_cuts_a_message_beyond_its_block_short),
    UNIT_TEST(test_capture_of_a_running_simulator_survives_a_second_one),
    UNIT_TEST(test_capture_that_fills_the_disk_keeps_whole_blocks),
    UNIT_TEST(test_capture_started_again_on_its_own_file_starts_it_over),
    UNIT_TEST(test_capture_to_a_fifo_nobody_reads_is_refused_while_running),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "capture", capture_tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
