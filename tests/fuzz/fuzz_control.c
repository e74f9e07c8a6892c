// SPDX-License-Identifier: MIT
// libFuzzer target: the control socket's JSON commands (gbvp/ctl/, docs/control-protocol.md)
// as a client sends them, against the simulator with the test AP (gbvp/target/target_local.h,
// catalog modules, 4 slots) and without a socket: the server from sim_ctl_new_detached,
// each line handed to ctl_handle as the socket's reader does (ctl_server.c client_lines:
// split at '\n', one '\r' before it dropped, empty lines skipped). A subscription needs a
// connection, so the lines come from a connection-less client record (fd -1): subscribe
// and unsubscribe run their real checks. The target is wrapped (fuzz_target_guard.h):
// `capture` and `trace` write to /dev/null (the checks on the request still run) and at
// most 2 hours of simulated time pass per input.
//
// The input is the byte stream of one connection. Checked besides "no crash, no leak, no
// sanitizer report":
//  - every non-empty line gets exactly one reply (never NULL, never deferred: the target's
//    time is simulated, so a wait is done at once): one line of UTF-8, a JSON object with
//    a boolean "ok";
//  - a refusal has a non-empty "error" sentence, and a "code" only among ENOENT, ENODEV,
//    EINVAL;
//  - when the line is a JSON object with an "id", the reply carries the same id.
// FUZZ_VERBOSE=1 prints each line and its reply.
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbvp/ctl/ctl_internal.h"
#include "gbvp/target/target_local.h"
#include "tests/fuzz/fuzz_target_guard.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    verbose = getenv("FUZZ_VERBOSE") != NULL;
    return 0;
}

static void fail(const char *what, const char *line, size_t len, const char *reply)
{
    fprintf(stderr, "fuzz_control: %s\n  line:  %.*s\n  reply: %s\n", what, (int)len, line,
            reply ? reply : "(none)");
    abort();
}

/* ---- one line and its reply ---- */

static void check_reply(const char *line, size_t len, const char *reply)
{
    if (!reply)
        fail("no reply (out of memory?)", line, len, reply);
    if (!*reply)
        fail("reply deferred on a target with simulated time", line, len, reply);
    if (strchr(reply, '\n'))
        fail("reply spans several lines", line, len, reply);
    if (!g_utf8_validate(reply, -1, NULL))
        fail("reply is not UTF-8", line, len, reply);
    JsonParser *p = json_parser_new();
    GError *e = NULL;
    if (!json_parser_load_from_data(p, reply, -1, &e)) {
        g_clear_error(&e);
        fail("reply is not JSON", line, len, reply);
    }
    JsonNode *root = json_parser_get_root(p);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root))
        fail("reply is not a JSON object", line, len, reply);
    JsonObject *o = json_node_get_object(root);
    JsonNode *ok = json_object_get_member(o, "ok");
    if (!ok || !JSON_NODE_HOLDS_VALUE(ok) || json_node_get_value_type(ok) != G_TYPE_BOOLEAN)
        fail("reply without a boolean \"ok\"", line, len, reply);
    if (!json_node_get_boolean(ok)) {
        JsonNode *er = json_object_get_member(o, "error");
        if (!er || !JSON_NODE_HOLDS_VALUE(er) || json_node_get_value_type(er) != G_TYPE_STRING ||
            strlen(json_node_get_string(er)) < 8 || !strcmp(json_node_get_string(er), "failed"))
            fail("refusal without an error sentence", line, len, reply);
        JsonNode *code = json_object_get_member(o, "code");
        if (code) {
            const char *c = JSON_NODE_HOLDS_VALUE(code) &&
                            json_node_get_value_type(code) == G_TYPE_STRING
                            ? json_node_get_string(code) : "";
            if (strcmp(c, "ENOENT") && strcmp(c, "ENODEV") && strcmp(c, "EINVAL"))
                fail("refusal with an unknown \"code\"", line, len, reply);
        }
    } else if (json_object_has_member(o, "error")) {
        fail("success with an error", line, len, reply);
    }
    /* the request's id comes back as it was */
    JsonParser *rp = json_parser_new();
    if (json_parser_load_from_data(rp, line, (gssize)len, NULL) && json_parser_get_root(rp) &&
        JSON_NODE_HOLDS_OBJECT(json_parser_get_root(rp)) && len <= SIM_CTL_MAX_LINE &&
        !memchr(line, 0, len) && g_utf8_validate(line, (gssize)len, NULL)) {
        JsonObject *ro = json_node_get_object(json_parser_get_root(rp));
        JsonNode *want = json_object_get_member(ro, "id");
        JsonNode *got = json_object_get_member(o, "id");
        /* json-glib keeps the last of duplicate members; a line refused before parsing as
         * "more than one value", or refused whole for a string or number that cannot be
         * carried back (an id among them), has no id in its reply */
        if (want && got && !json_node_equal(want, got))
            fail("reply with another id", line, len, reply);
        if (want && !got && !strstr(reply, "more than one value") &&
            !strstr(reply, "not valid UTF-8") && !strstr(reply, "out of the range of a double"))
            fail("reply without the request's id", line, len, reply);
    }
    g_object_unref(rp);
    g_object_unref(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[320];
    sim_local_config lc = { .sim = { .num_slots = 4 }, .ap = SIM_LOCAL_TEST_AP };
    sim_local *l = sim_local_new(&lc, err, sizeof err);
    if (!l) {
        fprintf(stderr, "fuzz_control: cannot start the simulator: %s (run from the "
                "repository root)\n", err);
        exit(1);
    }
    guard g;
    guard_init(&g, sim_local_target(l), SIM_S(7200));
    sim_ctl *c = sim_ctl_new_detached(&g.t, err, sizeof err);
    if (!c) {
        fprintf(stderr, "fuzz_control: %s\n", err);
        exit(1);
    }
    ctl_client cl = { .fd = -1 };
    const char *s = (const char *)data;
    size_t start = 0;
    while (start < size) {
        const char *nl = memchr(s + start, '\n', size - start);
        size_t n = nl ? (size_t)(nl - (s + start)) : size - start;
        if (!nl)
            break; /* a partial line waits for its newline: never handled */
        size_t len = n;
        const char *line = s + start;
        start += n + 1;
        if (len && line[len - 1] == '\r')
            len--;
        if (!len)
            continue;
        char *reply = ctl_handle(c, &cl, line, len);
        if (verbose)
            printf("> %.*s\n< %s\n", (int)len, line, reply ? reply : "(null)");
        check_reply(line, len, reply);
        g_free(reply);
    }
    if (cl.wait_id) /* never set: simulated time */
        json_node_unref(cl.wait_id);
    sim_ctl_free(c);
    sim_local_free(l);
    return 0;
}
