// SPDX-License-Identifier: MIT
// Where the gbvp program finds its data and keeps an instance's files (gbvp/paths.h): the
// data folder from the program's own place, installed or in a build tree, never the
// current directory; what is not found is named with every place looked; a private
// runtime folder per user and one folder per instance, stale ones pruned.
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbvp/paths.h"
#include "tests/unit/unit.h"

static char cand[SIM_PATHS_MAX_CANDIDATES][PATH_MAX];

static size_t candidates(const char *exe, const char *env)
{
    memset(cand, 0, sizeof cand);
    return sim_paths_data_candidates(exe, env, &cand[0][0], PATH_MAX,
                                     SIM_PATHS_MAX_CANDIDATES);
}

static void test_installed_program_looks_in_prefix_share_first(void)
{
    CU_ASSERT_EQUAL_FATAL(candidates("/opt/gbvp/bin/gbvp", NULL), 3);
    CU_ASSERT_STRING_EQUAL(cand[0], "/opt/gbvp/share/gbvp");
    CU_ASSERT_STRING_EQUAL(cand[1], "/opt/gbvp");
    CU_ASSERT_STRING_EQUAL(cand[2], "/opt");
}

static void test_build_tree_program_looks_in_the_tree_above_it(void)
{
    CU_ASSERT_EQUAL_FATAL(candidates("/src/gbvp/build/asan/gbvp", ""), 3);
    CU_ASSERT_STRING_EQUAL(cand[1], "/src/gbvp/build");
    CU_ASSERT_STRING_EQUAL(cand[2], "/src/gbvp");
    CU_ASSERT_EQUAL_FATAL(candidates("/src/gbvp/build-x/gbvp", NULL), 3);
    CU_ASSERT_STRING_EQUAL(cand[1], "/src/gbvp");
}

static void test_program_at_the_root_lists_each_folder_once(void)
{
    CU_ASSERT_EQUAL_FATAL(candidates("/gbvp", NULL), 2);
    CU_ASSERT_STRING_EQUAL(cand[0], "/share/gbvp");
    CU_ASSERT_STRING_EQUAL(cand[1], "/");
}

static void test_override_is_the_only_candidate(void)
{
    CU_ASSERT_EQUAL_FATAL(candidates("/opt/gbvp/bin/gbvp", "/data/gbvp"), 1);
    CU_ASSERT_STRING_EQUAL(cand[0], "/data/gbvp");
}

static void test_relative_or_unknown_program_path_gives_no_candidate(void)
{
    CU_ASSERT_EQUAL(candidates("build/gbvp", NULL), 0);
    CU_ASSERT_EQUAL(candidates(NULL, NULL), 0);
}

static void test_runtime_base_is_xdg_runtime_dir_or_tmp_per_user(void)
{
    char b[64];
    CU_ASSERT_EQUAL(sim_paths_runtime_base_name("/run/user/1000", 1000, b, sizeof b), 0);
    CU_ASSERT_STRING_EQUAL(b, "/run/user/1000/gbvp");
    CU_ASSERT_EQUAL(sim_paths_runtime_base_name("/run/user/7/", 7, b, sizeof b), 0);
    CU_ASSERT_STRING_EQUAL(b, "/run/user/7/gbvp");
    CU_ASSERT_EQUAL(sim_paths_runtime_base_name(NULL, 1000, b, sizeof b), 0);
    CU_ASSERT_STRING_EQUAL(b, "/tmp/gbvp-1000");
    CU_ASSERT_EQUAL(sim_paths_runtime_base_name("relative/dir", 0, b, sizeof b), 0);
    CU_ASSERT_STRING_EQUAL(b, "/tmp/gbvp-0");
    CU_ASSERT_EQUAL(sim_paths_runtime_base_name("/a/very/long/runtime/dir/indeed/yes", 0, b,
                                                16), -1);
}

static void test_instance_folder_names_give_their_pid(void)
{
    CU_ASSERT_EQUAL(sim_paths_instance_pid("sim-4242.Ab12Cd", "sim"), 4242);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("sim-17", "sim"), 17);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("run-4242.Ab12Cd", "sim"), 0);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("sim-", "sim"), 0);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("sim-12a", "sim"), 0);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("simx-12", "sim"), 0);
    CU_ASSERT_EQUAL(sim_paths_instance_pid("sim-99999999999", "sim"), 0);
}

static void test_bare_scenario_names_are_looked_up_in_the_data_folder(void)
{
    char p[256];
    CU_ASSERT_TRUE(sim_paths_scenario_in_data("demo", "/d", p, sizeof p));
    CU_ASSERT_STRING_EQUAL(p, "/d/scenarios/demo.lua");
    CU_ASSERT_TRUE(sim_paths_scenario_in_data("demo.lua", "/d", p, sizeof p));
    CU_ASSERT_STRING_EQUAL(p, "/d/scenarios/demo.lua");
    CU_ASSERT_FALSE(sim_paths_scenario_in_data("scenarios/demo.lua", "/d", p, sizeof p));
    CU_ASSERT_FALSE(sim_paths_scenario_in_data("..", "/d", p, sizeof p));
    CU_ASSERT_FALSE(sim_paths_scenario_in_data("", "/d", p, sizeof p));
}

/* ---- against the file system, in a folder of the test's own ---- */

static char top[64];

static void make_dirs(const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", top, rel);
    for (char *s = p + strlen(top) + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
}

static int fs_setup(void)
{
    snprintf(top, sizeof top, "/tmp/gbvp-test-paths.XXXXXX");
    return mkdtemp(top) ? 0 : -1;
}

static int fs_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_data_folder_found_installed_and_in_a_build_tree(void)
{
    char exe[PATH_MAX], out[PATH_MAX], want[PATH_MAX], err[2048];
    make_dirs("prefix/share/gbvp/virtual-modules/catalog");
    snprintf(exe, sizeof exe, "%s/prefix/bin/gbvp", top);
    CU_ASSERT_EQUAL(sim_paths_data_dir_for(exe, NULL, out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/prefix/share/gbvp", top);
    CU_ASSERT_STRING_EQUAL(out, want);

    make_dirs("repo/virtual-modules/catalog");
    snprintf(exe, sizeof exe, "%s/repo/build/asan/gbvp", top);
    CU_ASSERT_EQUAL(sim_paths_data_dir_for(exe, NULL, out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/repo", top);
    CU_ASSERT_STRING_EQUAL(out, want);
}

static void test_data_folder_not_found_names_every_place_looked(void)
{
    char exe[PATH_MAX], out[PATH_MAX], want[PATH_MAX], err[2048];
    snprintf(exe, sizeof exe, "%s/nowhere/bin/gbvp", top);
    CU_ASSERT_EQUAL(sim_paths_data_dir_for(exe, NULL, out, sizeof out, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s/nowhere/share/gbvp, %s/nowhere, %s", top, top, top);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "GBVP_DATADIR"));

    snprintf(want, sizeof want, "%s/nowhere", top);
    CU_ASSERT_EQUAL(sim_paths_data_dir_for(exe, want, out, sizeof out, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "GBVP_DATADIR="));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
}

static void test_runtime_folder_is_private_and_refused_when_not(void)
{
    char xdg[PATH_MAX], base[PATH_MAX], err[1024];
    make_dirs("xdg");
    snprintf(xdg, sizeof xdg, "%s/xdg", top);
    setenv("XDG_RUNTIME_DIR", xdg, 1);
    CU_ASSERT_EQUAL_FATAL(sim_paths_runtime_base(base, sizeof base, err, sizeof err), 0);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(base, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
    chmod(base, 0755);
    CU_ASSERT_EQUAL(sim_paths_runtime_base(base, sizeof base, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "chmod 700"));
    chmod(base, 0700);
    unsetenv("XDG_RUNTIME_DIR");
}

static void test_instances_get_folders_of_their_own_and_stale_ones_are_pruned(void)
{
    char xdg[PATH_MAX], a[PATH_MAX], b[PATH_MAX], err[1024];
    snprintf(xdg, sizeof xdg, "%s/xdg", top);
    setenv("XDG_RUNTIME_DIR", xdg, 1);
    CU_ASSERT_EQUAL_FATAL(sim_paths_instance_dir("sim", a, sizeof a, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(sim_paths_instance_dir("sim", b, sizeof b, err, sizeof err), 0);
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    char pid[32];
    snprintf(pid, sizeof pid, "/sim-%d.", (int)getpid());
    CU_ASSERT_PTR_NOT_NULL(strstr(a, pid));

    /* a live socket in one folder is listed */
    char sock[PATH_MAX + 16];
    snprintf(sock, sizeof sock, "%s/control.sock", a);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    CU_ASSERT_FATAL(strlen(sock) < sizeof sa.sun_path);
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    char **list;
    long n = sim_paths_instance_sockets("control.sock", &list, NULL, 0, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_STRING_EQUAL(list[0], sock);
    free(list[0]);
    free(list);

    /* a folder left by a process that is gone loses its sockets and goes; ours stay */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    char stale[PATH_MAX + 64], f[PATH_MAX + 96], kept[PATH_MAX + 64];
    snprintf(stale, sizeof stale, "%s/gbvp/sim-%d.dead01", xdg, (int)child);
    snprintf(kept, sizeof kept, "%s/gbvp/sim-%d.dead02", xdg, (int)child);
    CU_ASSERT_EQUAL_FATAL(mkdir(stale, 0700), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(kept, 0700), 0);
    snprintf(f, sizeof f, "%s/gbvp.sock", stale);
    fclose(fopen(f, "w"));
    snprintf(f, sizeof f, "%s/sim.log", kept); /* not a file the prune may remove */
    fclose(fopen(f, "w"));
    static const char *const files[] = { "gbvp.sock", "control.sock", NULL };
    sim_paths_prune("sim", files);
    CU_ASSERT_NOT_EQUAL(access(stale, F_OK), 0);
    CU_ASSERT_EQUAL(access(f, F_OK), 0);
    CU_ASSERT_EQUAL(access(sock, F_OK), 0);
    close(fd);
    unsetenv("XDG_RUNTIME_DIR");
}

static const unit_test logic_tests[] = {
    UNIT_TEST(test_installed_program_looks_in_prefix_share_first),
    UNIT_TEST(test_build_tree_program_looks_in_the_tree_above_it),
    UNIT_TEST(test_program_at_the_root_lists_each_folder_once),
    UNIT_TEST(test_override_is_the_only_candidate),
    UNIT_TEST(test_relative_or_unknown_program_path_gives_no_candidate),
    UNIT_TEST(test_runtime_base_is_xdg_runtime_dir_or_tmp_per_user),
    UNIT_TEST(test_instance_folder_names_give_their_pid),
    UNIT_TEST(test_bare_scenario_names_are_looked_up_in_the_data_folder),
    UNIT_TESTS_END,
};

static const unit_test fs_tests[] = {
    UNIT_TEST(test_data_folder_found_installed_and_in_a_build_tree),
    UNIT_TEST(test_data_folder_not_found_names_every_place_looked),
    UNIT_TEST(test_runtime_folder_is_private_and_refused_when_not),
    UNIT_TEST(test_instances_get_folders_of_their_own_and_stale_ones_are_pruned),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "paths", logic_tests, 0, 0 },
    { "paths_fs", fs_tests, fs_setup, fs_teardown },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
