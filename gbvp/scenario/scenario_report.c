// SPDX-License-Identifier: MIT
// JUnit XML for one scenario: a testsuite whose testcases are the scenario's checks, a
// failed check carrying its message and file:line, a script error an <error>.
#include "gbvp/scenario/scenario_internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* The length of the UTF-8 sequence at s when it encodes a character XML 1.0 allows
 * (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]), else 0. */
static size_t xml_char_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' ? 1 : 0;
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!n || s[0] > 0xf4)
        return 0;
    uint32_t c = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    bool shortest = n == 2 || (n == 3 && c >= 0x800) || (n == 4 && c >= 0x10000);
    bool allowed = c < 0xd800 || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    return shortest && allowed ? n : 0;
}

void sim_scenario_xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: {
            /* XML 1.0 forbids most control characters even as references, and a report
             * declared UTF-8 must be UTF-8: anything else becomes '?' */
            size_t n = xml_char_len(p);
            if (!n || *p == '\r') {
                fputc('?', f);
                n = 1;
            } else {
                fwrite(p, 1, n, f);
            }
            p += n;
            continue;
        }
        }
        p++;
    }
}


int sim_scenario_write_junit(const sim_scenario *sc, FILE *f, const char *suite)
{
    unsigned errors = sc->error ? 1 : 0;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"");
    sim_scenario_xml_text(f, suite);
    fprintf(f, "\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" time=\"%.3f\">\n",
            sc->nchecks, sc->failed - errors, errors, sc->wall_s);
    fprintf(f, "  <properties><property name=\"seed\" value=\"%llu\"/></properties>\n",
            (unsigned long long)sc->cfg.seed);
    for (size_t i = 0; i < sc->nchecks; i++) {
        const sc_check *c = &sc->checks[i];
        fprintf(f, "  <testcase classname=\"");
        sim_scenario_xml_text(f, suite);
        fprintf(f, "\" name=\"%zu ", i + 1);
        sim_scenario_xml_text(f, c->name);
        fprintf(f, "\"");
        if (c->ok && c->skip) {
            fprintf(f, ">\n    <skipped message=\"");
            sim_scenario_xml_text(f, c->skip);
            fprintf(f, "\"/>\n  </testcase>\n");
            continue;
        }
        if (c->ok) {
            fprintf(f, "/>\n");
            continue;
        }
        bool is_error = sc->error && !c->where && i + 1 == sc->nchecks;
        fprintf(f, ">\n    <%s message=\"", is_error ? "error" : "failure");
        sim_scenario_xml_text(f, c->detail);
        fprintf(f, "\">");
        if (c->where)
            sim_scenario_xml_text(f, c->where);
        else
            sim_scenario_xml_text(f, c->detail);
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
