# ===========================================================================
#            ax_xray_cpu_freq.m4: measured core clock and TSC rate
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_CPU_FREQ([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures the core clock of the build machine as the rate of a chain of
#   dependent integer adds (one per cycle; X-Ray, Yotov, Pingali and
#   Stodghill, Sec. 3.1), the median of the fastest bursts of the four
#   quarters of a 0.1 s run, and the rate of the time-stamp counter where
#   there is one.  Neither is read from the OS: on many machines the OS
#   reports the TSC rate as "cpu MHz", which is not the clock the core runs
#   at.  A clock that moves during the run (frequency scaling, a boost
#   that holds for part of it) is reported and leaves the value
#   unconfirmed.
#   ACTION-IF-FOUND runs when the core clock is known.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_cpu_mhz          core clock (MHz)
#     ax_cv_xray_tsc_mhz          time-stamp counter rate (MHz)
#
#   Options: --with-xray-cpu-mhz=N, --with-xray-tsc-mhz=N.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_CPU_MHZ                core clock (MHz)
#     XRAY_TSC_MHZ                time-stamp counter rate (MHz)
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

#serial 2

AC_DEFUN([AX_XRAY_CPU_FREQ], [
_AX_XRAY_VALUE([ax_cv_xray_cpu_mhz], [XRAY_CPU_MHZ], [freq], [cpu-mhz], [core clock], [MHz])
ax_xray_freq_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_tsc_mhz], [XRAY_TSC_MHZ], [freq], [tsc-mhz],
               [time-stamp counter rate], [MHz])
AS_IF([test $ax_xray_freq_ok = yes], [$1], [$2])
])
