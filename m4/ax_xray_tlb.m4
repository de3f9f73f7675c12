# ===========================================================================
#                ax_xray_tlb.m4: measured data TLB parameters
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_TLB([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   Measures the data TLB levels: entries of each, the base page size, the
#   associativity where it can be established, and the cost of a miss, from
#   the difference between a chase through one line in each of n pages and
#   the same lines packed into few pages (X-Ray, Sec. 4.7).
#   ACTION-IF-FOUND runs when the first level's entries are known.
#
#   Cache variables (preset them to skip the measurement):
#
#     ax_cv_xray_page_size        base page size (bytes)
#     ax_cv_xray_dtlb_entries     first-level data TLB entries (entries)
#     ax_cv_xray_dtlb_assoc       first-level data TLB associativity (ways)
#     ax_cv_xray_l2tlb_entries    second-level TLB entries (entries)
#     ax_cv_xray_l2tlb_assoc      second-level TLB associativity (ways)
#     ax_cv_xray_dtlb_miss_latency first-level TLB miss cost (cycles)
#     ax_cv_xray_tlb_miss_latency TLB miss cost (page walk) (cycles)
#
#   Options: --with-xray-page-size=N, --with-xray-dtlb-entries=N, --with-xray-dtlb-assoc=N,
#   and likewise for the others.
#
#   Defines in config.h, and substitutes, when known:
#
#     XRAY_PAGE_SIZE              base page size (bytes)
#     XRAY_DTLB_ENTRIES           first-level data TLB entries (entries)
#     XRAY_DTLB_ASSOC             first-level data TLB associativity (ways)
#     XRAY_L2TLB_ENTRIES          second-level TLB entries (entries)
#     XRAY_L2TLB_ASSOC            second-level TLB associativity (ways)
#     XRAY_DTLB_MISS_LATENCY      first-level TLB miss cost (cycles)
#     XRAY_TLB_MISS_LATENCY       TLB miss cost (page walk) (cycles)
#
#   and records them for AX_XRAY_CONFIG_HEADER.  When cross-compiling, or
#   when the engine cannot run, a value is "unknown": nothing is defined and
#   a warning names the option and cache variable to set.  The engine is
#   built and run as for AX_XRAY_ICACHE (see ax_xray_common.m4); with
#   XRAY_SIMULATE=SPEC it measures a simulated machine instead (see xray(1)).
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

AC_DEFUN([AX_XRAY_TLB], [
_AX_XRAY_VALUE([ax_cv_xray_page_size], [XRAY_PAGE_SIZE], [tlb], [page-size],
               [base page size], [bytes])
_AX_XRAY_VALUE([ax_cv_xray_dtlb_entries], [XRAY_DTLB_ENTRIES], [tlb], [dtlb-entries],
               [first-level data TLB entries], [entries])
ax_xray_tlb_ok=$ax_xray_known
_AX_XRAY_VALUE([ax_cv_xray_dtlb_assoc], [XRAY_DTLB_ASSOC], [tlb], [dtlb-assoc],
               [first-level data TLB associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_l2tlb_entries], [XRAY_L2TLB_ENTRIES], [tlb], [l2tlb-entries],
               [second-level TLB entries], [entries])
_AX_XRAY_VALUE([ax_cv_xray_l2tlb_assoc], [XRAY_L2TLB_ASSOC], [tlb], [l2tlb-assoc],
               [second-level TLB associativity], [ways])
_AX_XRAY_VALUE([ax_cv_xray_dtlb_miss_latency], [XRAY_DTLB_MISS_LATENCY], [tlb], [dtlb-miss-latency],
               [first-level TLB miss cost], [cycles])
_AX_XRAY_VALUE([ax_cv_xray_tlb_miss_latency], [XRAY_TLB_MISS_LATENCY], [tlb], [tlb-miss-latency],
               [TLB miss cost (page walk)], [cycles])
AS_IF([test $ax_xray_tlb_ok = yes], [$1], [$2])
])
