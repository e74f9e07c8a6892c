// SPDX-License-Identifier: MIT
// `gbvp model`: performance modelling without QEMU (model_topo.h describes the file).
#ifndef GBVP_UNIPRO_MODEL_CLI_H
#define GBVP_UNIPRO_MODEL_CLI_H

int cmd_model_main(int argc, char **argv);

#endif
