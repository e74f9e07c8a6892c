// SPDX-License-Identifier: MIT
// CPU lists (gbvp/cpu_list.h): what `gbvp sim --cpus` and `gbvp run --sim-cpus/--qemu-cpus`
// accept and refuse, with the reason, and that pinning really moves the process.
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gbvp/cpu_list.h"
#include "tests/unit/unit.h"

static cpu_set_t first_eight(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int c = 0; c < 8; c++)
        CPU_SET(c, &s);
    return s;
}

static char err[400];

static int parse(const char *text, cpu_set_t *out)
{
    cpu_set_t allowed = first_eight();
    err[0] = 0;
    return cpu_list_parse(text, &allowed, out, err, sizeof err);
}

static void test_lists_as_taskset_writes_them(void)
{
    cpu_set_t s;
    char text[64];
    CU_ASSERT_EQUAL(parse("1", &s), 0);
    CU_ASSERT_EQUAL(CPU_COUNT(&s), 1);
    CU_ASSERT(CPU_ISSET(1, &s));
    CU_ASSERT_EQUAL(parse("0,2", &s), 0);
    CU_ASSERT_EQUAL(CPU_COUNT(&s), 2);
    CU_ASSERT(CPU_ISSET(0, &s) && CPU_ISSET(2, &s));
    CU_ASSERT_EQUAL(parse("0-3,6", &s), 0);
    cpu_list_format(&s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "0-3,6");
    CU_ASSERT_EQUAL(parse("5,4,4-5", &s), 0); /* repeats and any order: one set */
    cpu_list_format(&s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "4-5");
    CU_ASSERT_EQUAL(parse("7-7", &s), 0);
    cpu_list_format(&s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "7");
}

static void refused(const char *text, const char *reason)
{
    cpu_set_t s;
    CU_ASSERT_EQUAL(parse(text, &s), -1);
    if (!strstr(err, reason))
        fprintf(stderr, "\n  '%s': got '%s', want '%s'\n", text, err, reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, reason));
}

static void test_bad_lists_are_refused_with_the_reason(void)
{
    refused("", "an empty CPU list");
    refused("0,", "an empty item in CPU list '0,'");
    refused(",1", "an empty item");
    refused("a", "'a' in CPU list 'a' is not a CPU number");
    refused("1-", "'1-' in CPU list '1-' is not a CPU number");
    refused("-1", "'-1' in CPU list '-1' is not a CPU number");
    refused("0;1", "'0;1' in CPU list '0;1' is not a CPU number");
    refused("3-1", "the range 3-1 in CPU list '3-1' runs backwards");
    refused("99999999999999999999", "is not a CPU number");
    refused("8", "CPU 8 of CPU list '8' is not one this process may use (0-7)");
    refused("6-9", "CPU 8 of CPU list '6-9'");
    refused("1 ", "'1 ' in CPU list '1 '");
}

static void test_format_cuts_short_at_a_whole_item(void)
{
    cpu_set_t s;
    char text[6];
    CU_ASSERT_EQUAL(parse("0,2,4,6", &s), 0);
    cpu_list_format(&s, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "0,2,4"); /* ",6" did not fit */
    /* room for part of the next item: none of it stays (",1" would name CPU 1) */
    char seven[7], nine[9];
    cpu_list_format(&s, seven, sizeof seven);
    CU_ASSERT_STRING_EQUAL(seven, "0,2,4");
    CU_ASSERT_EQUAL(parse("0,5-7", &s), 0);
    cpu_list_format(&s, nine, 4);
    CU_ASSERT_STRING_EQUAL(nine, "0");
}

/* In a child, so the test binary keeps its CPUs. */
static void test_pinning_moves_the_process(void)
{
    cpu_set_t now;
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof now, &now), 0);
    int cpu = -1;
    for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
        if (CPU_ISSET(c, &now))
            cpu = c;
    CU_ASSERT_FATAL(cpu >= 0);
    char text[16];
    snprintf(text, sizeof text, "%d", cpu);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        cpu_set_t after;
        char why[320];
        if (cpu_list_pin_self(text, why, sizeof why) || sched_getaffinity(0, sizeof after, &after))
            _exit(1);
        _exit(CPU_COUNT(&after) == 1 && CPU_ISSET(cpu, &after) && sched_getcpu() == cpu ? 0 : 2);
    }
    int st = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CU_ASSERT_EQUAL(cpu_list_check("4096", err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is not a CPU number"));
}

static const unit_test tests[] = {
    UNIT_TEST(test_lists_as_taskset_writes_them),
    UNIT_TEST(test_bad_lists_are_refused_with_the_reason),
    UNIT_TEST(test_format_cuts_short_at_a_whole_item),
    UNIT_TEST(test_pinning_moves_the_process),
    UNIT_TESTS_END,
};

static const unit_suite suites[] = {
    { "cpu_list", tests, 0, 0 },
    UNIT_SUITES_END,
};

int main(int argc, char **argv)
{
    return unit_run(suites, argc, argv);
}
