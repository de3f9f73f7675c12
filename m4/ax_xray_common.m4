# ===========================================================================
#     ax_xray_common.m4: where xray's engine is, and the private helpers
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_INIT([XRAY-SRCDIR])
#
# DESCRIPTION
#
#   The AX_XRAY_* macros measure hardware parameters at configure time by
#   building xray's engine with the project's own $CC, $CFLAGS, $CPPFLAGS
#   and $LDFLAGS and running its micro-benchmarks.  The engine program is
#   left at $(top_builddir)/xray-probe (substituted as XRAY_PROBE), so
#   'make' rules or a person can run it again later ('./xray-probe --help'),
#   with the command that built it in xray-probe.cmd: configure run again
#   reuses it where that command and the engine's sources are unchanged.
#   Both belong in the project's DISTCLEANFILES.
#
#   AX_XRAY_INIT is optional.  It names xray's source tree when a copy of it
#   is embedded in the project, as a directory relative to the top source
#   directory (for example AX_XRAY_INIT([xray])); call it before the first
#   AX_XRAY_* check.  Without it the macros use the engine installed beside
#   them ($(datadir)/xray), and the environment variable XRAY_ENGINE_DIR
#   overrides both.
#
#   Each measured value is cached (ax_cv_xray_*), can be preset on the
#   configure command line (ax_cv_xray_l1i_size=32768 ./configure) or set
#   with a --with-xray-* option, and is "unknown (cross-compiling)" when the
#   engine cannot run on the build machine.
#
#   A cross build takes its values from a recording of the target instead:
#   'xray --record=DIR' there, then ./configure --host=...
#   --with-xray-recording=DIR (or XRAY_RECORDING=DIR).  The engine is then
#   built for the build machine (CC_FOR_BUILD, default cc, and
#   CFLAGS_FOR_BUILD, default -O2) and answers every probe the recording
#   holds points of from them, each value shown
#   as replayed from the recorded CPU; values no recording gives (the
#   compiled operation kernels of AX_XRAY_LATENCY, AX_XRAY_THROUGHPUT,
#   AX_XRAY_FMA and AX_XRAY_REGISTERS) stay unknown with that reason.  A
#   recording of another instruction set than --host's is refused.
#
#   The private helpers here (_AX_XRAY_*) build the engine once per
#   configure run and only if a value must be measured, run each probe
#   once, and record each define for AX_XRAY_CONFIG_HEADER.  The first
#   check that measures runs, in one engine process, the probe of every
#   check in configure.ac that takes no arguments (all but AX_XRAY_EVENTS,
#   AX_XRAY_CODE_FITS and AX_XRAY_REGISTERS with types), and every
#   AX_XRAY_LATENCY and AX_XRAY_THROUGHPUT with its operator, that has a
#   value neither cached, preset nor given with --with-xray-*: a probe then
#   builds on what an earlier one established (the bandwidth, sharing and
#   interference probes on the caches probe's levels) instead of measuring
#   it again, and the core's clock is timed once.  A check inside a shell
#   conditional that does not run is measured all the same.
#
#   On a machine of several kinds of core (performance and efficiency
#   cores, as the OS tells them apart) the engine measures every kind.  The
#   defines in config.h are kind 1's (the fastest, where compute-bound code
#   is scheduled); AX_XRAY_CONFIG_HEADER's file holds each kind's too, for
#   the values measured in this run and confirmed: XRAY_L2_SIZE_KIND1,
#   XRAY_L2_SIZE_KIND2, ..., with XRAY_CPU_KINDS and the kinds' names as
#   strings (XRAY_KIND1_NAME "core").
#
# LICENSE
#
#   Copyright (c) 2026 The xray authors
#
#   Copying and distribution of this file, with or without modification, are
#   permitted in any medium without royalty provided the copyright notice
#   and this notice are preserved.  This file is offered as-is, without any
#   warranty.

#serial 18

AC_DEFUN([AX_XRAY_INIT], [ax_xray_embed_dir='$1'])

# _AX_XRAY_ENGINE: set ax_xray_dir to xray's engine sources, or empty.
AC_DEFUN([_AX_XRAY_ENGINE], [
if test -n "$XRAY_ENGINE_DIR"; then
  ax_xray_dir=$XRAY_ENGINE_DIR
elif test -n "$ax_xray_embed_dir"; then
  ax_xray_dir=$srcdir/$ax_xray_embed_dir
else
  ax_xray_dir='@XRAY_INSTALLED_DIR@'
fi
AS_IF([test -f "$ax_xray_dir/src/xray.h" && test -f "$ax_xray_dir/src/engine.list"], [],
      [AS_CASE([$ax_xray_dir], [@*@],
               [AC_MSG_WARN([xray's engine location is unknown: these macros were not installed by xray's 'make install'; use AX_XRAY_@&t@INIT(@<:@DIR@:>@) or set XRAY_ENGINE_DIR])],
               [AC_MSG_WARN([xray's engine sources are not in '$ax_xray_dir'; use AX_XRAY_@&t@INIT(@<:@DIR@:>@) or set XRAY_ENGINE_DIR])])
       ax_xray_dir=])
])

# _AX_XRAY_SHOWN(VALUE, UNIT): a value as configure's result shows it:
# yes or no for a boolean, else the number and its unit.
m4_define([_AX_XRAY_SHOWN],
  [m4_if([$2], [boolean], [`test "x$1" = x1 && echo yes || echo no`], [$1 $2])])

# _AX_XRAY_FUNCS: shell functions, defined once.  The engine is built by
# ax_xray_build only when a value must really be measured, so that a run
# with every value cached or preset compiles nothing.
#   ax_xray_build: build $(top_builddir)/xray-probe once per configure run;
#     sets ax_xray_prog, or leaves it empty and says why in config.log.
#   ax_xray_run KEY [ARGS]: run a probe (ARGS, default the probe named
#     KEY) once; its values land in shell variables ax_xray_v_NAME, its
#     time in ax_xray_s_KEY.  A plain probe, and an operator's latency or
#     throughput, runs in the batch of ax_xray_batch where it can.
AC_DEFUN([_AX_XRAY_FUNCS], [
AC_REQUIRE([AC_PROG_CC])
AC_SUBST([XRAY_PROBE], ['$(top_builddir)/xray-probe$(EXEEXT)'])
AC_ARG_WITH([xray-recording],
  [AS_HELP_STRING([--with-xray-recording=DIR],
     [take xray's values from DIR, a recording of the target made there with 'xray --record=DIR' (for cross builds)])])
AC_ARG_VAR([XRAY_RECORDING], [a recording of the target made with 'xray --record' (as --with-xray-recording)])
AC_ARG_VAR([CC_FOR_BUILD], [the build machine's C compiler, for xray's engine when a cross build replays a recording (default: cc)])
AC_ARG_VAR([CFLAGS_FOR_BUILD], [its flags (default: -O2)])
_AX_XRAY_RECORDING
ax_xray_build ()
{
  test "x$ax_xray_built" = xyes && return
  ax_xray_built=yes
  ax_xray_prog=
  _AX_XRAY_ENGINE
  test -n "$ax_xray_dir" || return
  # A cross build runs the engine here, on a recording: it is built for
  # the build machine.
  ax_xray_save_cc=$CC ax_xray_save_cflags=$CFLAGS
  ax_xray_save_cppflags=$CPPFLAGS ax_xray_save_ldflags=$LDFLAGS
  AS_IF([test "$cross_compiling" = yes],
        [CC=${CC_FOR_BUILD:-cc} CFLAGS=${CFLAGS_FOR_BUILD--O2} CPPFLAGS= LDFLAGS=])
  ax_xray_compile xray-probe$EXEEXT "" src/engine.list -lm &&
    ax_xray_prog=`pwd`/xray-probe$EXEEXT ||
    AC_MSG_WARN([cannot build xray's engine with $CC $CFLAGS (see config.log)])
  CC=$ax_xray_save_cc CFLAGS=$ax_xray_save_cflags
  CPPFLAGS=$ax_xray_save_cppflags LDFLAGS=$ax_xray_save_ldflags
}
# ax_xray_compile PROGRAM CPPFLAGS LIST LIBS: build PROGRAM from the C
# files that $ax_xray_dir/LIST names (paths without blanks), with $CC
# $CFLAGS $CPPFLAGS CPPFLAGS, linked with $LDFLAGS LIBS; status 0 when it
# is there.  CC and the flags are words for the shell, as in make; the
# engine's directory is one word, whatever it holds (spaces, quotes, $).
# The files compile side by side, one lane of them per CPU, in
# conftest.xobj (removed, as every conftest file, if configure is
# interrupted); what the compiler said goes to config.log.  A PROGRAM
# this command built before, from sources no newer than it, is the same
# program: configure run again (a new option, a cleared cache) reuses
# it.  The command, expanded, is kept in PROGRAM.cmd only once the build
# has succeeded.
ax_xray_compile ()
{
  ax_xray_out=$[]1 ax_xray_xflags=$[]2 ax_xray_list=$[]3 ax_xray_libs=$[]4
  ax_xray_said="$CC $CFLAGS $CPPFLAGS $ax_xray_xflags -I$ax_xray_dir/src -o $ax_xray_out (`tr '\012' ' ' <"$ax_xray_dir/$ax_xray_list"`) $LDFLAGS $ax_xray_libs"
  AS_IF([test -x "$ax_xray_out" && test -f "$ax_xray_out.cmd" &&
         test "x`cat "$ax_xray_out.cmd"`" = "x$ax_xray_said" &&
         test -z "`find "$ax_xray_dir/src" "$ax_xray_dir/probes" -newer "$ax_xray_out" 2>/dev/null | sed 1q`"], [
    _AS_ECHO_LOG([reusing $ax_xray_out: built by the same command from these sources])
    return 0
  ])
  rm -f "$ax_xray_out.cmd" "$ax_xray_out"
  _AS_ECHO_LOG([$CC $CFLAGS $CPPFLAGS $ax_xray_xflags -I$ax_xray_dir/src -c (each file of $ax_xray_dir/$ax_xray_list), then -o $ax_xray_out $LDFLAGS $ax_xray_libs])
  ax_xray_lanes=`(getconf _NPROCESSORS_ONLN) 2>/dev/null`
  AS_CASE([$ax_xray_lanes], [''|*[[!0-9]]*|0], [ax_xray_lanes=1])
  test "$ax_xray_lanes" -le 16 || ax_xray_lanes=16
  rm -rf conftest.xobj
  mkdir conftest.xobj || return 1
  ax_xray_i=0 ax_xray_objs=
  for ax_xray_f in `cat "$ax_xray_dir/$ax_xray_list"`; do
    echo "$ax_xray_i $ax_xray_f" >>conftest.xobj/lane`expr $ax_xray_i % $ax_xray_lanes`
    ax_xray_objs="$ax_xray_objs conftest.xobj/$ax_xray_i.$OBJEXT"
    ax_xray_i=`expr $ax_xray_i + 1`
  done
  ax_xray_pids=
  for ax_xray_lane in conftest.xobj/lane*; do
    while read ax_xray_i ax_xray_f; do
      eval "$CC $CFLAGS $CPPFLAGS $ax_xray_xflags -I\"\$ax_xray_dir/src\" -c \"\$ax_xray_dir/\$ax_xray_f\" -o conftest.xobj/\$ax_xray_i.$OBJEXT" || exit 1
    done <"$ax_xray_lane" >"$ax_xray_lane.log" 2>&1 &
    ax_xray_pids="$ax_xray_pids $!"
  done
  ax_xray_ok=yes
  for ax_xray_p in $ax_xray_pids; do
    wait $ax_xray_p || ax_xray_ok=no
  done
  cat conftest.xobj/lane*.log >&AS_MESSAGE_LOG_FD
  AS_IF([test $ax_xray_ok = yes &&
         eval "$CC $CFLAGS -o \"\$ax_xray_out\" $ax_xray_objs $LDFLAGS $ax_xray_libs" >&AS_MESSAGE_LOG_FD 2>&1 &&
         test -x "$ax_xray_out"],
        [echo "$ax_xray_said" >"$ax_xray_out.cmd"
         rm -rf conftest.xobj
         return 0])
  rm -rf conftest.xobj "$ax_xray_out"
  return 1
}
# ax_xray_recorded PROBE: true where the engine can answer PROBE: always,
# and from a recording only where it holds points of PROBE.
ax_xray_recorded ()
{
  test -z "$ax_xray_rec" && return 0
  AS_CASE([" $ax_xray_rec_probes "], [*" $[]1 "*], [return 0])
  return 1
}
ax_xray_run ()
{
  ax_xray_key=$[]1
  shift
  eval "test \"x\$ax_xray_ran_$ax_xray_key\" = xyes" && return
  ax_xray_batch
  eval "test \"x\$ax_xray_ran_$ax_xray_key\" = xyes" && return
  test $[]# = 0 && set x "$ax_xray_key" && shift
  eval "ax_xray_ran_$ax_xray_key=yes; ax_xray_s_$ax_xray_key="
  ax_xray_recorded $[]1 || { eval "ax_xray_norec_$ax_xray_key=yes"; return; }
  ax_xray_build
  test -n "$ax_xray_prog" || return
  ax_xray_exec $ax_xray_key "$[]@"
}
# ax_xray_batch: once, the probes of every plain check in configure.ac
# (ax_xray_plan: PROBE:CACHE-VARIABLE:WITH-VARIABLE words) that still has a
# value to measure, in one run of the engine: a probe then reuses what an
# earlier one established (the caches probe's levels for the bandwidth,
# sharing and interference probes) instead of measuring it again.  An
# operator's check (KEY:CACHE-VARIABLE:WITH-VARIABLE:PROBE, its TYPE:OP in
# ax_xray_op_KEY) adds PROBE and its operator to the run's --ops, which
# only the latency and throughput probes read: a probe measures every
# operator of the list, and each check takes its own (the engine takes
# 32 operators and 511 characters at most: the checks past that run on
# their own).  Each probe's output is the run's, its time the run's; a
# failed run leaves the checks to run one at a time.
ax_xray_batch ()
{
  test "x$ax_xray_batched" = xyes && return
  ax_xray_batched=yes
  ax_xray_want= ax_xray_ops= ax_xray_opkeys= ax_xray_nops=0
  for ax_xray_p in $ax_xray_plan; do
    ax_xray_save_IFS=$IFS; IFS=:
    set x $ax_xray_p
    IFS=$ax_xray_save_IFS
    eval "test \"\${$[]3+set}\" = set" && continue
    eval "ax_xray_w=\$$[]4"
    AS_CASE([$ax_xray_w], [''|no], [], [continue])
    AS_IF([test -n "$[]5"], [
      ax_xray_recorded $[]5 || continue
      eval "ax_xray_o=\$ax_xray_op_$[]2"
      AS_CASE([",$ax_xray_ops,"], [*",$ax_xray_o,"*], [],
        [AS_IF([test $ax_xray_nops -ge 32 ||
                test `expr "X$ax_xray_ops,$ax_xray_o" : '.*'` -gt 500], [continue])
         ax_xray_ops=${ax_xray_ops:+$ax_xray_ops,}$ax_xray_o
         ax_xray_nops=`expr $ax_xray_nops + 1`])
      ax_xray_opkeys="$ax_xray_opkeys $[]2"
      set x $[]5
    ])
    AS_CASE([" $ax_xray_want "], [*" $[]2 "*], [continue])
    ax_xray_recorded $[]2 || continue
    ax_xray_want="$ax_xray_want $[]2"
  done
  test -n "$ax_xray_want" || return
  ax_xray_build
  test -n "$ax_xray_prog" || return
  AS_IF([test -n "$ax_xray_ops"],
        [ax_xray_exec batch $ax_xray_want "--ops=$ax_xray_ops" || return],
        [ax_xray_exec batch $ax_xray_want || return])
  ax_xray_n=`echo $ax_xray_want | wc -w | tr -d ' '`
  for ax_xray_bk in $ax_xray_want $ax_xray_opkeys; do
    cp conftest.xray-batch conftest.xray-$ax_xray_bk
    eval "ax_xray_ran_$ax_xray_bk=yes; ax_xray_s_$ax_xray_bk=\"\$ax_xray_s_batch, one run of $ax_xray_n probes\""
  done
}
# ax_xray_exec KEY ARGS...: run the engine on ARGS; its values land in
# shell variables ax_xray_v_NAME, its time (seconds) in ax_xray_s_KEY.
ax_xray_exec ()
{
  ax_xray_ekey=$[]1
  shift
  test -n "$ax_xray_rec" && set x --replay="$ax_xray_rec" "$[]@" && shift
  _AS_ECHO_LOG([$ax_xray_prog --cc="$CC" --cflags="$CFLAGS" --format=shell $[]*])
  AS_IF(["$ax_xray_prog" --cc="$CC" --cflags="$CFLAGS" --format=shell "$[]@" >conftest.xray-$ax_xray_ekey 2>&AS_MESSAGE_LOG_FD], [
    cat conftest.xray-$ax_xray_ekey >&AS_MESSAGE_LOG_FD
    # One name a word: the lists are matched as " NAME ", so the lines
    # become words.
    ax_xray_unconfirmed="$ax_xray_unconfirmed `sed -n 's/^@%:@ \(XRAY_[[A-Z0-9_]]*\) unconfirmed.*/\1/p' conftest.xray-$ax_xray_ekey | tr '\012' ' '`"
    ax_xray_from_os="$ax_xray_from_os `sed -n 's/^@%:@ \(XRAY_[[A-Z0-9_]]*\) from: os$/\1/p' conftest.xray-$ax_xray_ekey | tr '\012' ' '`"
    # Only NAME=NUMBER lines are evaluated.
    eval "`sed -n 's/^\(XRAY_[[A-Z0-9_]]*\)=\([[0-9]][[0-9.]]*\)$/ax_xray_v_\1=\2/p' conftest.xray-$ax_xray_ekey`"
    # And the names of kinds of core (quoted; letters, digits and ._-).
    eval "`sed -n 's/^\(XRAY_KIND[[0-9]]*_NAME\)=.\([[A-Za-z0-9._-]]*\).$/ax_xray_v_\1=\2/p' conftest.xray-$ax_xray_ekey`"
    eval "ax_xray_s_$ax_xray_ekey=\"\`sed -n 's/^# seconds: //p' conftest.xray-$ax_xray_ekey\` s\""
  ], [AC_MSG_WARN([xray-probe $[]* failed (see config.log)])
      rm -f conftest.xray-$ax_xray_ekey
      return 1])
}
# ax_xray_kinds DEFINE DESCRIPTION: each kind of core's DEFINE_KIND<n>
# that the engine measured and confirmed, and the kinds' count and names
# (once), for AX_XRAY_CONFIG_HEADER.
ax_xray_kinds ()
{
  ax_xray_k=1
  while test $ax_xray_k -le "${ax_xray_v_XRAY_CPU_KINDS:-0}"; do
    eval "ax_xray_kv=\$ax_xray_v_$[]1_KIND$ax_xray_k"
    AS_CASE([" $ax_xray_unconfirmed "], [*" $[]1_KIND$ax_xray_k "*], [],
      [test -n "$ax_xray_kv" && ax_xray_defs="$ax_xray_defs
$[]1_KIND$ax_xray_k|$ax_xray_kv|$[]2 (core kind $ax_xray_k)"])
    AS_CASE([" $ax_xray_kinds_said "], [*" $ax_xray_k "*], [],
      [eval "ax_xray_kn=\$ax_xray_v_XRAY_KIND${ax_xray_k}_NAME"
       ax_xray_kinds_said="$ax_xray_kinds_said $ax_xray_k"
       test $ax_xray_k = 1 && ax_xray_defs="$ax_xray_defs
XRAY_CPU_KINDS|$ax_xray_v_XRAY_CPU_KINDS|kinds of core, the fastest first"
       ax_xray_defs="$ax_xray_defs
XRAY_KIND${ax_xray_k}_NAME|\"$ax_xray_kn\"|name of core kind $ax_xray_k"])
    ax_xray_k=`expr $ax_xray_k + 1`
  done
}
# ax_xray_valid KIND VALUE: a whole number, or with KIND decimal a number.
ax_xray_valid ()
{
  case $[]2 in
    ''|*[[!0-9.]]*|*.*.*|.*|*.) return 1 ;;
  esac
  test "x$[]1" = xdecimal && return 0
  case $[]2 in
    *.*) return 1 ;;
  esac
  return 0
}
# ax_xray_why DEFINE KEY: the engine's reason for an unknown value, if any.
ax_xray_why ()
{
  if eval "test \"x\$ax_xray_norec_$[]2\" = xyes"; then
    echo "the recording holds no points of this probe: a recording gives no compiled operation kernels"
    return
  fi
  test -f conftest.xray-$[]2 && sed -n "s/^@%:@ $[]1 unknown: //p" conftest.xray-$[]2 | sed 1q
}
])

# _AX_XRAY_RECORDING: ax_xray_rec, the recording of --with-xray-recording
# or XRAY_RECORDING (an absolute path; empty: none), its CPU
# (ax_xray_rec_cpu) and the probes it holds points of
# (ax_xray_rec_probes).  Its instruction set, from its cpuinfo, must be
# the host's: the target's values only are of use.  A recording of a
# simulated machine has none, and serves any host.
AC_DEFUN([_AX_XRAY_RECORDING], [
ax_xray_rec=$XRAY_RECORDING
AS_CASE([$with_xray_recording],
  [''|no], [],
  [yes], [AC_MSG_ERROR([--with-xray-recording needs a folder: --with-xray-recording=DIR, a recording made with 'xray --record=DIR'])],
  [ax_xray_rec=$with_xray_recording])
AS_IF([test -n "$ax_xray_rec"], [
  AS_IF([test -f "$ax_xray_rec/points.csv" && test -f "$ax_xray_rec/machine"], [],
    [AC_MSG_ERROR([the xray recording '$ax_xray_rec' has no points.csv and machine file: make one on the target with 'xray --record=DIR'])])
  AS_CASE([$ax_xray_rec], [/*], [], [ax_xray_rec=`pwd`/$ax_xray_rec])
  ax_xray_rec_cpu=`sed -n 's/^model name@<:@	 @:>@*: *//p' "$ax_xray_rec/cpuinfo" 2>/dev/null | sed 1q`
  AS_IF([grep '^CPU implementer' "$ax_xray_rec/cpuinfo" >/dev/null 2>&1], [ax_xray_rec_isa=AArch64],
        [grep '^vendor_id' "$ax_xray_rec/cpuinfo" >/dev/null 2>&1], [ax_xray_rec_isa=x86],
        [ax_xray_rec_isa=])
  test -n "$ax_xray_rec_cpu" || ax_xray_rec_cpu="the recorded ${ax_xray_rec_isa:-unnamed} CPU"
  ax_xray_host_cpu=`echo "${host_alias:-${host:-}}" | sed 's/-.*//'`
  test -n "$ax_xray_host_cpu" || ax_xray_host_cpu=`(uname -m) 2>/dev/null`
  AS_CASE([$ax_xray_host_cpu],
    [x86_64|amd64|i?86], [ax_xray_host_isa=x86],
    [aarch64*|arm64], [ax_xray_host_isa=AArch64],
    [ax_xray_host_isa=$ax_xray_host_cpu])
  AS_IF([test -n "$ax_xray_rec_isa" && test "x$ax_xray_rec_isa" != "x$ax_xray_host_isa"],
    [AC_MSG_ERROR([the xray recording '$ax_xray_rec' ($ax_xray_rec_cpu) is of an $ax_xray_rec_isa CPU, and this build is for $ax_xray_host_cpu ($ax_xray_host_isa): record the target itself with 'xray --record=DIR' there])])
  ax_xray_rec_probes=`sed 1d "$ax_xray_rec/points.csv" | cut -d, -f1 | sed 's/-.*//' | sort -u | tr '\012' ' '`
  _AS_ECHO_LOG([xray recording $ax_xray_rec: $ax_xray_rec_cpu ($ax_xray_rec_isa), probes $ax_xray_rec_probes])
])
])

# _AX_XRAY_TYPE_NAME(TYPE): the type in a define name: __m256d -> M256D,
# long double -> LONG_DOUBLE.  _AX_XRAY_OP_NAME(OP): + - * / fma -> ADD ...
m4_define([_AX_XRAY_TYPE_NAME],
  [m4_toupper(m4_translit(m4_bpatsubst([$1], [^_*]), [ ], [_]))])
m4_define([_AX_XRAY_OP_NAME],
  [m4_case([$1], [+], [ADD], [-], [SUB], [*], [MUL], [/], [DIV], [fma], [FMA])])
m4_define([_AX_XRAY_OP_WORD],
  [m4_case([$1], [+], [add], [-], [sub], [*], [mul], [/], [div], [fma], [fma])])

# _AX_XRAY_OPVALUE(PREFIX, DEFINE-PREFIX, PROBE, TYPE, OP, DESCRIPTION, UNIT):
# one value of the latency or throughput probe, e.g. XRAY_LAT_DOUBLE_MUL.
m4_define([_AX_XRAY_OPVALUE],
[m4_pushdef([_ax_xray_n], _AX_XRAY_TYPE_NAME([$4])[_]_AX_XRAY_OP_NAME([$5]))dnl
_AX_XRAY_PLAN([$3_]m4_tolower(_ax_xray_n), [ax_cv_xray_$1_]m4_tolower(_ax_xray_n),
  [with_xray_$1_]m4_tolower(_ax_xray_n), [$3], [$4:$5])dnl
_AX_XRAY_VALUE([ax_cv_xray_$1_]m4_tolower(_ax_xray_n), [XRAY_$2_]_ax_xray_n,
  [$3_]m4_tolower(_ax_xray_n), [$1-]m4_tolower(m4_translit(_ax_xray_n, [_], [-])),
  [$6], [$7], [decimal], [$3 '--ops=$4:$5'])
m4_popdef([_ax_xray_n])])

# _AX_XRAY_CHECK_TYPE(MACRO, TYPE): stop autoconf on a type xray does not know.
# The list mirrors scalar_types and vector_types of src/kernels/generate.c
# (what `xray --types=?` lists); tests/docs.test checks both copies here.
m4_define([_AX_XRAY_CHECK_TYPE],
[m4_bmatch([$2],
  [^\(char\|short\|int\|long\|long long\|unsigned char\|unsigned short\|unsigned\|unsigned int\|unsigned long\|unsigned long long\|float\|double\|long double\|__m128\|__m128d\|__m128i\|__m256\|__m256d\|__m256i\|__m512\|__m512d\|__m512i\|float32x4_t\|float64x2_t\|int32x4_t\|int64x2_t\)$], [],
  [m4_fatal([$1: unknown type ']$2[' (known: char, short, int, long, long long, unsigned char, unsigned short, unsigned, unsigned int, unsigned long, unsigned long long, float, double, long double, __m128, __m128d, __m128i, __m256, __m256d, __m256i, __m512, __m512d, __m512i, float32x4_t, float64x2_t, int32x4_t, int64x2_t)])])])

# _AX_XRAY_CHECK_OP(MACRO, OP): stop autoconf on an unknown operator.
m4_define([_AX_XRAY_CHECK_OP],
[m4_case([$2], [+], [], [-], [], [*], [], [/], [], [fma], [],
  [m4_fatal([$1: unknown operator ']$2[' (known: +, -, *, / and fma)])])])

# _AX_XRAY_PLAN(PROBE, CACHE-VAR, WITH-VAR): a plain probe's value, for
# ax_xray_batch; _AX_XRAY_PLAN(KEY, CACHE-VAR, WITH-VAR, PROBE, TYPE:OP): an
# operator's.  The plan is written at the top of configure (autoconf's
# DEFAULTS diversion), so the first check that measures knows every
# later one, whichever macro it is in.
m4_define([_AX_XRAY_PLAN],
[m4_ifndef([_ax_xray_planned],
  [m4_define([_ax_xray_planned])m4_divert_text([DEFAULTS], [ax_xray_plan=])])dnl
m4_ifval([$4],
  [m4_divert_text([DEFAULTS], [ax_xray_plan="$ax_xray_plan $1:$2:$3:$4"
ax_xray_op_$1='$5'])],
  [m4_divert_text([DEFAULTS], [ax_xray_plan="$ax_xray_plan $1:$2:$3"])])])

# _AX_XRAY_VALUE(CACHE-VAR, DEFINE, KEY, OPTION, DESCRIPTION, UNIT,
#                [KIND], [ENGINE-ARGS])
# The checking line, cache variable, --with option, validation, define.
# KIND is empty (whole numbers) or "decimal" (e.g. 0.5 cycles).  The engine
# runs ENGINE-ARGS (default: the probe named KEY) once per KEY.
# Leaves ax_xray_known=yes or no.
AC_DEFUN([_AX_XRAY_VALUE], [
AC_REQUIRE([_AX_XRAY_FUNCS])
m4_ifval([$8], [], [_AX_XRAY_PLAN([$3], [$1], [with_xray_]m4_translit([$4], [-], [_]))])
AC_ARG_WITH([xray-$4],
  [AS_HELP_STRING([--with-xray-$4=N], [do not measure $5; use N ($6)])])
m4_pushdef([_ax_xray_with], [with_xray_]m4_translit([$4], [-], [_]))dnl
m4_pushdef([_ax_xray_what], m4_if([$7], [decimal], [a number], [a whole number]))dnl
AS_CASE([$_ax_xray_with],
  [''|no], [],
  [AS_IF([ax_xray_valid "$7" "$_ax_xray_with"],
     [$1=$_ax_xray_with; ax_xray_src_$2=override],
     [AC_MSG_ERROR([--with-xray-$4='$_ax_xray_with': give $5 as _ax_xray_what of $6])])])
m4_popdef([_ax_xray_with])dnl
AC_MSG_CHECKING([$5])
AS_IF([test "${$1+set}" = set], [ax_xray_how="cached or preset"],
  [AS_IF([test "$cross_compiling" = yes && test -z "$ax_xray_rec"],
     [$1=unknown; ax_xray_how="cross-compiling"],
     [ax_xray_run $3 $8
      AS_IF([test -n "$ax_xray_v_$2"],
            [$1=$ax_xray_v_$2; ax_xray_how="measured, $ax_xray_s_$3"
             test -n "$ax_xray_rec" && ax_xray_how="replayed from $ax_xray_rec_cpu"
             AS_CASE([" $ax_xray_from_os "], [*" $2 "*],
                     [ax_xray_how="from the OS, $ax_xray_s_$3"])
             AS_CASE([" $ax_xray_unconfirmed "], [*" $2 "*],
                     [ax_xray_how="$ax_xray_how, UNCONFIRMED"])],
            [$1=unknown; ax_xray_how=`ax_xray_why $2 $3`
             test -n "$ax_xray_how" || ax_xray_how="could not be measured"])])])
# A value the engine could not confirm is shown, not defined: the
# consumer's own default is safer than a number no second view agreed on.
ax_xray_unsure=
AS_CASE([$ax_xray_how], [*UNCONFIRMED*], [ax_xray_unsure=$$1; $1=unknown])
AS_IF([test "x$$1" = xunknown], [ax_xray_known=no],
  [ax_xray_valid "$7" "$$1"], [ax_xray_known=yes],
  [AC_MSG_RESULT([invalid])
   AC_MSG_ERROR([$1='$$1' is not _ax_xray_what of $6: unset it, or set it to one (or to 'unknown')])])
m4_popdef([_ax_xray_what])dnl
AS_IF([test "x$ax_xray_src_$2" = xoverride],
  [ax_xray_how="override"; ax_xray_overridden="$ax_xray_overridden $2"])
# The lists AX_XRAY_CONFIG_HEADER's closing summary counts.
AS_IF([test $ax_xray_known = yes], [],
  [test -n "$ax_xray_unsure"], [ax_xray_unsure_list="$ax_xray_unsure_list $2"],
  [ax_xray_unknown_list="$ax_xray_unknown_list $2"])
AS_IF([test $ax_xray_known = yes],
  [AC_MSG_RESULT([_AX_XRAY_SHOWN([$$1], [$6]) ($ax_xray_how)])
   AC_DEFINE_UNQUOTED([$2], [$$1], [$5, in $6 (xray)])
   $2=$$1
   ax_xray_defs="$ax_xray_defs
$2|$$1|$5, in $6"
   AS_CASE([$ax_xray_how], [measured*|from*|replayed*], [ax_xray_kinds $2 "$5, in $6"])],
  [test -n "$ax_xray_unsure"],
  [AC_MSG_RESULT([_AX_XRAY_SHOWN([$ax_xray_unsure], [$6]) ($ax_xray_how; left undefined)])
   AC_MSG_WARN([$5: not confirmed (no second measurement agreed: was the machine busy?), so it is left undefined; re-run configure, or set --with-xray-$4=N])
   $2=],
  [AC_MSG_RESULT([unknown ($ax_xray_how)])
   AC_MSG_WARN([$5 is unknown: set it with --with-xray-$4=N or $1=N])
   $2=])
AC_SUBST([$2])
])
