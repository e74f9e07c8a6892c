// SPDX-License-Identifier: MIT
#ifndef GBVP_GBVP_VERSION_H
#define GBVP_GBVP_VERSION_H
#define SIM_VERSION "0.1.0"
#endif
