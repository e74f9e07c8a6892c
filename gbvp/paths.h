// SPDX-License-Identifier: MIT
// Where the gbvp program finds its data and where an instance keeps what is its own.
//
// Data (the module catalog, scenarios, scripts, the guest's and QEMU device's sources) is
// found from the program's own location, never from the current directory: $GBVP_DATADIR
// when set, else PREFIX/share/gbvp for an installed PREFIX/bin/gbvp, else the source tree
// a build tree's gbvp sits in (<repo>/build/gbvp, <repo>/build/asan/gbvp). A data directory
// is one that holds virtual-modules/catalog/.
//
// Per-instance files (sockets, logs) go to a private directory under the runtime base,
// $XDG_RUNTIME_DIR/gbvp or else /tmp/gbvp-UID (mode 0700, owned by the user), one
// directory an instance named KIND-PID.XXXXXX (sim-4242.Ab12Cd), so two instances never
// share a path and a user finds each by its pid.
#ifndef GBVP_GBVP_PATHS_H
#define GBVP_GBVP_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SIM_PATHS_DATA_ENV "GBVP_DATADIR"
#define SIM_PATHS_CATALOG "virtual-modules/catalog"
#define SIM_PATHS_MAX_CANDIDATES 4

/* ---- pure logic: no file system access ---- */

/* The data directories to try, in order, for the program at `exe` (an absolute path) and
 * the override `env` (NULL or "" when unset): the override alone when set; else
 * EXEDIR/../share/gbvp, EXEDIR/.., EXEDIR/../.. (folders named lexically: bin/.. is the
 * prefix). Returns how many were written to out (at most `max`), each at most `len` bytes;
 * 0 when exe is not an absolute path. */
size_t sim_paths_data_candidates(const char *exe, const char *env, char *out, size_t len,
                                 size_t max);

/* The runtime base for $XDG_RUNTIME_DIR `xdg` (NULL or "" or relative: unset) and user
 * `uid`: "XDG/gbvp" or "/tmp/gbvp-UID". 0, or -1 when it does not fit in len. */
int sim_paths_runtime_base_name(const char *xdg, unsigned uid, char *out, size_t len);

/* The pid in an instance directory's name "KIND-PID.XXXXXX" (or "KIND-PID"), 0 when
 * `name` is not one of KIND. */
pid_t sim_paths_instance_pid(const char *name, const char *kind);

/* A scenario argument's place in the data directory when it is a bare name ("demo" or
 * "demo.lua", no '/'): DATA/scenarios/NAME[.lua]. false for a path (it is used as given). */
bool sim_paths_scenario_in_data(const char *arg, const char *data, char *out, size_t len);

/* ---- the file system ---- */

/* The data directory of the program at `exe` with override `env` (as above): the first
 * candidate holding virtual-modules/catalog/. 0, or -1 with err naming every place looked. */
int sim_paths_data_dir_for(const char *exe, const char *env, char *out, size_t len,
                           char *err, size_t errlen);

/* The same for this program (/proc/self/exe, $GBVP_DATADIR). */
int sim_paths_data_dir(char *out, size_t len, char *err, size_t errlen);

/* DATA/REL for this program, when it exists. 0, or -1 with err naming the path looked at
 * (or, with no data directory, every place looked). */
int sim_paths_data_file(const char *rel, char *out, size_t len, char *err, size_t errlen);

/* The default module catalog: DATA/virtual-modules/catalog. */
int sim_paths_catalog(char *out, size_t len, char *err, size_t errlen);

/* A scenario named by the user: `arg` itself when it exists (a path, relative to the
 * current directory as the user typed it); else, for a bare name, the data directory's
 * scenarios/NAME[.lua]. -1 with err naming every place looked. */
int sim_paths_scenario(const char *arg, char *out, size_t len, char *err, size_t errlen);

/* The runtime base (see above), created mode 0700 when missing. Refused, with the reason in
 * err, when it is not a directory, is a symbolic link, belongs to another user or others
 * may enter it: another user could otherwise put sockets where this one looks. */
int sim_paths_runtime_base(char *out, size_t len, char *err, size_t errlen);

/* A new private directory BASE/KIND-PID.XXXXXX (mode 0700) for this process. */
int sim_paths_instance_dir(const char *kind, char *out, size_t len, char *err, size_t errlen);

/* Removes what an instance left in its directory when it was killed: for each KIND
 * directory under the base whose process is gone, the files named in `files` (NULL-ended),
 * then the directory if that emptied it. Logs and anything else stay. Best effort. */
void sim_paths_prune(const char *kind, const char *const *files);

/* The sockets named `file` in every instance directory under the base, sorted (the
 * caller frees each and the array). Returns their count, or -1 with err saying why the
 * base cannot be read; `base` (may be NULL) receives the base's path. */
long sim_paths_instance_sockets(const char *file, char ***out, char *base, size_t baselen,
                                char *err, size_t errlen);

#endif
