// SPDX-License-Identifier: MIT
#include "tests/unit/unit.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The process's own directory for sockets and files (unit_tmp_path); test-only state. */
static char tmp_dir[32];
static pid_t tmp_owner;

static void remove_tmp_dir(void)
{
    /* a forked child that exits must not take its parent's directory away */
    if (!tmp_dir[0] || getpid() != tmp_owner)
        return;
    DIR *d = opendir(tmp_dir);
    if (d) {
        struct dirent *e;
        char path[sizeof tmp_dir + 256];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(tmp_dir);
}

const char *unit_tmp_path(char *buf, size_t len, const char *name)
{
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gbvp-unit-XXXXXX");
        if (!mkdtemp(tmp_dir)) {
            perror("unit: cannot make a directory under /tmp");
            abort();
        }
        tmp_owner = getpid();
        atexit(remove_tmp_dir);
    }
    snprintf(buf, len, "%s/%s", tmp_dir, name);
    return buf;
}

/* One line per failed test, so that the end of a long log still names them. */
static void name_failures(void)
{
    const char *last = NULL;
    for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
        if (!f->pTest || f->pTest->pName == last)
            continue;
        last = f->pTest->pName;
        printf("unit: FAILED %s/%s (%s:%u: %s)\n", f->pSuite ? f->pSuite->pName : "?",
               f->pTest->pName, f->strFileName ? f->strFileName : "?", f->uiLineNumber,
               f->strCondition ? f->strCondition : "?");
    }
}

static int matches(const char *filter, const char *suite, const char *test)
{
    char full[512];
    if (!filter)
        return 1;
    snprintf(full, sizeof full, "%s/%s", suite, test);
    return strstr(full, filter) != NULL;
}

int unit_run(const unit_suite *suites, int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "unit: cannot initialise CUnit: %s\n", CU_get_error_msg());
        return 2;
    }
    for (const unit_suite *s = suites; s->name; s++) {
        CU_pSuite suite = CU_add_suite(s->name, s->setup, s->teardown);
        if (!suite) {
            fprintf(stderr, "unit: cannot add suite %s: %s\n", s->name, CU_get_error_msg());
            CU_cleanup_registry();
            return 2;
        }
        for (const unit_test *t = s->tests; t->name; t++) {
            if (matches(filter, s->name, t->name) && !CU_add_test(suite, t->name, t->run)) {
                fprintf(stderr, "unit: cannot add %s/%s\n", s->name, t->name);
                CU_cleanup_registry();
                return 2;
            }
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    name_failures();
    unsigned failed = CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    int suite_errors = (int)CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    if (run == 0) {
        fprintf(stderr, "unit: no test ran%s%s\n", filter ? " for filter " : "", filter ? filter : "");
        return 1;
    }
    return (failed || suite_errors) ? 1 : 0;
}
