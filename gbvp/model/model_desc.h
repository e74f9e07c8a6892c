// SPDX-License-Identifier: MIT
// The text of a `gbvp model` description (a file, or the lines the flags make) kept so that
// it can be parsed again with parameters replaced: one configuration of a sweep.
//
// A parameter NAME (model_sweep.h) is, in the statements of model_topo.h:
//   KEY             that key of every statement that takes it (gear: every link; size:
//                   every flow; credits: every node and switch); `traffic` is the flows'
//                   kind (as the flag --traffic)
//   KIND.KEY        every statement of that kind (node, switch, link, traffic)
//   KINDn.KEY       the n-th statement of that kind, from 1 (link2.gear, traffic1.rate)
//   NAME.KEY        the node or switch of that name (S.mode, A.credits)
// A key a statement does not have is added to it; one it has is replaced.
#ifndef GBVP_GBVP_MODEL_MODEL_DESC_H
#define GBVP_GBVP_MODEL_MODEL_DESC_H

#include <stddef.h>

#include "gbvp/model/model_topo.h"

#define MODEL_DESC_OVERRIDES 8 /* parameters set at once (model_desc_parse) */

typedef struct model_desc model_desc;

/* An empty description; `label` names it in messages ("topology.txt", "the flags").
 * NULL on no memory. */
model_desc *model_desc_new(const char *label);
void model_desc_free(model_desc *d);

/* Appends a line (copied); `where` names it in the parser's messages ("file:12"). 0 or
 * -ENOMEM. */
int model_desc_add(model_desc *d, const char *line, const char *where);
/* Appends every line of the file at path (where: "path:N"). 0, or -errno with err. */
int model_desc_read_file(model_desc *d, const char *path, char *err, size_t errlen);

/* 0 when NAME names parameters of d's statements; else -EINVAL with err saying why (an
 * unknown key, no such node, no link3, no statement that takes it). */
int model_desc_check_name(const model_desc *d, const char *name, char *err, size_t errlen);

/* 0 when names a and b (each checked as above) set no key of the same statement; else
 * -EINVAL with err naming the statement. In a sweep, the later one would replace the
 * earlier one's value, and the rows would show values that were never run. */
int model_desc_check_overlap(const model_desc *d, const char *a, const char *b, char *err,
                             size_t errlen);

/* Parses d into m with names[i] set to values[i] (n pairs, each name checked as above).
 * 0, or model_parse_line's -EINVAL and message (which names the line). */
int model_desc_parse(const model_desc *d, model *m, const char *const *names,
                     const char *const *values, unsigned n, char *err, size_t errlen);

#endif
