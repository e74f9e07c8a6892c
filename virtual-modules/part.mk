# SPDX-License-Identifier: MIT
# virtual-modules/: module and interface models, manifests, control and class protocols,
# the module catalog. Every source of the library is one `VM_SRCS += file.c` line.
VM_SRCS :=
VM_SRCS += virtual-modules/manifest.c
VM_SRCS += virtual-modules/gb_message.c
$(eval $(call library,vm,$(VM_SRCS)))
GBVP_LIBS += $(LIB_vm)
