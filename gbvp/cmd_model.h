// SPDX-License-Identifier: MIT
// `gbvp model`: performance modelling without QEMU (model_topo.h describes the file).
#ifndef GBVP_GBVP_CMD_MODEL_H
#define GBVP_GBVP_CMD_MODEL_H

int cmd_model_main(int argc, char **argv);

#endif
