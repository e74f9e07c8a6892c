# SPDX-License-Identifier: MIT
# virtual-modules/: module and interface models, manifests, control and class protocols,
# the module catalog. Every source of the library is one `VM_SRCS += file.c` line, above
# the $(eval) that declares the library.
VM_SRCS :=
VM_SRCS += virtual-modules/manifest.c
VM_SRCS += virtual-modules/manifest_binary.c
VM_SRCS += virtual-modules/manifest_check.c
VM_SRCS += virtual-modules/manifest_diag.c
VM_SRCS += virtual-modules/manifest_ini.c
VM_SRCS += virtual-modules/manifest_text.c
VM_SRCS += virtual-modules/manifest_text_write.c
VM_SRCS += virtual-modules/manifest_cli.c
VM_SRCS += virtual-modules/gb_message.c
$(eval $(call library,vm,$(VM_SRCS)))
GBVP_LIBS += $(LIB_vm)
