// SPDX-License-Identifier: MIT
#include "tests/unit/unit.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

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
