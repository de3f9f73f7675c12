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
#   'make' rules or a person can run it again later ('./xray-probe --help').
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
#   The private helpers here (_AX_XRAY_*) build the engine once per
#   configure run and only if a value must be measured, run one probe once,
#   and record each define for AX_XRAY_CONFIG_HEADER.
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
AS_IF([test -f "$ax_xray_dir/src/xray.h" && test -f "$ax_xray_dir/src/cli/xray.c"], [],
      [AS_CASE([$ax_xray_dir], [@*@],
               [AC_MSG_WARN([xray's engine location is unknown: these macros were not installed by xray's 'make install'; use AX_XRAY_INIT([DIR]) or set XRAY_ENGINE_DIR])],
               [AC_MSG_WARN([xray's engine sources are not in '$ax_xray_dir'; use AX_XRAY_INIT([DIR]) or set XRAY_ENGINE_DIR])])
       ax_xray_dir=])
])

# _AX_XRAY_FUNCS: shell functions, defined once.  The engine is built by
# ax_xray_build only when a value must really be measured, so that a run
# with every value cached or preset compiles nothing.
#   ax_xray_build: build $(top_builddir)/xray-probe once per configure run;
#     sets ax_xray_prog, or leaves it empty and says why in config.log.
#   ax_xray_run PROBE: run one probe once; its values land in shell
#     variables ax_xray_v_NAME, its time in ax_xray_s_PROBE.
AC_DEFUN([_AX_XRAY_FUNCS], [
AC_REQUIRE([AC_PROG_CC])
AC_SUBST([XRAY_PROBE], ['$(top_builddir)/xray-probe$(EXEEXT)'])
ax_xray_build ()
{
  test "x$ax_xray_built" = xyes && return
  ax_xray_built=yes
  ax_xray_prog=
  _AX_XRAY_ENGINE
  test -n "$ax_xray_dir" || return
  ax_xray_cmd="$CC $CFLAGS $CPPFLAGS -I$ax_xray_dir/src -o xray-probe$EXEEXT $ax_xray_dir/src/*.c $ax_xray_dir/probes/*.c $ax_xray_dir/src/cli/xray.c $LDFLAGS -lm"
  _AS_ECHO_LOG([$ax_xray_cmd])
  AS_IF([eval "$ax_xray_cmd" >&AS_MESSAGE_LOG_FD 2>&1 && test -x xray-probe$EXEEXT],
        [ax_xray_prog=`pwd`/xray-probe$EXEEXT],
        [AC_MSG_WARN([cannot build xray's engine with $CC $CFLAGS (see config.log)])])
}
ax_xray_run ()
{
  eval "test \"x\$ax_xray_ran_$[]1\" = xyes" && return
  eval "ax_xray_ran_$[]1=yes; ax_xray_s_$[]1="
  ax_xray_build
  test -n "$ax_xray_prog" || return
  _AS_ECHO_LOG([$ax_xray_prog --cc="$CC" --cflags="$CFLAGS" --format=shell $[]1])
  AS_IF(["$ax_xray_prog" --cc="$CC" --cflags="$CFLAGS" --format=shell "$[]1" >conftest.xray 2>&AS_MESSAGE_LOG_FD], [
    cat conftest.xray >&AS_MESSAGE_LOG_FD
    ax_xray_unconfirmed="$ax_xray_unconfirmed `sed -n 's/^@%:@ \(XRAY_[[A-Z0-9_]]*\) unconfirmed.*/\1/p' conftest.xray`"
    # Only NAME=NUMBER lines are evaluated.
    eval "`sed -n 's/^\(XRAY_[[A-Z0-9_]]*\)=\([[0-9]][[0-9.]]*\)$/ax_xray_v_\1=\2/p' conftest.xray`"
    eval "ax_xray_s_$[]1=\`sed -n 's/^# seconds: //p' conftest.xray\`"
  ], [AC_MSG_WARN([xray-probe $[]1 failed (see config.log)])])
  rm -f conftest.xray
}
])

# _AX_XRAY_VALUE(CACHE-VAR, DEFINE, PROBE, OPTION, DESCRIPTION, UNIT)
# The checking line, cache variable, --with option, validation, define.
# Leaves ax_xray_known=yes or no.
AC_DEFUN([_AX_XRAY_VALUE], [
AC_REQUIRE([_AX_XRAY_FUNCS])
AC_ARG_WITH([xray-$4],
  [AS_HELP_STRING([--with-xray-$4=N], [do not measure $5; use N ($6)])])
m4_pushdef([_ax_xray_with], [with_xray_]m4_translit([$4], [-], [_]))dnl
AS_CASE([$_ax_xray_with],
  [''|no], [],
  [yes|*[[!0-9]]*], [AC_MSG_ERROR([--with-xray-$4='$_ax_xray_with': give $5 as a whole number of $6])],
  [$1=$_ax_xray_with; ax_xray_src_$2=override])
m4_popdef([_ax_xray_with])dnl
AC_MSG_CHECKING([$5])
AS_IF([test "${$1+set}" = set], [ax_xray_how="cached or preset"],
  [AS_IF([test "$cross_compiling" = yes],
     [$1=unknown; ax_xray_how="cross-compiling"],
     [ax_xray_run $3
      AS_IF([test -n "$ax_xray_v_$2"],
            [$1=$ax_xray_v_$2; ax_xray_how="measured, $ax_xray_s_$3 s"
             AS_CASE([" $ax_xray_unconfirmed "], [*" $2 "*],
                     [ax_xray_how="$ax_xray_how, UNCONFIRMED"])],
            [$1=unknown; ax_xray_how="could not be measured"])])])
AS_CASE([$$1],
  [unknown], [ax_xray_known=no],
  [''|*[[!0-9]]*], [AC_MSG_RESULT([invalid])
                    AC_MSG_ERROR([$1='$$1' is not a whole number of $6: unset it, or set it to one (or to 'unknown')])],
  [ax_xray_known=yes])
AS_IF([test "x$ax_xray_src_$2" = xoverride], [ax_xray_how="override"])
AS_IF([test $ax_xray_known = yes],
  [AC_MSG_RESULT([$$1 $6 ($ax_xray_how)])
   AS_CASE([$ax_xray_how], [*UNCONFIRMED*],
     [AC_MSG_WARN([$5: repeated runs disagreed (was the machine busy?); re-run configure, or set --with-xray-$4=N])])
   AC_DEFINE_UNQUOTED([$2], [$$1], [$5, in $6 (xray)])
   $2=$$1
   ax_xray_defs="$ax_xray_defs
$2|$$1|$5, in $6"],
  [AC_MSG_RESULT([unknown ($ax_xray_how)])
   AC_MSG_WARN([$5 is unknown: set it with --with-xray-$4=N or $1=N])
   $2=])
AC_SUBST([$2])
])
