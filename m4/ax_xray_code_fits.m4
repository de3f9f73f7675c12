# ===========================================================================
#   ax_xray_code_fits.m4: whether a function's hot loops fit the measured L1I
# ===========================================================================
#
# SYNOPSIS
#
#   AX_XRAY_CODE_FITS(SOURCE, FUNCTION, [ACTION-IF-FITS], [ACTION-IF-NOT])
#
# DESCRIPTION
#
#   Compiles SOURCE (relative to the source tree) with the project's own
#   $CC $CFLAGS $CPPFLAGS, and tells whether the innermost loops of
#   FUNCTION (and of the functions of SOURCE it calls) fit the L1
#   instruction cache that AX_XRAY_ICACHE measured on the build machine:
#   no reference of such a loop misses after its first iteration.  The
#   answer comes from xray's static instruction-cache simulation (Mueller
#   and Whalley), run on the object's machine code for an LRU cache of the
#   measured size, ways and line size; since the link fixes where the code
#   lands, a loop fits only where it fits at every 16-byte placement.
#
#   Use it to choose an unroll factor or a code variant: compile each
#   candidate in its own SOURCE and keep the largest that fits.
#
#   Cache variable (preset it to skip the analysis):
#
#     ax_cv_xray_code_fits_FUNCTION   yes, no, or unknown (...)
#
#   ACTION-IF-FITS runs on yes; ACTION-IF-NOT on no and on unknown, which
#   a warning explains: when cross-compiling, when the L1I's size, ways or
#   line size is unknown or not confirmed, and where xray's simulator
#   cannot be built (it reads machine code with Capstone and libelf:
#   libcapstone-dev and libelf-dev on Debian) or cannot read the object
#   (x86-64 and AArch64 only).  The simulator is built once per configure
#   run, from the files src/icsim.list names, as $(top_builddir)/xray-icsim.
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

AC_DEFUN([AX_XRAY_CODE_FITS], [
m4_if([$1], [], [m4_fatal([AX_XRAY_CODE_FITS: give the SOURCE file to compile])])
m4_if([$2], [], [m4_fatal([AX_XRAY_CODE_FITS: give the FUNCTION whose loops to check])])
AC_REQUIRE([AX_XRAY_ICACHE])
AC_REQUIRE([_AX_XRAY_CODE_FITS_FUNCS])
AS_VAR_PUSHDEF([ax_var], [ax_cv_xray_code_fits_$2])
AC_CACHE_CHECK([whether the innermost loops of $2 ($1) fit the L1I], [ax_var],
  [AS_VAR_SET([ax_var], [`ax_xray_code_fits "$1" "$2"`])])
AS_VAR_IF([ax_var], [yes], [$3],
  [AS_CASE([AS_VAR_GET([ax_var])],
     [no], [],
     [AC_MSG_WARN([whether the loops of $2 fit the L1I is AS_VAR_GET([ax_var])])])
   $4])
AS_VAR_POPDEF([ax_var])
])

# _AX_XRAY_CODE_FITS_FUNCS: ax_xray_code_fits SOURCE FUNCTION prints yes,
# no or "unknown (why)"; the simulator is built once.
AC_DEFUN([_AX_XRAY_CODE_FITS_FUNCS], [
AC_REQUIRE([_AX_XRAY_FUNCS])
AC_REQUIRE([AC_OBJEXT])
ax_xray_icsim_build ()
{
  test "x$ax_xray_icsim_built" = xyes && return
  ax_xray_icsim_built=yes
  ax_xray_icsim=
  _AX_XRAY_ENGINE
  test -n "$ax_xray_dir" && test -f "$ax_xray_dir/src/icsim.list" || return
  ax_xray_compile xray-icsim$EXEEXT -DXRAY__HAVE_CAPSTONE src/icsim.list "-lcapstone -lelf -lm" &&
    ax_xray_icsim=`pwd`/xray-icsim$EXEEXT
}
ax_xray_code_fits ()
{
  if test "$cross_compiling" = yes; then
    echo "unknown (cross-compiling)"; return
  fi
  ax_xray_s=$ax_cv_xray_l1i_size ax_xray_w=$ax_cv_xray_l1i_assoc ax_xray_l=$ax_cv_xray_l1i_line
  if ! ax_xray_valid "" "$ax_xray_s" || ! ax_xray_valid "" "$ax_xray_w" ||
     ! ax_xray_valid "" "$ax_xray_l"; then
    echo "unknown (the L1I's size, ways or line size is not established here: set them with --with-xray-l1i-size, -assoc and -line)"; return
  fi
  # A capacity measured within 3 %: the sets follow from ways and line,
  # a power of two where one is that close (every L1I we know).
  ax_xray_way=`expr $ax_xray_w \* $ax_xray_l`
  ax_xray_p=1
  while test `expr 2 \* $ax_xray_p \* $ax_xray_way` -le `expr $ax_xray_s + $ax_xray_s / 32`; do
    ax_xray_p=`expr 2 \* $ax_xray_p`
  done
  if test `expr $ax_xray_p \* $ax_xray_way` -lt `expr $ax_xray_s - $ax_xray_s / 32`; then
    ax_xray_p=`expr \( $ax_xray_s + $ax_xray_way / 2 \) / $ax_xray_way`
  fi
  ax_xray_s=`expr $ax_xray_p \* $ax_xray_way`
  ax_xray_icsim_build
  if test -z "$ax_xray_icsim"; then
    echo "unknown (xray's static simulator cannot be built here: it needs Capstone and libelf, libcapstone-dev and libelf-dev on Debian; see config.log)"; return
  fi
  # One object a source file and command in this configure run: checks of
  # several functions of one file compile it once (configure removes
  # every conftest file when it ends).
  ax_xray_o=conftest-fits-`echo "$[]1" | sed 's/[[^A-Za-z0-9]]/_/g'`.$OBJEXT
  ax_xray_said="$CC $CFLAGS $CPPFLAGS -c $srcdir/$[]1"
  if test -f "$ax_xray_o" && test "x`cat "$ax_xray_o.cmd" 2>/dev/null`" = "x$ax_xray_said"; then
    _AS_ECHO_LOG([reusing $ax_xray_o: $ax_xray_said])
  else
    rm -f "$ax_xray_o" "$ax_xray_o.cmd"
    _AS_ECHO_LOG([$ax_xray_said -o $ax_xray_o])
    if ! eval '$CC $CFLAGS $CPPFLAGS -c "$srcdir/$[]1" -o "$ax_xray_o"' >&AS_MESSAGE_LOG_FD 2>&1; then
      rm -f "$ax_xray_o"
      echo "unknown ($[]1 does not compile with $CC $CFLAGS; see config.log)"; return
    fi
    echo "$ax_xray_said" >"$ax_xray_o.cmd"
  fi
  ax_xray_r=`"$ax_xray_icsim" "$ax_xray_o" "$[]2" $ax_xray_s $ax_xray_w $ax_xray_l 2>&AS_MESSAGE_LOG_FD`
  case $ax_xray_r in
    yes|no) echo "$ax_xray_r" ;;
    unknown:*) echo "unknown (`echo "$ax_xray_r" | sed 's/^unknown: //'`)" ;;
    *) echo "unknown (xray-icsim failed; see config.log)" ;;
  esac
}
])
