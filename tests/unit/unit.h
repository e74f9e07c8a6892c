// SPDX-License-Identifier: MIT
// A thin layer over CUnit so each part's test binary is a table of suites and one call.
#ifndef GBVP_TESTS_UNIT_UNIT_H
#define GBVP_TESTS_UNIT_UNIT_H

#include <CUnit/CUnit.h>
#include "tests/unit/tmp_path.h"

typedef struct unit_test {
    const char *name;
    void (*run)(void);
} unit_test;

typedef struct unit_suite {
    const char *name;
    const unit_test *tests;   /* terminated by UNIT_TESTS_END */
    int (*setup)(void);       /* optional, per suite */
    int (*teardown)(void);    /* optional, per suite */
} unit_suite;

#define UNIT_TEST(fn) { #fn, fn }
#define UNIT_TESTS_END { 0, 0 }
#define UNIT_SUITES_END { 0, 0, 0, 0 }

/* Runs every suite (table terminated by UNIT_SUITES_END). The optional argument filters
 * tests by substring of "suite/test". Returns the process exit code: 0 when all passed. */
int unit_run(const unit_suite *suites, int argc, char **argv);

#endif
