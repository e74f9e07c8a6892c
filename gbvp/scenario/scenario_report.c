// SPDX-License-Identifier: MIT
// JUnit XML for one scenario: a testsuite whose testcases are the scenario's checks, a
// failed check carrying its message and file:line, a script error an <error>.
#include "gbvp/scenario/scenario_internal.h"

#include <errno.h>
#include <string.h>

static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* XML 1.0 forbids most control characters even as references. */
            if (c < 0x20 && c != '\n' && c != '\t')
                fputc('?', f);
            else
                fputc(c, f);
        }
    }
}

int sim_scenario_write_junit(const sim_scenario *sc, FILE *f, const char *suite)
{
    unsigned errors = sc->error ? 1 : 0;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"");
    xml_text(f, suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" time=\"%.3f\">\n",
            sc->nchecks, sc->failed - errors, errors, sc->wall_s);
    fprintf(f, "  <properties><property name=\"seed\" value=\"%llu\"/></properties>\n",
            (unsigned long long)sc->cfg.seed);
    for (size_t i = 0; i < sc->nchecks; i++) {
        const sc_check *c = &sc->checks[i];
        fprintf(f, "  <testcase classname=\"");
        xml_text(f, suite);
        fprintf(f, "\" name=\"%zu ", i + 1);
        xml_text(f, c->name);
        fprintf(f, "\"");
        if (c->ok && c->skip) {
            fprintf(f, ">\n    <skipped message=\"");
            xml_text(f, c->skip);
            fprintf(f, "\"/>\n  </testcase>\n");
            continue;
        }
        if (c->ok) {
            fprintf(f, "/>\n");
            continue;
        }
        bool is_error = sc->error && !c->where && i + 1 == sc->nchecks;
        fprintf(f, ">\n    <%s message=\"", is_error ? "error" : "failure");
        xml_text(f, c->detail);
        fprintf(f, "\">");
        if (c->where)
            xml_text(f, c->where);
        else
            xml_text(f, c->detail);
        fprintf(f, "</%s>\n  </testcase>\n", is_error ? "error" : "failure");
    }
    fprintf(f, "</testsuite>\n");
    if (fflush(f))
        return -errno;
    return ferror(f) ? -EIO : 0;
}

int sim_scenario_junit_write(FILE *f, void *ctx)
{
    const sim_scenario_junit *j = ctx;
    return sim_scenario_write_junit(j->sc, f, j->suite);
}
