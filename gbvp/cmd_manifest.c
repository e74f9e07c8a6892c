// SPDX-License-Identifier: MIT
// `gbvp manifest`: convert manifests between text and binary, or check them.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gbvp/cmd_manifest.h"
#include "virtual-modules/manifest_internal.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gbvp manifest [OPTIONS] FILE\n"
            "       gbvp manifest --check [OPTIONS] FILE...\n"
            "\n"
            "Converts a Greybus interface manifest between manifesto's text form (.mnfs) and\n"
            "the binary form the kernel reads (.mnfb), checking it against the Linux 6.1\n"
            "rules on the way. FILE '-' is standard input; its form is told by the\n"
            "extension (.mnfs, .mnfb), else by its content.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE   write the result to FILE (default: standard output)\n"
            "  -t, --to FORMAT     write 'text' or 'binary' (default: the other form)\n"
            "  -c, --check         only check the manifest and print what is wrong\n"
            "  -W, --strict        treat warnings (bundles no 6.1 driver binds...) as errors\n"
            "  -q, --quiet         do not print warnings\n"
            "  -h, --help          print this help\n"
            "\n"
            "exit status: 0 success, 1 invalid manifest or failed conversion,\n"
            "2 bad usage or a file that cannot be read or written.\n");
}

typedef struct cli_opts {
    const char *output, *to;
    char **inputs;      /* points into argv */
    int ninputs;
    bool check, strict, quiet;
} cli_opts;

/* Matches "-x", "-xVALUE", "--long" and "--long=VALUE". On a match, *value is the attached
 * value or NULL (then the value is the next argument). */
static bool match_valued(const char *arg, char shrt, const char *lng, const char **value)
{
    size_t n = strlen(lng);
    if (arg[0] == '-' && arg[1] == shrt) {
        *value = arg[2] ? arg + 2 : NULL;
        return true;
    }
    if (!strncmp(arg, lng, n) && (arg[n] == '\0' || arg[n] == '=')) {
        *value = arg[n] == '=' ? arg + n + 1 : NULL;
        return true;
    }
    return false;
}

/* 0 to go on, or an exit status (help printed, or a usage error reported). */
static int parse_args(int argc, char **argv, cli_opts *o)
{
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = NULL;
        if (options_done || a[0] != '-' || !strcmp(a, "-")) {
            o->inputs[o->ninputs++] = argv[i];
        } else if (!strcmp(a, "--")) {
            options_done = true;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--check")) {
            o->check = true;
        } else if (!strcmp(a, "-W") || !strcmp(a, "--strict")) {
            o->strict = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (match_valued(a, 'o', "--output", &value) ||
                   match_valued(a, 't', "--to", &value)) {
            bool out = match_valued(a, 'o', "--output", &value);
            if (!value && i + 1 < argc)
                value = argv[++i];
            if (!value || !*value) {
                fprintf(stderr, "gbvp manifest: %s needs a value\n", out ? "--output" : "--to");
                return 2;
            }
            if (out) {
                o->output = value;
            } else if (!strcmp(value, "text") || !strcmp(value, "binary")) {
                o->to = value;
            } else {
                fprintf(stderr, "gbvp manifest: --to takes 'text' or 'binary', not '%s'\n",
                        value);
                return 2;
            }
        } else {
            fprintf(stderr, "gbvp manifest: unknown option '%s' (try 'gbvp manifest --help')\n",
                    a);
            return 2;
        }
    }
    if (o->ninputs > 1 && !o->check) {
        fprintf(stderr, "gbvp manifest: more than one input file ('%s' and '%s'); only --check "
                        "takes several\n", o->inputs[0], o->inputs[1]);
        return 2;
    }
    if (!o->ninputs) {
        fprintf(stderr, "gbvp manifest: no input file (try 'gbvp manifest --help')\n");
        return 2;
    }
    if (o->check && (o->output || o->to)) {
        fprintf(stderr, "gbvp manifest: --check writes nothing; drop --output/--to\n");
        return 2;
    }
    return 0;
}

static int write_output(const cli_opts *o, const void *data, size_t len, bool binary)
{
    if (!o->output && binary && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "gbvp manifest: not writing a binary manifest to a terminal; "
                        "use -o FILE or redirect the output\n");
        return 2;
    }
    FILE *f = o->output ? fopen(o->output, binary ? "wb" : "w") : stdout;
    if (!f) {
        fprintf(stderr, "gbvp manifest: cannot write %s: %m\n", o->output);
        return 2;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (o->output ? fclose(f) == 0 : fflush(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "gbvp manifest: cannot write %s: %m\n",
                o->output ? o->output : "standard output");
        return 2;
    }
    return 0;
}

/* Prints what loading found; 0 when the manifest may be used, else the exit status. */
static int finish_load(const cli_opts *o, const vm_manifest *m, const vm_manifest_diags *d)
{
    vm_manifest_diags_print(d, stderr, o->quiet ? VM_MANIFEST_ERROR : VM_MANIFEST_WARNING);
    if (!m) {
        /* A file that cannot be opened or read is an I/O problem, not a bad manifest. */
        bool io = vm_manifest_diags_contain(d, ": cannot open: ") ||
                  vm_manifest_diags_contain(d, ": cannot read: ");
        return io ? 2 : 1;
    }
    if (o->strict && vm_manifest_diags_warnings(d)) {
        fprintf(stderr, "%s: %zu warning(s) treated as errors (--strict)\n",
                vm_manifest_name(m), vm_manifest_diags_warnings(d));
        return 1;
    }
    return 0;
}

/* Checks one file: prints its problems and a summary. Returns the exit status. */
static int check_one(const cli_opts *o, const char *input)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    if (!d) {
        fprintf(stderr, "gbvp manifest: out of memory\n");
        return 2;
    }
    vm_manifest *m = vm_manifest_load(input, d);
    int rc = finish_load(o, m, d);
    if (!rc && m) {
        size_t nbytes = 0;
        vm_manifest_bytes(m, &nbytes);
        printf("%s: valid, %zu bytes, %zu bundle(s), %zu CPort(s)\n", vm_manifest_name(m),
               nbytes, vm_manifest_bundle_count(m), vm_manifest_cport_count(m));
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    return rc;
}

/* Converts the one input. Returns the exit status. */
static int convert(const cli_opts *o)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    if (!d) {
        fprintf(stderr, "gbvp manifest: out of memory\n");
        return 2;
    }
    vm_manifest *m = vm_manifest_load(o->inputs[0], d);
    int rc = finish_load(o, m, d);
    if (!rc) {
        bool to_text = o->to ? !strcmp(o->to, "text") : m->at == VM_MF_AT_OFFSET;
        if (to_text) {
            vm_manifest_diags_clear(d);
            char *text = vm_manifest_to_text(m, d);
            vm_manifest_diags_print(d, stderr, VM_MANIFEST_ERROR);
            rc = text ? write_output(o, text, strlen(text), false) : 1;
            free(text);
        } else {
            size_t nbytes = 0;
            const uint8_t *bytes = vm_manifest_bytes(m, &nbytes);
            rc = write_output(o, bytes, nbytes, true);
        }
    }
    vm_manifest_free(m);
    vm_manifest_diags_free(d);
    return rc;
}

int cmd_manifest_main(int argc, char **argv)
{
    cli_opts o = { .inputs = calloc(argc > 0 ? (size_t)argc : 1, sizeof(char *)) };
    if (!o.inputs) {
        fprintf(stderr, "gbvp manifest: out of memory\n");
        return 2;
    }
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        rc = rc < 0 ? 0 : rc;
    } else if (!o.check) {
        rc = convert(&o);
    } else {
        for (int i = 0; i < o.ninputs; i++) {
            int one = check_one(&o, o.inputs[i]);
            rc = one > rc ? one : rc;
        }
    }
    free(o.inputs);
    return rc;
}
