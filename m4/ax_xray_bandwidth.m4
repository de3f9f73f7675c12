# ===========================================================================
#    ax_xray_bandwidth.m4: bandwidth of each data level and of memory
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_BANDWIDTH([ACTION-IF-FOUND], [ACTION-IF-NOT])
#
# DESCRIPTION
#
#   Bytes per cycle that streaming kernels move through arrays that fit
#   the L1D, the L2, the L3 and memory (past every cache), on one core and
#   on every usable core at once: read (a sum of every element), write,
#   copy and STREAM's triad a = b + s*c, and for memory a write with
#   non-temporal stores.  The kernels are compiled with CC and CFLAGS and
#   move the widest vectors those flags offer (XRAY_BW_WIDTH): what the
#   package's own loops can get at its flags.  Bytes are those the loads
#   and stores name (as STREAM and likwid-bench count them).  The footprints
#   come from the levels xray measures (AX_XRAY_DCACHE, AX_XRAY_CACHES);
#   each value is timed at two footprints inside its level and is confirmed
#   when they agree within 10 %.  ACTION-IF-FOUND runs when the vector
#   width is known (the kernels built and ran).
#
#   Cache variables (preset one to skip its measurement):
#
#     ax_cv_xray_bw_width          vector width of the kernels, bytes
#     ax_cv_xray_bw_LEVEL_KERNEL   e.g. ax_cv_xray_bw_l2_read, bytes/cycle
#     ax_cv_xray_bw_LEVEL_KERNEL_all   every core at once
#
#   Options: --with-xray-bw-width=N, --with-xray-bw-l2-read=N,
#   --with-xray-bw-mem-copy-all=N, and so on (one per define).
#
#   Defines in config.h, and substitutes, when known (bytes per cycle;
#   _ALL: every usable core at once, together):
#
#     XRAY_BW_WIDTH                vector width of the kernels, bytes
#     XRAY_BW_L1_READ              the L1D, reads
#     XRAY_BW_L1_READ_ALL          the L1D, reads, all cores
#     XRAY_BW_L1_WRITE             the L1D, writes
#     XRAY_BW_L1_WRITE_ALL         the L1D, writes, all cores
#     XRAY_BW_L1_COPY              the L1D, copies (bytes read and written)
#     XRAY_BW_L1_COPY_ALL          the L1D, copies (bytes read and written), all cores
#     XRAY_BW_L1_TRIAD             the L1D, a = b + s*c
#     XRAY_BW_L1_TRIAD_ALL         the L1D, a = b + s*c, all cores
#     XRAY_BW_L2_READ              the L2, reads
#     XRAY_BW_L2_READ_ALL          the L2, reads, all cores
#     XRAY_BW_L2_WRITE             the L2, writes
#     XRAY_BW_L2_WRITE_ALL         the L2, writes, all cores
#     XRAY_BW_L2_COPY              the L2, copies (bytes read and written)
#     XRAY_BW_L2_COPY_ALL          the L2, copies (bytes read and written), all cores
#     XRAY_BW_L2_TRIAD             the L2, a = b + s*c
#     XRAY_BW_L2_TRIAD_ALL         the L2, a = b + s*c, all cores
#     XRAY_BW_L3_READ              the L3, reads
#     XRAY_BW_L3_READ_ALL          the L3, reads, all cores
#     XRAY_BW_L3_WRITE             the L3, writes
#     XRAY_BW_L3_WRITE_ALL         the L3, writes, all cores
#     XRAY_BW_L3_COPY              the L3, copies (bytes read and written)
#     XRAY_BW_L3_COPY_ALL          the L3, copies (bytes read and written), all cores
#     XRAY_BW_L3_TRIAD             the L3, a = b + s*c
#     XRAY_BW_L3_TRIAD_ALL         the L3, a = b + s*c, all cores
#     XRAY_BW_MEM_READ             memory, reads
#     XRAY_BW_MEM_READ_ALL         memory, reads, all cores
#     XRAY_BW_MEM_WRITE            memory, writes
#     XRAY_BW_MEM_WRITE_ALL        memory, writes, all cores
#     XRAY_BW_MEM_COPY             memory, copies (bytes read and written)
#     XRAY_BW_MEM_COPY_ALL         memory, copies (bytes read and written), all cores
#     XRAY_BW_MEM_TRIAD            memory, a = b + s*c
#     XRAY_BW_MEM_TRIAD_ALL        memory, a = b + s*c, all cores
#     XRAY_BW_MEM_WRITE_NT         memory, non-temporal writes
#     XRAY_BW_MEM_WRITE_NT_ALL     memory, non-temporal writes, all cores
#
#   and records them for AX_XRAY_CONFIG_HEADER.  An L4's values are in
#   xray's own output only.
#   When cross-compiling, or when the engine cannot run, the values are
#   "unknown": nothing is defined and a warning names the option and cache
#   variable to set.  The engine is built and run as for AX_XRAY_ICACHE
#   (see ax_xray_common.m4); with XRAY_SIMULATE=SPEC it measures a
#   simulated machine instead (see xray(1)).
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

# _AX_XRAY_BWVALUE(LEVEL, KERNEL, [_ALL]): one value, e.g. XRAY_BW_L2_READ.
m4_define([_AX_XRAY_BWVALUE],
[_AX_XRAY_VALUE([ax_cv_xray_bw_]m4_tolower([$1_$2$3]), [XRAY_BW_$1_$2$3], [bandwidth],
  [bw-]m4_tolower(m4_translit([$1_$2$3], [_], [-])),
  m4_if([$1], [MEM], [memory], [$1])[ bandwidth, ]m4_if([$3], [], [one core], [every core])[: ]dnl
m4_case([$2], [READ], [reads], [WRITE], [writes], [COPY], [copies], [TRIAD], [triad],
  [WRITE_NT], [non-temporal writes]),
  [bytes/cycle], [decimal])])

AC_DEFUN([AX_XRAY_BANDWIDTH], [
_AX_XRAY_VALUE([ax_cv_xray_bw_width], [XRAY_BW_WIDTH], [bandwidth], [bw-width],
               [vector width of the bandwidth kernels], [bytes])
ax_xray_bw_ok=$ax_xray_known
m4_foreach([_ax_xray_l], [[L1], [L2], [L3], [MEM]],
  [m4_foreach([_ax_xray_k], [[READ], [WRITE], [COPY], [TRIAD]],
    [_AX_XRAY_BWVALUE(_ax_xray_l, _ax_xray_k, [])
_AX_XRAY_BWVALUE(_ax_xray_l, _ax_xray_k, [_ALL])
])])
_AX_XRAY_BWVALUE([MEM], [WRITE_NT], [])
_AX_XRAY_BWVALUE([MEM], [WRITE_NT], [_ALL])
AS_IF([test $ax_xray_bw_ok = yes], [$1], [$2])
])
