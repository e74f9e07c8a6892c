// SPDX-License-Identifier: MIT
// `gbvp model --plot DIR`: a sweep's table drawn as SVG figures by tools/model_plot.py
// (matplotlib): goodput against message size per power mode with the line-rate limit,
// latency distributions, switch queue depth over time. DIR receives table.json (the
// table the figures are drawn from), the SVG files and figures.json (each figure's series
// and their points).
#ifndef GBVP_GBVP_MODEL_MODEL_PLOT_H
#define GBVP_GBVP_MODEL_MODEL_PLOT_H

#include <stddef.h>

#include "gbvp/model/model_table.h"

#define MODEL_PLOT_PYTHON_ENV "GBVP_PYTHON" /* the interpreter; default /usr/bin/python3 */

/* Writes DIR/table.json (creating DIR) and runs the plotter on it. 0, or -1 with err (DIR
 * cannot be made, the plotter is missing or failed: its own messages go to stderr). */
int model_plot(const model_table *t, const char *dir, char *err, size_t errlen);

#endif
