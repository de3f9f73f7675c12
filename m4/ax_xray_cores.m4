# ===========================================================================
#              ax_xray_cores.m4: usable CPUs, cores and SMT ways
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_CORES([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   XRAY_NUM_CPUS: the CPUs a process started like configure may use: its
#   affinity mask (and so its cpuset), capped by a CFS bandwidth quota.  This
#   one is read from the OS and labelled so.  XRAY_SMT_WAYS: hardware threads
#   per core, by the pairwise test of X-Ray Sec. 3.5 (a kernel that
#   saturates a core's adders runs at about half speed beside a thread of
#   the same core, at full speed beside another core).  XRAY_NUM_CORES: the
#   usable CPUs divided by it.  With one usable CPU (taskset -c 0) there is
#   nothing to pair: XRAY_NUM_CORES is 1 and XRAY_SMT_WAYS unknown.
#   ACTION-IF-FOUND runs when XRAY_NUM_CPUS is known.
#
#   Cache variables ax_cv_xray_num_cpus, ax_cv_xray_num_cores,
#   ax_cv_xray_smt_ways; options --with-xray-num-cpus=N,
#   --with-xray-num-cores=N, --with-xray-smt-ways=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_NUM_CPUS               CPUs this process may use
#     XRAY_NUM_CORES              physical cores among them
#     XRAY_SMT_WAYS               hardware threads per core
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, a value is "unknown": nothing is defined and
#   a warning names the option and cache variable to set.  The engine is
#   built and run as for AX_XRAY_ICACHE (see ax_xray_common.m4) and compiles
#   its kernels with the project's $CC and $CFLAGS, which decide the answers;
#   with XRAY_SIMULATE=SPEC it measures a simulated machine instead (see
#   xray(1)).
#
# LICENSE
#
#   Copyright (c) 2026 The xray authors
#
#   Copying and distribution of this file, with or without modification, are
#   permitted in any medium without royalty provided the copyright notice
#   and this notice are preserved.  This file is offered as-is, without any
#   warranty.

#serial 1

AC_DEFUN([AX_XRAY_CORES], [
_AX_XRAY_VALUE([ax_cv_xray_num_cpus], [XRAY_NUM_CPUS], [cores], [num-cpus],
               [CPUs this process may use], [CPUs])
ax_xray_cores_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_num_cores], [XRAY_NUM_CORES], [cores], [num-cores],
               [physical cores among the usable CPUs], [cores])
_AX_XRAY_VALUE([ax_cv_xray_smt_ways], [XRAY_SMT_WAYS], [cores], [smt-ways],
               [hardware threads per core], [threads])
AS_IF([test $ax_xray_cores_ok = yes], [$1], [$2])
])
