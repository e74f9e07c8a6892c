// SPDX-License-Identifier: MIT
// Catalog entries: manifests + behaviour, instantiated as live interfaces (see vm_module.h).
//
// Layout: `<dir>/<name>.mnfs` for a one-interface module, or `<dir>/<name>.intf1.mnfs`,
// `<name>.intf2.mnfs`, ... for a module spanning several interfaces; `<dir>/<name>.behaviour`
// (optional) holds the behaviour of all of them.
#include "virtual-modules/vm_module.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "virtual-modules/behaviour.h"
#include "virtual-modules/manifest.h"
#include "virtual-modules/vm_error.h"

#define VM_MODULE_MAX_INTERFACES 8u
#define VM_CATALOG_DEFAULT "virtual-modules/catalog"

struct vm_module {
    char *name;
    size_t nintf;
    vm_manifest *manifest[VM_MODULE_MAX_INTERFACES];
    vm_behaviour *behaviour; /* NULL when the entry has none */
};

static const char *const module_keys[] = {"description", NULL};

void vm_module_free(vm_module *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nintf; i++)
        vm_manifest_free(m->manifest[i]);
    vm_behaviour_free(m->behaviour);
    free(m->name);
    free(m);
}

static bool valid_name(const char *name)
{
    if (!name || !*name || name[0] == '.')
        return false;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\')
            return false;
    return true;
}

static vm_manifest *load_manifest(const char *path, char *err, size_t errlen)
{
    vm_manifest_diags *d = vm_manifest_diags_new();
    if (!d) {
        vm_error(err, errlen, "out of memory");
        return NULL;
    }
    vm_manifest *m = vm_manifest_load(path, d);
    if (!m) {
        const char *msg = NULL;
        for (size_t i = 0; i < vm_manifest_diags_count(d) && !msg; i++)
            if (vm_manifest_diags_severity(d, i) == VM_MANIFEST_ERROR)
                msg = vm_manifest_diags_message(d, i);
        vm_error(err, errlen, "%s", msg ? msg : "manifest refused");
    }
    vm_manifest_diags_free(d);
    return m;
}

/* Instantiates every interface once so that behaviour errors surface at load time. */
static int validate(const vm_module *m, char *err, size_t errlen)
{
    const vm_bsection *s = vm_behaviour_find(m->behaviour, "module", -1);
    if (s && vm_bsection_check_keys(s, module_keys, err, errlen))
        return -1;
    for (size_t i = 0; i < vm_behaviour_section_count(m->behaviour); i++) {
        const vm_bsection *sec = vm_behaviour_section_at(m->behaviour, i);
        if (!strcmp(vm_bsection_kind(sec), "interface") && vm_bsection_id(sec) > 0 &&
            (size_t)vm_bsection_id(sec) > m->nintf) {
            vm_error(err, errlen, "%s:%d: [interface %ld]: the module has %zu interface%s",
                     vm_behaviour_name(m->behaviour), vm_bsection_line(sec), vm_bsection_id(sec),
                     m->nintf, m->nintf == 1 ? "" : "s");
            return -1;
        }
    }
    for (size_t i = 0; i < m->nintf; i++) {
        vm_interface *intf = vm_module_create_interface(m, i, (vm_output){0}, 0, err, errlen);
        if (!intf)
            return -1;
        vm_interface_free(intf);
    }
    return 0;
}

vm_module *vm_module_load(const char *catalog_dir, const char *name, char *err, size_t errlen)
{
    if (!valid_name(name)) {
        vm_error(err, errlen, "module name '%s' is not a catalog entry name", name ? name : "");
        return NULL;
    }
    const char *dir = catalog_dir ? catalog_dir : VM_CATALOG_DEFAULT;
    vm_module *m = calloc(1, sizeof *m);
    char path[4096];
    if (!m || !(m->name = strdup(name))) {
        free(m);
        vm_error(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s.mnfs", dir, name);
    if (access(path, F_OK) == 0) {
        if (!(m->manifest[0] = load_manifest(path, err, errlen)))
            goto bad;
        m->nintf = 1;
    } else {
        for (size_t i = 0; i < VM_MODULE_MAX_INTERFACES; i++) {
            snprintf(path, sizeof path, "%s/%s.intf%zu.mnfs", dir, name, i + 1);
            if (access(path, F_OK) != 0)
                break;
            if (!(m->manifest[i] = load_manifest(path, err, errlen)))
                goto bad;
            m->nintf = i + 1;
        }
        if (m->nintf == 0) {
            struct stat st;
            int missing = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
            if (missing) /* the folder itself is the problem */
                vm_error(err, errlen, "no module '%s': catalog folder %s: %s", name, dir,
                         strerror(missing));
            else
                vm_error(err, errlen, "%s: no catalog entry '%s' (neither %s.mnfs nor "
                         "%s.intf1.mnfs)", dir, name, name, name);
            goto bad;
        }
    }
    snprintf(path, sizeof path, "%s/%s.behaviour", dir, name);
    if (access(path, F_OK) == 0 && !(m->behaviour = vm_behaviour_load(path, err, errlen)))
        goto bad;
    if (validate(m, err, errlen))
        goto bad;
    return m;
bad:
    vm_module_free(m);
    return NULL;
}

const char *vm_module_name(const vm_module *m)
{
    return m->name;
}

const char *vm_module_description(const vm_module *m)
{
    const char *d = vm_bsection_get(vm_behaviour_find(m->behaviour, "module", -1),
                                    "description", NULL);
    return d ? d : "";
}

size_t vm_module_interface_count(const vm_module *m)
{
    return m->nintf;
}

vm_interface *vm_module_create_interface(const vm_module *m, size_t index, vm_output out,
                                         uint64_t serial_number, char *err, size_t errlen)
{
    if (index >= m->nintf) {
        vm_error(err, errlen, "module %s has no interface %zu", m->name, index);
        return NULL;
    }
    vm_interface_config cfg = {
        .manifest = m->manifest[index],
        .behaviour = m->behaviour,
        .behaviour_interface = m->nintf > 1 ? (unsigned)index + 1 : 0,
        .serial_number = serial_number,
        .out = out,
    };
    return vm_interface_new(&cfg, err, errlen);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keeps one of each name in a sorted list: NAME.mnfs next to NAME.intf1.mnfs is one entry
 * (vm_module_load() takes NAME.mnfs), not two. Returns the new count. */
static size_t drop_repeats(char **v, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept && !strcmp(v[kept - 1], v[i]))
            free(v[i]);
        else
            v[kept++] = v[i];
    }
    return kept;
}

/* NAME's length when file is NAME.mnfs or NAME.intf1.mnfs (a catalog entry), else 0. */
static size_t entry_name_length(const char *file)
{
    size_t len = strlen(file);
    if (len > 11 && !strcmp(file + len - 11, ".intf1.mnfs"))
        return len - 11;
    if (len > 5 && !strcmp(file + len - 5, ".mnfs") && !strstr(file, ".intf"))
        return len - 5;
    return 0;
}

long vm_catalog_names(const char *catalog_dir, char ***names, char *err, size_t errlen)
{
    const char *dir = catalog_dir ? catalog_dir : "virtual-modules/catalog";
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot open catalog %s: %s", dir, strerror(errno));
        return -1;
    }
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e = NULL;
    while (v && (e = readdir(d))) {
        size_t len = entry_name_length(e->d_name);
        if (!len)
            continue;
        if (n + 1 == cap) {
            char **grown = realloc(v, 2 * cap * sizeof *v);
            if (!grown)
                break;
            v = grown;
            cap *= 2;
        }
        if (!(v[n] = strndup(e->d_name, len)))
            break;
        n++;
    }
    closedir(d);
    if (!v || e) {
        if (v)
            v[n] = NULL;
        vm_catalog_names_free(v);
        snprintf(err, errlen, "listing catalog %s: out of memory", dir);
        return -1;
    }
    qsort(v, n, sizeof *v, cmp_name);
    n = drop_repeats(v, n);
    v[n] = NULL;
    *names = v;
    return (long)n;
}

void vm_catalog_names_free(char **names)
{
    if (!names)
        return;
    for (char **p = names; *p; p++)
        free(*p);
    free(names);
}
