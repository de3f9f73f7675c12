# ===========================================================================
#     ax_xray_events.m4: which hardware event counts what, on this machine
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_EVENTS([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
#
# DESCRIPTION
#
#   For each event category of the Counter Inspection Toolkit, the name of
#   the hardware event that counts it here, found by counting every event
#   the machine offers over the toolkit's seven branch benchmarks (compiled
#   with the project's $CC and $CFLAGS, their branches counted from the
#   compiler's assembly) at several iteration counts, and over pointer
#   chases whose footprints lie between the data levels' capacities (which
#   the engine measures first), and placing each event in the category its
#   slopes or its cache signature match on every benchmark (the paper's
#   goodness function, a score of 0.8 or more; see xray(1), "xray
#   counters").  ACTION-IF-FOUND runs when at least one category has an
#   event.
#
#   Where the machine's counters cannot be read (no PMU, as in most virtual
#   machines; perf_event_paranoid; a container's seccomp profile), nothing
#   is defined and each result says why.
#
#   Cache variables (preset them to skip the measurement; "unknown" leaves
#   a category undefined):
#
#     ax_cv_xray_event_cond_branches_executed
#     ax_cv_xray_event_cond_branches_retired
#     ax_cv_xray_event_cond_branches_taken
#     ax_cv_xray_event_direct_branches
#     ax_cv_xray_event_branch_misses
#     ax_cv_xray_event_l1d_hits, ax_cv_xray_event_l1d_misses, and so on to
#     ax_cv_xray_event_l3_misses, ax_cv_xray_event_l2_prefetches
#
#   Defines in config.h, as C strings, and substitutes, when known:
#
#     XRAY_EVENT_COND_BRANCHES_EXECUTED   conditional branches executed
#                                         (wrong paths too)
#     XRAY_EVENT_COND_BRANCHES_RETIRED    conditional branches retired
#     XRAY_EVENT_COND_BRANCHES_TAKEN      conditional branches taken
#     XRAY_EVENT_DIRECT_BRANCHES          direct (unconditional) branches
#     XRAY_EVENT_BRANCH_MISSES            mispredicted branches
#     XRAY_EVENT_L1D_HITS                 loads the L1D served
#     XRAY_EVENT_L1D_MISSES               loads that missed the L1D
#     XRAY_EVENT_L2_HITS, XRAY_EVENT_L2_MISSES, XRAY_EVENT_L3_HITS,
#     XRAY_EVENT_L3_MISSES                the same for the L2 and the L3
#     XRAY_EVENT_L2_PREFETCHES            lines a prefetcher brought into the
#                                         L2 (the prefetch signature)
#
#   e.g. #define XRAY_EVENT_BRANCH_MISSES "branch-misses", a name for
#   perf_event (perf's generic names, or rHEX) or PAPI, and records them for
#   AX_XRAY_CONFIG_HEADER.  When cross-compiling every category is unknown.
#   The engine is built and run as for AX_XRAY_ICACHE (see
#   ax_xray_common.m4); with XRAY_SIMULATE=SPEC (and pmu=SEED in it) it
#   reads a simulated PMU instead.
#
# LICENSE
#
#   Copyright (c) 2026 The xray authors
#
#   Copying and distribution of this file, with or without modification, are
#   permitted in any medium without royalty provided the copyright notice
#   and this notice are preserved.  This file is offered as-is, without any
#   warranty.

#serial 3

AC_DEFUN([AX_XRAY_EVENTS], [
AC_REQUIRE([_AX_XRAY_FUNCS])
ax_xray_events_found=no
ax_xray_events_why=
ax_xray_events_ran=no
m4_foreach([_ax_xray_ev], [[[COND_BRANCHES_EXECUTED], [cond_branches_executed], [conditional branches executed]],
                           [[COND_BRANCHES_RETIRED], [cond_branches_retired], [conditional branches retired]],
                           [[COND_BRANCHES_TAKEN], [cond_branches_taken], [conditional branches taken]],
                           [[DIRECT_BRANCHES], [direct_branches], [direct branches]],
                           [[BRANCH_MISSES], [branch_misses], [mispredicted branches]],
                           [[L1D_HITS], [l1d_hits], [loads the L1D served]],
                           [[L1D_MISSES], [l1d_misses], [loads that missed the L1D]],
                           [[L2_HITS], [l2_hits], [loads the L2 served]],
                           [[L2_MISSES], [l2_misses], [loads that missed the L2]],
                           [[L3_HITS], [l3_hits], [loads the L3 served]],
                           [[L3_MISSES], [l3_misses], [loads that missed the L3]],
                           [[L2_PREFETCHES], [l2_prefetches], [lines prefetched into the L2]]],
  [_AX_XRAY_EVENT(m4_unquote(_ax_xray_ev))])
rm -f conftest.xray-events
AS_IF([test $ax_xray_events_found = no && test -n "$ax_xray_events_why"],
      [AC_MSG_NOTICE([no hardware event is defined: $ax_xray_events_why])])
AS_IF([test $ax_xray_events_found = yes], [$1], [$2])
])

# _AX_XRAY_EVENT(SUFFIX, cache-suffix, DESCRIPTION): one category.
AC_DEFUN([_AX_XRAY_EVENT], [
AC_MSG_CHECKING([the hardware event that counts $3])
AS_IF([test "${ax_cv_xray_event_$2+set}" = set], [ax_xray_how="cached or preset"],
  [AS_IF([test "$cross_compiling" = yes],
     [ax_cv_xray_event_$2=unknown; ax_xray_how="cross-compiling"],
     [test -n "$ax_xray_rec"],
     [ax_cv_xray_event_$2=unknown; ax_xray_how="a recording holds no hardware events"],
     [_AX_XRAY_EVENTS_RUN
      ax_cv_xray_event_$2=`sed -n "s/^XRAY_EVENT_$1='\(.*\)'$/\1/p" conftest.xray-events 2>/dev/null`
      ax_xray_how=`sed -n "s/^@%:@ XRAY_EVENT_$1 score \(.*\)/measured, score \1/p" conftest.xray-events 2>/dev/null`
      AS_IF([test -z "$ax_cv_xray_event_$2"],
            [ax_cv_xray_event_$2=unknown
             ax_xray_how=`sed -n "s/^@%:@ XRAY_EVENT_$1 unknown: //p" conftest.xray-events 2>/dev/null`
             AS_CASE([$1], [L*],
               [test -n "$ax_xray_how" ||
                  ax_xray_how=`sed -n "s/^@%:@ no cache events: //p" conftest.xray-events 2>/dev/null`])
             test -n "$ax_xray_how" || ax_xray_how=$ax_xray_events_why
             test -n "$ax_xray_how" || ax_xray_how="xray counters placed no event there"])])])
AS_CASE([$ax_cv_xray_event_$2],
  [unknown], [],
  [*[[!A-Za-z0-9_.:=/+@,-]]*|''],
    [AC_MSG_RESULT([invalid])
     AC_MSG_ERROR([ax_cv_xray_event_$2='$ax_cv_xray_event_$2' is not an event name (letters, digits and _.:=/+@,-): unset it, or set it to one (or to 'unknown')])])
AS_IF([test "x$ax_cv_xray_event_$2" != xunknown],
  [AC_MSG_RESULT([$ax_cv_xray_event_$2 ($ax_xray_how)])
   AC_DEFINE_UNQUOTED([XRAY_EVENT_$1], ["$ax_cv_xray_event_$2"],
                      [the hardware event that counts $3 (xray)])
   XRAY_EVENT_$1=$ax_cv_xray_event_$2
   ax_xray_events_found=yes
   ax_xray_defs="$ax_xray_defs
XRAY_EVENT_$1|\"$ax_cv_xray_event_$2\"|the hardware event that counts $3"],
  [AC_MSG_RESULT([none ($ax_xray_how)])
   XRAY_EVENT_$1=])
AC_SUBST([XRAY_EVENT_$1])
])

# _AX_XRAY_EVENTS_RUN: run `xray-probe counters` once; its shell output in
# conftest.xray-events, and ax_xray_events_why when it has none.
AC_DEFUN([_AX_XRAY_EVENTS_RUN], [
AS_IF([test $ax_xray_events_ran = no], [
  ax_xray_events_ran=yes
  rm -f conftest.xray-events
  ax_xray_build
  AS_IF([test -z "$ax_xray_prog"],
    [ax_xray_events_why="xray's engine cannot be built (see config.log)"],
    [_AS_ECHO_LOG([$ax_xray_prog counters --cc="$CC" --cflags="$CFLAGS" --format=shell])
     "$ax_xray_prog" counters --cc="$CC" --cflags="$CFLAGS" --format=shell >conftest.xray-events 2>conftest.xray-err
     ax_xray_rc=$?
     cat conftest.xray-events conftest.xray-err >&AS_MESSAGE_LOG_FD
     ax_xray_events_why=`sed -n 's/^@%:@ counters unavailable: //p' conftest.xray-events`
     AS_IF([test -n "$ax_xray_events_why"], [],
           [test $ax_xray_rc != 0],
           [ax_xray_events_why=`sed -n '1s/^[[^:]]*counters: //p' conftest.xray-err`
            test -n "$ax_xray_events_why" || ax_xray_events_why="xray counters failed (see config.log)"])
     rm -f conftest.xray-err])])
])
