// SPDX-License-Identifier: MIT
// Where the gbvp program finds its data and keeps an instance's files (paths.h). The
// string logic is apart from the file system checks, so the tests exercise it alone.
#include "gbvp/paths.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A Unix socket path holds at most 107 bytes; the longest file an instance puts in its
 * directory is "/control.sock". */
#define SOCKET_PATH_MAX 107
#define LONGEST_SOCKET_NAME 16

__attribute__((format(printf, 3, 4))) static int fit(char *out, size_t len, const char *fmt,
                                                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The lexical parent of an absolute, normalised path: "/a/b" -> "/a", "/a" -> "/". */
static void parent(char *path)
{
    char *s = strrchr(path, '/');
    if (!s)
        return;
    if (s == path)
        s[1] = 0;
    else
        *s = 0;
}

static void join(char *out, size_t len, const char *dir, const char *rel)
{
    snprintf(out, len, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
}

size_t sim_paths_data_candidates(const char *exe, const char *env, char *out, size_t len,
                                 size_t max)
{
    if (!max || !len)
        return 0;
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 1;
    }
    if (!exe || exe[0] != '/')
        return 0;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", exe);
    parent(dir); /* the folder the program is in */
    char up[PATH_MAX];
    snprintf(up, sizeof up, "%s", dir);
    parent(up);
    size_t n = 0;
    join(out, len, up, "share/gbvp"); /* installed: PREFIX/bin/gbvp */
    n++;
    /* a build tree: <repo>/build/gbvp, <repo>/build/asan/gbvp */
    for (int i = 0; i < 2 && n < max; i++) {
        bool dup = false;
        for (size_t k = 0; k < n; k++)
            dup |= !strcmp(out + k * len, up);
        if (!dup)
            snprintf(out + n++ * len, len, "%s", up);
        parent(up);
    }
    return n;
}

int sim_paths_runtime_base_name(const char *xdg, unsigned uid, char *out, size_t len)
{
    /* a relative $XDG_RUNTIME_DIR is invalid by the specification: ignored */
    if (xdg && xdg[0] == '/')
        return fit(out, len, "%s%sgbvp", xdg, xdg[strlen(xdg) - 1] == '/' ? "" : "/");
    return fit(out, len, "/tmp/gbvp-%u", uid);
}

pid_t sim_paths_instance_pid(const char *name, const char *kind)
{
    size_t kl = strlen(kind);
    if (strncmp(name, kind, kl) || name[kl] != '-')
        return 0;
    const char *p = name + kl + 1;
    long pid = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        pid = pid * 10 + (*p - '0');
        if (pid > INT_MAX)
            return 0;
    }
    if (p == name + kl + 1 || (*p && *p != '.'))
        return 0;
    return (pid_t)pid;
}

bool sim_paths_scenario_in_data(const char *arg, const char *data, char *out, size_t len)
{
    if (!arg[0] || strchr(arg, '/') || !strcmp(arg, ".") || !strcmp(arg, ".."))
        return false;
    size_t n = strlen(arg);
    bool has_ext = n > 4 && !strcmp(arg + n - 4, ".lua");
    return fit(out, len, "%s/scenarios/%s%s", data, arg, has_ext ? "" : ".lua") == 0;
}

/* ---- the file system ---- */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int sim_paths_data_dir_for(const char *exe, const char *env, char *out, size_t len,
                           char *err, size_t errlen)
{
    char cand[SIM_PATHS_MAX_CANDIDATES][PATH_MAX];
    size_t n = sim_paths_data_candidates(exe, env, &cand[0][0], PATH_MAX,
                                         SIM_PATHS_MAX_CANDIDATES);
    char looked[SIM_PATHS_MAX_CANDIDATES * (PATH_MAX + 2)] = "";
    for (size_t i = 0; i < n; i++) {
        char probe[PATH_MAX + 32];
        join(probe, sizeof probe, cand[i], SIM_PATHS_CATALOG);
        if (is_dir(probe) && !fit(out, len, "%s", cand[i]))
            return 0;
        size_t l = strlen(looked);
        snprintf(looked + l, sizeof looked - l, "%s%s", i ? ", " : "", cand[i]);
    }
    if (env && *env)
        snprintf(err, errlen, "%s=%s does not hold gbvp's data (no %s/ in it)",
                 SIM_PATHS_DATA_ENV, env, SIM_PATHS_CATALOG);
    else if (!n)
        snprintf(err, errlen, "cannot find gbvp's data: the program's own path (%s) is "
                 "unknown; set %s to the folder holding %s/", exe ? exe : "?",
                 SIM_PATHS_DATA_ENV, SIM_PATHS_CATALOG);
    else
        snprintf(err, errlen, "cannot find gbvp's data (a folder holding %s/) for %s: "
                 "looked in %s; install gbvp (make install) or set %s", SIM_PATHS_CATALOG,
                 exe, looked, SIM_PATHS_DATA_ENV);
    return -1;
}

int sim_paths_data_dir(char *out, size_t len, char *err, size_t errlen)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    return sim_paths_data_dir_for(n > 0 ? exe : NULL, getenv(SIM_PATHS_DATA_ENV), out, len,
                                  err, errlen);
}

int sim_paths_data_file(const char *rel, char *out, size_t len, char *err, size_t errlen)
{
    char data[PATH_MAX];
    if (sim_paths_data_dir(data, sizeof data, err, errlen))
        return -1;
    if (fit(out, len, "%s/%s", data, rel)) {
        snprintf(err, errlen, "%s/%s: path too long", data, rel);
        return -1;
    }
    if (access(out, F_OK)) {
        snprintf(err, errlen, "%s: %s (gbvp's data folder is %s)", out, strerror(errno), data);
        return -1;
    }
    return 0;
}

int sim_paths_catalog(char *out, size_t len, char *err, size_t errlen)
{
    return sim_paths_data_file(SIM_PATHS_CATALOG, out, len, err, errlen);
}

int sim_paths_scenario(const char *arg, char *out, size_t len, char *err, size_t errlen)
{
    if (access(arg, R_OK) == 0 && !fit(out, len, "%s", arg))
        return 0;
    int e = errno;
    char cwd[PATH_MAX], data[PATH_MAX], in_data[PATH_MAX + 32], why[PATH_MAX + 64];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "?");
    const char *where = arg[0] == '/' ? "" : " in ";
    if (strchr(arg, '/') || !arg[0]) {
        snprintf(err, errlen, "scenario %s: %s%s%s", arg, strerror(e), where,
                 arg[0] == '/' ? "" : cwd);
        return -1;
    }
    if (sim_paths_data_dir(data, sizeof data, why, sizeof why)) {
        snprintf(err, errlen, "scenario %s: not in %s, and %s", arg, cwd, why);
        return -1;
    }
    if (sim_paths_scenario_in_data(arg, data, in_data, sizeof in_data) &&
        access(in_data, R_OK) == 0 && !fit(out, len, "%s", in_data))
        return 0;
    snprintf(err, errlen, "scenario %s not found: looked in %s and at %s", arg, cwd, in_data);
    return -1;
}

int sim_paths_runtime_base(char *out, size_t len, char *err, size_t errlen)
{
    uid_t uid = getuid();
    if (sim_paths_runtime_base_name(getenv("XDG_RUNTIME_DIR"), (unsigned)uid, out, len)) {
        snprintf(err, errlen, "$XDG_RUNTIME_DIR is too long for a runtime folder");
        return -1;
    }
    if (mkdir(out, 0700) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the runtime folder %s: %s", out, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(out, &st)) {
        snprintf(err, errlen, "runtime folder %s: %s", out, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "runtime folder %s is not a folder (%s); remove it", out,
                 S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
        return -1;
    }
    if (st.st_uid != uid) {
        snprintf(err, errlen, "runtime folder %s belongs to uid %u, not to you (uid %u); "
                 "remove it or set XDG_RUNTIME_DIR", out, (unsigned)st.st_uid, (unsigned)uid);
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(err, errlen, "runtime folder %s has mode %03o: others may enter it; "
                 "chmod 700 it", out, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    return 0;
}

int sim_paths_instance_dir(const char *kind, char *out, size_t len, char *err, size_t errlen)
{
    char base[PATH_MAX];
    if (sim_paths_runtime_base(base, sizeof base, err, errlen))
        return -1;
    if (fit(out, len, "%s/%s-%d.XXXXXX", base, kind, (int)getpid()) ||
        strlen(out) + LONGEST_SOCKET_NAME > SOCKET_PATH_MAX) {
        snprintf(err, errlen, "runtime folder %s is too long for socket paths in it (at most "
                 "%d bytes); set XDG_RUNTIME_DIR to a shorter folder", base,
                 SOCKET_PATH_MAX - LONGEST_SOCKET_NAME - 16);
        return -1;
    }
    if (!mkdtemp(out)) {
        snprintf(err, errlen, "cannot create a folder in %s: %s", base, strerror(errno));
        return -1;
    }
    return 0;
}

void sim_paths_prune(const char *kind, const char *const *files)
{
    char base[PATH_MAX], err[256];
    if (sim_paths_runtime_base(base, sizeof base, err, sizeof err))
        return;
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = sim_paths_instance_pid(e->d_name, kind);
        if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir[PATH_MAX], f[PATH_MAX + 64];
        if (fit(dir, sizeof dir, "%s/%s", base, e->d_name))
            continue;
        for (size_t i = 0; files && files[i]; i++)
            if (!fit(f, sizeof f, "%s/%s", dir, files[i]))
                unlink(f);
        rmdir(dir); /* only when that emptied it */
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

long sim_paths_instance_sockets(const char *file, char ***out, char *base, size_t baselen,
                                char *err, size_t errlen)
{
    char b[PATH_MAX];
    *out = NULL;
    if (sim_paths_runtime_base(b, sizeof b, err, errlen))
        return -1;
    if (base)
        snprintf(base, baselen, "%s", b);
    DIR *d = opendir(b);
    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", b, strerror(errno));
        return -1;
    }
    char **v = NULL;
    long n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[PATH_MAX + 300];
        struct stat st;
        if (e->d_name[0] == '.' || fit(path, sizeof path, "%s/%s/%s", b, e->d_name, file) ||
            stat(path, &st) || !S_ISSOCK(st.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv)
                break;
            v = nv;
        }
        if (!(v[n] = strdup(path)))
            break;
        n++;
    }
    closedir(d);
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}
